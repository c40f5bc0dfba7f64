"""Packing strategies: every token accounted for, rows of the right width, and the fast bin packers against
the plain loops they replace."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing import strategies as S
from tutorial_lib.packing.batch import padding_share
from tutorial_lib.packing.masks import PAD_DOC
from tutorial_lib.packing.strategies import PackResult, Segment, bestfit_crop, bfd, concat_chunk, ffd, ffd_scan

ALL = list(S.STRATEGIES.values())
WITH_POLICY = [S.pad, S.greedy, ffd, bfd]  # the strategies that take long_docs

lengths_lists = st.lists(st.integers(1, 40), max_size=30)
widths = st.integers(1, 32)


def documents(lengths):
    """Token lists of the given lengths; every token distinct, so a lost or duplicated token shows."""
    ends = np.cumsum(lengths, dtype=np.int64)
    return [np.arange(end - n, end) + 1 for n, end in zip(lengths, ends)]


def placed_tokens(result: PackResult) -> np.ndarray:
    return result.rows[result.doc_ids != PAD_DOC]


def assert_consistent(result: PackResult, docs):
    """Each segment holds exactly its stretch of its document; padding and dropped add up."""
    assert result.rows.shape == result.doc_ids.shape == (result.n_rows, result.width)
    for r in range(result.n_rows):
        pos = 0
        for doc, offset, length in result.segments(r):
            assert list(result.rows[r, pos:pos + length]) == list(docs[doc][offset:offset + length])
            assert (result.doc_ids[r, pos:pos + length] == doc).all()
            pos += length
        assert (result.doc_ids[r, pos:] == PAD_DOC).all() and (result.rows[r, pos:] == result.pad_id).all()
        assert result.row_padding(r) == result.width - pos
        for segment in result.segments(r):  # cut: the document goes on past this segment
            assert result.is_cut(segment) == (segment.offset + segment.length < len(docs[segment.doc]))
            assert segment.continues == (segment.offset > 0)
    assert result.placed == (result.doc_ids != PAD_DOC).sum() == sum(map(len, docs)) - result.dropped
    assert result.padding == (result.doc_ids == PAD_DOC).sum()
    assert result.padding_share == padding_share(result.placed, result.doc_ids.size)
    assert result.doc_lengths.tolist() == [len(d) for d in docs]
    assert result.utilization == pytest.approx(result.placed / result.rows.size if result.n_rows else 0.0)


# --- token conservation and row layout ---------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(lengths_lists, widths, st.booleans())
@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
def test_every_token_is_placed_once_or_counted_as_dropped(strategy, lengths, seq_len, next_token):
    docs = documents(lengths)
    result = strategy(docs, seq_len, next_token=next_token)
    assert result.width == seq_len + next_token
    assert_consistent(result, docs)
    tokens = placed_tokens(result)
    assert len(set(tokens.tolist())) == len(tokens)  # no token placed twice
    if strategy is not bestfit_crop:  # only the cropping loader drops tokens under its default options
        assert result.dropped == 0
        assert sorted(tokens.tolist()) == list(range(1, sum(lengths) + 1))


@settings(max_examples=60, deadline=None)
@given(lengths_lists, widths)
@pytest.mark.parametrize("strategy", WITH_POLICY, ids=lambda f: f.__name__)
def test_truncate_drops_exactly_the_tails_and_says_how_many(strategy, lengths, seq_len):
    docs = documents(lengths)
    result = strategy(docs, seq_len, long_docs="truncate")
    assert_consistent(result, docs)
    assert result.dropped == sum(max(n - seq_len, 0) for n in lengths)
    assert sorted(placed_tokens(result).tolist()) == sorted(t for d in docs for t in d[:seq_len].tolist())


@pytest.mark.parametrize("strategy", WITH_POLICY, ids=lambda f: f.__name__)
def test_long_documents_under_each_policy(strategy):
    docs = documents([11, 3])
    split = strategy(docs, 4)
    assert [s for r in range(split.n_rows) for s in split.segments(r) if s.doc == 0] == \
        [Segment(0, 0, 4), Segment(0, 4, 4), Segment(0, 8, 3)] and split.dropped == 0
    truncated = strategy(docs, 4, long_docs="truncate")
    assert truncated.dropped == 7 and truncated.dropped_share == pytest.approx(7 / 14)
    with pytest.raises(ValueError, match=r"documents\[0\] has 11 tokens, more than a row of 4"):
        strategy(docs, 4, long_docs="error")
    with pytest.raises(ValueError, match="long_docs must be one of"):
        strategy(docs, 4, long_docs="crop")
    assert strategy(docs, 11, long_docs="error").dropped == 0  # exactly a row long is not too long


def test_concat_chunk_splits_across_rows_and_pads_only_the_last():
    result = concat_chunk(documents([3, 4, 2]), 4)
    assert result.rows.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 0, 0, 0]]
    assert result.segments(0) == [Segment(0, 0, 3), Segment(1, 0, 1)]
    assert result.segments(1) == [Segment(1, 1, 3), Segment(2, 0, 1)]
    assert (result.padding, result.dropped) == (3, 0)


def test_utilization_arithmetic():
    result = S.pad([3, 1, 4], 4)
    assert (result.n_rows, result.placed, result.padding) == (3, 8, 4)
    assert result.utilization == 8 / 12 and result.padding_share == pytest.approx(4 / 12)
    assert S.pad([], 4).padding_share == 0.0
    assert S.greedy([3, 1, 4], 4).utilization == 1.0
    next_rows = S.greedy([3, 1, 4], 4, next_token=True)  # rows of 5: 3+1 then 4
    assert (next_rows.n_rows, next_rows.padding, next_rows.utilization) == (2, 2, 0.8)


def test_greedy_never_splits_and_keeps_the_order():
    result = S.greedy(documents([2, 3, 1, 2]), 4)
    assert [result.segments(r) for r in range(result.n_rows)] == \
        [[Segment(0, 0, 2)], [Segment(1, 0, 3), Segment(2, 0, 1)], [Segment(3, 0, 2)]]


# --- first fit and best fit against the plain loops --------------------------------------------------------


def best_fit_reference(lengths, width):
    """Best-fit decreasing as written in a textbook: for each piece, longest first, scan every row."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    rooms, rows = [], []
    for i in order:
        fits = [(room, r) for r, room in enumerate(rooms) if room >= lengths[i]]
        if fits:
            r = min(fits)[1]
        else:
            r = len(rooms)
            rooms.append(width)
            rows.append([])
        rooms[r] -= lengths[i]
        rows[r].append(i)
    return rows


