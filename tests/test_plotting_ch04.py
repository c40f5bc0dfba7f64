"""The plot of notebook 04: curves over vocabulary size, each series on its own sizes."""

import matplotlib.pyplot as plt
import pytest

from tutorial_lib import plotting

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_vocab_size_curves_draw_each_series_on_its_own_sizes_with_power_of_two_ticks():
    fig = plotting.vocab_size_curves({"英文": ([256, 1024, 7910], [1.0, 3.1, 4.1]), "中文": ([256, 8192], [0.2, 0.5])},
                                     title="压缩率", ylabel="字节/token", percent=True)
    (ax,) = fig.axes
    english, chinese = ax.get_lines()
    assert list(english.get_xdata()) == [256, 1024, 7910] and list(chinese.get_ydata()) == [20.0, 50.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["256", "512", "1K", "2K", "4K", "8K"]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    plt.close(fig)


def test_vocab_size_curves_refuse_bad_series():
    with pytest.raises(ValueError, match="series"):
        plotting.vocab_size_curves({}, title="t", ylabel="y")
    with pytest.raises(ValueError, match="same length|sizes"):
        plotting.vocab_size_curves({"a": ([256, 512], [1.0])}, title="t", ylabel="y")
