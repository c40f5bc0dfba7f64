"""Token ids as a dataset's `.bin` holds them: one sequence, in one dtype, every value exactly.

numpy turns almost anything into an array (a str into one scalar, a generator into an object, an
int beyond int64 into a float) and `astype` wraps what does not fit; `as_dtype` refuses each.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tutorial_lib._checks import check_int_list, describe


def as_dtype(ids: object, dtype: np.dtype) -> np.ndarray:
    """`ids` (one sequence: a list, tuple or 1-D array of ints) as a 1-D array of `dtype` holding
    exactly the values given: an id the dtype cannot hold is a ValueError, never a wrap."""
    arr = _array(ids)
    if arr.ndim != 1:
        raise ValueError(f"ids must be one sequence (1-D), got an array of shape {arr.shape}")
    if arr.size == 0:
        return arr.astype(dtype)
    integer = dtype.kind in "iu"
    if arr.dtype.kind not in "iu" + ("" if integer else "f"):
        if integer and not isinstance(ids, np.ndarray):  # say which item numpy could not take
            check_int_list(ids, "ids", low=int(np.iinfo(dtype).min), high=int(np.iinfo(dtype).max))
        floats = "" if integer else " or floats"
        raise TypeError(f"ids must be integers{floats} for a {dtype} dataset, got an array of "
                        f"{arr.dtype}: {describe(ids)}")
    if integer:
        info = np.iinfo(dtype)
        low, high = int(arr.min()), int(arr.max())  # Python ints: a uint64 compares exactly
        if low < info.min or high > info.max:
            raise ValueError(f"ids must fit {dtype} ({info.min}..{info.max}), got "
                             f"{low if low < info.min else high}; choose a wider dtype "
                             "(optimal_dtype(vocab_size) picks one)")
    out = arr.astype(dtype)
    if not integer and not np.array_equal(out, arr):
        raise ValueError(f"ids are not exactly representable as {dtype}")
    return out


def _array(ids: object) -> np.ndarray:
    """`ids` as an array, refusing what numpy would make one odd value of or cannot shape."""
    if isinstance(ids, np.ndarray):
        return ids
    if isinstance(ids, (str, bytes, bytearray)) or not isinstance(ids, Sequence):
        hint = {str: "; encode text with a tokenizer first", bytes: "; list(data) gives its byte "
                "values"}.get(type(ids), "; a single id is [id]" if isinstance(ids, int) else
                              "; an iterator is read once: pass list(...)")
        raise TypeError(f"ids must be a list or 1-D array of ints, got {type(ids).__name__} "
                        f"{describe(ids)}{hint}")
    try:
        return np.asarray(ids)
    except ValueError:
        raise ValueError(f"ids must be one flat sequence of ints, got rows of different lengths: "
                         f"{describe(ids)}") from None