def row_docs(result):
    return [[s.doc for s in result.segments(r)] for r in range(result.n_rows)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 20), max_size=40), st.integers(20, 40))
def test_bfd_makes_the_same_rows_as_a_plain_best_fit_loop(lengths, seq_len):
    assert row_docs(bfd(lengths, seq_len)) == best_fit_reference(lengths, seq_len)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([1, 2, 3, 5, 8, 13, 2**20, 2**40, 2**41]), max_size=60),
       st.sampled_from([2**41, 2**41 + 7, 3 * 2**40, 10**15]))
def test_bfd_on_long_rows_is_the_plain_best_fit_loop_ties_included(lengths, seq_len):
    """Few distinct lengths, so many equal lengths and equal rooms: every tie is met, at row widths where a
    structure indexed by room could not even be allocated."""
    assert row_docs(bfd(lengths, seq_len)) == best_fit_reference(lengths, seq_len)


@settings(max_examples=300, deadline=None)
@given(lengths_lists, widths)
def test_ffd_makes_the_same_rows_as_the_scan(lengths, seq_len):
    assert row_docs(ffd(lengths, seq_len)) == row_docs(ffd_scan(lengths, seq_len))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 100), max_size=200), st.integers(100, 200))
def test_bfd_and_ffd_open_a_row_only_when_nothing_fits(lengths, seq_len):
    """Neither heuristic is always better, but both only open a new row for a document no open row can take;
    so at most one row is half empty or worse, which bounds the rows by about twice the optimum."""
    for result in (bfd(lengths, seq_len), ffd(lengths, seq_len)):
        used = np.bincount(result.seg_row, weights=result.seg_length, minlength=result.n_rows)
        assert (used <= seq_len / 2).sum() <= 1
        assert result.n_rows >= -(-sum(lengths) // seq_len)


def test_ffd_can_beat_bfd():
    """Found by a property test that claimed bfd never needs more rows than ffd: it can."""
    assert (bfd([15, 15, 15, 16, 45, 49, 80], 124).n_rows, ffd([15, 15, 15, 16, 45, 49, 80], 124).n_rows) == (3, 2)


def test_bfd_can_beat_ffd():
    lengths = [75, 75, 70, 70, 69, 68, 63, 61, 55, 53, 50, 41, 35, 35, 34, 34, 29, 28, 28, 28, 17, 16, 16, 15, 13,
               12, 12, 9, 4]
    assert (bfd(lengths, 78).n_rows, ffd(lengths, 78).n_rows) == (15, 16)


def test_bfd_takes_the_tightest_row_and_the_oldest_among_equals():
    # rows after the 6s: rooms 4, 4; after the 5: rooms 4, 4, 5. A 4 goes to row 0 (tightest, oldest), a 3 to
    # row 1, the next 4 to row 2 (room 5 is the only one left with room for it).
    result = bfd([6, 6, 5, 4, 3, 4], 10)
    assert row_docs(result) == [[0, 3], [1, 5], [2, 4]]


# --- nanochat's best-fit crop ------------------------------------------------------------------------------


def nanochat_reference(lengths, width, buffer_size, refill):
    """nanochat's loop, transcribed: whenever the buffer holds fewer than `buffer_size` documents, the
    next batch of `refill` (its `tokenizer_batch_size`) is appended; a linear scan per pick."""
    pending, buffer, rows, dropped = list(enumerate(lengths)), [], [], 0
    while pending or buffer:
        row, pos = [], 0
        while pos < width and (pending or buffer):
            while len(buffer) < buffer_size and pending:
                buffer.extend(pending[:refill])
                del pending[:refill]
            room, best = width - pos, -1
            for i, (_, n) in enumerate(buffer):
                if n <= room and (best < 0 or n > buffer[best][1]):
                    best = i
            if best < 0:
                best = min(range(len(buffer)), key=lambda i: buffer[i][1])
            doc, n = buffer.pop(best)
            row.append((doc, min(n, room)))
            dropped += max(n - room, 0)
            pos += min(n, room)
        rows.append(row)
    return rows, dropped


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 30), max_size=40), st.integers(1, 24), st.integers(1, 8), st.integers(1, 6))
def test_bestfit_crop_matches_nanochats_loop(lengths, seq_len, buffer_size, refill):
    result = bestfit_crop(lengths, seq_len, buffer_size=buffer_size, refill=refill)
    rows, dropped = nanochat_reference(lengths, seq_len, buffer_size, refill)
    assert [[(s.doc, s.length) for s in result.segments(r)] for r in range(result.n_rows)] == rows
    assert result.dropped == dropped
    assert result.padding < result.width or result.n_rows == 0  # only the last row can be padded
    assert all(s.offset == 0 for r in range(result.n_rows) for s in result.segments(r))  # rows start at a BOS


