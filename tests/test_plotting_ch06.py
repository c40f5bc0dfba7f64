"""The plot of notebook 06: log-log panels that share the y axis and refuse bad data."""

import matplotlib.pyplot as plt
import pytest

from tutorial_lib import plotting

pytestmark = pytest.mark.usefixtures("chinese_figures")


def test_loglog_panels_draw_one_panel_per_corpus_with_a_shared_y_axis():
    fig = plotting.loglog_panels({"英文": {"重数": ([1, 2, 4], [1, 2, 4]), "增量": ([1, 2, 4], [1, 1, 1])},
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
        plotting.loglog_panels({}, title="t", xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match="same length"):
        plotting.loglog_panels({"a": {"s": ([1, 2], [1])}}, title="t", xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match=r"panels\['a'\]\['s'\] y\[0\]"):
        plotting.loglog_panels({"a": {"s": ([1], [-1])}}, title="t", xlabel="x", ylabel="y")
    plt.close("all")
