"""The figures of chapters 04 and 06 draw what they are given and refuse bad data."""

import matplotlib.pyplot as plt
import pytest

from tutorial_lib.plotting.tokenization import loglog_panels, vocab_size_curves

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_vocab_size_curves_draw_each_series_on_its_own_sizes_with_power_of_two_ticks():
    fig = vocab_size_curves({"英文": ([256, 1024, 7910], [1.0, 3.1, 4.1]), "中文": ([256, 8192], [0.2, 0.5])},
                                     title="压缩率", ylabel="字节/token", percent=True)
    (ax,) = fig.axes
    english, chinese = ax.get_lines()
    assert list(english.get_xdata()) == [256, 1024, 7910] and list(chinese.get_ydata()) == [20.0, 50.0]
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


def test_loglog_panels_refuse_bad_data():
    with pytest.raises(ValueError, match="at least one panel"):
        loglog_panels({}, title="t", xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match="same length"):
        loglog_panels({"a": {"s": ([1, 2], [1])}}, title="t", xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match=r"panels\['a'\]\['s'\] y\[0\]"):
        loglog_panels({"a": {"s": ([1], [-1])}}, title="t", xlabel="x", ylabel="y")
    plt.close("all")
