"""The exact shortcuts of the fast trainer give the same result as the plain paths."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.tokenization import trainer
from tutorial_lib.tokenization.trainer import train_bpe, train_bpe_naive

WHITESPACE = r"\S+|\s+"


def plain_occurrences(ids, pair):
    """Left-to-right, non-overlapping starts of `pair`, one position at a time."""
    starts, i = [], 0
    while i < len(ids) - 1:
        if (ids[i], ids[i + 1]) == pair:
            starts.append(i)
            i += 2
        else:
            i += 1
    return starts


@given(st.lists(st.integers(0, 3), max_size=12), st.integers(0, 3), st.integers(0, 3))
def test_occurrences_match_a_plain_scan(ids, a, b):
    assert trainer._occurrences(ids, (a, b)) == plain_occurrences(ids, (a, b))


@pytest.fixture
def paths(monkeypatch):
    """Counts how many word updates went through the one-occurrence path and through the general one."""
    calls = {"once": 0, "general": 0}
    merge_once, replace = trainer.PairIndex._merge_once, trainer._replace

    def counted_once(*args):
        calls["once"] += 1
        return merge_once(*args)

    def counted_replace(*args):
        calls["general"] += 1
        return replace(*args)

    monkeypatch.setattr(trainer.PairIndex, "_merge_once", counted_once)
    monkeypatch.setattr(trainer, "_replace", counted_replace)
    return calls


@pytest.mark.parametrize("text", [
    "ab cab abc xaby",  # one occurrence per word, at the start, the end, the middle
    "abab ababab cabxab",  # several occurrences per word
    "aa aaa aaaa aaaaa aaaaaaa",  # overlapping runs: "aaa" holds (a, a) twice but merges it once
    "aaa baaab",  # runs where the one merge leaves a pair equal to the merged one
])
def test_one_and_several_occurrences_give_the_naive_result(paths, text):
    want = train_bpe_naive([text], 256 + 8, pattern=WHITESPACE)
    paths.update(once=0, general=0)
    assert train_bpe([text], 256 + 8, pattern=WHITESPACE) == want
    assert paths["once"] > 0


def test_both_paths_are_taken_on_a_real_corpus(paths):
    from tutorial_lib.data import load_text

    text = load_text("luxun")[:3000] + load_text("tinystories")[:3000]
    want = train_bpe_naive([text], 300)
    paths.update(once=0, general=0)
    assert train_bpe([text], 300) == want
    assert paths["once"] > 0 and paths["general"] > 0


WORDS = st.lists(st.text("aab", min_size=1, max_size=9), min_size=1, max_size=12).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(WORDS, st.integers(0, 20))
def test_naive_and_fast_agree_on_runs_and_repeats(text, merges):
    """Words of a and b only: many hold the best pair once, many several times, many in overlapping runs."""
    assert train_bpe([text], 256 + merges, pattern=WHITESPACE) == train_bpe_naive([text], 256 + merges,
                                                                                  pattern=WHITESPACE)
