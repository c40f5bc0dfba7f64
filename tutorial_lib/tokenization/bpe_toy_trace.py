"""The trace of `bpe_toy.train` read step by step: every pair a step counted, ranked, and the ties.

Chapter 02 asks of each step "which pairs had the most, and why this one?". A `MergeStep` keeps its
pair counts in first-met order, which is the order the "first" tie-break rule reads them in; these
functions rank them for a table without losing that order.
"""

from __future__ import annotations

from tutorial_lib._checks import check_type
from tutorial_lib.tokenization.bpe_toy import MergeStep, Pair


def ranked_pairs(step: MergeStep) -> list[tuple[Pair, int, int]]:
    """(pair, count, first-met position from 1) of every pair one step counted, most frequent first.

    The sort is stable, so pairs with the same count keep their first-met order.
    """
    counts = check_type(step, "step", MergeStep, "a MergeStep (from bpe_toy.train)").pair_counts
    met = [(pair, count, position) for position, (pair, count) in enumerate(counts.items(), 1)]
    return sorted(met, key=lambda row: -row[1])


def tied_pairs(step: MergeStep) -> list[Pair]:
    """The pairs sharing the step's largest count, in first-met order: the ones its tie-break rule
    chose among (the chosen pair is one of them)."""
    check_type(step, "step", MergeStep, "a MergeStep (from bpe_toy.train)")
    return [pair for pair, count in step.pair_counts.items() if count == step.count]
