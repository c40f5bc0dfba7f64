"""Chapter 06 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

import heapq

from solutions import ch06
from tutorial_course.exercises import REGISTRY, check

KEYS = ["06.update_pair_counts", "06.pop_best", "06.train_incremental"]


def test_a_full_recount_after_merging_passes_the_update_check():
    """The checker tests the counts, not how they were made: recounting is slow but right."""
    from tutorial_course.exercises.ch06 import _pair_counts
    from tutorial_lib.bpe.merge import merge

    def recount(words, freqs, pair_counts, pair, new_id):
        return _pair_counts([merge(ids, pair, new_id) for ids in words], freqs)

    assert check("06.update_pair_counts", recount, block_library=False).passed


def test_leaving_zero_counts_in_the_dict_fails():
    def keeps_zeros(words, freqs, pair_counts, pair, new_id):
        counts = ch06.update_pair_counts(words, freqs, pair_counts, pair, new_id)
        return {**{p: 0 for p in pair_counts}, **counts}

    assert check("06.update_pair_counts", keeps_zeros).verdict == "未通过"


def test_returning_the_top_entry_unchecked_fails_on_a_stale_top():
    def top(heap, pair_counts):
        return (tuple(heapq.heappop(heap)[1:]) if heap else None), sorted(heap)

    feedback = check("06.pop_best", top)
    assert feedback.verdict == "未通过"


def test_skipping_stale_entries_loses_a_pair_whose_only_entry_is_stale():
    feedback = check("06.pop_best", ch06.WRONG_ANSWERS["pop_best"])
    assert "输入：pop_best([(-5, 2, 2)], {(2, 2): 4})" in feedback.message
    assert "得到：(None, [])" in feedback.message


def test_a_scan_of_every_count_that_ignores_the_heap_fails():
    """The answer alone cannot tell a scan from the heap: what is left in the heap can."""
    def scan(heap, pair_counts):
        live = [p for p, n in pair_counts.items() if n]
        best = max(live, key=lambda p: (pair_counts[p], -p[0], -p[1]), default=None)
        return best, sorted(heap)

    def scan_and_remove(heap, pair_counts):  # takes the answer's entry out, leaves stale ones stale
        best, _ = scan(heap, pair_counts)
        return best, sorted(e for e in heap if best is None or tuple(e[1:]) != best)

    assert check("06.pop_best", scan).verdict == "未通过"
    assert check("06.pop_best", scan_and_remove).verdict == "未通过"


def test_an_empty_pop_is_a_legal_none_not_a_forgotten_return():
    """pop_best finds nothing in a heap of stale zeros: the case expects (None, []), and the right
    answer passes it; no case expects a bare None, so "是不是忘了 return" only meets a real slip."""
    cases = REGISTRY["06.pop_best"].make_cases()
    assert any(case.expected == (None, []) and case.args[0] for case in cases)
    assert all(case.expected is not None for case in cases)
    assert "忘了 return" in check("06.pop_best", lambda heap, counts: None).message
    assert "忘了 return" not in check("06.pop_best", ch06.WRONG_ANSWERS["pop_best"]).message


def test_the_trainer_cases_hold_real_corpora_and_ties():
    cases = REGISTRY["06.train_incremental"].make_cases()
    sizes = sorted(len(case.expected) for case in cases)
    assert sizes[-2:] == [60, 60]  # the TinyStories and Lu Xun slices, 60 merges each
    luxun = [case for case in cases if any(ids[0] >= 0xE4 for ids in case.args[0])]
    assert luxun  # Han characters start with a lead byte 0xE4..0xE9


def test_recounting_every_pair_passes_the_trainer_check():
    """The checker tests the merges, not the speed: the notebook times the learner's trainer."""
    from tutorial_lib.bpe.merge import merge
    from tutorial_lib.bpe.trainer import best_pair, count_pairs

    def recount(words, freqs, vocab, num_merges):
        vocab, merges = dict(vocab), []
        for new_id in range(len(vocab), len(vocab) + num_merges):
            best = best_pair(count_pairs(words, freqs), vocab)
            if best is None:
                break
            vocab[new_id] = vocab[best[0]] + vocab[best[1]]
            merges.append((vocab[best[0]], vocab[best[1]]))
            words = [merge(ids, best, new_id) for ids in words]
        return merges

    assert check("06.train_incremental", recount).passed


def test_a_trainer_that_never_pushes_the_new_pairs_fails():
    """Without the new pairs in the heap, no merged token is ever merged again."""
    def no_push(words, freqs, vocab, num_merges):
        return ch06.train_incremental(words, freqs, vocab, num_merges, push_new=False)

    assert check("06.train_incremental", no_push).verdict == "未通过"
