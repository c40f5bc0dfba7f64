"""tutorial_lib.packing.masks: the causal, padding, causal + padding and document masks, what their
cells let a query see, and the doc_ids, position ids, cu_seqlens and loss mask of packed rows."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing import masks as dm
from tutorial_lib.packing.batch import pad
from tutorial_lib.packing.masks import (BLOCKED, LEAK, PAD_DOC, attention_mask_from_lengths,
                                        attention_mask_from_pad_id, causal_mask, causal_padding_mask)

# A batch as per-row document lengths plus some padding per row: rows of lengths 1..12, up to 4 rows.
rows_of_lengths = st.lists(st.lists(st.integers(1, 12), max_size=5), min_size=1, max_size=4)


def batch(rows: list[list[int]], extra: int = 2) -> np.ndarray:
    return dm.doc_ids_from_lengths(rows, max(map(sum, rows)) + extra)


# --- doc_ids_from_lengths --------------------------------------------------------------------------------


def test_one_row_is_padded_with_pad_which_is_minus_one():
    assert PAD_DOC == -1  # the value the chapter 09 text and exercises show
    assert dm.doc_ids_from_lengths([3, 2], 6).tolist() == [0, 0, 0, 1, 1, PAD_DOC]
    assert dm.doc_ids_from_lengths([3, 2]).tolist() == [0, 0, 0, 1, 1]


def test_a_batch_numbers_documents_across_rows():
    assert dm.doc_ids_from_lengths([[3, 2], [4], []], 5).tolist() == [
        [0, 0, 0, 1, 1], [2, 2, 2, 2, PAD_DOC], [PAD_DOC, PAD_DOC, PAD_DOC, PAD_DOC, PAD_DOC]]


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
    mask = dm.document_mask([0, 0, 1, 1, 1, PAD_DOC])
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
                assert mask[r, i, j] == (j <= i and ids[r, i] == ids[r, j] != PAD_DOC)


def test_a_batch_gives_one_mask_per_row():
    assert dm.document_mask([[0, 1], [2, PAD_DOC]]).shape == (2, 2, 2)


# --- position ids ----------------------------------------------------------------------------------------


def test_position_ids_restart_per_document_and_are_zero_on_padding():
    assert dm.position_ids([0, 0, 0, 1, 1, PAD_DOC, PAD_DOC]).tolist() == [0, 1, 2, 0, 1, 0, 0]


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
    v = dm.varlen([[0, 0, 0, 1, 1, PAD_DOC], [2, 2, 2, 2, PAD_DOC, PAD_DOC]])
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


# --- loss mask ------------------------------------------------------------------------------------------


def test_no_target_crosses_into_the_next_document_or_padding():
    ids = [0, 0, 0, 1, 1, PAD_DOC, PAD_DOC]
    assert dm.loss_mask(ids).tolist() == [True, True, False, True, False, False, False]


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_the_loss_mask_keeps_every_target_inside_a_document(rows):
    ids = batch(rows)
    kept = dm.loss_mask(ids)
    assert kept.shape == ids.shape and not kept[:, -1].any()  # the last position has no next token
    assert (ids[:, :-1][kept[:, :-1]] == ids[:, 1:][kept[:, :-1]]).all()
    # one target per document is lost (its last token), none where there is padding
    assert kept.sum() == sum(n - 1 for row in rows for n in row)


# --- how much leaks without the mask ---------------------------------------------------------------------


def test_exposure_shares():
    ids = [0, 0, 1, 1, PAD_DOC]
    # token 3 sees 2 foreign of 4 tokens, token 2 sees 2 of 3: (0 + 0 + 2/3 + 2/4) / 4
    assert dm.foreign_context_share(ids) == pytest.approx((2 / 3 + 2 / 4) / 4)
    assert dm.cross_document_share(ids) == 0.5
    assert dm.cross_document_share([[0, 0], [1, 1]]) == 0.0  # rows never see each other


def test_left_padding_is_not_foreign_context():
    assert dm.foreign_context_share([PAD_DOC, PAD_DOC, 0, 0]) == 0.0


@settings(max_examples=60, deadline=None)
@given(rows_of_lengths)
def test_exposure_matches_the_mask_it_lacks(rows):
    ids = batch(rows)
    real = ids != PAD_DOC
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
    ([0, -2], ValueError, r"doc_ids\[1\] must be an int >= -1, got -2"),
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
    v = dm.varlen([])
    assert v.cu_seqlens.tolist() == [0] and v.max_seqlen == 0 and v.indices.size == 0
    assert dm.varlen(np.zeros((0, 5), dtype=int)).cu_seqlens.tolist() == [0]
    assert dm.cross_document_share([]) == dm.foreign_context_share([PAD_DOC, PAD_DOC]) == 0.0
    assert dm.doc_ids_from_lengths([]).shape == (0,)


def test_numpy_integer_input_of_any_width_is_fine():
    ids = np.array([0, 0, 1], dtype=np.int16)
    assert dm.position_ids(ids).tolist() == [0, 1, 0]


# --- the causal and padding masks ----------------------------------------------------------------------


def test_mask_from_lengths_matches_pad_on_both_sides():
    rows = [[2, 3, 4], [4], [2, 3, 5, 6, 4]]
    for side in ("right", "left"):
        mask = attention_mask_from_lengths([3, 1, 5], padding_side=side)
        assert mask.tolist() == pad(rows, 0, padding_side=side).attention_mask
    assert attention_mask_from_lengths([1, 0], width=3).tolist() == [[1, 0, 0], [0, 0, 0]]
    assert attention_mask_from_lengths([]).shape == (0, 0)


def test_mask_from_lengths_refuses_bad_lengths():
    with pytest.raises(ValueError, match=r"lengths\[1\] must be an int >= 0, got -1"):
        attention_mask_from_lengths([2, -1])
    with pytest.raises(TypeError, match=r"lengths\[0\] must be an int"):
        attention_mask_from_lengths([2.0])
    with pytest.raises(ValueError, match="width must be an int >= 3, got 2"):
        attention_mask_from_lengths([3], width=2)


def test_mask_from_pad_id_works_when_the_pad_id_is_only_padding():
    batch = pad([[2, 3, 4], [4]], pad_id=0)
    assert attention_mask_from_pad_id(batch.input_ids, 0).tolist() == batch.attention_mask
    left = pad([[2, 3, 4], [4]], pad_id=0, padding_side="left")
    assert attention_mask_from_pad_id(left.input_ids, 0, padding_side="left").tolist() == left.attention_mask


def test_mask_from_pad_id_refuses_a_pad_id_between_real_tokens():
    # GPT-2 style: 50256 ends each document and also pads; inside a row it is provably a real token.
    batch = pad([[464, 50256, 318], [464]], pad_id=50256)
    with pytest.raises(ValueError, match=r"pad_id=50256 is also a real token: input_ids\[0\]\[1\]"):
        attention_mask_from_pad_id(batch.input_ids, 50256)
    with pytest.raises(ValueError, match=r"input_ids\[0\]\[1\]"):
        attention_mask_from_pad_id([[0, 7, 0, 5]], 7, padding_side="left")


def test_mask_from_pad_id_refuses_negative_or_ragged_ids():
    with pytest.raises(ValueError, match=r"input_ids\[0\]\[1\] must be an int >= 0, got -5"):
        attention_mask_from_pad_id([[1, -5]], 0)
    with pytest.raises(ValueError, match="input_ids must hold ints >= 0, got -5"):
        attention_mask_from_pad_id(np.array([[1, -5]]), 0)
    with pytest.raises(ValueError, match="input_ids must be rectangular"):
        attention_mask_from_pad_id([[1, 2], [1]], 0)
    assert attention_mask_from_pad_id([], 0).shape == (0, 0)


def test_mask_from_pad_id_cannot_see_a_real_pad_id_at_the_end_but_lengths_can():
    batch = pad([[464, 50256], [464, 318, 257, 50256]], pad_id=50256)
    assert attention_mask_from_pad_id(batch.input_ids, 50256).tolist() == [[1, 0, 0, 0], [1, 1, 1, 0]]
    assert batch.attention_mask == [[1, 1, 0, 0], [1, 1, 1, 1]]


def test_causal_padding_mask_of_the_three_sentences():
    mask = causal_padding_mask([[1, 1, 0], [1, 0, 0]])
    assert mask.dtype == bool and mask.shape == (2, 3, 3)
    assert mask[0].astype(int).tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 0]]
    assert mask[1].astype(int).tolist() == [[1, 0, 0], [1, 0, 0], [1, 0, 0]]
    left = causal_padding_mask(np.array([[0, 1, 1]]))
    assert left[0].astype(int).tolist() == [[0, 0, 0], [0, 1, 0], [0, 1, 1]]  # the pad query sees nothing
    assert causal_padding_mask(np.zeros((0, 3), dtype=int)).shape == (0, 3, 3)
    assert causal_padding_mask([]).shape == (0, 0)  # one row of no positions


@pytest.mark.parametrize(
    "mask, error, words",
    [
        ([[1, 1], [1]], ValueError,
         "attention_mask must be rectangular (every row equally long), got rows of lengths [1, 2]"),
        ([[1, 2]], ValueError, "attention_mask must hold only 0 and 1"),
        ([[1, 0.5]], TypeError, "attention_mask[0][1] must be an int"),
        (np.ones((2, 2), dtype=float), TypeError,
         "attention_mask must be an array of int or bool, got an array of float64"),
        ("11", TypeError, "attention_mask must be a list of int or a list of rows of int"),
        (np.ones((1, 2, 2), dtype=int), ValueError, "attention_mask must be 1-D or 2-D"),
    ],
)
def test_mask_builders_refuse_ragged_or_non_binary_masks(mask, error, words):
    with pytest.raises(error) as info:
        causal_padding_mask(mask)
    assert words in str(info.value)


@given(st.lists(st.integers(0, 7), max_size=5), st.sampled_from(["right", "left"]))
def test_causal_padding_mask_allows_exactly_the_real_keys_up_to_the_query(lengths, side):
    mask = attention_mask_from_lengths(lengths, padding_side=side)
    allowed = causal_padding_mask(mask)
    for b in range(len(lengths)):
        for i in range(mask.shape[1]):
            assert allowed[b, i].tolist() == [bool(j <= i and mask[b, j]) for j in range(mask.shape[1])]
    assert allowed.sum() == sum(n * (n + 1) // 2 + (n * (mask.shape[1] - n) if side == "right" else 0)
                                for n in lengths)

def test_the_causal_mask_is_the_lower_triangle():
    assert causal_mask(3).astype(int).tolist() == [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    assert causal_mask(0).shape == (0, 0)
    with pytest.raises(ValueError, match="length must be an int >= 0"):
        causal_mask(-1)


def test_causal_padding_masks_keys_only_as_hugging_face_does():
    """The one meaning of "causal + padding" (chapters 07 and 09): a padding query keeps the real keys
    before it, and no query sees a padding key. On doc ids [0, 0, 1, PAD_DOC] the padding row is 1 1 1 0."""
    ids = np.array([0, 0, 1, PAD_DOC])
    mask = dm.row_mask(ids, "causal_padding")
    assert mask.astype(int).tolist() == [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 0]]
    assert np.array_equal(mask, causal_padding_mask(ids != PAD_DOC))
    assert np.array_equal(mask, causal_padding_mask([[1, 1, 1, 0]])[0])  # chapter 07's batch row


@settings(max_examples=40, deadline=None)
@given(rows_of_lengths, st.integers(0, 3))
def test_row_masks_by_name(rows, extra):
    ids = batch(rows, extra)
    length = ids.shape[1]
    assert np.array_equal(dm.row_mask(ids, "causal"), np.broadcast_to(causal_mask(length), (len(ids), length, length)))
    assert np.array_equal(dm.row_mask(ids, "causal_padding"), causal_padding_mask(ids != PAD_DOC))
    assert np.array_equal(dm.row_mask(ids, "document"), dm.document_mask(ids))
    with pytest.raises(ValueError, match="kind must be one of"):
        dm.row_mask(ids, "因果")


# --- what the cells of a mask let a query see -------------------------------------------------------------


def test_mask_cells_classify_own_document_leak_padding_and_blocked():
    ids = [0, 1, PAD_DOC]
    cells = dm.mask_cells(ids, causal_mask(3))
    assert cells.kinds.tolist() == [[0, BLOCKED, BLOCKED], [LEAK, 1, BLOCKED], [PAD_DOC, PAD_DOC, PAD_DOC]]
    assert (cells.allowed, cells.leaks) == (6, 1)
    keys_only = dm.mask_cells(ids, dm.row_mask(ids, "causal_padding"))
    assert keys_only.kinds.tolist() == [[0, BLOCKED, BLOCKED], [LEAK, 1, BLOCKED], [PAD_DOC, PAD_DOC, BLOCKED]]
    document = dm.mask_cells(ids, dm.document_mask(ids))
    assert (document.kinds != BLOCKED).tolist() == dm.document_mask(ids).tolist()
    assert (document.allowed, document.leaks) == (2, 0)


@settings(max_examples=40, deadline=None)
@given(rows_of_lengths, st.integers(0, 3), st.sampled_from(dm.KINDS))
def test_every_allowed_cell_is_its_document_a_leak_or_padding(rows, extra, kind):
    ids = batch(rows[:1], extra)[0]
    mask = dm.row_mask(ids, kind)
    cells = dm.mask_cells(ids, mask.astype(int))  # 0/1 is as good as bool
    for i, j in np.ndindex(mask.shape):
        expected = (BLOCKED if not mask[i, j] else ids[i] if ids[i] == ids[j] != PAD_DOC
                    else LEAK if PAD_DOC not in (ids[i], ids[j]) else PAD_DOC)
        assert cells.kinds[i, j] == expected
    assert cells.allowed == mask.sum() and cells.leaks == (cells.kinds == LEAK).sum()
    assert cells.leaks == 0 or kind != "document"


@pytest.mark.parametrize("ids, mask, words", [
    ([0, 1], [[1, 0], [1, 2]], "mask must be a 2-D array of bool or 0/1"),
    ([0, 1], [1, 0], "got shape (2,)"),
    ([0, 1, PAD_DOC], np.ones((2, 2), dtype=bool), "mask must be 3 x 3"),
    ([[0, 1]], np.ones((2, 2), dtype=bool), "doc_ids must be one row"),
])
def test_mask_cells_refuse_a_mask_that_does_not_fit(ids, mask, words):
    with pytest.raises(ValueError) as info:
        dm.mask_cells(ids, mask)
    assert words in str(info.value)


# --- rows of doc_ids --------------------------------------------------------------------------------------


def test_whole_documents_stop_at_the_first_that_does_not_fit():
    assert dm.whole_documents([3, 2, 4, 1], 8).tolist() == [0, 0, 0, 1, 1, PAD_DOC, PAD_DOC, PAD_DOC]
    assert dm.whole_documents([3, 2, 4], 9).tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 2]
    assert dm.whole_documents([30, 2], 14).tolist() == [PAD_DOC] * 14  # the first is longer than the row
    assert dm.whole_documents([], 2).tolist() == [PAD_DOC, PAD_DOC]
    with pytest.raises(ValueError):
        dm.whole_documents([3, 0], 4)


def test_a_padded_batch_is_one_document_per_row():
    padded = pad([[5, 6, 7], [8]], 0, padding_side="left")
    assert dm.padded_doc_ids(padded.attention_mask).tolist() == [[0, 0, 0], [PAD_DOC, PAD_DOC, 0]]
    assert dm.padded_doc_ids(np.array([True, False])).tolist() == [0, PAD_DOC]
    with pytest.raises(ValueError, match="only 0 and 1"):
        dm.padded_doc_ids([[1, 2]])


def test_runs_include_padding_and_allow_an_id_to_come_back():
    found = dm.runs([[3, 3, PAD_DOC, 3], [1, 1, 1, 2]])
    assert [found.row.tolist(), found.start.tolist(), found.end.tolist(), found.id.tolist()] == [
        [0, 0, 0, 1, 1], [0, 2, 3, 0, 3], [2, 3, 4, 3, 4], [3, PAD_DOC, 3, 1, 2]]
    assert all(a.size == 0 for a in dm.runs([]))
    with pytest.raises(TypeError):
        dm.runs([0.5])


def test_varlen_counts_the_padding_it_leaves_out():
    assert dm.varlen([[0, 0, PAD_DOC], [1, PAD_DOC, PAD_DOC]]).padding == 3
    assert dm.varlen([0, 1]).padding == 0
