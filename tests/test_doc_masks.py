"""Document masks, position ids, cu_seqlens and next-token labels, all from doc_ids."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing import doc_masks as dm

# A batch as per-row document lengths plus some padding per row: rows of lengths 1..12, up to 4 rows.
rows_of_lengths = st.lists(st.lists(st.integers(1, 12), max_size=5), min_size=1, max_size=4)


def batch(rows: list[list[int]], extra: int = 2) -> np.ndarray:
    return dm.doc_ids_from_lengths(rows, max(map(sum, rows)) + extra)


# --- doc_ids_from_lengths --------------------------------------------------------------------------------


def test_one_row_is_padded_with_minus_one():
    assert dm.doc_ids_from_lengths([3, 2], 6).tolist() == [0, 0, 0, 1, 1, -1]
    assert dm.doc_ids_from_lengths([3, 2]).tolist() == [0, 0, 0, 1, 1]


def test_a_batch_numbers_documents_across_rows():
    assert dm.doc_ids_from_lengths([[3, 2], [4], []], 5).tolist() == [
        [0, 0, 0, 1, 1], [2, 2, 2, 2, -1], [-1, -1, -1, -1, -1]]


@pytest.mark.parametrize("lengths, length, error", [
    ([3, 2], 4, ValueError),  # does not fit: never cut short
    ([3, 0], None, ValueError),  # a document of length 0
    ([3, -1], None, ValueError),
    ([2.0], None, TypeError),
    ([[1], 2], None, TypeError),
    ([2], -1, ValueError),
])
def test_lengths_that_make_no_row_are_refused(lengths, length, error):
    with pytest.raises(error):
        dm.doc_ids_from_lengths(lengths, length)


# --- the mask --------------------------------------------------------------------------------------------


def test_document_mask_is_block_diagonal_and_causal():
    mask = dm.document_mask([0, 0, 1, 1, 1, -1])
    assert mask.astype(int).tolist() == [
        [1, 0, 0, 0, 0, 0],
        [1, 1, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0],
        [0, 0, 1, 1, 0, 0],
        [0, 0, 1, 1, 1, 0],
        [0, 0, 0, 0, 0, 0],  # padding attends to nothing
    ]


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_mask_allows_exactly_same_document_and_not_future(rows):
    ids = batch(rows)
    mask = dm.document_mask(ids)
    length = ids.shape[1]
    for r in range(ids.shape[0]):
        for i in range(length):
            for j in range(length):
                assert mask[r, i, j] == (j <= i and ids[r, i] == ids[r, j] != -1)


def test_a_batch_gives_one_mask_per_row():
    assert dm.document_mask([[0, 1], [2, -1]]).shape == (2, 2, 2)


# --- position ids ----------------------------------------------------------------------------------------


def test_position_ids_restart_per_document_and_are_zero_on_padding():
    assert dm.position_ids([0, 0, 0, 1, 1, -1, -1]).tolist() == [0, 1, 2, 0, 1, 0, 0]


def test_a_document_split_across_rows_restarts_in_the_next_row():
    ids = [[0, 0, 1, 1], [1, 1, 1, 2]]
    assert dm.position_ids(ids).tolist() == [[0, 1, 0, 1], [0, 1, 2, 0]]
    assert dm.varlen(ids).cu_seqlens.tolist() == [0, 2, 4, 7, 8]


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_position_ids_count_up_inside_each_document(rows):
    positions = batch(rows)
    got = dm.position_ids(positions)
    for r, row in enumerate(rows):
        expected = [p for n in row for p in range(n)]
        assert got[r, : len(expected)].tolist() == expected
        assert not got[r, len(expected):].any()


# --- cu_seqlens ------------------------------------------------------------------------------------------


def test_cu_seqlens_counts_real_tokens_only():
    v = dm.varlen([[0, 0, 0, 1, 1, -1], [2, 2, 2, 2, -1, -1]])
    assert v.cu_seqlens.tolist() == [0, 3, 5, 9]
    assert v.cu_seqlens.dtype == np.int32
    assert v.max_seqlen == 4
    assert v.indices.tolist() == [0, 1, 2, 3, 4, 6, 7, 8, 9]
    assert v.seqlens.tolist() == [3, 2, 4]


@settings(max_examples=80, deadline=None)
@given(rows_of_lengths, st.integers(0, 3))
def test_cu_seqlens_against_doc_ids(rows, extra):
    ids = batch(rows, extra)
    v = dm.varlen(ids)
    lengths = [n for row in rows for n in row]
    assert v.cu_seqlens.tolist() == [0, *np.cumsum(lengths).tolist()]
    assert v.max_seqlen == max(lengths, default=0)
    # slice k of the unpadded stream is document k, whole
    kept = ids.reshape(-1)[v.indices]
    for k, (start, end) in enumerate(zip(v.cu_seqlens[:-1], v.cu_seqlens[1:])):
        assert kept[start:end].tolist() == [k] * lengths[k]


# --- loss mask and labels --------------------------------------------------------------------------------


def test_no_target_crosses_into_the_next_document_or_padding():
    tokens = [10, 11, 12, 20, 21, 0, 0]
    ids = [0, 0, 0, 1, 1, -1, -1]
    assert dm.loss_mask(ids).tolist() == [True, True, False, True, False, False]
    assert dm.next_token_labels(tokens, ids).tolist() == [11, 12, -100, 21, -100, -100]


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_every_kept_label_is_the_next_token_of_the_same_document(rows):
    ids = batch(rows)
    tokens = np.arange(ids.size).reshape(ids.shape)
    labels = dm.next_token_labels(tokens, ids)
    assert labels.shape == (ids.shape[0], ids.shape[1] - 1)
    kept = labels != -100
    assert (labels[kept] == tokens[:, 1:][kept]).all()
    # one target per document is lost (its last token), none where there is padding
    assert kept.sum() == sum(n - 1 for row in rows for n in row)


def test_labels_need_tokens_of_the_same_shape():
    with pytest.raises(ValueError, match="same shape"):
        dm.next_token_labels([1, 2, 3], [0, 0])


# --- how much leaks without the mask ---------------------------------------------------------------------


def test_exposure_shares():
    ids = [0, 0, 1, 1, -1]
    # token 3 sees 2 foreign of 4 tokens, token 2 sees 2 of 3: (0 + 0 + 2/3 + 2/4) / 4
    assert dm.foreign_context_share(ids) == pytest.approx((2 / 3 + 2 / 4) / 4)
    assert dm.cross_document_share(ids) == 0.5
    assert dm.cross_document_share([[0, 0], [1, 1]]) == 0.0  # rows never see each other


def test_left_padding_is_not_foreign_context():
    assert dm.foreign_context_share([-1, -1, 0, 0]) == 0.0


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_exposure_matches_the_mask_it_lacks(rows):
    ids = batch(rows)
    real = ids != -1
    causal = np.tril(np.ones((ids.shape[1],) * 2, dtype=bool)) & real[:, None, :]
    foreign = (causal & ~dm.document_mask(ids)).sum(-1)[real]
    seen = causal.sum(-1)[real]
    assert dm.cross_document_share(ids) == pytest.approx((foreign > 0).mean() if foreign.size else 0.0)
    assert dm.foreign_context_share(ids) == pytest.approx((foreign / seen).mean() if foreign.size else 0.0)


# --- bad input -------------------------------------------------------------------------------------------

BUILDERS = [dm.document_mask, dm.position_ids, dm.varlen, dm.loss_mask, dm.cross_document_share]


@pytest.mark.parametrize("fn", BUILDERS)
@pytest.mark.parametrize("bad, error, match", [
    ([[0, 0], [1]], ValueError, "rectangular"),
    ([0.0, 1.0], TypeError, "int"),
    (np.array([0.0, 1.0]), TypeError, "must be an array of int, got an array of float64"),
    ([True, False], TypeError, "int"),
    ("0011", TypeError, "list of int"),
    ([0, -2], ValueError, ">= 0 and -1"),
    ([0, 1, 0], ValueError, "one consecutive run"),
    (np.zeros((1, 2, 3), dtype=int), ValueError, "2-D"),
])
def test_bad_doc_ids_get_a_clear_error(fn, bad, error, match):
    with pytest.raises(error, match=match):
        fn(bad)


def test_empty_input_gives_an_empty_result():
    assert dm.document_mask([]).shape == (0, 0)
    assert dm.position_ids([]).shape == (0,)
    assert dm.loss_mask([]).shape == (0,)
    assert dm.next_token_labels([], []).shape == (0,)
    v = dm.varlen([])
    assert v.cu_seqlens.tolist() == [0] and v.max_seqlen == 0 and v.indices.size == 0
    assert dm.varlen(np.zeros((0, 5), dtype=int)).cu_seqlens.tolist() == [0]
    assert dm.cross_document_share([]) == dm.foreign_context_share([-1, -1]) == 0.0
    assert dm.doc_ids_from_lengths([]).shape == (0,)


def test_numpy_integer_input_of_any_width_is_fine():
    ids = np.array([0, 0, 1], dtype=np.int16)
    assert dm.position_ids(ids).tolist() == [0, 1, 0]
