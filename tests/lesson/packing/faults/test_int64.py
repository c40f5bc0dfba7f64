"""Root cause 3: ids and lengths beyond int64, or in unsigned arrays, passed the argument checks and
then overflowed or wrapped inside numpy; every one is now held to its stated range, whatever its
type.

The table holds the cases the probe found; the property tests try every function that takes ids or
lengths with every numpy integer dtype and Python ints at and beyond the int64 and uint64 bounds: a
value in range gives the int64 result, one beyond gives a ValueError naming the argument, and
nothing else (no OverflowError, no wrapped value) ever comes out.
"""

import dataclasses
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import _memory
from tutorial_lib._checks import INT64_MAX
from tutorial_lib.packing import batch, masks
from tutorial_lib.packing.batch import Batch
from tutorial_lib.packing.masks import PAD_DOC

U64 = np.uint64
RANGE = r"must (be an int|hold ints) in \[{}, 2\*\*63 - 1\], got {}"

CASES = [
    ("pad: an id of 2**63", lambda: batch.pad([[2**63]], 0), RANGE.format(0, 2**63)),
    ("pad: a uint64 row past int64", lambda: batch.pad([np.array([2**63 + 5, 1], U64)], 0),
     r"rows\[0\] " + RANGE.format(0, 2**63 + 5) + r" \(in an array of uint64\)"),
    ("pad: pad_id 2**63", lambda: batch.pad([[1], [1, 2]], 2**63), "pad_id " + RANGE.format(0, 2**63)),
    ("pad: pad_id a uint64 2**64 - 1", lambda: batch.pad([[1]], U64(2**64 - 1)), "pad_id"),
    ("pad: max_length 2**64", lambda: batch.pad([[1]], 0, max_length=2**64),
     "max_length " + RANGE.format(1, 2**64)),
    ("pad: pad_to_multiple_of 2**63", lambda: batch.pad([[1]], 0, pad_to_multiple_of=2**63),
     "pad_to_multiple_of " + RANGE.format(1, 2**63)),
    ("labels: an id of 2**63", lambda: batch.labels(Batch([[2**63]], [[1]])),
     r"batch\.input_ids\[0\]\[0\] " + RANGE.format(0, 2**63)),
    ("labels: uint64 ids", lambda: batch.labels(Batch(np.array([[2**64 - 1]], U64), [[1]])),
     r"batch\.input_ids " + RANGE.format(0, 2**64 - 1)),
    ("attention_mask_from_lengths: 2**63", lambda: masks.attention_mask_from_lengths([2**63]),
     r"lengths\[0\] " + RANGE.format(0, 2**63)),
    ("attention_mask_from_lengths: uint64 lengths",
     lambda: masks.attention_mask_from_lengths(np.array([2**63, 1], U64)), "lengths " + RANGE.format(0, 2**63)),
    ("attention_mask_from_lengths: width 2**63 (gave shape (1, 0))",
     lambda: masks.attention_mask_from_lengths([1], 2**63), "width " + RANGE.format(1, 2**63)),
    ("next_token_labels: a token of 2**63", lambda: batch.next_token_labels([2**63, 1], [0, 0]),
     r"tokens\[0\] " + RANGE.format(0, 2**63)),
    ("next_token_labels: uint64 tokens",
     lambda: batch.next_token_labels(np.array([2**63 + 1, 1], U64), [0, 0]), "tokens " + RANGE.format(0, 2**63 + 1)),
    ("next_token_labels: uint64 doc_ids",
     lambda: batch.next_token_labels([1, 2], np.array([0, 2**64 - 1], U64)), "doc_ids " + RANGE.format(-1, 2**64 - 1)),
    ("attention_mask_from_pad_id: a uint64 pad cell (was marked real)",
     lambda: masks.attention_mask_from_pad_id(np.array([[1, 2**64 - 1]], U64), U64(2**64 - 1)),
     "input_ids " + RANGE.format(0, 2**64 - 1)),
    ("attention_mask_from_pad_id: pad_id 2**64 - 1",
     lambda: masks.attention_mask_from_pad_id([[1, 2]], 2**64 - 1), "pad_id " + RANGE.format(0, 2**64 - 1)),
    ("varlen: a wrapped id (was taken as padding)",
     lambda: masks.varlen(np.array([0, 0, 2**64 - 1], U64)), "doc_ids " + RANGE.format(-1, 2**64 - 1)),
    ("position_ids: a uint64 id (reported 'got -2')",
     lambda: masks.position_ids(np.array([0, 2**64 - 2], U64)), "doc_ids " + RANGE.format(-1, 2**64 - 2)),
    ("doc_ids_from_lengths: a length of 2**63", lambda: masks.doc_ids_from_lengths([2**63]),
     r"lengths\[0\] " + RANGE.format(1, 2**63)),
    ("doc_ids_from_lengths: length 2**63", lambda: masks.doc_ids_from_lengths([1], 2**63),
     "length " + RANGE.format(0, 2**63)),
    ("whole_documents: length 2**64", lambda: masks.whole_documents([1], 2**64), "length " + RANGE.format(0, 2**64)),
    ("causal_mask: length 2**63", lambda: masks.causal_mask(2**63), "length " + RANGE.format(0, 2**63)),
    ("sorted_batches: uint64 lengths", lambda: batch.sorted_batches(np.array([2**63], U64), 1),
     "lengths " + RANGE.format(0, 2**63)),
]


