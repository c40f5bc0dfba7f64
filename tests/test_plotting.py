import warnings

import matplotlib
import matplotlib.pyplot as plt
import pytest

from tutorial_lib import plotting


def glyph_warnings(title: str) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots()
        ax.set_title(title)
        ax.plot([-2, -1, 0], [0, -1, -2])
        fig.canvas.draw()
        plt.close(fig)
    return [str(w.message) for w in caught if "missing from font" in str(w.message)]


@pytest.fixture(autouse=True)
def restore_rcparams():
    with matplotlib.rc_context():
        yield


def test_the_check_detects_missing_glyphs():
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["font.sans-serif"] = ["DejaVu Sans"]
    assert glyph_warnings("中文标题")  # DejaVu has no Han glyphs: the detector must see that


@pytest.mark.parametrize("prefer_system", [True, False])
def test_chinese_title_renders_without_missing_glyphs(prefer_system):
    family = plotting.setup_chinese(prefer_system=prefer_system)
    assert family
    assert glyph_warnings("词表大小与序列长度：−1 和 -2") == []


def test_bundled_font_is_the_ofl_noto_file():
    path = plotting.bundled_font_path()
    assert path.name == "NotoSansSC-Regular.ttf"
    assert "Open Font License" in (path.parent / "OFL.txt").read_text(encoding="utf-8")


def test_bar_chart_checks_lengths():
    plotting.setup_chinese()
    with pytest.raises(ValueError, match="same length"):
        plotting.bar_chart(["a", "b"], [1.0], title="t", ylabel="y")
    fig = plotting.bar_chart(["中", "英"], [1.0, 0.5], title="标题", ylabel="比例", reference=1.0)
    assert fig.axes[0].get_title() == "标题"
    plt.close(fig)


# --- 01 字符、词与子词 ------------------------------------------------------------------------------------


def test_zipf_plot_draws_each_series_and_the_reference_without_missing_glyphs():
    plotting.setup_chinese()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plotting.zipf_plot({"词": [50, 20, 10, 5, 1], "字符": [9, 3]}, title="齐普夫定律")
        fig.canvas.draw()
    assert not [w for w in caught if "missing from font" in str(w.message)]
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert len(ax.get_lines()) == 3 and ax.get_lines()[2].get_ydata()[1] == 25  # 50 / 2
    assert [t.get_text() for t in ax.get_legend().get_texts()][0] == "词（5 种）"
    plt.close(fig)
    fig = plotting.zipf_plot({"词": [3, 1]}, title="t", reference_exponent=None)
    assert len(fig.axes[0].get_lines()) == 1
    plt.close(fig)


def test_zipf_plot_bad_arguments():
    with pytest.raises(ValueError, match="series"):
        plotting.zipf_plot({}, title="t")
    with pytest.raises(ValueError, match="positive counts"):
        plotting.zipf_plot({"a": [2, 0]}, title="t")


def test_tradeoff_scatter():
    plotting.setup_chinese()
    fig = plotting.tradeoff_scatter(["字符", "词"], [28, 4345], [30000, 6000], title="取舍")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and [t.get_text() for t in ax.texts] == ["字符", "词"]
    plt.close(fig)
    with pytest.raises(ValueError, match="same length"):
        plotting.tradeoff_scatter(["a"], [1, 2], [3], title="t")
    with pytest.raises(ValueError, match="positive"):
        plotting.tradeoff_scatter(["a"], [0], [3], title="t")
    with pytest.raises(ValueError, match="flagged"):
        plotting.tradeoff_scatter(["a"], [1], [3], title="t", flagged=[True, False])
    fig = plotting.tradeoff_scatter(["字符", "词"], [28, 4345], [30000, 6000], title="t", flagged=[False, True])
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["有 OOV"]
    plt.close(fig)


# --- 03 中文语料 -----------------------------------------------------------------------------------------


def test_coverage_plot_marks_each_level():
    plotting.setup_chinese()
    curve = [0.5, 0.8, 0.95, 1.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = plotting.coverage_plot(curve, {0.9: 3, 0.99: 4}, title="字符覆盖率")
        fig.canvas.draw()
    assert not [w for w in caught if "missing from font" in str(w.message)]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.texts] == ["覆盖 90%：3 个字\n覆盖 99%：4 个字"]
    assert len(ax.get_lines()) == 1 + 2 * 2  # the curve, then a guide and a dot per mark
    assert list(ax.get_lines()[0].get_ydata()) == [50, 80, 95, 100]
    plt.close(fig)
    with pytest.raises(ValueError, match="empty"):
        plotting.coverage_plot([], {}, title="t")
    with pytest.raises(ValueError, match=r"marks\[0.9\]"):
        plotting.coverage_plot(curve, {0.9: 5}, title="t")


def test_grouped_bar_chart():
    plotting.setup_chinese()
    fig = plotting.grouped_bar_chart(["甲", "乙", "丙"], {"鲁迅": [1.0, 1.3, 0.8], "FLORES": [1.1, 1.0, 0.9]},
                                     title="每 token 字符数", ylabel="字符/token")
    ax = fig.axes[0]
    assert len(ax.patches) == 6 and [t.get_text() for t in ax.get_legend().get_texts()] == ["鲁迅", "FLORES"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["甲", "乙", "丙"]
    plt.close(fig)
    with pytest.raises(ValueError, match="at least one"):
        plotting.grouped_bar_chart(["a"], {}, title="t", ylabel="y")
    with pytest.raises(ValueError, match="one value per label"):
        plotting.grouped_bar_chart(["a", "b"], {"s": [1.0]}, title="t", ylabel="y")


def test_merge_progress_draws_both_axes_and_checks_lengths():
    plotting.setup_chinese()
    fig = plotting.merge_progress([0, 1, 2], [10, 8, 7], [11, 12, 13], title="合并", mark=1)
    left, right = fig.axes
    assert list(left.lines[0].get_ydata()) == [10, 8, 7] and list(right.lines[0].get_ydata()) == [11, 12, 13]
    plt.close(fig)
    with pytest.raises(ValueError, match="same length"):
        plotting.merge_progress([0, 1], [10], [11, 12], title="t")


def test_pair_count_bars_highlights_ties_and_the_chosen_pair():
    plotting.setup_chinese()
    fig = plotting.pair_count_bars(["e + r", "r + </w>", "l + o"], [9, 9, 7], title="计数", chosen="e + r")
    bars = fig.axes[0].patches
    assert bars[0].get_facecolor() == bars[1].get_facecolor() != bars[2].get_facecolor()
    assert bars[0].get_hatch() == "//" and not bars[1].get_hatch()
    plt.close(fig)
    with pytest.raises(ValueError, match="chosen must be one of labels"):
        plotting.pair_count_bars(["a"], [1], title="t", chosen="b")
