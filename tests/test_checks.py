"""tutorial_lib._checks.check_int_rows: the one check for a row or a rectangular batch of int ids."""

import numpy as np
import pytest

from tutorial_lib._checks import check_int_rows


def test_a_row_a_batch_and_an_array():
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
def test_refused(value, kwargs, error, words):
    with pytest.raises(error) as info:
        check_int_rows(value, "ids", **kwargs)
    assert words in str(info.value)
