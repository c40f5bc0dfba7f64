"""Chapter 10's plot: the .bin as byte ranges with the .idx pointers under them."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

from tutorial_lib import plotting

pytestmark = pytest.mark.usefixtures("chinese_figures")


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


def test_sample_documents_one_panel_per_method_and_a_line_per_boundary():
    ids = np.array([[0, 0, 1, 1], [1, 2, 2, -1]])
    fig = plotting.sample_documents({"甲": ids, "乙": ids[:1]}, title="样本")
    top, bottom = fig.axes[:2]
    assert [top.get_title(), bottom.get_title()] == ["甲", "乙"]
    assert len(top.collections[0].get_segments()) == 3  # 0|1, 1|2, 2|padding
    assert len(bottom.collections[0].get_segments()) == 1
    plt.close(fig)


def test_sample_documents_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one"):
        plotting.sample_documents({}, title="x")
    with pytest.raises(ValueError, match="2-D"):
        plotting.sample_documents({"a": np.array([0, 1])}, title="x")
