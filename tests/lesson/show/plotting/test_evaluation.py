"""The figures of chapter 12 draw what they are given and refuse bad data."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tutorial_lib.show import palette
from tutorial_lib.show.plotting.evaluation import premium_boxes

pytestmark = pytest.mark.usefixtures("chinese_figures")

SERIES = {"cl100k": {"英语": [1.0, 1.0, 1.0], "泰语": [float(k) for k in range(1, 11)]},
          "gpt2": {"英语": [1.0, 1.0], "泰语": [8.0, 9.0, 30.0]}}


def test_premium_boxes_draw_one_box_per_tokenizer_and_language_with_p10_p90_whiskers():
    fig = premium_boxes(SERIES, title="溢价")
    (ax,) = fig.axes
    assert len(ax.patches) == 4  # 2 tokenizers x 2 languages
    assert [t.get_text() for t in ax.get_xticklabels()] == ["英语", "泰语"]
    # cl100k's Thai box, premiums 1..10: P10 = 1.9 and P90 = 9.1, so the whiskers end at the
    # last sentences inside them, 2 and 9; 1 and 10 are dots
    ends = {round(float(y), 6) for line in ax.lines for y in np.ravel(line.get_ydata())}
    assert {2.0, 9.0} <= ends and not {1.9, 9.1} & ends
    boxes = ax.patches
    colours = {tuple(np.round(p.get_facecolor()[:3], 3)) for p in boxes}
    expected = {tuple(np.round(plt.matplotlib.colors.to_rgb(c), 3))
                for c in palette.DOCUMENTS[:2]}
    assert colours == expected
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["cl100k", "gpt2"]
    assert any(line.get_linestyle() == "--" and list(line.get_ydata()) == [1.0, 1.0]
               for line in ax.lines)  # the reference at a premium of 1
    assert ax.get_title() == "溢价" and ax.get_yscale() == "linear"
    plt.close(fig)


def test_premium_boxes_on_a_log_axis_label_round_premiums():
    fig = premium_boxes(SERIES, title="溢价", logy=True, reference=None)
    (ax,) = fig.axes
    fig.canvas.draw()
    assert ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "2", "3", "5", "10", "20", "30"]
    assert not any(line.get_linestyle() == "--" for line in ax.lines)
    plt.close(fig)


@pytest.mark.parametrize("series, error, words", [
    ({}, ValueError, "series must contain at least one"),
    ({"a": {}}, ValueError, "series['a'] must contain at least one"),
    ({"a": {"英语": [1.0]}, "b": {"泰语": [1.0]}}, ValueError, "same languages in the same order"),
    ({"a": {"英语": []}}, ValueError, "must be a non-empty list of premiums"),
    ({"a": {"英语": [0.0, 1.0]}}, ValueError, "premiums > 0"),
    ({"a": {"英语": [1.0, float("nan")]}}, ValueError, "series['a']['英语'][1]"),
    ({"a": [1.0]}, TypeError, "series['a'] must be a dict"),
])
def test_premium_boxes_refuse_bad_series(refused_before_drawing, series, error, words):
    refused_before_drawing(lambda: premium_boxes(series, title="t"), error, words)


def test_premium_boxes_refuse_bad_options(refused_before_drawing):
    refused_before_drawing(lambda: premium_boxes(SERIES, title="t", logy="yes"), TypeError, "logy")
    refused_before_drawing(lambda: premium_boxes(SERIES, title="t", reference=0), ValueError,
                           "reference")


def test_labelled_panels_draws_one_line_per_series_and_labels_every_point():
    from tutorial_lib.show.plotting.evaluation import labelled_panels

    panels = {"a": {"ours": ([1, 2, 3], [3, 2, 1], ["256", "512", "1024"]),
                    "gpt2": ([1.5], [2.5], ["gpt2"])},
              "b": {"ours": ([1, 2, 3], [1, 1, 1], ["x", "y", "z"])}}
    fig = labelled_panels(panels, title="t", xlabel="x", ylabels=["y1", "y2"])
    left, right = fig.axes
    assert len(left.lines) == 2 and len(right.lines) == 1
    assert [t.get_text() for t in left.texts] == ["256", "512", "1024", "gpt2"]
    assert left.lines[0].get_color() == right.lines[0].get_color()


def test_two_lone_points_on_one_spot_are_both_labelled_one_above_the_other():
    """Qwen3.6 and DeepSeek-V4 once fell on the same spot, told apart by nothing but the legend."""
    from tutorial_lib.show.plotting.evaluation import labelled_panels

    fig = labelled_panels({"a": {"Qwen3.6": ([2.0], [4.0], ["Qwen3.6"]),
                                 "DeepSeek-V4": ([2.0], [4.0], ["DeepSeek-V4"])}},
                          title="t", xlabel="x", ylabels=["y"])
    first, second = fig.axes[0].texts
    assert (first.get_text(), second.get_text()) == ("Qwen3.6", "DeepSeek-V4")
    assert first.xyann[1] > 0 > second.xyann[1]


def test_labelled_panels_refuses_ragged_series():
    import pytest

    from tutorial_lib.show.plotting.evaluation import labelled_panels

    with pytest.raises(ValueError, match="as many"):
        labelled_panels({"a": {"s": ([1, 2], [1], ["p", "q"])}}, title="t", xlabel="x",
                        ylabels=["y"])
    with pytest.raises(ValueError, match="ylabels"):
        labelled_panels({"a": {"s": ([1], [1], ["p"])}}, title="t", xlabel="x", ylabels=[])
