"""Chapter 06 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch06
from tutorial_lib.exercises import check

KEYS = ["06.update_pair_counts", "06.pop_best"]


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
