import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.tokenization import metrics


def test_char_category():
    assert [metrics.char_category(ch) for ch in "人〇7７aé，,（%°½ あΩ"] == [
        "han", "han", "digit", "digit", "latin", "latin", "punctuation", "punctuation", "punctuation",
        "punctuation", "punctuation", "other", "other", "other", "other"]
    with pytest.raises(ValueError, match="single-character"):
        metrics.char_category("ab")


def test_unseen_by_category():
    rows = metrics.unseen_by_category("人工智能。", "人工智慧，2024年，GPT-4。慧")
    assert [r.category for r in rows] == list(metrics.CHAR_CATEGORIES)
    by = {r.category: r for r in rows}
    assert (by["han"].distinct, by["han"].occurrences, by["han"].examples) == (2, 3, "慧年")
    assert (by["digit"].distinct, by["digit"].occurrences, by["digit"].examples) == (3, 5, "240")
    assert (by["latin"].distinct, by["latin"].occurrences) == (3, 3)
    assert (by["punctuation"].distinct, by["punctuation"].occurrences, by["punctuation"].examples) == (2, 3, "，-")
    assert by["other"] == metrics.UnseenCategory("other", 0, 0, 0.0, "")
    assert by["han"].share == pytest.approx(3 / 18)
    with pytest.raises(ValueError, match="test_text must be a non-empty str"):
        metrics.unseen_by_category("a", "")
    with pytest.raises(TypeError, match="train_text must be a str"):
        metrics.unseen_by_category(None, "a")


@given(st.text(max_size=30), st.text(min_size=1, max_size=60))
def test_rows_add_up_to_unseen_chars(train, test):
    rows = metrics.unseen_by_category(train, test)
    distinct, share = metrics.unseen_chars(train, test)
    assert sum(r.distinct for r in rows) == distinct
    assert sum(r.share for r in rows) == pytest.approx(share)
    assert all(len(r.examples) == min(8, r.distinct) for r in rows)
