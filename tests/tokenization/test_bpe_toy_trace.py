"""A bpe_toy training step read as a table: its pairs ranked by count, the pairs tied at the top."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.tokenization import bpe_toy
from tutorial_lib.tokenization.bpe_toy_trace import ranked_pairs, tied_pairs

TOY = {"low": 5, "lowest": 2, "newer": 6, "wider": 3}


def test_ranked_pairs_are_most_frequent_first_and_keep_first_met_order_among_ties():
    step = bpe_toy.train(TOY, 1).steps[0]
    rows = ranked_pairs(step)
    assert [(pair, count) for pair, count, _ in rows[:3]] == [
        (("e", "r"), 9), (("r", "</w>"), 9), (("w", "e"), 8)]
    assert rows[0][2] < rows[1][2]  # the two tied at 9 stay in first-met order
    assert sorted(position for _, _, position in rows) == list(range(1, len(step.pair_counts) + 1))
    assert list(step.pair_counts)[rows[0][2] - 1] == rows[0][0]  # the position is where it was met


def test_tied_pairs_are_those_at_the_chosen_count_in_first_met_order():
    steps = bpe_toy.train(TOY, 6).steps
    assert tied_pairs(steps[0]) == [("e", "r"), ("r", "</w>")]
    for step in steps:
        assert step.chosen in tied_pairs(step)
        assert all(step.pair_counts[p] == step.count for p in tied_pairs(step))
    with pytest.raises(TypeError, match="step must be a MergeStep"):
        tied_pairs(bpe_toy.train(TOY, 1))


@given(st.dictionaries(st.text("abc", min_size=1, max_size=5), st.integers(1, 5), min_size=1,
                       max_size=5))
def test_the_first_rule_chooses_the_first_tied_pair(corpus):
    for step in bpe_toy.train(corpus, 3, tie_break="first").steps:
        assert tied_pairs(step)[0] == step.chosen == ranked_pairs(step)[0][0]
