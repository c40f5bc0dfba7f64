"""The plots of notebook 07: mask heatmaps and line charts draw what they are given and refuse bad data."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tutorial_lib import plotting
from tutorial_lib.packing.batch import causal_padding_mask

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_mask_heatmaps_draw_one_panel_per_mask_with_the_tokens_on_both_axes():
    allowed = causal_padding_mask([[1, 1, 0]])[0]
    fig = plotting.mask_heatmaps({"因果": np.tril(np.ones((3, 3), bool)), "因果 + 填充": allowed}, [0, 0, -1],
                                 title="掩码", labels=["i", "love", "<pad>"])
    left, right = fig.axes
    assert [ax.get_title() for ax in fig.axes] == ["因果\n允许 6 格，其中跨文档 0 格", "因果 + 填充\n允许 5 格，其中跨文档 0 格"]
    assert [t.get_text() for t in right.get_xticklabels()] == ["i", "love", "<pad>"]
    plt.close(fig)


def test_line_chart_draws_percentages_on_a_log2_axis():
    fig = plotting.line_chart([1, 2, 4], {"随机": [0.0, 0.25, 0.5], "分桶": [0.0, 0.05, 0.1]}, title="t",
                              xlabel="批大小", ylabel="填充（%）", logx=True, percent=True)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4"]
    assert ax.lines[0].get_ydata().tolist() == [0.0, 25.0, 50.0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["随机", "分桶"]
    plt.close(fig)


@pytest.mark.parametrize(
    "draw, error, words",
    [
        (lambda: plotting.mask_heatmaps({}, title="t"), ValueError, "at least one"),
        (lambda: plotting.mask_heatmaps({"m": [[0, 2]]}, title="t"), ValueError, "masks['m'] must be a 2-D array of bool or 0/1"),
        (lambda: plotting.mask_heatmaps({"m": [1, 0]}, title="t"), ValueError, "got shape (2,)"),
        (lambda: plotting.mask_heatmaps({"m": [[1, 0], [1, 1]]}, title="t", labels=["a"]), ValueError,
         "labels and doc_ids must have the same length"),
        (lambda: plotting.line_chart([1, 2], {"a": [1]}, title="t", xlabel="x", ylabel="y"), ValueError,
         "must have the same length"),
        (lambda: plotting.line_chart([1], {}, title="t", xlabel="x", ylabel="y"), ValueError, "at least one"),
        (lambda: plotting.line_chart([1], {"a": [1]}, title="t", xlabel="x", ylabel="y", logx=1), TypeError,
         "logx must be True or False"),
    ],
)
def test_bad_data_raises_a_clear_error(draw, error, words):
    with pytest.raises(error) as info:
        draw()
    assert words in str(info.value)
