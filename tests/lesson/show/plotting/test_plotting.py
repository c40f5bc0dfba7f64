"""Chinese labels on any machine, and the charts both halves draw (bad data refused)."""

import math
import warnings

import matplotlib
import matplotlib.pyplot as plt
import pytest

from tutorial_lib.show.plotting import (bar_chart, bundled_font_path, grouped_bar_chart, line_chart,
                                        setup_chinese)
from tutorial_lib.show.plotting.packing import length_histograms


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
    family = setup_chinese(prefer_system=prefer_system)
    assert family
    assert glyph_warnings("词表大小与序列长度：−1 和 -2") == []


def test_bundled_font_is_the_ofl_noto_file():
    path = bundled_font_path()
    assert path.name == "NotoSansSC-Regular.ttf"
    assert "Open Font License" in (path.parent / "OFL.txt").read_text(encoding="utf-8")


def test_bar_chart_checks_lengths():
    setup_chinese()
    with pytest.raises(ValueError, match="same length"):
        bar_chart(["a", "b"], [1.0], title="t", ylabel="y")
    fig = bar_chart(["中", "英"], [1.0, 0.5], title="标题", ylabel="比例", reference=1.0)
    assert fig.axes[0].get_title() == "标题"
    plt.close(fig)


def test_grouped_bar_chart():
    setup_chinese()
    fig = grouped_bar_chart(["甲", "乙", "丙"],
                            {"鲁迅": [1.0, 1.3, 0.8], "FLORES": [1.1, 1.0, 0.9]},
                                     title="每 token 字符数", ylabel="字符/token")
    ax = fig.axes[0]
    assert len(ax.patches) == 6
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["鲁迅", "FLORES"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["甲", "乙", "丙"]
    plt.close(fig)
    with pytest.raises(ValueError, match="at least one"):
        grouped_bar_chart(["a"], {}, title="t", ylabel="y")
    words = r"labels and series\['s'\] must have the same length, got 2 and 1"
    with pytest.raises(ValueError, match=words):
        grouped_bar_chart(["a", "b"], {"s": [1.0]}, title="t", ylabel="y")


# --- bad data: a clear error naming the argument, never a half-drawn figure -----------------------

NAN = float("nan")


def _touching(fig, texts) -> bool:
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in texts if t.get_text()]
    return any(a.overlaps(b) for k, a in enumerate(boxes) for b in boxes[k + 1:])


def test_long_names_and_close_values_are_kept_apart():
    """Chapter 03's chart: eight long tokenizer names ran into each other under the axis, and the
    values on the two bars of a group touched."""
    setup_chinese()
    names = ["字节 BPE·GPT-2 切分", "字节 BPE·单字切分", "SentencePiece BPE",
             "SentencePiece Unigram", "cl100k", "Qwen2.5", "Qwen3.6", "DeepSeek-V4"]
    fig = grouped_bar_chart(names, {
        "鲁迅·留出部分": [1.33, 1.02, 1.32, 1.27, 0.78, 1.32, 1.43, 1.44],
        "FLORES zho_Hans": [1.04, 0.97, 1.04, 1.03, 0.85, 1.56, 1.72, 1.70]},
        title="每 token 字符数", ylabel="字符/token")
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    ticks = ax.get_xticklabels()
    # slanted, each ending at its own tick: parallel strips, apart if the ticks are far enough
    assert {(t.get_ha(), t.get_rotation_mode()) for t in ticks} == {("right", "anchor")}
    tick_xs = ax.transData.transform([(x, 0) for x in range(len(names))])[:, 0]
    line = ticks[0].get_fontsize() * fig.dpi / 72 * 1.2
    assert all(0 <= t.get_window_extent(renderer).x1 - x < line for t, x in zip(ticks, tick_xs))
    assert (tick_xs[1] - tick_xs[0]) * math.sin(math.radians(ticks[0].get_rotation())) > line
    assert not _touching(fig, ax.texts)  # the values on the bars
    assert 6.5 < fig.get_figwidth() <= 10
    plt.close(fig)


def test_a_chart_whose_labels_are_apart_is_left_as_it_is():
    setup_chinese()
    fig = grouped_bar_chart(["甲", "乙", "丙"],
                            {"鲁迅": [1.0, 1.3, 0.8], "FLORES": [1.1, 1.0, 0.9]}, title="t",
                            ylabel="y")
    assert fig.get_figwidth() == 6.5
    assert {t.get_ha() for t in fig.axes[0].get_xticklabels()} == {"center"}
    plt.close(fig)


@pytest.mark.parametrize(
    "draw, error, words",
    [
        (lambda: bar_chart(["a", "b"], [1.0, NAN], title="t", ylabel="y"), ValueError,
         "values[1] must be a finite number, got nan"),
        (lambda: bar_chart(["a", "b"], [1.0, None], title="t", ylabel="y"), TypeError,
         "values[1] must be a finite number, got NoneType None"),
        (lambda: bar_chart(["a", None], [1.0, 2.0], title="t", ylabel="y"), TypeError,
         "labels[1] must be a str"),
        (lambda: bar_chart(["a", "b"], [1.0], title="t", ylabel="y"), ValueError,
         "labels and values must have the same length, got 2 and 1"),
        (lambda: bar_chart(["a"], [1.0], title="t", ylabel="y", reference=NAN), ValueError,
         "reference must be a finite number"),
        (lambda: grouped_bar_chart(["a"], {"s": [None]}, title="t", ylabel="y"), TypeError,
         "series['s'][0] must be a finite number"),
        (lambda: grouped_bar_chart(["a"], [1.0], title="t", ylabel="y"), TypeError,
         "series must be a dict"),
    ],
)
def test_bad_data_raises_a_clear_error(draw, error, words, refused_before_drawing):
    refused_before_drawing(draw, error, words)


def test_numpy_inputs_are_accepted():
    import numpy as np

    setup_chinese()
    fig = bar_chart(["a", "b"], np.array([0.5, 1.5]), title="t", ylabel="y")
    plt.close(fig)


@pytest.mark.parametrize("draw", [
    lambda: grouped_bar_chart(["a", "b"], {"x": [1.0, 9.0], "y": [9.0, 1.0]}, title="t", ylabel="y"),
    lambda: line_chart([1, 2, 3], {"x": [1.0, 2.0, 9.0], "y": [9.0, 2.0, 1.0]}, title="t",
                       xlabel="x", ylabel="y"),
    lambda: length_histograms({"a": [1, 2, 2, 3], "b": [5, 50, 500]}, title="t", marks=[64]),
])
def test_a_legend_sits_beside_the_axes_never_over_the_data(draw):
    """A legend inside the axes once hid the tallest bars, the last marker and a histogram's peak."""
    setup_chinese()  # the histogram's axis labels are Chinese
    fig = draw()
    ax = fig.axes[0]
    renderer = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    plt.close(fig)
