"""Measuring a tokenizer on text: whole or cut characters, compression, utilization, the table."""

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.text import compare, measure
from tutorial_lib.text.characters import is_han
from tutorial_lib.text.d2l import Vocab


def test_token_kind():
    tokens = (b"\xe4\xb8", "世".encode(), "世界".encode(), b"a", b"ab")
    assert [measure.token_kind(t) for t in tokens] == \
        ["partial", "char", "multi", "char", "multi"]
    with pytest.raises(TypeError, match="token must be bytes"):
        measure.token_kind("世")


def test_cut_characters():
    assert measure.cut_characters([b"\xe4\xb8", b"\x96", "界".encode()]) == (1, 2)
    assert measure.cut_characters([b"\xe9", b"\xb2", b"\x81"]) == (1, 1)  # cut twice, counted once
    assert measure.cut_characters(["你".encode(), "好".encode()]) == (0, 2)
    assert measure.cut_characters([]) == (0, 0)
    with pytest.raises(ValueError, match="valid UTF-8"):
        measure.cut_characters([b"\xe4\xb8"])
    with pytest.raises(TypeError, match=r"tokens\[0\] must be bytes"):
        measure.cut_characters(["你"])


@given(st.text(max_size=30), st.randoms(use_true_random=False))
def test_cut_characters_counts_multibyte_characters_with_an_inner_cut(text, rng: random.Random):
    data = text.encode("utf-8")
    cuts = []
    if len(data) > 1:
        cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, len(data) - 1)))
    tokens = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    expected = sum(any(a < c < b for c in cuts) for a, b in zip(starts, starts[1:]))
    assert measure.cut_characters(tokens) == (expected, len(text))
    assert measure.cut_characters([ch.encode("utf-8") for ch in text]) == (0, len(text))


def test_compression_is_a_ratio_of_totals():
    c = measure.compression(list, ["你好", "hello"])
    assert (c.chars, c.bytes, c.tokens) == (7, 11, 7)
    assert c.chars_per_token == 1.0 and c.bytes_per_token == 11 / 7
    with pytest.raises(ValueError, match="some text"):
        measure.compression(list, ["", ""])
    with pytest.raises(TypeError, match="list of str"):
        measure.compression(list, "你好")
    with pytest.raises(TypeError, match="encode must be a function"):
        measure.compression(None, ["a"])
    with pytest.raises(ValueError, match="no tokens"):
        measure.compression(lambda s: [], ["a"])
    with pytest.raises(TypeError, match=r"encode\(line\) must be a list of ids, got NoneType"):
        measure.compression(lambda s: None, ["a"])
    with pytest.raises(TypeError, match=r"encode\(line\) must be a list of ids, got list_iterator"):
        measure.compression(lambda s: iter([1]), ["a"])
    with pytest.raises(ValueError, match=r"lines\[1\] contains the lone surrogate"):
        measure.compression(list, ["a", "b\ud800"])

def test_compression_of_lines_counts_both_units():
    c = measure.Compression.of_lines(["你好", "ab", ""], 5)
    assert (c.chars, c.bytes, c.tokens) == (4, 8, 5)
    assert c.chars_per_token == 0.8 and c.bytes_per_token == 1.6


# --- utilization ---------------------------------------------------------------------------------


def test_token_counts_encode_each_line_on_its_own():
    counts = measure.token_counts(lambda line: [len(line)] * 2, ["ab", "c", "ab"])
    assert counts == Counter({2: 4, 1: 2})
    with pytest.raises(TypeError, match="encode"):
        measure.token_counts("encode", ["a"])


def test_utilization_counts_used_rare_and_unused_entries():
    u = measure.utilization({1: 10, 2: 1, 3: 4, 9: 7}, [1, 2, 3, 4, 5], rare_below=5)
    assert (u.tokens, u.used, u.rare, u.unused, u.rare_or_unused) == (5, 3, 2, 2, 4)
    assert u.used_share == 0.6 and u.rare_or_unused_share == 0.8
    assert measure.utilization(Counter(), [0, 0, 1]).tokens == 2  # each entry once
    with pytest.raises(ValueError, match="ids"):
        measure.utilization({}, [])
    with pytest.raises(ValueError, match="rare_below"):
        measure.utilization({}, [1], rare_below=0)
    with pytest.raises(TypeError, match="counts must be a dict"):
        measure.utilization([1, 2], [1])