def test_bestfit_crop_refills_a_batch_at_a_time_by_default_as_nanochat_does():
    # buffer 2, rows of 10. One at a time, the 9 arrives only after the 2 has gone into row 0, too late to be
    # taken whole: it is cropped to the 7 left. In nanochat's batches all three are buffered from the start.
    lengths = [1, 2, 9]
    batched, single = bestfit_crop(lengths, 10, buffer_size=2), bestfit_crop(lengths, 10, buffer_size=2, refill=1)
    assert row_docs(batched) == [[2, 0], [1]] and batched.dropped == 0
    assert row_docs(single) == [[1, 0, 2]] and single.dropped == 2
    assert row_docs(bestfit_crop(lengths, 10, buffer_size=2, refill=128)) == row_docs(batched)
    with pytest.raises(ValueError, match="refill must be an int >= 1"):
        bestfit_crop(lengths, 10, refill=0)


def test_bestfit_crop_with_a_buffer_of_one_is_greedy_crop():
    result = bestfit_crop([3, 4, 2], 5, buffer_size=1, refill=1)
    assert row_docs(result) == [[0, 1], [2]] and result.dropped == 2 and result.padding == 3


# --- input --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("empty", [[], np.array([], dtype=np.int64)], ids=["list", "array"])
def test_empty_input_gives_an_empty_result(strategy, empty):
    result = strategy(empty, 8)
    assert (result.n_rows, result.n_tokens, result.padding, result.dropped) == (0, 0, 0, 0)
    assert result.rows.shape == result.doc_ids.shape == (0, 8)
    assert result.utilization == 0.0 and result.dropped_share == 0.0


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
def test_bad_input_is_refused_with_a_clear_error(strategy):
    for seq_len in (0, -3):
        with pytest.raises(ValueError, match="seq_len must be an int >= 1"):
            strategy([3, 2], seq_len)
    with pytest.raises(TypeError, match="seq_len must be an int"):
        strategy([3, 2], 4.0)
    with pytest.raises(ValueError, match=r"documents\[1\] has length 0; every document needs at least one token"):
        strategy([[1, 2], [], [3]], 4)
    with pytest.raises(ValueError, match=r"documents\[0\] has length -2"):
        strategy(np.array([-2, 3]), 4)
    with pytest.raises(TypeError, match=r"documents\[1\]\[0\] must be an int"):
        strategy([[1], [2.5]], 4)
    with pytest.raises(ValueError, match=r"documents\[0\]\[1\] must be an int >= 0"):
        strategy([[1, -1]], 4)
    with pytest.raises(TypeError, match="documents must be a list of token lists or a list of lengths"):
        strategy("abc", 4)
    with pytest.raises(TypeError, match=r"documents\[1\] must be an int"):
        strategy([3, [1, 2]], 4)


def test_lengths_plan_the_same_rows_as_tokens_but_have_no_tokens():
    lengths = [5, 2, 9, 1, 4]
    by_lengths, by_tokens = bfd(lengths, 6), bfd(documents(lengths), 6)
    assert row_docs(by_lengths) == row_docs(by_tokens)
    assert (by_lengths.doc_ids == by_tokens.doc_ids).all()
    with pytest.raises(ValueError, match="packed from lengths"):
        by_lengths.rows


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
def test_deterministic(strategy):
    lengths = np.random.default_rng(0).integers(1, 300, 500)
    a, b = strategy(lengths, 256), strategy(lengths.tolist(), 256)
    assert all((getattr(a, name) == getattr(b, name)).all()
               for name in ("seg_row", "seg_start", "seg_doc", "seg_offset", "seg_length"))
    assert (a.n_rows, a.padding, a.dropped) == (b.n_rows, b.padding, b.dropped)


def test_pad_id_fills_the_padding():
    assert S.pad([[7, 8]], 4, pad_id=9).rows.tolist() == [[7, 8, 9, 9]]
