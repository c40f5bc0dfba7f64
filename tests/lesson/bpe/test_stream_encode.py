"""Streaming encode (`stream_encode.encode_iterable`) with normalization: the same
ids as `encode` for every form, however the chunks are cut."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.contract.normalize import FORMS, normalize
from tutorial_lib.bpe.pretokenize import PATTERNS
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.stream_encode import encode_iterable

EOT = "<|endoftext|>"

# Fragments where normalization acts across a cut: a base letter and its accents, Hangul jamo
# (L, V, T) that NFC joins into syllables, full-width runs and compatibility characters (NFKC),
# case folding that makes marks ("İ" -> "i" + U+0307), and the hard cuts of the pattern tests.
FRAGMENTS = ["e", "\u0301", "\u0323", "\u0308", "a\u0301", "é", "\u1100", "\u1161", "\u11a8", "한",
             "ＡＢＣ", "１２３", "，", "。", "…", "ﬁ", "①", "㎏", "\u2126", "İ", "ß", "Σ", "K",
             " ", "  ", "\n", "\r\n", "\u3000", "\u00a0", "a", "Hello", "'", "'ll", "'L", "l", "1",
             "23", "中文", "🙂", "👍🏽", "\u0bc6", "\u0bbe", "\u0b47", "\u0b3e", EOT, "<|endof",
             "text|>", "<|", "|>"]


@pytest.fixture(scope="module")
def tokenizers(trained):
    """A small vocabulary with each bundled pattern and each normalization form, with and without
    special tokens (with them the stream holds back more, which can hide a mistake)."""
    return [Tokenizer(trained.vocab, trained.merges, specials, pattern, normalization=form)
            for pattern in PATTERNS for form in FORMS for specials in (trained.special_tokens, ())]


@pytest.fixture(scope="module")
def nfkc(gpt4):
    """cl100k with NFKC."""
    return Tokenizer(gpt4.vocab, gpt4.merges, gpt4.special_tokens, normalization="NFKC")


def chunked(text, cuts):
    cuts = sorted(cuts)
    return [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=24), st.data())
def test_encode_iterable_equals_encode_for_every_form_and_chunking(tokenizers, fragments, draw):
    text = "".join(fragments)
    cuts = draw.draw(st.lists(st.integers(0, len(text)), max_size=10))
    chunks = chunked(text, cuts)
    for tok in tokenizers:
        assert list(encode_iterable(tok, chunks, "all")) == tok.encode(text, "all"), tok


@settings(max_examples=60, deadline=None)
@given(st.text(st.characters(exclude_categories=["Cs"]), max_size=40), st.data())
def test_encode_iterable_equals_encode_on_any_text_one_character_at_a_time(tokenizers, text, draw):
    # the worst chunking: every character its own chunk, so every cut is a possible mistake
    for tok in tokenizers:
        assert list(encode_iterable(tok, list(text))) == tok.encode(text), tok


@pytest.mark.parametrize("text", ["e\u0301", "\u1100\u1161\u11a8", "ＡＢＣ１２３，", "ﬁ\u0301"])
def test_each_cut_of_a_composing_run_gives_encode(tokenizers, nfkc, text):
    for tok in [*tokenizers, nfkc]:
        expected = tok.encode(text)
        for cut in range(len(text) + 1):
            assert list(encode_iterable(tok, [text[:cut], text[cut:]])) == expected, (tok, cut)
    nfc = next(tok for tok in tokenizers if tok.normalization == "NFC")
    assert nfc.decode(encode_iterable(nfc, ["e", "\u0301"])) == "é"  # composed, not e + accent


def test_special_tokens_are_matched_in_the_raw_text_before_normalization(nfkc):
    # full-width "＜" would become "<" under NFKC, but a special token is matched as given
    fake = "＜|endoftext|＞"
    chunks = ["a", EOT[:5], EOT[5:], "b", fake, "c"]
    streamed = list(encode_iterable(nfkc, chunks, "all"))
    assert streamed == nfkc.encode("".join(chunks), "all")
    assert streamed.count(nfkc.special_tokens[EOT]) == 1
    with pytest.raises(ValueError, match="allowed_special"):
        list(encode_iterable(nfkc, ["x", EOT[:3], EOT[3:]]))


def test_a_file_of_full_width_chinese_streams_like_encode(nfkc, tmp_path):
    text = data.load_text("luxun")[:30_000]
    path = tmp_path / "luxun.txt"
    path.write_text(text, encoding="utf-8")
    with open(path, encoding="utf-8") as f:
        assert list(encode_iterable(nfkc, f)) == nfkc.encode(text)
    assert nfkc.decode(nfkc.encode(text)) == normalize(text, "NFKC")