@pytest.mark.parametrize("name, call, message", CASES, ids=[c[0] for c in CASES])
def test_an_id_or_length_beyond_int64_is_refused_with_its_range(name, call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_lengths_whose_sum_passes_int64_do_not_wrap():
    # each fits an int64, their running sum does not: a numpy cumsum wrapped it negative and
    # "fitted" documents that do not fit
    assert masks.whole_documents([2**62, 2**62, 2**62], 5).tolist() == [PAD_DOC] * 5
    assert masks.whole_documents([2, 2**62, 2**62, 2**62], 5).tolist() == [0, 0, PAD_DOC, PAD_DOC, PAD_DOC]


# --- the property: every dtype, every bound ---------------------------------------------------

DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, int]
BOUNDS = sorted({s * b + d for b in (0, 2**7, 2**8, 2**15, 2**16, 2**31, 2**32, 2**63, 2**64)
                 for d in (-1, 0, 1) for s in (1, -1)})


def _fits(dtype, value):
    if dtype is int:
        return True
    info = np.iinfo(dtype)
    return info.min <= value <= info.max


def _array(dtype):
    """The maker of an id/length container of `dtype`: a list of Python ints, or a numpy array."""
    return (lambda values: values) if dtype is int else (lambda values: np.array(values, dtype))


def _scalar(dtype, value):
    return value if dtype is int else dtype(value)


# (what, lowest allowed value, the call with the value in one place, the name the error must give)
FUNCTIONS = [
    ("pad rows", 0, lambda a, s: batch.pad([a([1, s]), a([2])], 0), r"rows\[0\]"),
    ("pad pad_id", 0, lambda a, s: batch.pad([[1], [2, 3]], s), "pad_id"),
    ("pad max_length", 1, lambda a, s: batch.pad([[1]], 0, max_length=s), "max_length"),
    ("pad pad_to_multiple_of", 1, lambda a, s: batch.pad([[1]], 0, pad_to_multiple_of=s),
     "pad_to_multiple_of"),
    ("labels", 0, lambda a, s: batch.labels(Batch(a([[s, 1]]), [[1, 0]])), r"batch\.input_ids"),
    ("attention_mask_from_lengths lengths", 0,
     lambda a, s: masks.attention_mask_from_lengths(a([s, 1])), "lengths"),
    ("attention_mask_from_lengths width", 2,
     lambda a, s: masks.attention_mask_from_lengths([2], s), "width"),
    ("next_token_labels tokens", 0, lambda a, s: batch.next_token_labels(a([s, 1, 2]), [0, 0, 1]),
     "tokens"),
    ("next_token_labels doc_ids", PAD_DOC, lambda a, s: batch.next_token_labels([1, 2], a([s, s])),
     "doc_ids"),
    ("attention_mask_from_pad_id", 0,
     lambda a, s: masks.attention_mask_from_pad_id(a([[1, s]]), s), "input_ids|pad_id"),
    ("varlen", PAD_DOC, lambda a, s: masks.varlen(a([0, 0, s])), "doc_ids"),
    ("position_ids", PAD_DOC, lambda a, s: masks.position_ids(a([[0, s], [s, s]])), "doc_ids"),
    ("doc_ids_from_lengths lengths", 1, lambda a, s: masks.doc_ids_from_lengths(a([s, 1])),
     "lengths"),
    ("doc_ids_from_lengths length", 3, lambda a, s: masks.doc_ids_from_lengths([1, 2], s),
     "length"),
    ("whole_documents length", 0, lambda a, s: masks.whole_documents([1, 2], s), "length"),
    ("causal_mask", 0, lambda a, s: masks.causal_mask(s), "length"),
    ("sorted_batches lengths", 0, lambda a, s: batch.sorted_batches(a([s, 1]), 1), "lengths"),
]


@pytest.fixture(scope="module", autouse=True)
def small_machine():
    """A 1 MB machine, so an in-range length asks for little memory or is refused by check_cells
    for both dtypes alike: the property never allocates what a big value would."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_memory, "MEMORY_BYTES", 2**20)
        yield


def _plain(result):
    """A result in comparable form: arrays by dtype, shape and values, dataclasses field by field."""
    if isinstance(result, np.ndarray):
        return (result.dtype.str, result.shape, result.tolist())
    if dataclasses.is_dataclass(result):
        return tuple(_plain(getattr(result, f.name)) for f in dataclasses.fields(result))
    return result


def _outcome(call):
    """('ok', the result) or ('ValueError', its message); any other exception fails the test."""
    try:
        return "ok", _plain(call())
    except ValueError as e:
        return "ValueError", str(e)


def _check(function, dtype, value):
    what, low, call, names = function
    got = _outcome(lambda: call(_array(dtype), _scalar(dtype, value)))
    if low <= value <= INT64_MAX:  # in range: whatever int64 gives, result or refusal
        want = _outcome(lambda: call(_array(np.int64), np.int64(value)))
        assert got[0] == want[0], (what, dtype, value, got, want)
        assert got[0] != "ok" or got == want, (what, dtype, value)
    else:
        assert got[0] == "ValueError", (what, dtype, value, got)
        assert re.search(names, got[1]), (what, dtype, value, got[1])


@pytest.mark.parametrize("function", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_every_dtype_at_every_bound(function):
    for dtype in DTYPES:
        for value in BOUNDS:
            if _fits(dtype, value):
                _check(function, dtype, value)


@st.composite
def typed_values(draw):
    dtype = draw(st.sampled_from(DTYPES))
    if dtype is int:
        return dtype, draw(st.integers(-(2**66), 2**66) | st.integers(-3, 300))
    info = np.iinfo(dtype)
    small = st.integers(max(int(info.min), -3), min(int(info.max), 300))
    return dtype, draw(st.integers(int(info.min), int(info.max)) | small)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(FUNCTIONS), typed_values())
def test_any_dtype_any_value_gives_the_int64_result_or_a_range_error(function, typed):
    _check(function, *typed)
