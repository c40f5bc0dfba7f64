"""The shared argument checks: lists of finite numbers, sequences of one length, non-empty dicts,
rows of int ids held to the int64 range, unordered containers, regular files."""

import os
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib._check_data import (check_int_rows, check_non_empty_dict, check_number_list,
                                      check_same_length)
from tutorial_lib._check_files import check_regular_file
from tutorial_lib._checks import INT64_MAX, check_int_list


def test_number_list_gives_floats_and_takes_arrays():
    assert check_number_list((1, 2.5, np.float32(0.5), np.int64(3)), "xs") == [1.0, 2.5, 0.5, 3.0]
    assert check_number_list(np.array([0.25, 1.0]), "xs", low=0, high=1) == [0.25, 1.0]
    assert check_number_list([], "xs") == []


@pytest.mark.parametrize(
    "value, error, words",
    [
        ([1, None], TypeError, "xs[1] must be a finite number, got NoneType None"),
        ([float("nan")], ValueError, "xs[0] must be a finite number, got nan"),
        ([float("inf")], ValueError, "xs[0] must be a finite number, got inf"),
        ([True], TypeError, "xs[0] must be a finite number"),
        (["1"], TypeError, "xs[0] must be a finite number, got str '1'"),
        ("12", TypeError, "xs must be a list of numbers, got str"),
        (3, TypeError, "xs must be a list of numbers, got int"),
        (np.zeros((2, 2)), ValueError, "xs must be 1-D"),
    ],
)
def test_number_list_refuses(value, error, words):
    with pytest.raises(error) as info:
        check_number_list(value, "xs")
    assert words in str(info.value)


def test_number_list_bounds():
    with pytest.raises(ValueError, match=r"xs\[1\] must be a finite number in \[0, 1\], got 1.5"):
        check_number_list([0.5, 1.5], "xs", low=0, high=1)


def test_same_length_names_every_sequence():
    assert check_same_length(a=[1, 2], b="xy", c=(3, 4)) == 2
    with pytest.raises(ValueError, match="a, b and c must have the same length, got 2, 2 and 1"):
        check_same_length(a=[1, 2], b=[1, 2], c=[1])
    words = r"labels and series\['s'\] must have the same length, got 1 and 0"
    with pytest.raises(ValueError, match=words):
        check_same_length(labels=["x"], **{"series['s']": []})


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**6, 10**6)))
def test_finite_numbers_pass_unchanged_in_value(values):
    assert check_number_list(values, "xs") == [float(v) for v in values]


def test_non_empty_dict_is_returned_as_given():
    series = {"a": [1]}
    assert check_non_empty_dict(series, "series", "name -> values") is series
    assert check_non_empty_dict(Counter({1: 2}), "counts", "id -> count") == {1: 2}


@pytest.mark.parametrize(
    "value, error, words",
    [
        ({}, ValueError, "series must contain at least one name -> values entry, got {}"),
        ([("a", [1])], TypeError, "series must be a dict of name -> values, got list"),
        (None, TypeError, "series must be a dict of name -> values, got NoneType None"),
    ],
)
def test_non_empty_dict_refuses(value, error, words):
    with pytest.raises(error) as info:
        check_non_empty_dict(value, "series", "name -> values")
    assert words in str(info.value)


def test_int_rows_takes_a_row_a_batch_and_an_array():
    assert check_int_rows([1, 2], "ids").tolist() == [1, 2]
    assert check_int_rows([[1, 2], (3, 4)], "ids").tolist() == [[1, 2], [3, 4]]
    array = check_int_rows(np.array([[1, 2]], dtype=np.uint8), "ids")
    assert array.dtype == np.int64 and array.shape == (1, 2)
    assert check_int_rows([], "ids").shape == (0,)  # a row of nothing
    assert check_int_rows([], "ids", ndim=(2,)).shape == (0, 0)  # a batch of no rows
    assert check_int_rows([[], []], "ids").shape == (2, 0)


