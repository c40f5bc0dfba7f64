"""Argument checks shared by every module, so the same mistake always gets the same error.

Wrong type -> TypeError, wrong value -> ValueError, and the message names the argument and what is
allowed: "vocab_size must be an int >= 257, got 12". Each check returns the value (normalized where
that helps: a list for a sequence, a Python int for a numpy integer), so a caller writes ``n =
check_int(n, "n", low=1)`` and goes on.
"""

from __future__ import annotations

import math
import operator
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from pathlib import Path
from typing import TypeVar

import numpy as np

T = TypeVar("T")

# The range of an int64, numpy's default integer: every id, length and count that goes into an array
# is held to it, so a value beyond it is refused here instead of overflowing (a Python int) or
# wrapping (a uint64) somewhere inside numpy.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def describe(value: object, limit: int = 60) -> str:
    """A short description of a bad value for an error message: its repr, cut, or its type if repr
    fails."""
    try:
        text = repr(value)
    except Exception:  # a learner's object whose __repr__ raises must not hide the real error
        return f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _type_error(value: object, name: str, allowed: str) -> TypeError:
    return TypeError(f"{name} must be {allowed}, got {type(value).__name__} {describe(value)}")


def _value_error(value: object, name: str, allowed: str) -> ValueError:
    return ValueError(f"{name} must be {allowed}, got {describe(value)}")


def check_type(value: T, name: str, types: type | tuple[type, ...], allowed: str) -> T:
    """`value` if it is an instance of `types` (bool never counts as int), else TypeError."""
    if not isinstance(value, types) or (isinstance(value, bool) and bool not in _as_tuple(types)):
        raise _type_error(value, name, allowed)
    return value


def _as_tuple(types: type | tuple[type, ...]) -> tuple[type, ...]:
    return types if isinstance(types, tuple) else (types,)


def check_str(value: object, name: str, *, non_empty: bool = False, utf8: bool = False) -> str:
    """A str; `non_empty` refuses ""; `utf8` refuses a lone surrogate, which has no UTF-8 form."""
    allowed = "a non-empty str" if non_empty else "a str"
    check_type(value, name, str, allowed)
    if non_empty and not value:
        raise _value_error(value, name, allowed)
    if utf8:
        check_utf8(value, name)
    return value


