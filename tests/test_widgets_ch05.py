import pytest

from tutorial_lib import widgets
from tutorial_lib.tokenization import compare
from tutorial_lib.tokenization.tokenizer import Tokenizer


def test_the_explorer_shows_each_pattern_and_each_tokenizer_and_follows_the_text():
    tok = compare.from_tokenizer("小 BPE", Tokenizer.train(["aaa bbb 123"], 260))
    box, view = widgets.pretokenize_explorer([tok], initial="1234567").children
    for name in ["预切分·gpt2", "预切分·gpt4", "预切分·nanochat", "小 BPE"]:
        assert name in view.value
    assert ">1234567<" in view.value and ">123<" in view.value and ">12<" in view.value  # digit grouping
    box.value = "x\ud800"
    assert "lone surrogate" in view.value  # the library's message, and the widget keeps working
    box.value = "人工智能"
    assert ">人工智能<" in view.value


def test_bad_arguments():
    with pytest.raises(TypeError, match="segmenters must be a list of Segmenter"):
        widgets.pretokenize_explorer("abc")
    with pytest.raises(TypeError, match="initial must be"):
        widgets.pretokenize_explorer([], initial=3)
