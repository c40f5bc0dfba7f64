"""Root cause 6 in the packing strategies: work and memory were sized by seq_len before any plausibility check
(bfd kept a tree over every room 0..L); now a plan costs in proportion to the documents and rows, and an array
that would not fit in memory is refused with the size it would need."""

import tracemalloc

import numpy as np
import pytest

from tutorial_lib.packing import strategies as S

ALL = list(S.STRATEGIES.values())
SPLITTING = [S.pad, S.greedy, S.ffd, S.bfd, S.ffd_scan]  # long_docs="split" is their default


def peak_bytes(call) -> int:
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("seq_len", [2**20, 10**7, 10**8, 10**15, 2**62])
def test_a_plan_of_two_documents_costs_the_same_at_any_row_width(strategy, seq_len):
    """A structure indexed by room would allocate 8 bytes or more per token of the row: 8 MB at 2**20."""
    result = strategy([300, 500], seq_len)
    assert (result.n_tokens, result.dropped) == (800, 0)
    assert peak_bytes(lambda: strategy([300, 500], seq_len)) < 200_000


@pytest.mark.parametrize("next_token", [False, True])
def test_rows_and_doc_ids_too_big_for_memory_are_refused_with_their_size(next_token):
    result = S.pad([[1, 2]], 10**12, next_token=next_token)  # the plan itself is small: counts are fine
    width = 10**12 + next_token
    assert (result.n_rows, result.padding, result.placed) == (1, width - 2, 2)
    for name in ("rows", "doc_ids"):
        with pytest.raises(ValueError, match=rf"PackResult.{name} would need a 1 x {width:,} array of int64 "
                                             r"\(8.* more than this machine's memory"):
            getattr(result, name)


@pytest.mark.parametrize("strategy", SPLITTING, ids=lambda f: f.__name__)
def test_splitting_into_more_segments_than_memory_holds_is_refused(strategy):
    with pytest.raises(ValueError, match=r"long_docs='split' of documents into rows of 1 would need a "
                                         r"1,000,000,000,000,000 x 5 array of int64 \(40"):
        strategy([10**15], 1)
    assert strategy([10**15], 1, long_docs="truncate").dropped == 10**15 - 1  # cropping costs nothing


def test_cutting_into_more_segments_than_memory_holds_is_refused():
    with pytest.raises(ValueError, match=r"cutting 1,000,000,000,000,000 tokens every 1 would need a "
                                         r"1,000,000,000,000,002 x 5 array of int64"):
        S.concat_chunk([10**15], 1)
    assert S.bestfit_crop([10**15], 1).dropped == 10**15 - 1


def test_rows_within_memory_are_still_built():
    result = S.bfd([np.arange(1, 4)], 2**20)
    assert result.rows.shape == (1, 2**20) and result.rows[0, :4].tolist() == [1, 2, 3, 0]
