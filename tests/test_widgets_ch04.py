"""The vocabulary-size explorer of notebook 04: its numbers come from tokenization.vocab_size and follow each control."""

import pytest

from tutorial_lib import widgets
from tutorial_lib.tokenization import vocab_size as vs
from tutorial_lib.tokenization.tokenizer import Tokenizer

EN = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 5
ZH = ["我们的猫坐在垫子上。", "他们的狗坐在木头上。"] * 5


@pytest.fixture(scope="module")
def corpora():
    en = Tokenizer.train(EN, 256 + 40)
    zh = Tokenizer.train(ZH, 256 + 30, ["<|endoftext|>"])
    return {"英文": (en, EN[:3], "the cat sat"), "中文": (zh, ZH[:2], "我们的狗")}


def test_the_report_shows_the_library_numbers_and_the_sample_as_tokens(corpora):
    tokenizer, held_out, sample = corpora["英文"]
    html = widgets.vocab_size_report(tokenizer, held_out, 266, sample)
    point = vs.measure_sizes(tokenizer, held_out, [266])[0]
    assert f"{point.compression.bytes_per_token:.3f}" in html
    assert f"{point.learned.used} / {point.learned.tokens}" in html
    ids = vs.first_merges(tokenizer, 10).encode_ordinary(sample)
    assert f"样例切成 {len(ids)} 个 token" in html and 'title="id ' in html


def test_the_explorer_follows_the_corpus_and_the_size(corpora):
    corpus, shown = widgets.vocab_size_explorer(corpora, initial=10_000).children
    size, view = shown.children
    en_top = 256 + len(corpora["英文"][0].merges)
    zh_top = 257 + len(corpora["中文"][0].merges)
    assert (size.min, size.max, size.value) == (256, en_top, en_top)  # clamped to the size training reached
    assert f"词表大小 {en_top}" in view.value
    size.value = 256
    assert "词表大小 256" in view.value and "合并次数</td><td style=\"text-align:left\">0<" in view.value
    corpus.value = "中文"
    assert (size.min, size.max) == (257, zh_top) and f"词表大小 {size.value}" in view.value
    assert "字符/token" in view.value


def test_the_explorer_refuses_bad_corpora():
    with pytest.raises(ValueError, match="corpora"):
        widgets.vocab_size_explorer({})
    with pytest.raises(TypeError, match="tokenizer"):
        widgets.vocab_size_explorer({"x": ("not a tokenizer", ["a"], "a")})
