"""The characters of a text: UTF-8, Han, inventory, coverage, unseen characters, pre-tokens."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.text import characters
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN


def test_is_han():
    assert characters.is_han("中") and characters.is_han("\U00020000")  # CJK extension B
    assert not any(map(characters.is_han, "，。a1 ア"))
    with pytest.raises(ValueError, match="single-character"):
        characters.is_han("中文")
    with pytest.raises(TypeError, match="ch must be a str"):
        characters.is_han(None)


def test_inventory():
    inv = characters.inventory("人工智能，人工。ab")
    assert (inv.chars, inv.distinct, inv.han, inv.distinct_han) == (10, 8, 6, 4)
    assert inv.han_share == 0.6
    with pytest.raises(ValueError, match="empty"):
        characters.inventory("")
    with pytest.raises(TypeError, match="text must be a non-empty str"):
        characters.inventory(b"abc")


def test_coverage_curve_and_chars_for_coverage():
    text = "的的的的的了了了人我"  # 的 5, 了 3, 人 1, 我 1
    assert characters.coverage_curve(text) == [0.5, 0.8, 0.9, 1.0]
    fractions = (0.1, 0.5, 0.51, 0.8, 0.85, 0.95, 1.0)
    assert [characters.chars_for_coverage(text, f) for f in fractions] == [1, 1, 2, 2, 3, 4, 4]
    with pytest.raises(ValueError, match=r"fraction must be a finite number in \(0, 1\]"):
        characters.chars_for_coverage(text, 0)
    with pytest.raises(ValueError, match="fraction"):
        characters.chars_for_coverage(text, 1.5)
    with pytest.raises(TypeError, match="fraction must be a finite number"):
        characters.chars_for_coverage(text, "0.9")


@given(st.text(min_size=1), st.floats(min_value=0.01, max_value=1.0))
def test_chars_for_coverage_is_the_smallest_k_that_reaches_the_fraction(text, fraction):
    curve = characters.coverage_curve(text)
    k = characters.chars_for_coverage(text, fraction)
    assert curve[k - 1] >= fraction or k == len(curve)
    assert k == 1 or curve[k - 2] < fraction
    assert curve == sorted(curve) and curve[-1] == pytest.approx(1.0)


def test_unseen_chars():
    assert characters.unseen_chars("人工智能", "人工智慧慧") == (1, 0.4)
    assert characters.unseen_chars("abc", "cab") == (0, 0.0)
    with pytest.raises(ValueError, match="test_text must be a non-empty str"):
        characters.unseen_chars("a", "")


def test_han_utf8_lengths_and_nfkc_changes():
    assert characters.han_utf8_lengths("中文，\U00020000a") == {3: 2, 4: 1}
    assert characters.han_utf8_lengths("abc") == {}
    assert characters.nfkc_changes("你好，世界！，。") == [("，", ",", 2), ("！", "!", 1)]
    # other forms: NFC changes only the compatibility ideograph, NFKC_casefold also folds "A"
    assert characters.nfkc_changes("，\uf900A", "NFC") == [("\uf900", "\u8c48", 1)]
    assert {b for _, b, _ in characters.nfkc_changes("，A", "NFKC_casefold")} == {",", "a"}
    assert characters.nfkc_changes("，", "none") == []


def test_change_summary_sorts_changes_by_kind():
    text = "你好，世界！ＡＢ１２…ﬁ\uf900½。\u3000"
    rows = {row.kind: row for row in characters.change_summary(text)}
    assert list(rows) == [*characters.CHANGE_KINDS, "total"]
    counts = {kind: (row.chars, row.distinct) for kind, row in rows.items()}
    assert counts == {"full-width punctuation": (3, 3), "full-width digits and Latin": (4, 4),
                      "compatibility ideographs": (1, 1), "ellipsis and ligatures": (2, 2),
                      "other": (1, 1), "total": (11, 11)}
    assert rows["total"].share == 11 / len(text)
    assert rows["ellipsis and ligatures"].examples == "…->... ﬁ->fi"
    # the ideographic full stop has no NFKC form: "。" stays, "，" becomes ","
    assert "。" not in {ch for ch, _, _ in characters.nfkc_changes(text)}


def test_length_summary():
    s = characters.length_summary([1, 2, 3, 4, 100])
    assert (s.count, s.mean, s.median, s.p99, s.longest) == (5, 22, 3, 100, 100)
    assert characters.length_summary(list(range(1, 101))).p99 == 99
    with pytest.raises(ValueError, match="empty"):
        characters.length_summary([])
    with pytest.raises(TypeError, match=r"lengths\[0\] must be an int"):
        characters.length_summary([1.5])
    with pytest.raises(TypeError, match=r"lengths\[1\] must be an int"):
        characters.length_summary([1, "a"])
    with pytest.raises(ValueError, match=r"lengths\[0\] must be an int >= 0"):
        characters.length_summary([-1])
    with pytest.raises(TypeError, match="lengths must be a list of int"):
        characters.length_summary(None)


def test_pretoken_lengths_keeps_han_pieces():
    text = "我在年青时候也曾经做过许多梦，后来大半忘却了。OK"
    assert characters.pretoken_lengths(text, GPT2_PATTERN) == [14, 7]
    assert characters.pretoken_lengths(text, GPT2_PATTERN, han_only=False) == [14, 1, 7, 1, 2]


def test_utf8_breakdown():
    assert characters.utf8_breakdown("你a") == [("你", "U+4F60", "e4 bd a0"), ("a", "U+0061", "61")]
    with pytest.raises(ValueError, match="lone surrogate"):
        characters.utf8_breakdown("\udc80")
    with pytest.raises(TypeError, match="text must be a str"):
        characters.utf8_breakdown(None)


def test_chars_and_bytes_are_the_two_common_units():
    assert characters.chars_and_bytes("你a🙂") == (3, 8)
    assert characters.chars_and_bytes("") == (0, 0)
    with pytest.raises(ValueError, match="lone surrogate"):
        characters.chars_and_bytes("a\ud800")
    with pytest.raises(TypeError, match="text must be a str"):
        characters.chars_and_bytes(b"a")


@given(st.text())
def test_chars_and_bytes_agree_with_the_breakdown(text):
    rows = characters.utf8_breakdown(text)
    assert characters.chars_and_bytes(text) == (len(rows), sum(len(h.split()) for _, _, h in rows))


def test_char_category():
    assert [characters.char_category(ch) for ch in "人〇7７aé，,（%°½ あΩ"] == [
        "han", "han", "digit", "digit", "latin", "latin", "punctuation", "punctuation",
        "punctuation",
        "punctuation", "punctuation", "other", "other", "other", "other"]
    with pytest.raises(ValueError, match="single-character"):
        characters.char_category("ab")


def test_unseen_by_category():
    rows = characters.unseen_by_category("人工智能。", "人工智慧，2024年，GPT-4。慧")
    assert [r.category for r in rows] == list(characters.CHAR_CATEGORIES)
    by = {r.category: r for r in rows}
    assert (by["han"].distinct, by["han"].occurrences, by["han"].examples) == (2, 3, "慧年")
    assert (by["digit"].distinct, by["digit"].occurrences, by["digit"].examples) == (3, 5, "240")
    assert (by["latin"].distinct, by["latin"].occurrences) == (3, 3)
    punctuation = by["punctuation"]
    assert (punctuation.distinct, punctuation.occurrences, punctuation.examples) == (2, 3, "，-")
    assert by["other"] == characters.UnseenCategory("other", 0, 0, 0.0, "")
    assert by["han"].share == pytest.approx(3 / 18)
    with pytest.raises(ValueError, match="test_text must be a non-empty str"):
        characters.unseen_by_category("a", "")
    with pytest.raises(TypeError, match="train_text must be a str"):
        characters.unseen_by_category(None, "a")


@given(st.text(max_size=30), st.text(min_size=1, max_size=60))
def test_rows_add_up_to_unseen_chars(train, test):
    rows = characters.unseen_by_category(train, test)
    distinct, share = characters.unseen_chars(train, test)
    assert sum(r.distinct for r in rows) == distinct
    assert sum(r.share for r in rows) == pytest.approx(share)
    assert all(len(r.examples) == min(8, r.distinct) for r in rows)
