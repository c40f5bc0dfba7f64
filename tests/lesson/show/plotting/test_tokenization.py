"""The figures of chapters 01-06 draw what they are given and refuse bad data."""

import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tutorial_lib.show.plotting.tokenization import (coverage_plot, loglog_panels, merge_progress, pair_count_bars, tradeoff_scatter, vocab_size_curves, zipf_plot)

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_vocab_size_curves_draw_each_series_on_its_own_sizes_with_power_of_two_ticks():
    fig = vocab_size_curves({"英文": ([256, 1024, 7910], [1.0, 3.1, 4.1]),
                             "中文": ([256, 8192], [0.2, 0.5])},
                                     title="压缩率", ylabel="字节/token", percent=True)
    (ax,) = fig.axes
    english, chinese = ax.get_lines()
    assert list(english.get_xdata()) == [256, 1024, 7910]
    assert list(chinese.get_ydata()) == [20.0, 50.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["256", "512", "1K", "2K", "4K", "8K"]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    plt.close(fig)


def test_vocab_size_curves_refuse_bad_series():
    with pytest.raises(ValueError, match="series"):
        vocab_size_curves({}, title="t", ylabel="y")
    with pytest.raises(ValueError, match="same length|sizes"):
        vocab_size_curves({"a": ([256, 512], [1.0])}, title="t", ylabel="y")


def test_loglog_panels_draw_one_panel_per_corpus_with_a_shared_y_axis():
    fig = loglog_panels({"英文": {"重数": ([1, 2, 4], [1, 2, 4]), "增量": ([1, 2, 4], [1, 1, 1])},
                         "中文": {"重数": ([1, 2], [3, 6])}}, title="t", xlabel="KB", ylabel="秒")
    left, right = fig.axes
    assert [ax.get_title() for ax in fig.axes] == ["英文", "中文"]
    assert left.get_xscale() == right.get_yscale() == "log"
    assert len(left.lines) == 2 and len(right.lines) == 1
    assert left.get_shared_y_axes().joined(left, right)
    assert left.get_ylabel() == "秒" and fig.texts[0].get_text() == "t"
    plt.close(fig)


def test_loglog_panels_label_the_measured_sizes_and_keep_the_legend_off_the_lines():
    fig = loglog_panels({"英文": {"重数": ([20, 40, 80], [1, 2, 4])},
                         "中文": {"重数": ([20, 40], [3, 6]), "增量": ([20, 40], [1, 1])}},
                        title="t", xlabel="KB", ylabel="秒")
    left, right = fig.axes
    fig.canvas.draw()
    assert [t.get_text() for t in left.get_xticklabels()] == ["20", "40", "80"]
    assert not any(t.get_text() for t in left.get_xticklabels(minor=True))
    assert left.get_legend() is None and right.get_legend() is None
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["重数", "增量"]
    plt.close(fig)


def test_loglog_panels_refuse_bad_data():
    with pytest.raises(ValueError, match="at least one panel"):
        loglog_panels({}, title="t", xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match="same length"):
        loglog_panels({"a": {"s": ([1, 2], [1])}}, title="t", xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match=r"panels\['a'\]\['s'\] y\[0\]"):
        loglog_panels({"a": {"s": ([1], [-1])}}, title="t", xlabel="x", ylabel="y")
    plt.close("all")


def test_zipf_plot_draws_each_series_and_the_reference_without_missing_glyphs():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = zipf_plot({"词": [50, 20, 10, 5, 1], "字符": [9, 3]}, title="齐普夫定律")
        fig.canvas.draw()
    assert not [w for w in caught if "missing from font" in str(w.message)]
    ax = fig.axes[0]
    assert ax.get_xscale() == ax.get_yscale() == "log"
    assert len(ax.get_lines()) == 3 and ax.get_lines()[2].get_ydata()[1] == 25  # 50 / 2
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[0] == "词（5 种）" and legend[2] == "齐普夫定律：频率 ∝ 1/排名"
    plt.close(fig)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = zipf_plot({"词": [9, 3]}, title="t", reference_exponent=1.25)
        fig.canvas.draw()
    assert fig.axes[0].get_legend().get_texts()[1].get_text() == "齐普夫定律：频率 ∝ 1/排名^1.25"
    assert not [w for w in caught if "missing from font" in str(w.message)]
    plt.close(fig)
    fig = zipf_plot({"词": [3, 1]}, title="t", reference_exponent=None)
    assert len(fig.axes[0].get_lines()) == 1
    plt.close(fig)


def test_zipf_plot_bad_arguments():
    with pytest.raises(ValueError, match="series"):
        zipf_plot({}, title="t")
    with pytest.raises(ValueError, match=r"series\['a'\]\[1\] must be an int >= 1, got 0"):
        zipf_plot({"a": [2, 0]}, title="t")


def test_tradeoff_scatter():
    fig = tradeoff_scatter(["字符", "词"], [28, 4345], [30000, 6000], title="取舍")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and [t.get_text() for t in ax.texts] == ["字符", "词"]
    plt.close(fig)
    with pytest.raises(ValueError, match="same length"):
        tradeoff_scatter(["a"], [1, 2], [3], title="t")
    with pytest.raises(ValueError, match=r"vocab_sizes\[0\] must be an int >= 1"):
        tradeoff_scatter(["a"], [0], [3], title="t")
    words = "labels, vocab_sizes, lengths and flagged must have the same length, got 1, 1, 1 and 2"
    with pytest.raises(ValueError, match=words):
        tradeoff_scatter(["a"], [1], [3], title="t", flagged=[True, False])
    fig = tradeoff_scatter(["字符", "词"], [28, 4345], [30000, 6000], title="t",
                           flagged=[False, True])
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["有 OOV"]
    plt.close(fig)


def test_tradeoff_scatter_labels_cover_no_other_label_and_no_point():
    """Chapter 01: two word-level points at the same height had their labels run into each
    other; each label now takes the first free spot around its point."""
    names = ["字符", "词", "词（min_freq=3）", "BPE 256", "BPE 500", "BPE 1000", "BPE 2000",
             "BPE 4000"]
    fig = tradeoff_scatter(names, [28, 4345, 1327, 256, 500, 1000, 2000, 4000],
                           [15830, 3141, 3141, 15830, 7140, 5507, 4662, 4196], title="取舍",
                           flagged=[False, True, True] + [False] * 5,
                           flag_label="有 OOV（会产生 <unk>）")
    ax, renderer = fig.axes[0], fig.canvas.get_renderer()
    assert [t.get_text() for t in ax.texts] == names
    boxes = [t.get_window_extent(renderer).padded(-1, -2) for t in ax.texts]  # the ink
    assert not any(a.overlaps(b) for k, a in enumerate(boxes) for b in boxes[k + 1:])
    dots = ax.transData.transform(list(zip([28, 4345, 1327, 256, 500, 1000, 2000, 4000],
                                           [15830, 3141, 3141, 15830, 7140, 5507, 4662, 4196])))
    assert not any(box.count_contains(dots) for box in boxes)
    plt.close(fig)


def test_coverage_plot_marks_each_level():
    curve = [0.5, 0.8, 0.95, 1.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig = coverage_plot(curve, {0.9: 3, 0.99: 4}, title="字符覆盖率")
        fig.canvas.draw()
    assert not [w for w in caught if "missing from font" in str(w.message)]
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.texts] == ["覆盖 90%：3 个字\n覆盖 99%：4 个字"]
    assert len(ax.get_lines()) == 1 + 2 * 2  # the curve, then a guide and a dot per mark
    assert list(ax.get_lines()[0].get_ydata()) == [50, 80, 95, 100]
    plt.close(fig)
    with pytest.raises(ValueError, match="empty"):
        coverage_plot([], {}, title="t")
    with pytest.raises(ValueError, match=r"marks\[0.9\]"):
        coverage_plot(curve, {0.9: 5}, title="t")


def test_merge_progress_draws_both_axes_and_checks_lengths():
    fig = merge_progress([0, 1, 2], [10, 8, 7], [11, 12, 13], title="合并", mark=1)
    left, right = fig.axes
    assert list(left.lines[0].get_ydata()) == [10, 8, 7]
    assert list(right.lines[0].get_ydata()) == [11, 12, 13]
    plt.close(fig)
    with pytest.raises(ValueError, match="same length"):
        merge_progress([0, 1], [10], [11, 12], title="t")


def test_pair_count_bars_highlights_ties_and_the_chosen_pair():
    fig = pair_count_bars(["e + r", "r + </w>", "l + o"], [9, 9, 7], title="计数", chosen="e + r")
    bars = fig.axes[0].patches
    assert bars[0].get_facecolor() == bars[1].get_facecolor() != bars[2].get_facecolor()
    assert bars[0].get_hatch() == "//" and not bars[1].get_hatch()
    plt.close(fig)
    with pytest.raises(ValueError, match=r"chosen must be one of \['a'\], got 'b'"):
        pair_count_bars(["a"], [1], title="t", chosen="b")


# --- bad data: a clear error naming the argument, never a half-drawn figure -----------------------

NAN = float("nan")


@pytest.mark.parametrize(
    "draw, error, words",
    [
        (lambda: zipf_plot({"x": [3.5, None]}, title="t"), TypeError,
         "series['x'][0] must be an int >= 1"),
        (lambda: zipf_plot({"x": [3, None]}, title="t"), TypeError,
         "series['x'][1] must be an int >= 1"),
        (lambda: zipf_plot({"x": [3, NAN]}, title="t"), TypeError, "series['x'][1] must be an int"),
        (lambda: zipf_plot({"x": []}, title="t"), ValueError,
         "series['x'] must be a non-empty list"),
        (lambda: zipf_plot({"x": [1, 5]}, title="t"), ValueError,
         "from the most to the least frequent"),
        (lambda: zipf_plot([[3, 1]], title="t"), TypeError, "series must be a dict"),
        (lambda: zipf_plot({"x": [3]}, title="t", reference_exponent=NAN), ValueError,
         "reference_exponent must be a finite number > 0"),
        (lambda: merge_progress([0, 1], [10, 8.5], [11, 12], title="t"), TypeError,
         "tokens[1] must be an int"),
        (lambda: merge_progress([0, 1], [10, 8], [11], title="t"), ValueError,
         "merges, tokens and vocab must have the same length, got 2, 2 and 1"),
        (lambda: merge_progress([0], [10], [11], title="t", mark=1.5), TypeError,
         "mark must be an int"),
        (lambda: pair_count_bars(["a", "b"], [3, None], title="t"), TypeError,
         "counts[1] must be an int"),
        (lambda: pair_count_bars(["a", "b"], [3], title="t"), ValueError,
         "labels and counts must have the same length, got 2 and 1"),
        (lambda: tradeoff_scatter(["a"], [10], [NAN], title="t"), TypeError,
         "lengths[0] must be an int"),
        (lambda: tradeoff_scatter(["a"], [10], [3], title="t", flagged=["yes"]), TypeError,
         "flagged[0] must be True or False"),
        (lambda: coverage_plot([0.5, NAN], {}, title="t"), ValueError,
         "curve[1] must be a finite number"),
        (lambda: coverage_plot([0.5, 1.5], {}, title="t"), ValueError,
         "curve[1] must be a finite number in [0, 1]"),
        (lambda: coverage_plot([0.5, 1.0], {0.9: 1.5}, title="t"), TypeError,
         "marks[0.9] must be an int"),
        (lambda: coverage_plot([0.5, 1.0], {NAN: 1}, title="t"), ValueError, "each key of marks"),
    ],
)
def test_bad_data_raises_a_clear_error(draw, error, words, refused_before_drawing):
    refused_before_drawing(draw, error, words)


def test_numpy_inputs_are_accepted():
    fig = zipf_plot({"词": np.array([5, 3, 1])}, title="t")
    assert list(fig.axes[0].get_lines()[0].get_ydata()) == [5, 3, 1]
    plt.close(fig)


def test_lattice_plot_draws_one_arc_per_edge_and_labels_the_path():
    from matplotlib.patches import Arc

    from tutorial_lib.show.plotting.tokenization import lattice_plot

    fig = lattice_plot("时候", [(0, 1), (0, 2), (1, 2)], [(0, 2)], title="网格")
    (ax,) = fig.axes
    arcs = [p for p in ax.patches if isinstance(p, Arc)]
    assert len(arcs) == 3
    assert [a.get_linewidth() for a in arcs].count(2.4) == 1  # the one path edge is thick
    assert "时候" in [t.get_text() for t in ax.texts]  # the path's piece is labelled
    plt.close(fig)


def test_lattice_plot_refuses_edges_outside_the_text():
    from tutorial_lib.show.plotting.tokenization import lattice_plot

    with pytest.raises(ValueError, match="end"):
        lattice_plot("ab", [(0, 3)], [], title="t")
    with pytest.raises(ValueError, match="text"):
        lattice_plot("", [], [], title="t")


def test_em_curves_plot_each_run_and_mark_the_rounds():
    from tutorial_lib.show.plotting.tokenization import em_curves

    steps = [(0, 100, -3.0), (0, 100, -2.5), (1, 75, -2.7), (1, 75, -2.6)]
    fig = em_curves({"a": steps, "b": steps[:3]}, title="t", ylabel="y")
    top, bottom = fig.axes
    lines = [ln for ln in top.get_lines() if len(ln.get_xdata()) > 2]
    assert [list(ln.get_ydata()) for ln in lines] == [[-3.0, -2.5, -2.7, -2.6], [-3.0, -2.5, -2.7]]
    guides = [ln for ln in top.get_lines() if len(ln.get_xdata()) == 2]
    assert len(guides) == 1 and guides[0].get_xdata()[0] == 2.5  # round 1 starts at step 3
    assert bottom.get_yscale() == "log"
    plt.close(fig)
    with pytest.raises(ValueError, match="runs"):
        em_curves({}, title="t", ylabel="y")
