"""Widgets redraw from library results when their control changes (no kernel front end needed)."""

import pytest

from tutorial_lib import widgets
from tutorial_lib.tokenization import bpe_toy, compare, d2l


def test_utf8_explorer_redraws_on_new_text():
    box = widgets.utf8_explorer("a")
    control, view = box.children
    assert "1 个字符，1 个字节" in view.value
    control.value = "你🙂"
    assert "2 个字符，7 个字节" in view.value and "e4 bd a0" in view.value


def test_bpe_steps_slider_shows_that_step():
    result = bpe_toy.train({"low": 5, "lowest": 2, "newer": 6, "wider": 3}, 6)
    slider, view = widgets.bpe_steps(result).children
    assert "合并 <b>e + r</b>" in view.value
    slider.value = 4
    assert "合并 <b>lo + w</b>" in view.value and "（出现 7 次）" in view.value


def test_segmentation_explorer_follows_text_and_choice():
    vocab = d2l.Vocab(d2l.tokenize(["i love cats", "i love dogs"], "word"))
    upper = compare.Segmenter("upper-bytes", 256, lambda s: list(s.upper().encode()), lambda i: bytes([i]))
    explorer = widgets.segmentation_explorer(vocab, [upper], initial="i love")
    choice, shown = explorer.children
    box, view = shown.children
    assert choice.value == "upper-bytes" and ">␣</span>" in view.value and ">L</span>" in view.value
    box.value = "cats"
    assert ">C</span>" in view.value and ">L</span>" not in view.value


def test_trace_rows_list_the_other_tied_pairs_not_the_chosen_one():
    result = bpe_toy.train({"low": 5, "lowest": 2, "newer": 6, "wider": 3}, 3)
    for (step, chosen, _, count, tied, _), trace in zip(widgets.bpe_trace_rows(result), result.steps):
        others = [f"{a} + {b}" for (a, b), n in trace.pair_counts.items() if n == count and (a, b) != trace.chosen]
        assert chosen not in tied.split("，")
        assert tied == ("，".join(others) or "—")
    assert any(row[4] != "—" for row in widgets.bpe_trace_rows(result))  # this corpus does tie


def test_a_refused_value_shows_its_error_and_the_widget_keeps_working():
    control, view = widgets.utf8_explorer("a").children
    control.value = "\ud800"
    assert "lone surrogate" in view.value
    control.value = "你"
    assert "e4 bd a0" in view.value


def test_widget_helpers_refuse_bad_arguments():
    with pytest.raises(TypeError, match="initial must be a str"):
        widgets.utf8_explorer(None)
    with pytest.raises(TypeError, match="result must be a BPEResult"):
        widgets.bpe_steps(None)
    with pytest.raises(TypeError, match="segmenters must be a list"):
        widgets.tokenizer_comparison(None)
    with pytest.raises(ValueError, match="segmenters must hold at least one"):
        widgets.segmentation_explorer(d2l.Vocab(["a"]), [])
