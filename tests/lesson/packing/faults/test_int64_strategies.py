"""Root cause 3 in the packing strategies: lengths, token ids, pad_id and seq_len beyond int64 (and uint64 arrays
beyond 2**63 - 1) passed the checks and then overflowed or wrapped inside numpy; now each is refused with its
range."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib._checks import INT64_MAX, INT64_MIN
from tutorial_lib.packing import strategies as S

ALL = list(S.STRATEGIES.values())
TRUNCATING = [S.pad, S.greedy, S.ffd, S.bfd, S.ffd_scan]  # take long_docs: a huge length is cut to one row
BIG = 2**63
U = np.uint64

CASES = [
    # (case, call, error, message)
    ("a length of 2**63", lambda f: f([BIG], 8), r"documents\[0\] must be an int in \[-2\*\*63, 2\*\*63 - 1\]"),
    ("a uint64 length of 2**63", lambda f: f(np.array([BIG, 3], dtype=U), 8),
     r"documents must hold ints in .*2\*\*63 - 1\], got 9223372036854775808 \(in an array of uint64\)"),
    ("a uint64 length of 2**64 - 1", lambda f: f(np.array([2**64 - 1], dtype=U), 8), "got 18446744073709551615"),
    ("a token id of 2**63", lambda f: f([[1, BIG]], 8), r"documents\[0\]\[1\] must be an int in \[0, 2\*\*63 - 1\]"),
    ("a uint64 token id of 2**63", lambda f: f([np.array([1, BIG], dtype=U)], 8),
     r"documents\[0\] must hold ints in \[0, 2\*\*63 - 1\], got 9223372036854775808 \(in an array of uint64\)"),
    ("a numpy uint64 token id in a list", lambda f: f([[U(BIG)]], 8), r"documents\[0\]\[0\] must be an int in \[0"),
    ("pad_id 2**63", lambda f: f([[1]], 8, pad_id=BIG), r"pad_id must be an int in \[0, 2\*\*63 - 1\]"),
    ("pad_id a uint64 2**63", lambda f: f([[1]], 8, pad_id=U(BIG)), r"pad_id must be an int in \[0, 2\*\*63 - 1\]"),
    ("seq_len 2**63", lambda f: f([3], BIG), r"seq_len must be an int in \[1, 2\*\*63 - 1\]"),
    ("seq_len 2**63 - 1 with next_token", lambda f: f([3], INT64_MAX, next_token=True), r"seq_len must be an int in \[1, 2\*\*63 - 2\] with next_token"),
    ("lengths summing past 2**63 - 1", lambda f: f([2**62, 2**62, 2**62], 2**62),
     "13,835,058,055,282,163,712 tokens in all, more than the 2\\*\\*63 - 1"),
]


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("case", "call", "message"), CASES, ids=[c[0] for c in CASES])
def test_beyond_int64_is_refused_with_the_range(strategy, case, call, message):
    with pytest.raises(ValueError, match=message):
        call(strategy)


def test_the_largest_values_that_fit_are_taken_exactly():
    assert S.pad([[INT64_MAX]], 2, pad_id=INT64_MAX - 1).rows.tolist() == [[INT64_MAX, INT64_MAX - 1]]
    assert S.pad([np.array([INT64_MAX], dtype=U)], 1).rows.tolist() == [[INT64_MAX]]
    result = S.bfd(np.array([INT64_MAX], dtype=U), 4, long_docs="truncate")
    assert (result.n_tokens, result.dropped, result.n_rows) == (INT64_MAX, INT64_MAX - 4, 1)
    wide = S.bfd([3, 2**62, 2**61], INT64_MAX)  # rows as wide as an int64 counts
    assert (wide.n_rows, wide.padding) == (1, INT64_MAX - 3 - 2**62 - 2**61)


# --- every numpy integer dtype and Python ints, at and beyond the bounds -------------------------------------

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
EDGES = [INT64_MIN - 1, INT64_MIN, -1, 0, 1, 2**31, 2**32 - 1, INT64_MAX - 1, INT64_MAX, BIG, 2**64 - 1, 2**64]


def as_kind(value: int, kind) -> object:
    """`value` as a Python int (kind None) or as a numpy scalar of `kind`; None if it does not fit."""
    if kind is None:
        return value
    info = np.iinfo(kind)
    return kind(value) if info.min <= value <= info.max else None


values = st.one_of(st.sampled_from(EDGES), st.integers(-2**66, 2**66))
kinds = st.sampled_from([None, *DTYPES])


@settings(max_examples=300, deadline=None)
@given(values, kinds, st.sampled_from(ALL))
def test_a_token_id_is_placed_exactly_or_refused_with_its_range(value, kind, strategy):
    item = as_kind(value, kind)
    if item is None:
        return
    for docs in ([[item]], [np.array([item], dtype=kind)]) if kind else ([[item]],):
        if 0 <= value <= INT64_MAX:
            assert strategy(docs, 4).rows[0, 0] == value
        else:
            with pytest.raises(ValueError, match=r">= 0|\[0, 2\*\*63 - 1\]"):
                strategy(docs, 4)


@settings(max_examples=300, deadline=None)
@given(values, kinds, st.sampled_from(TRUNCATING))
def test_a_length_is_counted_exactly_or_refused_with_its_range(value, kind, strategy):
    item = as_kind(value, kind)
    if item is None:
        return
    for docs in ([item], np.array([item], dtype=kind)) if kind else ([item],):
        if 1 <= value <= INT64_MAX:
            result = strategy(docs, 4, long_docs="truncate")
            assert (result.n_tokens, result.dropped) == (value, max(value - 4, 0))
        else:  # beyond int64: the range, never a wrapped value; else the length itself
            beyond = not INT64_MIN <= value <= INT64_MAX
            with pytest.raises(ValueError, match=rf"2\*\*63 - 1\], got {value}" if beyond else f"has length {value}"):
                strategy(docs, 4, long_docs="truncate")


@settings(max_examples=200, deadline=None)
@given(values, kinds, st.sampled_from(ALL))
def test_pad_id_fills_the_padding_exactly_or_is_refused_with_its_range(value, kind, strategy):
    item = as_kind(value, kind)
    if item is None:
        return
    if 0 <= value <= INT64_MAX:
        assert strategy([[1]], 2, pad_id=item).rows.tolist() == [[1, value]]
    else:
        with pytest.raises(ValueError, match=r"pad_id must be an int (>= 0|in \[0, 2\*\*63 - 1\])"):
            strategy([[1]], 2, pad_id=item)
