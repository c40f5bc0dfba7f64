"""Argument checks for the data a function computes on or shows, beyond plain values and sequences
(`_checks`): flags and numbers in a range, functions and other libraries' objects, lists of str or
of numbers, dicts of series to plot, and arrays and batches of int ids.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

import numpy as np

from tutorial_lib._checks import (INT64_MAX, INT64_MIN, check_array_range, check_int_list,
                                  check_sequence, check_type, describe, flat_items, range_text,
                                  type_error, value_error)

T = TypeVar("T")


def check_bool(value: object, name: str) -> bool:
    return check_type(value, name, bool, "True or False")


def check_number(value: object, name: str, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float:
    """A finite int or float inside the given bounds; NaN and infinity are ValueErrors."""
    is_number = not isinstance(value, bool) and (isinstance(value, (int, float))
                                                 or hasattr(value, "__float__"))
    number = float(value) if is_number else math.nan
    if (
        math.isfinite(number)
        and (low is None or (number > low if low_open else number >= low))
        and (high is None or (number < high if high_open else number <= high))
    ):
        return number
    allowed = range_text("a finite number", low, high, low_open, high_open)  # only for a refusal
    raise (value_error if is_number else type_error)(value, name, allowed)


def check_callable(value: Callable, name: str, allowed: str = "a function") -> Callable:
    if not callable(value):
        raise type_error(value, name, allowed)
    return value


def check_has(value: T, name: str, attributes: Iterable[str], allowed: str) -> T:
    """An object that has every one of `attributes`: duck typing for another library's object (a
    tiktoken Encoding, a SentencePieceProcessor), which this project cannot import just to call
    isinstance."""
    if not all(hasattr(value, attribute) for attribute in attributes):
        raise type_error(value, name, allowed)
    return value


def check_str_list(value: object, name: str, *, non_empty: bool = False) -> list[str]:
    """A sequence of str as a list; `non_empty` asks for at least one non-empty str among them."""
    items = check_sequence(value, name, "a list of str")
    for i, item in enumerate(items):
        check_type(item, f"{name}[{i}]", str, "a str")
    if non_empty and not any(items):
        raise ValueError(f"{name} must contain some text, got {describe(items)}")
    return items


def check_number_list(value: object, name: str, *, low: float | None = None,
                      high: float | None = None) -> list[float]:
    """A flat sequence of finite numbers (a 1-D numpy array is fine) as a list of floats; None and
    NaN are not."""
    return [check_number(item, f"{name}[{i}]", low=low, high=high)
            for i, item in enumerate(flat_items(value, name, "a list of numbers"))]


def check_same_length(**sequences: Sequence) -> int:
    """The common length of the named sequences, e.g. ``check_same_length(labels=labels,
    values=values)``."""
    names, lengths = list(sequences), [len(s) for s in sequences.values()]
    if len(set(lengths)) > 1:
        raise ValueError(f"{', '.join(names[:-1])} and {names[-1]} must have the same length, "
                         f"got {', '.join(map(str, lengths[:-1]))} and {lengths[-1]}")
    return lengths[0]


def check_non_empty_dict(value: object, name: str, entries: str) -> dict:
    """A dict with at least one entry: ``check_non_empty_dict(series, "series", "name -> values")``.

    `entries` says what a key and its value are, and both errors quote it: "series must be a dict
    of name -> values" (TypeError), "series must contain at least one name -> values entry"
    (ValueError). A figure or a widget with nothing to show is a mistake, not a blank.
    """
    check_type(value, name, dict, f"a dict of {entries}")
    if not value:
        raise ValueError(f"{name} must contain at least one {entries} entry, got {describe(value)}")
    return value


def check_dict_of(value: object, name: str, entries: str, check: Callable, **bounds) -> dict:
    """`check_non_empty_dict`, then each value as `check(value, "name[key]", **bounds)` gives it."""
    check_non_empty_dict(value, name, entries)
    return {key: check(item, f"{name}[{key!r}]", **bounds) for key, item in value.items()}


def check_mapping_keys(value: object, name: str, types: type, allowed: str) -> dict:
    """A dict whose keys are all of `types`; returns a copy."""
    check_type(value, name, dict, "a dict")
    for key in value:
        check_type(key, f"a key of {name}", types, allowed)
    return dict(value)


def check_dtype(value: T, name: str, kinds: str, allowed: str) -> T:
    """A numpy array whose dtype kind is one of `kinds` ("b" bool, "i" signed int, "u" unsigned int,
    "f" float)."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind not in tuple(kinds):
        got = f"an array of {value.dtype}" if kind else f"{type(value).__name__} {describe(value)}"
        raise TypeError(f"{name} must be {allowed}, got {got}")
    return value


def check_int_rows(value: object, name: str, *, low: int = INT64_MIN, high: int = INT64_MAX,
                   ndim: tuple[int, ...] = (1, 2)) -> np.ndarray:
    """`value` as an int64 array: one row (1-D) or a rectangular batch of rows (2-D), as `ndim`
    allows.

    A list of ints, a list of equally long rows of ints, or a numpy integer array. Floats and bools
    are a TypeError even when they hold whole numbers; ragged rows, other dimensions and ints
    outside [low, high] (by default the int64 range) are a ValueError, whatever the input's dtype: a
    uint64 beyond 2**63 - 1 is refused rather than wrapped to a negative int64. With ndim=(2,) an
    empty list is a batch of no rows, shape (0, 0).
    """
    shapes = {1: "a list of int", 2: "a list of rows of int"}
    allowed = " or ".join(shapes[n] for n in ndim)
    if isinstance(value, np.ndarray):
        check_dtype(value, name, "iu", "an array of int")
        array = check_array_range(value, name, low, high).astype(np.int64)
    else:
        rows = check_sequence(value, name, allowed)
        flat = all(type(row) is int for row in rows)  # one quick pass in the usual 1-D case
        nested = not flat and any(isinstance(row, (Sequence, np.ndarray))
                                  and not isinstance(row, str) for row in rows)
        if nested or (not rows and 1 not in ndim):
            array = _int_matrix(rows, name, low, high)
        else:
            array = np.array(check_int_list(rows, name, low=low, high=high), dtype=np.int64)
    if array.ndim not in ndim:
        raise ValueError(f"{name} must be {' or '.join(f'{n}-D' for n in ndim)} ({allowed}), "
                         f"got {array.ndim} dimensions")
    return array


def _int_matrix(rows: list, name: str, low: int, high: int) -> np.ndarray:
    rows = [check_int_list(row, f"{name}[{i}]", low=low, high=high) for i, row in enumerate(rows)]
    widths = sorted({len(row) for row in rows})
    if len(widths) > 1:
        raise ValueError(f"{name} must be rectangular (every row equally long), got rows of "
                         f"lengths {describe(widths)}")
    return np.array(rows, dtype=np.int64).reshape(len(rows), widths[0] if widths else 0)
