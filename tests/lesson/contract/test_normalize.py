"""Normalization forms (tokenization/normalize.py): the invariant decode(encode(x)) == N(x), N
idempotent, where normalization can be cut, and the aligned normalization offsets are built on."""

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.bpe import corpus
from tutorial_lib.bpe.corpus import normalize_texts
from tutorial_lib.contract.normalize import FORMS, normalize, normalizer
from tutorial_lib.contract.normalize_cuts import normalize_aligned, settled_length, starts_fresh
from tutorial_lib.bpe.pretokenize import PATTERNS
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest
from tutorial_lib.bpe.trainer import train_tokenizer

# Random text, and text made of the pieces normalization acts on: combining marks (and their
# reordering), Hangul jamo, full-width forms, ligatures and compatibility characters, case folding
# that adds marks, astral characters (emoji, a compatibility ideograph, math letters).
PIECES = ["e", "a", "\u0301", "\u0323", "\u0308", "\u0651", "\u064f", "\u1100", "\u1161",
          "\u11a8", "한", "ＡＢ", "１２", "，", "。", "…", "ﬁ", "①", "㎏", "\u2126", "İ", "ß", "Σ",
          "ς", "\u212a", "\U0002f800", "\U0001d400", "🙂", "👍🏽", "世界", " ", "\u3000", "\n", "'ll"]
TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=30) | st.lists(
    st.sampled_from(PIECES), max_size=20).map("".join)


@pytest.fixture(scope="module")
def by_pattern_and_form(trained):
    return [Tokenizer(trained.vocab, trained.merges, trained.special_tokens, pattern,
                      normalization=form) for pattern in PATTERNS for form in FORMS]


@settings(max_examples=150, deadline=None)
@given(TEXT)
def test_decode_of_encode_is_the_normalized_text(by_pattern_and_form, text):
    for tok in by_pattern_and_form:
        assert tok.decode(tok.encode(text), errors="strict") == normalize(text, tok.normalization)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_every_form_is_idempotent(text):
    for form in FORMS:
        once = normalize(text, form)
        assert normalize(once, form) == once, form


def test_nfkc_casefold_is_idempotent_on_every_code_point():
    # NFKC after the case fold is what makes it so: "ǰ" folds to j + U+030C, which NFKC recomposes
    assert "\u01f0".casefold() == "j\u030c" and normalize("\u01f0", "NFKC_casefold") == "\u01f0"
    # normalize(text, form) is check_str(text), then normalizer(form)(text): check nothing 2 million times.
    # A code point that normalizes to itself is settled at once; every other one is normalized again.
    apply = normalizer("NFKC_casefold")
    for code in range(0x110000):
        if not 0xD800 <= code < 0xE000:
            once = apply(chr(code))
            assert once == chr(code) or apply(once) == once, hex(code)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_the_settled_prefix_normalizes_the_same_whatever_follows(text, more):
    for form in FORMS:
        k = settled_length(text, form)
        whole = normalize(text + more, form)
        assert normalize(text[:k], form) + normalize(text[k:] + more, form) == whole, form


def test_where_normalization_can_be_cut():
    assert starts_fresh("a", "NFC") and starts_fresh("世", "NFKC")
    assert not starts_fresh("\u0301", "NFC")  # a combining mark joins what came before
    assert not starts_fresh("\u1161", "NFC")  # a Hangul vowel joins the consonant before it
    assert not starts_fresh("\u0bbe", "NFC")  # Tamil aa: class 0, yet it composes with U+0BC6
    assert starts_fresh("Ａ", "NFC") and not starts_fresh("Ａ", "NFKC")
    assert not starts_fresh("A", "NFKC_casefold") and starts_fresh("a", "NFKC_casefold")
    assert settled_length("abc\u0301", "NFC") == 2 and settled_length("abc\u0301", "none") == 4
    assert settled_length("\u0301\u0301", "NFC") == 0


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_aligned_normalization_is_the_normalization_with_spans_that_cover_the_text(text):
    for form in FORMS:
        aligned = normalize_aligned(text, form)
        assert aligned.text == normalize(text, form)
        assert len(aligned.spans) == len(aligned.text)
        # each output character points into the text; spans come in order, without gaps
        runs = sorted(set(aligned.spans))
        assert [s for s, _ in runs] == [0, *[e for _, e in runs]][: len(runs)]
        assert (runs[-1][1] if runs else 0) == len(text)
        assert aligned.spans == sorted(aligned.spans)
        # and each span's characters normalize to exactly the output characters that point at it
        for start, end in runs:
            chars = "".join(c for c, span in zip(aligned.text, aligned.spans)
                            if span == (start, end))
            assert normalize(text[start:end], form) == chars


def test_aligned_normalization_by_hand():
    assert normalize_aligned("ﬁx", "NFKC") == ("fix", [(0, 1), (0, 1), (1, 2)])
    assert normalize_aligned("１…", "NFKC") == ("1...", [(0, 1), (1, 2), (1, 2), (1, 2)])
    assert normalize_aligned("e\u0301!", "NFC") == ("é!", [(0, 2), (2, 3)])
    assert normalize_aligned("\u1100\u1161\u11a8", "NFC") == ("각", [(0, 3)])
    assert normalize_aligned("Straße", "NFKC_casefold").text == "strasse"
    assert normalize_aligned("ab", "none") == ("ab", [(0, 1), (1, 2)])
    assert unicodedata.normalize("NFC", "e\u0301") == "é"


# ------------------------------------------------------------------------- training on a form

EOT = "<|endoftext|>"


def test_training_with_a_form_trains_on_normalized_text_and_records_it():
    texts = [data.load_text("luxun")[:6_000], "ＡＢＣ１２３，ﬁ" + EOT + "e\u0301" * 20]
    nfkc = train_tokenizer(texts, 300, [EOT], "gpt4", normalization="NFKC")
    by_hand = train_tokenizer(list(normalize_texts(texts, "NFKC", [EOT])), 300, [EOT], "gpt4")
    assert (nfkc.vocab, nfkc.merges) == (by_hand.vocab, by_hand.merges)
    assert nfkc.normalization == "NFKC" and nfkc.metadata["trainer"]["normalization"] == "NFKC"
    assert nfkc.metadata["corpus_digest"] == corpus.corpus_digest(texts)  # the text as given
    assert "normalization" not in by_hand.metadata["trainer"]  # "none": digests as before
    assert manifest.digest(nfkc) != manifest.digest(by_hand)
    assert normalize_texts(["＜" + EOT + "＞"], "NFKC", [EOT]).__next__() == "<" + EOT + ">"


def test_training_on_a_file_with_a_form_equals_training_on_its_normalized_text(tmp_path,
                                                                              monkeypatch):
    text = (data.load_text("luxun")[:3_000] + "\n\u00b4x\n\u0301y ＡＢ\n" + EOT + "ﬁ\n") * 3
    path = tmp_path / "corpus.txt"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(corpus, "CHUNK_SIZE", 200)  # many cuts, each checked to be harmless
    for form in FORMS:
        from_file = train_tokenizer(path, 300, [EOT], "gpt2", normalization=form)
        whole = train_tokenizer(list(normalize_texts([text], form, [EOT])), 300, [EOT], "gpt2")
        assert from_file.merges == whole.merges, form
