"""The bucketing explorer of notebook 07: its numbers come from packing.batch and follow every control."""

import re

import pytest

from tutorial_lib import widgets
from tutorial_lib.packing import batch

LENGTHS = {"长短混合": [1, 40, 2, 38, 3, 36, 4, 34] * 4, "一样长": [5] * 20}


def shares(html: str) -> dict[str, str]:
    return dict(re.findall(r"<td [^>]*>(随机分批|按长度分桶|全局排序)</td><td [^>]*>([\d.]+%)</td>", html))


def test_the_explorer_shows_the_library_padding_ratios_and_follows_each_control():
    corpus, how, width, shown = widgets.bucketing_explorer(LENGTHS, batch_size=4, bucket_width=8).children
    size, view = shown.children
    lengths = LENGTHS["长短混合"]
    assert shares(view.value) == {
        "随机分批": f"{batch.random_batches(lengths, 4).padding_ratio:.1%}",
        "按长度分桶": f"{batch.bucketed_batches(lengths, 4, 8).padding_ratio:.1%}",
        "全局排序": f"{batch.sorted_batches(lengths, 4).padding_ratio:.1%}",
    }
    before = view.value
    width.value = 64  # one bucket holds every length: as much padding as random batching
    assert shares(view.value)["按长度分桶"] != shares(before)["按长度分桶"]
    size.value = 1  # one row per batch: nothing to pad
    assert set(shares(view.value).values()) == {"0.0%"}
    how.value = "随机分批"
    assert "随机分批的前几批" in view.value
    corpus.value = "一样长"
    size.value = 3
    assert set(shares(view.value).values()) == {"0.0%"} and "第 1 批：3 行 × 5 个位置，填充 0%" in view.value


def test_the_grid_draws_real_and_padding_widths_in_proportion():
    lengths = [10, 5, 0]
    html = widgets.batch_grid_html(lengths, batch.Batching([[0, 1], [2]], 15, 20), width_px=100)
    assert re.findall(r"width:(\d+)px", html) == ["100", "0", "50", "50", "0", "0"]
    assert "第 1 批：2 行 × 10 个位置，填充 25%" in html and "第 2 批：1 行 × 0 个位置，填充 0%" in html


def test_bad_arguments():
    with pytest.raises(ValueError, match="at least one corpus"):
        widgets.bucketing_explorer({})
    with pytest.raises(ValueError, match=r"lengths_by_corpus\['a'\]\[0\] must be an int >= 0"):
        widgets.bucketing_explorer({"a": [-1]})
    with pytest.raises(ValueError, match="batch_size must be an int in"):
        widgets.bucketing_explorer({"a": [1]}, batch_size=0)
    with pytest.raises(TypeError, match="batching must be a Batching"):
        widgets.batch_grid_html([1], [[0]])
