"""Chapter 13's widget shows a golden file one category at a time, from the vectors it is given."""

import pytest

from tutorial_lib.contract import golden
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.show.widgets.contract import golden_explorer, golden_html, vector_row
from tutorial_lib.bpe.trainer import train_tokenizer

TOKENIZER = train_tokenizer(["hello world, hello tokens"], 270, special_tokens=["<|endoftext|>"])
VECTORS = [golden.vector(TOKENIZER, "urls", "see www.example.org"),
           golden.vector(TOKENIZER, "compatibility", "ＡＢ ﬁ"),
           golden.vector(TOKENIZER, "control_tokens", "a<|endoftext|>b", allowed_special=True),
           golden.vector(TOKENIZER, "malformed", "a\ud800"),
           golden.vector(TOKENIZER, "malformed", b"\xe4\xb8")]


def test_the_dropdown_lists_the_categories_in_file_order_and_redraws_on_a_choice():
    choice, view = golden_explorer(TOKENIZER, VECTORS, {"urls": "a URL"}).children
    assert list(choice.options) == ["urls", "compatibility", "control_tokens", "malformed"]
    assert "<b>urls</b>：a URL" in view.value and "1 条向量" in view.value
    assert "www.example.org" in view.value
    choice.value = "malformed"
    assert "2 条向量" in view.value and "www.example" not in view.value
    assert "字节 e4b8" in view.value and "&#x27;a\\ud800&#x27;" in view.value  # escaped repr
    assert "strict：ValueError" in view.value


def test_a_row_shows_the_normalized_form_the_offsets_and_the_special_token_encoding():
    row = vector_row(TOKENIZER, VECTORS[1])
    assert row[1] == "（与输入相同）"  # this tokenizer does not normalize
    assert row[3].startswith("[0,1) [0,1) [0,1) [1,2)")  # Ａ is 3 byte tokens here
    special = vector_row(TOKENIZER, VECTORS[2])
    assert "允许特殊 token 时" in special[2] and "encode（不允许）：ValueError" in special[4]
    nfkc = Tokenizer(TOKENIZER.vocab, TOKENIZER.merges, normalization="NFKC")
    assert vector_row(nfkc, golden.vector(nfkc, "compatibility", "ＡＢ ﬁ"))[1] == "AB␣fi"


def test_an_unknown_category_and_no_vectors_are_refused():
    with pytest.raises(ValueError, match="has no vectors"):
        golden_html(TOKENIZER, VECTORS, "digits")
    with pytest.raises(ValueError, match="vectors is empty"):
        golden_explorer(TOKENIZER, [])
    with pytest.raises(TypeError, match="tokenizer"):
        golden_explorer("course", VECTORS)