@pytest.mark.parametrize("value, kwargs, error, words", [
    ([[1, 2], [3]], {}, ValueError,
     "ids must be rectangular (every row equally long), got rows of lengths [1, 2]"),
    ([1.0, 2.0], {}, TypeError, "ids[0] must be an int"),
    ([True], {}, TypeError, "ids[0] must be an int"),
    (np.array([0.5]), {}, TypeError, "ids must be an array of int, got an array of float64"),
    (np.array([True]), {}, TypeError, "ids must be an array of int, got an array of bool"),
    ("12", {}, TypeError, "ids must be a list of int or a list of rows of int, got str"),
    (np.zeros((1, 1, 1), dtype=int), {}, ValueError, "ids must be 1-D or 2-D"),
    ([1, 2], {"ndim": (2,)}, ValueError, "ids must be 2-D (a list of rows of int), got 1 dimensions"),
    ([[1, -5]], {"low": 0}, ValueError, "ids[0][1] must be an int >= 0, got -5"),
    (np.array([[1, -5]]), {"low": 0}, ValueError, "ids must hold ints >= 0, got -5"),
    ([-2], {"low": -1}, ValueError, "ids[0] must be an int >= -1, got -2"),
])
def test_int_rows_refused(value, kwargs, error, words):
    with pytest.raises(error) as info:
        check_int_rows(value, "ids", **kwargs)
    assert words in str(info.value)


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@given(st.sampled_from(INT_DTYPES), st.integers(-(2**64), 2**65), st.integers(0, 2))
def test_int_checks_hold_every_value_to_the_int64_range(dtype, value, low):
    """Python ints and every numpy integer dtype: a value inside [low, 2**63 - 1] comes back
    unchanged, one outside is a ValueError stating the range, never an overflow or a wrap."""
    info = np.iinfo(dtype)
    inside = low <= value <= INT64_MAX
    if info.min <= value <= info.max:
        array = np.array([value], dtype=dtype)
        for given_ids in (array, [value], [dtype(value)]):
            if inside:
                assert check_int_rows(given_ids, "ids", low=low).tolist() == [value]
                assert check_int_list(given_ids, "ids", low=low) == [value]
            else:
                with pytest.raises(ValueError, match=r"ids(\[0\])? must (be an int|hold ints)"):
                    check_int_rows(given_ids, "ids", low=low)
    if value > INT64_MAX:
        with pytest.raises(ValueError, match=r"in \[\d+, 2\*\*63 - 1\]"):
            check_int_list([value], "ids", low=low)


@pytest.mark.parametrize("value", [{5, 6}, frozenset({1}), {"low": 5}, {"a": 1}.keys()])
def test_unordered_containers_are_not_sequences_of_ids(value):
    """A set drops repeats and has no order, a dict gives its keys: refused, never read."""
    for check in (check_int_list, check_int_rows):
        with pytest.raises(TypeError, match="ids must be a list"):
            check(value, "ids")
    with pytest.raises(TypeError, match=r"ids\[0\] must be an int"):
        check_int_rows([value], "ids")


def test_regular_file_refuses_what_would_block_or_never_end(tmp_path):
    text = tmp_path / "t.txt"
    text.write_text("x")
    link = tmp_path / "link"
    link.symlink_to(text)
    assert check_regular_file(link, "tokenizer") == link
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    for path, words in [(tmp_path, "is a directory"), (fifo, "is a FIFO"),
                        ("/dev/zero", "is a character device"), (loop, "cannot be looked up"),
                        (text / "x", "cannot be looked up")]:
        with pytest.raises(ValueError, match=f"tokenizer must be a .*{words}"):
            check_regular_file(path, "tokenizer")
    with pytest.raises(FileNotFoundError, match="tokenizer: no such file"):
        check_regular_file(tmp_path / "missing", "tokenizer")
