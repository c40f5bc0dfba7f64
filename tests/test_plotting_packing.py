"""The packing chapter's plots: length histograms and the timing plot."""

import matplotlib.pyplot as plt
import pytest

from tutorial_lib import plotting

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_length_histograms_one_line_per_corpus_and_a_mark_per_row_length():
    fig = plotting.length_histograms({"a": [1, 5, 30], "b": [100, 200]}, title="长度", marks=[64, 512])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["a（3 篇）", "b（2 篇）"]
    assert len(ax.lines) == 2 and ax.get_xscale() == "log"
    plt.close(fig)


def test_timing_plot_is_log_log_with_one_line_per_method():
    fig = plotting.timing_plot({"scan": ([10, 100], [0.1, 10.0]), "bfd": ([10, 100, 1000], [0.01, 0.02, 0.1])},
                               title="时间")
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log") and len(ax.lines) == 2
    plt.close(fig)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        plotting.length_histograms({}, title="x")
    with pytest.raises(ValueError, match="must have the same length"):
        plotting.timing_plot({"a": ([1, 2], [0.1])}, title="x")
