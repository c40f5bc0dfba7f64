"""Chapter 13's figure draws each token's span as a box and marks the partial-character tokens."""

import matplotlib.colors as mcolors
import matplotlib.pyplot as plt
import pytest

from tutorial_lib.show import palette
from tutorial_lib.show.plotting.contract import offset_boxes

pytestmark = pytest.mark.usefixtures("chinese_figures")


def texts(ax):
    return [t.get_text() for t in ax.texts]


def test_one_box_per_token_and_the_partial_ones_hatched_in_the_cut_colour():
    # "a你🙂": "a" whole, "你" whole, the emoji's 4 bytes in two tokens that share it
    fig = offset_boxes("a你🙂", [(0, 1), (1, 2), (2, 3), (2, 3)], [False, False, True, True],
                       title="偏移", ids=[97, 1234, 240, 159])
    (ax,) = fig.axes
    boxes = ax.patches
    assert len(boxes) == 4
    cut = mcolors.to_rgba(palette.CUT)
    assert [tuple(b.get_edgecolor()) == cut for b in boxes] == [False, False, True, True]
    assert [bool(b.get_hatch()) for b in boxes] == [False, False, True, True]
    # the two tokens of the emoji stack in two lanes under the same cells
    assert boxes[2].get_x() == boxes[3].get_x() and boxes[2].get_y() != boxes[3].get_y()
    # "你" and the emoji take two cells, "a" one
    assert boxes[1].get_width() == pytest.approx(2 * boxes[0].get_width() + 0.12)
    assert "U+1F642" in texts(ax) and "你" in texts(ax) and "1234" in texts(ax)
    assert ax.get_title() == "偏移"
    plt.close(fig)


def test_whitespace_is_visible_and_a_long_text_wraps_into_rows():
    text = "x = 1\n" + "汉" * 30
    fig = offset_boxes(text, [(0, 6), (6, 36)], [False, False], title="t", columns=10)
    (ax,) = fig.axes
    assert "␣" in texts(ax) and "\\n" in texts(ax)
    # the second token's 30 wide characters fill 6 rows of 5: one box per row
    assert len(ax.patches) == 1 + 6
    plt.close(fig)


@pytest.mark.parametrize("args, error, words", [
    (("abc", [(0, 4)], [False]), ValueError, "spans[0] end"),
    (("abc", [(2, 1)], [False]), ValueError, "spans[0] end"),
    (("abc", [(0, 1)], []), ValueError, "one bool per span"),
    (("abc", [(0, 1)], [1]), TypeError, "partial[0]"),
    (("abc", [(0, 1, 2)], [False]), ValueError, "(start, end) pair"),
    (("abc", {(0, 1)}, [False]), TypeError, "spans"),
    ((b"abc", [(0, 1)], [False]), TypeError, "text"),
])
def test_bad_spans_are_refused_before_drawing(refused_before_drawing, args, error, words):
    refused_before_drawing(lambda: offset_boxes(*args, title="t"), error, words)


def test_bad_ids_and_columns_are_refused(refused_before_drawing):
    refused_before_drawing(lambda: offset_boxes("ab", [(0, 1)], [False], title="t", ids=[1, 2]),
                           ValueError, "one id per span")
    refused_before_drawing(lambda: offset_boxes("ab", [(0, 1)], [False], title="t", columns=2),
                           ValueError, "columns")
