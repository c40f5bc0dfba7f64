"""Tests for tutorial_lib.packing.batch: padding rows of ids to a rectangle with an attention mask."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.packing.batch import Batch, pad


def test_three_sentences_padded_to_the_longest():
    batch = pad([[2, 3, 4], [4], [2, 3, 5, 6, 4]], pad_id=0)
    assert batch.input_ids == [[2, 3, 4, 0, 0], [4, 0, 0, 0, 0], [2, 3, 5, 6, 4]]
    assert batch.attention_mask == [[1, 1, 1, 0, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 1]]


def test_a_real_token_equal_to_the_pad_id_stays_visible():
    # GPT-2 style: the end-of-text id 50256 ends a document and also pads; the mask comes from the lengths.
    batch = pad([[464, 50256], [464, 318, 257, 50256]], pad_id=50256)
    assert batch.input_ids == [[464, 50256, 50256, 50256], [464, 318, 257, 50256]]
    assert batch.attention_mask == [[1, 1, 0, 0], [1, 1, 1, 1]]


def test_empty_inputs():
    assert pad([], pad_id=0) == Batch([], [])
    assert pad([[], []], pad_id=0) == Batch([[], []], [[], []])
    assert pad([[], [7]], pad_id=0) == Batch([[0], [7]], [[0], [1]])


def test_numpy_rows_and_tuples_give_plain_python_ints():
    batch = pad((np.array([5, 6], dtype=np.int64), (7,)), pad_id=np.int32(0))
    assert batch == Batch([[5, 6], [7, 0]], [[1, 1], [1, 0]])
    assert all(type(i) is int for row in batch.input_ids for i in row)


@pytest.mark.parametrize(
    "rows, pad_id, error, words",
    [
        ("abc", 0, TypeError, "rows must be a list of rows of ids, got str"),
        (5, 0, TypeError, "rows must be a list of rows of ids, got int"),
        ([[1, 2], [3.0]], 0, TypeError, "rows[1][0] must be an int"),
        ([[True]], 0, TypeError, "rows[0][0] must be an int"),
        ([[1, -2]], 0, ValueError, "rows[0][1] must be an int >= 0, got -2"),
        ([np.zeros((2, 2), dtype=int)], 0, ValueError, "rows[0] must be 1-D"),
        ([[1]], -1, ValueError, "pad_id must be an int >= 0, got -1"),
        ([[1]], None, TypeError, "pad_id must be an int >= 0, got NoneType"),
    ],
)
def test_bad_input(rows, pad_id, error, words):
    with pytest.raises(error) as info:
        pad(rows, pad_id)
    assert words in str(info.value)


@given(st.lists(st.lists(st.integers(0, 9), max_size=6), max_size=5), st.integers(0, 9))
def test_a_rectangle_whose_mask_recovers_every_row(rows, pad_id):
    original = [list(row) for row in rows]
    batch = pad(rows, pad_id)
    width = max(map(len, rows), default=0)
    assert all(len(row) == width for row in batch.input_ids + batch.attention_mask)
    assert [[i for i, m in zip(ids, mask) if m] for ids, mask in zip(batch.input_ids, batch.attention_mask)] == rows
    assert all(mask == sorted(mask, reverse=True) for mask in batch.attention_mask)  # padding only at the end
    assert all(i == pad_id for ids, mask in zip(batch.input_ids, batch.attention_mask)
               for i, m in zip(ids, mask) if not m)
    assert rows == original  # the input rows are not padded in place
