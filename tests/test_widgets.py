"""Widgets redraw from library results when their control changes (no kernel front end needed)."""

from tutorial_lib import widgets
from tutorial_lib.tokenization import bpe_toy, d2l


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
    upper = type("Upper", (), {"encode_ordinary": staticmethod(lambda s: [ord(c) for c in s]),
                               "decode": staticmethod(lambda ids: "".join(map(chr, ids)))})
    explorer = widgets.segmentation_explorer(vocab, {"chars-as-ids": upper()}, initial="i love")
    choice, shown = explorer.children
    box, view = shown.children
    assert choice.value == "chars-as-ids" and "i | ␣ | l" in view.value
    box.value = "cats"
    assert "c | a | t | s" in view.value
