import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.tokenization import metrics
from tutorial_lib.tokenization.pretokenize import GPT2_PATTERN


def test_is_han():
    assert metrics.is_han("中") and metrics.is_han("\U00020000")  # CJK extension B
    assert not any(map(metrics.is_han, "，。a1 ア"))
    with pytest.raises(ValueError, match="single-character"):
        metrics.is_han("中文")
    with pytest.raises(TypeError, match="ch must be a str"):
        metrics.is_han(None)


def test_inventory():
    inv = metrics.inventory("人工智能，人工。ab")
    assert (inv.chars, inv.distinct, inv.han, inv.distinct_han) == (10, 8, 6, 4)
    assert inv.han_share == 0.6
    with pytest.raises(ValueError, match="empty"):
        metrics.inventory("")
    with pytest.raises(TypeError, match="text must be a non-empty str"):
        metrics.inventory(b"abc")


def test_coverage_curve_and_chars_for_coverage():
    text = "的的的的的了了了人我"  # 的 5, 了 3, 人 1, 我 1
    assert metrics.coverage_curve(text) == [0.5, 0.8, 0.9, 1.0]
    fractions = (0.1, 0.5, 0.51, 0.8, 0.85, 0.95, 1.0)
    assert [metrics.chars_for_coverage(text, f) for f in fractions] == [1, 1, 2, 2, 3, 4, 4]
    with pytest.raises(ValueError, match=r"fraction must be a finite number in \(0, 1\]"):
        metrics.chars_for_coverage(text, 0)
    with pytest.raises(ValueError, match="fraction"):
        metrics.chars_for_coverage(text, 1.5)
    with pytest.raises(TypeError, match="fraction must be a finite number"):
        metrics.chars_for_coverage(text, "0.9")


@given(st.text(min_size=1), st.floats(min_value=0.01, max_value=1.0))
def test_chars_for_coverage_is_the_smallest_k_that_reaches_the_fraction(text, fraction):
    curve = metrics.coverage_curve(text)
    k = metrics.chars_for_coverage(text, fraction)
    assert curve[k - 1] >= fraction or k == len(curve)
    assert k == 1 or curve[k - 2] < fraction
    assert curve == sorted(curve) and curve[-1] == pytest.approx(1.0)


def test_unseen_chars():
    assert metrics.unseen_chars("人工智能", "人工智慧慧") == (1, 0.4)
    assert metrics.unseen_chars("abc", "cab") == (0, 0.0)
    with pytest.raises(ValueError, match="test_text must be a non-empty str"):
        metrics.unseen_chars("a", "")


def test_han_utf8_lengths_and_nfkc_changes():
    assert metrics.han_utf8_lengths("中文，\U00020000a") == {3: 2, 4: 1}
    assert metrics.han_utf8_lengths("abc") == {}
    assert metrics.nfkc_changes("你好，世界！，。") == [("，", ",", 2), ("！", "!", 1)]


def test_length_summary():
    s = metrics.length_summary([1, 2, 3, 4, 100])
    assert (s.count, s.mean, s.median, s.p99, s.longest) == (5, 22, 3, 100, 100)
    assert metrics.length_summary(list(range(1, 101))).p99 == 99
    with pytest.raises(ValueError, match="empty"):
        metrics.length_summary([])
    with pytest.raises(TypeError, match=r"lengths\[0\] must be an int"):
        metrics.length_summary([1.5])
    with pytest.raises(TypeError, match=r"lengths\[1\] must be an int"):
        metrics.length_summary([1, "a"])
    with pytest.raises(ValueError, match=r"lengths\[0\] must be an int >= 0"):
        metrics.length_summary([-1])
    with pytest.raises(TypeError, match="lengths must be a list of int"):
        metrics.length_summary(None)


def test_pretoken_lengths_keeps_han_pieces():
    text = "我在年青时候也曾经做过许多梦，后来大半忘却了。OK"
    assert metrics.pretoken_lengths(text, GPT2_PATTERN) == [14, 7]
    assert metrics.pretoken_lengths(text, GPT2_PATTERN, han_only=False) == [14, 1, 7, 1, 2]


def test_token_kind():
    assert [metrics.token_kind(t) for t in (b"\xe4\xb8", "世".encode(), "世界".encode(), b"a", b"ab")] == \
        ["partial", "char", "multi", "char", "multi"]
    with pytest.raises(TypeError, match="token must be bytes"):
        metrics.token_kind("世")


def test_cut_characters():
    assert metrics.cut_characters([b"\xe4\xb8", b"\x96", "界".encode()]) == (1, 2)
    assert metrics.cut_characters([b"\xe9", b"\xb2", b"\x81"]) == (1, 1)  # cut twice, counted once
    assert metrics.cut_characters(["你".encode(), "好".encode()]) == (0, 2)
    assert metrics.cut_characters([]) == (0, 0)
    with pytest.raises(ValueError, match="valid UTF-8"):
        metrics.cut_characters([b"\xe4\xb8"])
    with pytest.raises(TypeError, match=r"tokens\[0\] must be bytes"):
        metrics.cut_characters(["你"])


@given(st.text(max_size=30), st.randoms(use_true_random=False))
def test_cut_characters_counts_multibyte_characters_with_an_inner_cut(text, rng: random.Random):
    data = text.encode("utf-8")
    cuts = sorted(rng.sample(range(1, len(data)), rng.randint(0, len(data) - 1))) if len(data) > 1 else []
    tokens = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    starts = [0]
    for ch in text:
        starts.append(starts[-1] + len(ch.encode("utf-8")))
    expected = sum(any(a < c < b for c in cuts) for a, b in zip(starts, starts[1:]))
    assert metrics.cut_characters(tokens) == (expected, len(text))
    assert metrics.cut_characters([ch.encode("utf-8") for ch in text]) == (0, len(text))


def test_compression_is_a_ratio_of_totals():
    c = metrics.compression(list, ["你好", "hello"])
    assert (c.chars, c.bytes, c.tokens) == (7, 11, 7)
    assert c.chars_per_token == 1.0 and c.bytes_per_token == 11 / 7
    with pytest.raises(ValueError, match="some text"):
        metrics.compression(list, ["", ""])
    with pytest.raises(TypeError, match="list of str"):
        metrics.compression(list, "你好")
    with pytest.raises(TypeError, match="encode must be a function"):
        metrics.compression(None, ["a"])
    with pytest.raises(ValueError, match="no tokens"):
        metrics.compression(lambda s: [], ["a"])
    with pytest.raises(TypeError, match=r"encode\(line\) must be a list of ids, got NoneType"):
        metrics.compression(lambda s: None, ["a"])
    with pytest.raises(TypeError, match=r"encode\(line\) must be a list of ids, got list_iterator"):
        metrics.compression(lambda s: iter([1]), ["a"])
    with pytest.raises(ValueError, match=r"lines\[1\] contains the lone surrogate"):
        metrics.compression(list, ["a", "b\ud800"])


def test_utf8_breakdown():
    assert metrics.utf8_breakdown("你a") == [("你", "U+4F60", "e4 bd a0"), ("a", "U+0061", "61")]
    with pytest.raises(ValueError, match="lone surrogate"):
        metrics.utf8_breakdown("\udc80")
    with pytest.raises(TypeError, match="text must be a str"):
        metrics.utf8_breakdown(None)
