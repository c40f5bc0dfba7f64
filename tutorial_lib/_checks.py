"""Argument checks, so the same mistake always gets the same error: a TypeError for a wrong type,
a ValueError for a wrong value, naming the argument and what is allowed ("vocab_size must be an int
>= 257, got 12"). Each returns the value, normalized where that helps (a list for a sequence, a
Python int for a numpy integer), so a call site is one line: ``n = check_int(n, "n", low=1)``.
Paths and files: `_check_files`; numbers, arrays, tables and objects: `_check_data`.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Mapping, Sequence, Set
from typing import TypeVar

import numpy as np

T = TypeVar("T")

# The range of an int64, numpy's default integer: ids, lengths and counts that go into an array are
# held to it, refused here rather than overflowing (a Python int) or wrapping (a uint64) in numpy.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def describe(value: object, limit: int = 60) -> str:
    """A bad value for a message: its repr, cut, or its type if repr fails."""
    try:
        text = repr(value)
    except Exception:  # a learner's object whose __repr__ raises must not hide the real error
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def type_error(value: object, name: str, allowed: str) -> TypeError:
    return TypeError(f"{name} must be {allowed}, got {type(value).__name__} {describe(value)}")


def value_error(value: object, name: str, allowed: str) -> ValueError:
    return ValueError(f"{name} must be {allowed}, got {describe(value)}")


def check_type(value: T, name: str, types: type | tuple[type, ...], allowed: str) -> T:
    """`value` if it is an instance of `types` (bool never counts as int), else TypeError."""
    bool_ok = bool in (types if isinstance(types, tuple) else (types,))
    if not isinstance(value, types) or (isinstance(value, bool) and not bool_ok):
        raise type_error(value, name, allowed)
    return value


def check_str(value: object, name: str, *, non_empty: bool = False, utf8: bool = False) -> str:
    """A str; `non_empty` refuses ""; `utf8` refuses a lone surrogate, which has no UTF-8 form."""
    allowed = "a non-empty str" if non_empty else "a str"
    check_type(value, name, str, allowed)
    if non_empty and not value:
        raise value_error(value, name, allowed)
    return check_utf8(value, name) if utf8 else value


def check_utf8(text: str, name: str) -> str:
    """`text` if it has a UTF-8 form; a lone surrogate (from a broken decode) is a ValueError."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(
            f"{name} contains the lone surrogate {text[e.start]!r} at index {e.start}, which has "
            "no UTF-8 form; repair the text first, e.g. decode its source with errors='replace'"
        ) from None
    return text


def check_int(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An int (a numpy integer is fine, a bool or a float is not) with low <= value <= high.

    The message leaves out an int64 bound (the default of the list checks) unless the value is
    beyond it: "must be an int >= 0, got -1", but "must be an int in [0, 2**63 - 1], got 2**64".
    """
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise type_error(value, name, int_range_text("an int", low, high, 0))
    value = operator.index(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise value_error(value, name, int_range_text("an int", low, high, value))
    return value


def int_range_text(kind: str, low: int | None, high: int | None, value: int) -> str:
    """The allowed range for `value`'s message, int64 bounds shown only when it is beyond them."""
    if INT64_MIN <= value <= INT64_MAX:
        low, high = (None if b in (INT64_MIN, INT64_MAX) else b for b in (low, high))
    return range_text(kind, low, high)


def range_text(kind: str, low: float | None, high: float | None, low_open: bool = False,
               high_open: bool = False) -> str:
    """"an int in [0, 9]", "a finite number > 0", ...; the int64 bounds read as powers of two."""
    low, high = ({INT64_MAX: "2**63 - 1", INT64_MIN: "-2**63"}.get(b, b) for b in (low, high))
    if low is not None and high is not None:
        return f"{kind} in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high}"
    return kind


def check_choice(value: T, name: str, choices: Iterable[T]) -> T:
    """One of `choices` (equal and of the same type); anything else is a ValueError listing them."""
    choices = list(choices)
    try:
        ok = any(value == choice and type(value) is type(choice) for choice in choices)
    except Exception:  # an object whose == raises is simply not one of them
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {choices}, got {describe(value)}")
    return value


def check_sequence(value: object, name: str, allowed: str = "a list") -> list:
    """A list of the items of a sequence (list, tuple, range, ...); not a str, bytes or dict."""
    if isinstance(value, (str, bytes, bytearray, dict)) or not isinstance(value, Sequence):
        raise type_error(value, name, allowed)
    return list(value)


def check_iterable(value: object, name: str, allowed: str = "a list", *,
                   ordered: bool = False) -> Iterable:
    """An iterable that is not a str or bytes (iterating one of those gives its characters).

    `ordered` also refuses a set and a dict: a set has no order and drops repeats, a dict gives its
    keys and not its values, so token ids or lengths read from either would be silently wrong.
    """
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Iterable):
        raise type_error(value, name, allowed)
    if ordered and isinstance(value, (Set, Mapping)):
        kind = ("a dict" if isinstance(value, Mapping)
                else "a set, which has no order and keeps no repeats")
        raise TypeError(f"{name} must be {allowed} in order, got {kind}: {describe(value)}; pass a "
                        "list")
    return value


def check_int_list(value: object, name: str, *, low: int = INT64_MIN,
                   high: int = INT64_MAX) -> list[int]:
    """A flat sequence of ints (a 1-D numpy integer array too) as a list of Python ints in [low,
    high] (by default the int64 range, so that the list fits an int64 array).

    Bools, floats and nested sequences are refused: a 2-D array passed where one row is expected
    would otherwise be read row by row and fail much later, or not at all.
    """
    if isinstance(value, np.ndarray):
        check_array_range(value, name, low, high)
    items = flat_items(value, name, "a list of int")
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return value.tolist()  # an int array, its range checked above
    if all(type(item) is int for item in items) and (not items or low <= min(items)
                                                      and max(items) <= high):
        return items  # plain ints in range, the usual case: no need to look at each one
    return [check_int(item, f"{name}[{i}]", low=low, high=high) for i, item in enumerate(items)]


def check_array_range(array: np.ndarray, name: str, low: int, high: int) -> np.ndarray:
    """`array` if every value is in [low, high], compared as Python ints: numpy compares a uint64
    with an int64 bound as float64, which rounds near 2**63."""
    if array.size and array.dtype.kind in "iu":
        for value in (int(array.min()), int(array.max())):
            if not low <= value <= high:
                raise ValueError(f"{name} must hold {int_range_text('ints', low, high, value)}, "
                                 f"got {value} (in an array of {array.dtype})")
    return array


def flat_items(value: object, name: str, allowed: str) -> list:
    """The items of a 1-D sequence or array, in order (see `check_iterable`'s `ordered`)."""
    ndim = getattr(value, "ndim", 1)
    if ndim != 1:
        raise ValueError(f"{name} must be 1-D (one sequence), got an array with {ndim} dimensions")
    return list(check_iterable(value, name, allowed, ordered=True))