# --- what a vocabulary holds, what a text turns into ---------------------------------------------


def test_vocab_kinds_and_top_tokens(ours, luxun_lines):
    kinds = measure.vocab_kinds(ours)
    assert sum(kinds.values()) == 600 and kinds["partial"] >= 128  # the continuation/lead bytes
    top = measure.top_multichar_tokens(ours, luxun_lines, k=5)
    assert len(top) == 5 and all(len(t) >= 2 and any(map(is_han, t)) for t, _ in top)
    assert [n for _, n in top] == sorted((n for _, n in top), reverse=True)
    with pytest.raises(TypeError, match="segmenter must be a Segmenter"):
        measure.vocab_kinds("cl100k")


# --- one tokenizer on one set of lines -----------------------------------------------------------


def test_measure_and_table(ours, cl100k_segmenter, luxun_lines):
    m = measure.measure(ours, luxun_lines[:50], "鲁迅")
    assert m.lossless and m.chars == sum(map(len, luxun_lines[:50]))
    c = measure.compression(ours.encode, luxun_lines[:50])
    assert (m.chars, m.bytes, m.tokens) == (c.chars, c.bytes, c.tokens)
    columns = ["分词方式", "词表大小", "测试文本", "token 数", "字符/token", "字节/token",
               "被切开的字", "原样还原的行"]
    header, rows = measure.measurement_table([measure.measure(cl100k_segmenter, ["世"], "世")], columns)
    assert header[0] == "分词方式"
    assert rows == [("cl100k", 100277, "世", 2, "0.500", "1.500", "100.00%", "1/1")]
    with pytest.raises(ValueError, match="columns item must be one of"):
        measure.measurement_table([], ["nope"])


def test_cut_characters_are_not_counted_once_a_line_is_lost():
    """A lost line ends the count for good: a count over the surviving lines would look like a
    measurement."""
    first_lost = measure.Segmenter("lossy", 256, lambda s: [0] if s == "ab" else list(s.encode()),
                                   lambda i: bytes([i]))
    m = measure.measure(first_lost, ["ab", "你好"])
    assert m.cut_chars is None and m.restored_lines == 1 and not m.lossless
    assert measure.measurement_table([m], ["被切开的字"])[1] == [("—",)]
    whole = measure.measure(first_lost, ["你好"])
    assert whole.cut_chars == 2 and whole.lossless  # each Han character over its three byte tokens


def test_word_vocab_measure_counts_unknown_words_and_lost_lines():
    vocab = Vocab(["the", "cat", "sat"])
    m = measure.measure(compare.from_vocab("word", vocab), ["the cat sat", "the dog sat", ""])
    assert (m.tokens, m.words, m.unknown, m.restored_lines, m.lines) == (6, 6, 1, 2, 3)
    assert m.oov_rate == pytest.approx(1 / 6) and m.tokens_per_word == 1.0 and m.cut_chars is None
    table = measure.measurement_table([m], ["token/词", "OOV 率", "原样还原的行"])
    assert table[1] == [("1.00", "16.67%", "2/3")]
    by_char = compare.from_vocab("char", Vocab(list("abc ")), "char")
    chars = measure.measure(by_char, ["ab c", "abd"])
    assert (chars.tokens, chars.unknown, chars.restored_lines) == (7, 1, 1)


def test_measure_refuses_bad_arguments(ours):
    with pytest.raises(TypeError, match="segmenter must be a Segmenter"):
        measure.measure(object(), ["a"])
    with pytest.raises(ValueError, match=r"lines\[1\] contains the lone surrogate"):
        measure.measure(ours, ["a", "\udc80"])
    with pytest.raises(ValueError, match="produced no tokens"):
        measure.measure(measure.Segmenter("none", 1, lambda s: [], lambda i: b""), ["a"])
