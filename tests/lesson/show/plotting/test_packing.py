"""The figures of chapters 07-10 draw what they are given and refuse bad data."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest

from tutorial_lib.show import palette
from tutorial_lib.packing import masks as dm
from tutorial_lib.packing.masks import PAD_DOC, causal_mask, causal_padding_mask
from tutorial_lib.show.plotting import line_chart
from tutorial_lib.show.plotting.packing import (bin_layout, length_histograms, mask_heatmaps, padding_curves, sample_documents, timing_plot)

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_mask_heatmaps_draw_one_panel_per_mask_with_the_tokens_on_both_axes():
    allowed = causal_padding_mask([[1, 1, 0]])[0]
    fig = mask_heatmaps({"因果": causal_mask(3), "因果 + 填充": allowed}, [0, 0, PAD_DOC],
                                 title="掩码", labels=["i", "love", "<pad>"])
    left, right = fig.axes
    assert [ax.get_title() for ax in fig.axes] == ["因果\n允许 6 格，其中跨文档 0 格", "因果 + 填充\n允许 5 格，其中跨文档 0 格"]
    assert [t.get_text() for t in right.get_xticklabels()] == ["i", "love", "<pad>"]
    plt.close(fig)


def test_the_mask_legend_covers_no_label():
    """Rotated token labels on three panels once reached below the space left for the legend."""
    fig = mask_heatmaps({name: causal_mask(5) for name in "abc"}, [0, 0, 0, PAD_DOC, PAD_DOC], title="t",
                        labels=["i", "love", "cats", "<pad>", "<pad>"])
    renderer = fig.canvas.get_renderer()
    legend = fig.legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        for text in [ax.xaxis.label, *ax.get_xticklabels()]:
            assert not legend.overlaps(text.get_window_extent(renderer)), text.get_text()
    plt.close(fig)


def test_padding_curves_keep_coinciding_lines_visible_and_the_legend_off_the_data():
    fig = padding_curves([1, 2, 4], {"分桶，桶宽 1": [0.0, 0.0, 0.0], "全局排序": [0.0, 0.0, 0.01],
                                     "随机": [0.0, 0.2, 0.4]}, title="t", xlabel="批大小")
    ax = fig.axes[0]
    assert len({line.get_linestyle() for line in ax.lines}) == 3
    sizes = [line.get_markersize() for line in ax.lines]
    assert sizes == sorted(sizes) and len(set(sizes)) == 3  # each drawn hollow around the one before
    assert all(line.get_markerfacecolor() == "none" for line in ax.lines)
    renderer = fig.canvas.get_renderer()
    assert ax.get_legend().get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1
    assert ax.lines[2].get_ydata().tolist() == [0.0, 20.0, 40.0]
    plt.close(fig)


def test_line_chart_draws_percentages_on_a_log2_axis():
    fig = line_chart([1, 2, 4], {"随机": [0.0, 0.25, 0.5], "分桶": [0.0, 0.05, 0.1]}, title="t",
                              xlabel="批大小", ylabel="填充（%）", logx=True, percent=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4"]
    assert ax.lines[0].get_ydata().tolist() == [0.0, 25.0, 50.0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["随机", "分桶"]
    plt.close(fig)


@pytest.mark.parametrize(
    "draw, error, words",
    [
        (lambda: mask_heatmaps({}, title="t"), ValueError, "at least one"),
        (lambda: mask_heatmaps({"m": [[0, 2]]}, title="t"), ValueError, "masks['m'] must be a 2-D array of bool or 0/1"),
        (lambda: mask_heatmaps({"m": [1, 0]}, title="t"), ValueError, "got shape (2,)"),
        (lambda: mask_heatmaps({"m": [[1, 0], [1, 1]]}, title="t", labels=["a"]), ValueError,
         "labels and doc_ids must have the same length"),
        (lambda: line_chart([1, 2], {"a": [1]}, title="t", xlabel="x", ylabel="y"), ValueError,
         "must have the same length"),
        (lambda: line_chart([1], {}, title="t", xlabel="x", ylabel="y"), ValueError, "at least one"),
        (lambda: line_chart([1], {"a": [1]}, title="t", xlabel="x", ylabel="y", logx=1), TypeError,
         "logx must be True or False"),
    ],
)
def test_bad_data_raises_a_clear_error(draw, error, words):
    with pytest.raises(error) as info:
        draw()
    assert words in str(info.value)


def test_heatmap_titles_count_allowed_and_cross_document_cells():
    ids = [0, 0, 1, PAD_DOC]
    masks = {"因果": causal_mask(4), "因果 + 填充": dm.row_mask(ids, "causal_padding"),
             "文档": dm.document_mask(ids)}
    fig = mask_heatmaps(masks, ids, title="t")
    titles = [ax.get_title() for ax in fig.axes]
    # keys only: the padding query keeps its 3 real keys, so 9 of the causal mask's 10 cells stay
    assert titles == ["因果\n允许 10 格，其中跨文档 2 格", "因果 + 填充\n允许 9 格，其中跨文档 2 格",
                      "文档\n允许 4 格，其中跨文档 0 格"]
    plt.close(fig)


def test_heatmap_cells_are_coloured_by_the_library_classification():
    ids = [0, 0, 1, PAD_DOC]
    mask = dm.row_mask(ids, "causal_padding")
    fig = mask_heatmaps({"m": mask}, ids, title="t")
    image = fig.axes[0].get_images()[0]
    drawn = image.cmap(image.norm(image.get_array()))[..., :3]
    kinds = dm.mask_cells(ids, mask).kinds
    expected = {dm.BLOCKED: palette.BLOCKED, dm.LEAK: palette.LEAK, PAD_DOC: palette.PADDING,
                0: palette.DOCUMENTS[0], 1: palette.DOCUMENTS[1]}
    for (i, j), kind in np.ndenumerate(kinds):
        assert np.allclose(drawn[i, j], matplotlib.colors.to_rgb(expected[kind])), (i, j)
    plt.close(fig)


@pytest.mark.parametrize("masks, error", [
    ({"m": np.ones((3, 3), dtype=bool)}, ValueError),  # wrong shape for 4 positions
    ({"m": np.full((4, 4), 2)}, ValueError),  # neither bool nor 0/1
    ({"m": [[True]]}, ValueError),  # one position, the row has four
    ([np.ones((4, 4), dtype=bool)], TypeError),
])
def test_heatmap_refuses_masks_that_do_not_fit(masks, error):
    with pytest.raises(error):
        mask_heatmaps(masks, [0, 0, 1, -1], title="t")


def test_bin_layout_one_box_per_sequence_and_the_pointers_in_bytes():
    fig = bin_layout([3, 5, 2], 2, title="布局")
    ax = fig.axes[0]
    assert [(p.get_x(), p.get_width()) for p in ax.patches] == [(0, 6), (6, 10), (16, 4)]
    assert [t.get_text() for t in ax.texts if "\n" not in t.get_text()] == ["0", "6", "16"]
    assert ax.get_xlim() == (0, 20)
    plt.close(fig)


def test_bin_layout_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        bin_layout([], 2, title="x")
    with pytest.raises(ValueError):
        bin_layout([1], 0, title="x")


def test_sample_documents_one_panel_per_method_and_a_line_per_boundary():
    ids = np.array([[0, 0, 1, 1], [1, 2, 2, PAD_DOC]])
    fig = sample_documents({"甲": ids, "乙": ids[:1]}, title="样本")
    top, bottom = fig.axes[:2]
    assert [top.get_title(), bottom.get_title()] == ["甲", "乙"]
    assert len(top.collections[0].get_segments()) == 3  # 0|1, 1|2, 2|padding
    assert len(bottom.collections[0].get_segments()) == 1
    plt.close(fig)


def test_sample_documents_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        sample_documents({}, title="x")
    with pytest.raises(ValueError, match="2-D"):
        sample_documents({"a": np.array([0, 1])}, title="x")


def test_length_histograms_one_line_per_corpus_and_a_mark_per_row_length():
    fig = length_histograms({"a": [1, 5, 30], "b": [100, 200]}, title="长度", marks=[64, 512])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a（3 篇）", "b（2 篇）"]
    assert len(ax.lines) == 2 and (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    assert ax.get_ylim()[0] < 1  # a bin of one document (the tail past a row length) stays visible
    plt.close(fig)


def test_timing_plot_is_log_log_with_one_line_per_method():
    fig = timing_plot({"scan": ([10, 100], [0.1, 10.0]), "bfd": ([10, 100, 1000], [0.01, 0.02, 0.1])},
                               title="时间")
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log") and len(ax.lines) == 2
    plt.close(fig)


def test_a_long_method_name_goes_under_the_axes_and_leaves_their_width():
    """Chapter 08's timing plot: beside the axes, a legend with a long name took half the figure."""
    series = {"bfd": ([10, 100], [0.01, 0.1])}
    scan = "strategies.ffd_scan（朴素扫描；做完练习 5 换成你的）"
    short = timing_plot(series, title="时间")
    long = timing_plot({scan: ([10, 100], [0.1, 10.0]), **series}, title="时间")
    width = {name: fig.axes[0].get_window_extent(fig.canvas.get_renderer()).width
             for name, fig in [("short", short), ("long", long)]}
    assert width["long"] >= width["short"] * 0.95
    renderer = long.canvas.get_renderer()
    legend, axes = long.legends[0].get_window_extent(renderer), long.axes[0].get_tightbbox(renderer)
    assert legend.y1 <= axes.y0 and [t.get_text() for t in long.legends[0].get_texts()][1] == "bfd"
    plt.close(short)
    plt.close(long)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        length_histograms({}, title="x")
    with pytest.raises(ValueError, match="must have the same length"):
        timing_plot({"a": ([1, 2], [0.1])}, title="x")
