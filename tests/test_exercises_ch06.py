"""Chapter 06 exercises: the reference solutions pass, the typical wrong answers fail, and the cases hold
what the wrong answers get wrong."""

import pytest

from solutions import ch06
from tutorial_lib import exercises
from tutorial_lib.exercises import check

KEYS = ["06.update_pair_counts", "06.pop_best"]


@pytest.fixture(autouse=True)
def fresh_session():
    exercises.FAILURES.clear()
    yield
    exercises.FAILURES.clear()


@pytest.mark.parametrize("key", KEYS)
def test_reference_passes(key):
    feedback = check(key, getattr(ch06, exercises.REGISTRY[key].function_name))
    assert feedback.passed, feedback.message


@pytest.mark.parametrize("key", KEYS)
def test_typical_mistake_fails(key):
    feedback = check(key, ch06.WRONG_ANSWERS[exercises.REGISTRY[key].function_name])
    assert feedback.verdict == "未通过", feedback.message


def test_a_full_recount_after_merging_passes_the_update_check():
    """The checker tests the counts, not how they were made: recounting is slow but right."""
    from tutorial_lib.exercises.ch06 import _pair_counts
    from tutorial_lib.tokenization.trainer import merge

    def recount(words, freqs, pair_counts, pair, new_id):
        return _pair_counts([merge(ids, pair, new_id) for ids in words], freqs)

    assert check("06.update_pair_counts", recount).passed


def test_leaving_zero_counts_in_the_dict_fails():
    def keeps_zeros(words, freqs, pair_counts, pair, new_id):
        counts = ch06.update_pair_counts(words, freqs, pair_counts, pair, new_id)
        return {**{p: 0 for p in pair_counts}, **counts}

    assert check("06.update_pair_counts", keeps_zeros).verdict == "未通过"


def test_returning_the_top_entry_unchecked_fails_on_a_stale_top():
    def top(heap, pair_counts):
        return heap[0][1:] if heap else None

    feedback = check("06.pop_best", top)
    assert feedback.verdict == "未通过"


def test_skipping_stale_entries_loses_a_pair_whose_only_entry_is_stale():
    feedback = check("06.pop_best", ch06.WRONG_ANSWERS["pop_best"])
    assert "输入：pop_best([(-5, 2, 2)], {(2, 2): 4})" in feedback.message and "得到：None" in feedback.message
