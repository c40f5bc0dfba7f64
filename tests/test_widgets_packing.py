"""The packing explorer redraws from strategies.STRATEGIES; the row drawing shows padding and cuts."""

import pytest

from tutorial_lib import widgets
from tutorial_lib.packing import strategies


def test_rows_html_draws_segments_padding_and_cuts():
    html = widgets.packed_rows_html(strategies.pad([5, 2], 4), [5, 2])
    assert "共 3 行" in html and "利用率 58.3%" in html and "填充 5 个" in html
    assert html.count("border-right:3px solid #c00") == 1  # document 0's first chunk goes on in the next row
    assert html.count("border-left:2px dashed") == 1  # ... and its second chunk continues it
    assert html.count('title="填充') == 2
    crop = widgets.packed_rows_html(strategies.bestfit_crop([5], 4), [5])
    assert "丢弃 1 个 token（20.0%）" in crop and "border-right:3px solid #c00" in crop


def test_rows_html_shows_at_most_max_rows():
    html = widgets.packed_rows_html(strategies.pad([1] * 20, 4), [1] * 20, max_rows=3)
    assert "前 3 行，共 20 行" in html and html.count('style="display:flex') == 3
    assert "没有行" in widgets.packed_rows_html(strategies.pad([], 4), [])


def test_explorer_follows_strategy_length_and_corpus():
    explorer = widgets.packing_explorer({"短": [1, 2, 3] * 10, "长": [7, 9]}, seq_lens=(4, 8))
    (strategy, corpus), seq_len, view = explorer.children[0].children, explorer.children[1], explorer.children[2]
    assert strategy.value == "bfd" and "共 15 行" in view.value
    strategy.value = "pad"
    assert "共 30 行" in view.value
    seq_len.value = 8
    corpus.value = "长"
    assert "共 3 行" in view.value and "利用率 66.7%" in view.value  # 7 | 8 | 1: the 9 is split at the row end


def test_explorer_refuses_bad_input():
    with pytest.raises(ValueError, match="at least one corpus"):
        widgets.packing_explorer({})
    with pytest.raises(ValueError, match=r"lengths_by_corpus\['a'\]\[0\] must be an int >= 1"):
        widgets.packing_explorer({"a": [0]})
