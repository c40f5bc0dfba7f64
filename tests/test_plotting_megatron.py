"""Chapter 10's plot: the .bin as byte ranges with the .idx pointers under them."""

import matplotlib
import matplotlib.pyplot as plt
import pytest

from tutorial_lib import plotting


@pytest.fixture(autouse=True)
def chinese_font():
    with matplotlib.rc_context():
        plotting.setup_chinese()
        yield


def test_bin_layout_one_box_per_sequence_and_the_pointers_in_bytes():
    fig = plotting.bin_layout([3, 5, 2], 2, title="布局")
    ax = fig.axes[0]
    assert [(p.get_x(), p.get_width()) for p in ax.patches] == [(0, 6), (6, 10), (16, 4)]
    assert [t.get_text() for t in ax.texts if "\n" not in t.get_text()] == ["0", "6", "16"]
    assert ax.get_xlim() == (0, 20)
    plt.close(fig)


def test_bin_layout_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        plotting.bin_layout([], 2, title="x")
    with pytest.raises(ValueError):
        plotting.bin_layout([1], 0, title="x")