def check_utf8(text: str, name: str) -> str:
    """`text` if it can be encoded as UTF-8; a lone surrogate (e.g. from a broken decode) is a
    ValueError."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(
            f"{name} contains the lone surrogate {text[e.start]!r} at index {e.start}, which has "
            "no UTF-8 form; repair the text first, e.g. decode its source with errors='replace'"
        ) from None
    return text


def check_bool(value: object, name: str) -> bool:
    return check_type(value, name, bool, "True or False")


def check_int(value: object, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """An int (a numpy integer is fine, a bool or a float is not) with low <= value <= high.

    The message leaves out an int64 bound (the default of the list checks) unless the value is
    beyond it: "must be an int >= 0, got -1", but "must be an int in [0, 2**63 - 1], got 2**64".
    """
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise _type_error(value, name, _int_range_text("an int", low, high, 0))
    value = operator.index(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise _value_error(value, name, _int_range_text("an int", low, high, value))
    return value


def _int_range_text(kind: str, low: int | None, high: int | None, value: int) -> str:
    """The allowed range for `value`'s message, int64 bounds shown only when `value` is beyond
    them."""
    if INT64_MIN <= value <= INT64_MAX:
        low, high = (None if b in (INT64_MIN, INT64_MAX) else b for b in (low, high))
    return _range_text(kind, low, high)


def check_number(value: object, name: str, *, low: float | None = None, high: float | None = None,
                 low_open: bool = False, high_open: bool = False) -> float:
    """A finite int or float inside the given bounds; NaN and infinity are ValueErrors."""
    allowed = _range_text("a finite number", low, high, low_open, high_open)
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        and not hasattr(value, "__float__")
    ):
        raise _type_error(value, name, allowed)
    number = float(value)
    if (
        not math.isfinite(number)
        or (low is not None and (number <= low if low_open else number < low))
        or (high is not None and (number >= high if high_open else number > high))
    ):
        raise _value_error(value, name, allowed)
    return number


def _range_text(kind: str, low: float | None, high: float | None, low_open: bool = False,
                high_open: bool = False) -> str:
    low, high = _bound_text(low), _bound_text(high)
    if low is not None and high is not None:
        return f"{kind} in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high}"
    return kind


def _bound_text(bound: float | None) -> float | str | None:
    """INT64_MAX and INT64_MIN read better as powers of two than as 19 digits."""
    return {INT64_MAX: "2**63 - 1", INT64_MIN: "-2**63"}.get(bound, bound)


def check_choice(value: T, name: str, choices: Iterable[T]) -> T:
    """One of `choices` (compared with ==); anything else, of any type, is a ValueError listing
    them."""
    choices = list(choices)
    try:
        ok = any(value == choice and type(value) is type(choice) for choice in choices)
    except Exception:
        ok = False
    if not ok:
        raise ValueError(f"{name} must be one of {choices}, got {describe(value)}")
    return value


def check_has(value: T, name: str, attributes: Iterable[str], allowed: str) -> T:
    """An object that has every one of `attributes`: duck typing for another library's object (a
    tiktoken Encoding, a SentencePieceProcessor), which this project cannot import just to call
    isinstance."""
    if not all(hasattr(value, attribute) for attribute in attributes):
        raise _type_error(value, name, allowed)
    return value


def check_dtype(value: T, name: str, kinds: str, allowed: str) -> T:
    """A numpy array whose dtype kind is one of `kinds` ("b" bool, "i" signed int, "u" unsigned int,
    "f" float)."""
    kind = getattr(getattr(value, "dtype", None), "kind", None)
    if kind not in tuple(kinds):
        got = f"an array of {value.dtype}" if kind else f"{type(value).__name__} {describe(value)}"
        raise TypeError(f"{name} must be {allowed}, got {got}")
    return value


def check_callable(value: Callable, name: str, allowed: str = "a function") -> Callable:
    if not callable(value):
        raise _type_error(value, name, allowed)
    return value


def check_sequence(value: object, name: str, allowed: str = "a list") -> list:
    """A list of the items of a sequence (list, tuple, range, ...); a str, bytes or dict is not
    one."""
    if isinstance(value, (str, bytes, bytearray, dict)) or not isinstance(value, Sequence):
        raise _type_error(value, name, allowed)
    return list(value)


def check_iterable(value: object, name: str, allowed: str = "a list", *,
                   ordered: bool = False) -> Iterable:
    """An iterable that is not a str or bytes (each of those is one value: iterating it gives its
    characters).

    `ordered` also refuses a set and a dict (or a dict's keys): a set has no order and drops
    repeats, a dict gives its keys and not its values, so token ids or lengths read from either
    would be silently wrong.
    """
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Iterable):
        raise _type_error(value, name, allowed)
    if ordered and isinstance(value, (Set, Mapping)):
        kind = "a dict" if isinstance(value, Mapping) else "a set, which has no order and keeps " \
                                                            "no repeats"
        raise TypeError(f"{name} must be {allowed} in order, got {kind}: {describe(value)}; pass a "
                        "list")
    return value


def check_str_list(value: object, name: str, *, non_empty: bool = False) -> list[str]:
    """A sequence of str as a list; `non_empty` asks for at least one non-empty str among them."""
    items = check_sequence(value, name, "a list of str")
    for i, item in enumerate(items):
        check_type(item, f"{name}[{i}]", str, "a str")
    if non_empty and not any(items):
        raise ValueError(f"{name} must contain some text, got {describe(items)}")
    return items


def check_int_list(value: object, name: str, *, low: int = INT64_MIN,
                   high: int = INT64_MAX) -> list[int]:
    """A flat sequence of ints (a 1-D numpy integer array is fine) as a list of Python ints, each
    in [low, high] (by default the int64 range, so that the list fits an int64 array).

    Bools, floats and nested sequences are refused: a 2-D array passed where one row is expected
    would otherwise be read row by row and fail much later, or not at all.
    """
    if isinstance(value, np.ndarray):
        _check_array_range(value, name, low, high)
    return [
        check_int(item, f"{name}[{i}]", low=low, high=high)
        for i, item in enumerate(_flat(value, name, "a list of int"))
    ]


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
        array = _check_array_range(value, name, low, high).astype(np.int64)
    else:
        rows = check_sequence(value, name, allowed)
        nested = any(isinstance(row, (Sequence, np.ndarray)) and not isinstance(row, str)
                     for row in rows)
        if nested or (not rows and 1 not in ndim):
            array = _int_matrix(rows, name, low, high)
        else:
            array = np.array(check_int_list(rows, name, low=low, high=high), dtype=np.int64)
    if array.ndim not in ndim:
        raise ValueError(f"{name} must be {' or '.join(f'{n}-D' for n in ndim)} ({allowed}), "
                         f"got {array.ndim} dimensions")
    return array


def _check_array_range(array: np.ndarray, name: str, low: int, high: int) -> np.ndarray:
    """`array` if every value is in [low, high]; compared as Python ints, since a uint64 and an
    int64 bound compared in numpy are both cast to float64, which rounds near 2**63."""
    if array.size and array.dtype.kind in "iu":
        smallest, largest = int(array.min()), int(array.max())
        for value in (smallest, largest):
            if not low <= value <= high:
                raise ValueError(f"{name} must hold {_int_range_text('ints', low, high, value)}, "
                                 f"got {value} (in an array of {array.dtype})")
    return array


def _int_matrix(rows: list, name: str, low: int, high: int) -> np.ndarray:
    rows = [check_int_list(row, f"{name}[{i}]", low=low, high=high) for i, row in enumerate(rows)]
    widths = sorted({len(row) for row in rows})
    if len(widths) > 1:
        raise ValueError(f"{name} must be rectangular (every row equally long), got rows of "
                         f"lengths {describe(widths)}")
    return np.array(rows, dtype=np.int64).reshape(len(rows), widths[0] if widths else 0)


def _flat(value: object, name: str, allowed: str) -> list:
    ndim = getattr(value, "ndim", 1)
    if ndim != 1:
        raise ValueError(f"{name} must be 1-D (one sequence), got an array with {ndim} dimensions")
    return list(check_iterable(value, name, allowed, ordered=True))


def check_path(value: object, name: str) -> Path:
    """A str or os.PathLike naming a file (not the empty string, which would mean the current
    directory)."""
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, (str, os.PathLike)):
        raise _type_error(value, name, "a path (str or pathlib.Path)")
    if not os.fspath(value):
        raise _value_error(value, name, "a non-empty path")
    return Path(value)


def check_regular_file(value: object, name: str) -> Path:
    """A path to an existing regular file (or a symlink to one), checked before anything opens it.

    Opening a FIFO blocks until a writer comes, reading /dev/zero never ends, and a directory or a
    symlink loop gives an OSError that does not say which argument was wrong: each is refused here
    with a message that names `name` and what the path is. A missing file is a FileNotFoundError.
    """
    path = check_path(value, name)
    try:
        mode = path.stat().st_mode  # follows symlinks: a link to a file is that file
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file: {str(path)!r}") from None
    except OSError as e:  # ELOOP (a symlink loop), ENOTDIR (a file used as a directory), EACCES
        raise ValueError(f"{name} must be a readable regular file, but {str(path)!r} cannot be "
                         f"looked up: {e.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO (named pipe)",
                stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
                stat.S_IFSOCK: "a socket"}.get(stat.S_IFMT(mode), "not a regular file")
        raise ValueError(f"{name} must be a regular file, but {str(path)!r} is {kind}")
    return path


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


def check_mapping_keys(value: object, name: str, types: type, allowed: str) -> dict:
    """A dict whose keys are all of `types`; returns a copy."""
    check_type(value, name, dict, "a dict")
    for key in value:
        check_type(key, f"a key of {name}", types, allowed)
    return dict(value)


def check_number_list(value: object, name: str, *, low: float | None = None,
                      high: float | None = None) -> list[float]:
    """A flat sequence of finite numbers (a 1-D numpy array is fine) as a list of floats; None and
    NaN are not."""
    return [check_number(item, f"{name}[{i}]", low=low, high=high)
            for i, item in enumerate(_flat(value, name, "a list of numbers"))]


def check_same_length(**sequences: Sequence) -> int:
    """The common length of the named sequences, e.g. ``check_same_length(labels=labels,
    values=values)``."""
    names, lengths = list(sequences), [len(s) for s in sequences.values()]
    if len(set(lengths)) > 1:
        raise ValueError(f"{', '.join(names[:-1])} and {names[-1]} must have the same length, "
                         f"got {', '.join(map(str, lengths[:-1]))} and {lengths[-1]}")
    return lengths[0]
