"""Tests for tutorial_lib.packing.batch: padding rows of ids to a rectangle with an attention mask, labels
and shifted labels, the one padding share, and length bucketing."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing.batch import (BATCHINGS, IGNORE_INDEX, Batch, Batching, PaddedBatch, batches_by,
                                        bucketed_batches, labels,
                                        next_token_labels, ordered_batches, pad, padded_batches, padding_share,
                                        random_batches, sorted_batches)
from tutorial_lib.packing.masks import PAD_DOC, doc_ids_from_lengths, padded_doc_ids


def shifted(batch: Batch) -> np.ndarray:
    """next_token_labels of a padded batch: one document per row."""
    return next_token_labels(batch.input_ids, padded_doc_ids(batch.attention_mask))


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


# --- padding side, max_length, pad_to_multiple_of, truncation ----------------------------------------------


def test_left_padding_puts_the_pads_in_front():
    batch = pad([[2, 3, 4], [4]], pad_id=0, padding_side="left")
    assert batch.input_ids == [[2, 3, 4], [0, 0, 4]]
    assert batch.attention_mask == [[1, 1, 1], [0, 0, 1]]


def test_max_length_pads_every_row_to_it():
    batch = pad([[2, 3], [4]], pad_id=0, max_length=4)
    assert batch.input_ids == [[2, 3, 0, 0], [4, 0, 0, 0]]
    assert batch.lengths == [2, 1] and batch.padding_share == 5 / 8


def test_pad_to_multiple_of_rounds_the_width_up():
    assert pad([[1, 2, 3], [4]], pad_id=0, pad_to_multiple_of=4).input_ids == [[1, 2, 3, 0], [4, 0, 0, 0]]
    assert pad([[1, 2, 3, 4]], pad_id=0, pad_to_multiple_of=4).input_ids == [[1, 2, 3, 4]]
    # like Hugging Face: with both, the width is max_length rounded up, past max_length
    assert len(pad([[1]], pad_id=0, max_length=5, pad_to_multiple_of=4).input_ids[0]) == 8


def test_a_row_longer_than_max_length_is_an_error_unless_truncation_is_asked():
    with pytest.raises(ValueError, match=r"rows\[1\] has 4 tokens, more than max_length=3; pass truncation=True"):
        pad([[1], [1, 2, 3, 4]], pad_id=0, max_length=3)
    right = pad([[1], [1, 2, 3, 4], [5, 6, 7, 8, 9]], pad_id=0, max_length=3, truncation=True)
    assert right.input_ids == [[1, 0, 0], [1, 2, 3], [5, 6, 7]] and right.num_truncated_tokens == 3
    left = pad([[1, 2, 3, 4]], pad_id=0, max_length=3, truncation=True, truncation_side="left")
    assert left.input_ids == [[2, 3, 4]] and left.num_truncated_tokens == 1
    assert pad([[1, 2]], pad_id=0, max_length=3, truncation=True).num_truncated_tokens == 0


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"padding_side": "middle"}, ValueError, "padding_side must be one of ['right', 'left']"),
        ({"truncation_side": "both"}, ValueError, "truncation_side must be one of ['right', 'left']"),
        ({"max_length": 0}, ValueError, "max_length must be an int >= 1, got 0"),
        ({"max_length": -3}, ValueError, "max_length must be an int >= 1, got -3"),
        ({"max_length": 2.5}, TypeError, "max_length must be an int >= 1"),
        ({"pad_to_multiple_of": 0}, ValueError, "pad_to_multiple_of must be an int >= 1, got 0"),
        ({"truncation": 1}, TypeError, "truncation must be True or False"),
        ({"truncation": True}, ValueError, "truncation=True needs max_length"),
    ],
)
def test_bad_options(kwargs, error, words):
    with pytest.raises(error) as info:
        pad([[1, 2]], 0, **kwargs)
    assert words in str(info.value)


def test_options_on_empty_input_give_an_empty_batch():
    assert pad([], 0, max_length=4, pad_to_multiple_of=8, padding_side="left", truncation=True) == Batch([], [])
    assert pad([[]], 0, pad_to_multiple_of=8) == Batch([[]], [[]])


rows_strategy = st.lists(st.lists(st.integers(0, 9), max_size=12), max_size=6)


@given(rows_strategy, st.integers(0, 9), st.sampled_from(["right", "left"]), st.integers(1, 8))
def test_every_real_token_kept_in_order_and_the_width_a_multiple_of_n(rows, pad_id, side, n):
    batch = pad(rows, pad_id, padding_side=side, pad_to_multiple_of=n)
    width = len(batch.input_ids[0]) if rows else 0
    assert width % n == 0 and width - max(map(len, rows), default=0) < n
    assert [[i for i, m in zip(ids, mask) if m] for ids, mask in zip(batch.input_ids, batch.attention_mask)] == rows
    assert batch.lengths == [len(row) for row in rows]
    assert batch.num_truncated_tokens == 0
    assert all(mask == sorted(mask, reverse=side == "right") for mask in batch.attention_mask)


@given(rows_strategy, st.integers(1, 8), st.sampled_from(["right", "left"]), st.sampled_from(["right", "left"]))
def test_truncation_keeps_one_end_and_counts_the_rest(rows, max_length, side, cut_side):
    batch = pad(rows, 0, max_length=max_length, truncation=True, padding_side=side, truncation_side=cut_side)
    assert all(len(row) == max_length for row in batch.input_ids)
    kept = [[i for i, m in zip(ids, mask) if m] for ids, mask in zip(batch.input_ids, batch.attention_mask)]
    assert kept == [row[:max_length] if cut_side == "right" else row[max(0, len(row) - max_length):] for row in rows]
    assert batch.num_truncated_tokens == sum(len(row) for row in rows) - sum(batch.lengths)


# --- labels -----------------------------------------------------------------------------------------------


def test_labels_are_the_ids_with_minus_100_on_padding_and_not_shifted():
    batch = pad([[2, 3, 4], [4]], pad_id=0)
    assert labels(batch).tolist() == [[2, 3, 4], [4, -100, -100]]
    assert shifted(batch).tolist() == [[3, 4, -100], [-100, -100, -100]]
    left = pad([[2, 3, 4], [4, 5]], pad_id=0, padding_side="left")
    assert shifted(left).tolist() == [[3, 4, -100], [-100, 5, -100]]
    assert IGNORE_INDEX == -100  # what PyTorch's cross_entropy skips by default


def test_a_real_token_equal_to_the_pad_id_keeps_its_label():
    batch = pad([[464, 50256], [464, 318, 257, 50256]], pad_id=50256)
    assert labels(batch).tolist() == [[464, 50256, -100, -100], [464, 318, 257, 50256]]


def test_labels_of_an_empty_batch_and_bad_input():
    assert labels(pad([], 0)).shape == (0, 0) and shifted(pad([[]], 0)).shape == (1, 0)
    with pytest.raises(TypeError, match="batch must be a Batch"):
        labels([[1, 2]])


@given(rows_strategy, st.sampled_from(["right", "left"]))
def test_next_token_labels_point_at_the_next_real_token(rows, side):
    batch = pad(rows, 0, padding_side=side)
    targets, plain = shifted(batch), labels(batch)
    assert (targets != IGNORE_INDEX).sum() == sum(max(len(row) - 1, 0) for row in rows)
    assert (plain != IGNORE_INDEX).sum() == sum(map(len, rows))
    for b, row in enumerate(rows):
        assert [t for t in targets[b].tolist() if t != IGNORE_INDEX] == row[1:]


def test_no_target_crosses_into_the_next_document_or_padding():
    tokens = [10, 11, 12, 20, 21, 0, 0]
    ids = [0, 0, 0, 1, 1, PAD_DOC, PAD_DOC]
    assert next_token_labels(tokens, ids).tolist() == [11, 12, -100, 21, -100, -100, -100]


# A batch as per-row document lengths plus some padding per row: rows of lengths 1..12, up to 4 rows.
rows_of_lengths = st.lists(st.lists(st.integers(1, 12), max_size=5), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_every_kept_label_is_the_next_token_of_the_same_document(rows):
    ids = doc_ids_from_lengths(rows, max(map(sum, rows)) + 2)
    tokens = np.arange(ids.size).reshape(ids.shape)
    targets = next_token_labels(tokens, ids)
    assert targets.shape == ids.shape and (targets[:, -1] == IGNORE_INDEX).all()
    kept = targets != IGNORE_INDEX
    assert (targets[:, :-1][kept[:, :-1]] == tokens[:, 1:][kept[:, :-1]]).all()
    # one target per document is lost (its last token), none where there is padding
    assert kept.sum() == sum(n - 1 for row in rows for n in row)


def test_labels_need_tokens_of_the_same_shape():
    with pytest.raises(ValueError, match="same shape"):
        next_token_labels([1, 2, 3], [0, 0])
    assert next_token_labels([], []).shape == (0,)


# --- bucketing --------------------------------------------------------------------------------------------


def test_padding_share_arithmetic():
    lengths = [1, 4, 2, 3]
    assert sorted_batches(lengths, 2) == Batching([[0, 2], [3, 1]], tokens=10, cells=12)
    assert sorted_batches(lengths, 2).padding_share == pytest.approx(1 / 6)
    assert random_batches([], 4).padding_share == 0.0 and random_batches([], 4).batches == []
    assert random_batches([0, 0], 1).padding_share == 0.0
    assert padding_share(3, 4) == 0.25 and padding_share(0, 0) == 0.0
    with pytest.raises(ValueError, match="tokens must be an int in"):
        padding_share(5, 4)


def test_ordered_batches_cut_in_the_given_order():
    assert ordered_batches([3, 1, 5, 2], 3) == Batching([[0, 1, 2], [3]], tokens=11, cells=17)
    assert ordered_batches([3, 1, 5, 2], 3).padding_share == pytest.approx(6 / 17)
    assert ordered_batches([], 2) == Batching([], 0, 0)


def test_padded_batches_give_each_batch_its_width_and_share():
    lengths = [10, 5, 0, 4]
    one_by_one = padded_batches(lengths, Batching([[0, 1], [2], [3]], 19, 24))
    assert one_by_one == [PaddedBatch([0, 1], 10, 0.25), PaddedBatch([2], 0, 0.0), PaddedBatch([3], 4, 0.0)]
    with pytest.raises(TypeError, match="batching must be a Batching"):
        padded_batches(lengths, [[0]])


def test_bucketing_wastes_less_than_random_batching_on_a_long_tailed_distribution():
    rng = np.random.default_rng(0)
    lengths = rng.lognormal(4, 0.8, size=2000).astype(int).tolist()
    shuffled = random_batches(lengths, 32, seed=1).padding_share
    bucketed = bucketed_batches(lengths, 32, bucket_width=16, seed=1).padding_share
    assert sorted_batches(lengths, 32).padding_share < bucketed < shuffled
    assert shuffled > 0.5  # a batch of 32 random rows is padded to a long outlier


def test_batchings_are_deterministic_for_a_seed():
    lengths = list(range(50))
    assert random_batches(lengths, 4, seed=3) == random_batches(lengths, 4, seed=3)
    assert bucketed_batches(lengths, 4, 8, seed=3) == bucketed_batches(lengths, 4, 8, seed=3)
    assert random_batches(lengths, 4, seed=3) != random_batches(lengths, 4, seed=4)


def test_batches_by_name_are_the_batchings_of_those_names():
    lengths = [5, 40, 3, 38, 7, 36, 2, 34] * 3
    assert batches_by("random", lengths, 4, 8) == random_batches(lengths, 4)
    assert batches_by("bucketed", lengths, 4, 8) == bucketed_batches(lengths, 4, 8)
    assert batches_by("sorted", lengths, 4, 8) == sorted_batches(lengths, 4)
    assert BATCHINGS == ("random", "bucketed", "sorted")
    with pytest.raises(ValueError, match="how"):
        batches_by("shuffled", lengths, 4, 8)


@given(st.lists(st.integers(0, 60), max_size=40), st.integers(1, 9), st.integers(1, 20), st.integers(0, 3))
def test_every_batching_uses_every_row_once_in_batches_of_at_most_batch_size(lengths, size, width, seed):
    for batching in (random_batches(lengths, size, seed), sorted_batches(lengths, size),
                     bucketed_batches(lengths, size, width, seed)):
        assert sorted(i for b in batching.batches for i in b) == list(range(len(lengths)))
        assert all(1 <= len(b) <= size for b in batching.batches)
        assert batching.tokens == sum(lengths) and 0 <= batching.padding_share < 1
        assert batching.cells == sum(len(pad([[0] * lengths[i] for i in b], 0).input_ids[0]) * len(b)
                                     for b in batching.batches)
        shapes = padded_batches(lengths, batching)
        assert [p.rows for p in shapes] == batching.batches
        assert sum(len(p.rows) * p.width for p in shapes) == batching.cells
        for p in shapes:  # each batch's share is the share of padding pad() puts into it
            assert p.padding_share == pad([[0] * lengths[i] for i in p.rows], 0).padding_share
    for b in bucketed_batches(lengths, size, width, seed).batches:
        assert len({lengths[i] // width for i in b}) == 1


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: random_batches([3, -1], 2), ValueError, "lengths[1] must be an int >= 0, got -1"),
        (lambda: sorted_batches([3, 1.5], 2), TypeError, "lengths[1] must be an int"),
        (lambda: random_batches([3], 0), ValueError, "batch_size must be an int >= 1, got 0"),
        (lambda: bucketed_batches([3], 2, 0), ValueError, "bucket_width must be an int >= 1, got 0"),
        (lambda: bucketed_batches("12", 2, 4), TypeError, "lengths must be a list of int"),
    ],
)
def test_bucketing_bad_input(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)
