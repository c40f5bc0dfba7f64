"""Root cause 4: sets and dicts were taken as sequences where order and repeats matter (a set of
ids loses a repeated token, a set of lengths a repeated row); padding, masks, batchings and the
varlen arguments now refuse them with a message."""

import re

import numpy as np
import pytest

from tutorial_lib.packing import attention, batch, masks

UNORDERED = "set, which has no order|got set|got a dict|got dict"
Q = np.zeros((5, 4))

CASES = [
    ("pad([{5, 5, 6}], 0) lost a token", lambda: batch.pad([{5, 5, 6}], 0), r"rows\[0\]"),
    ("pad of a set of rows", lambda: batch.pad({(1,), (2, 3)}, 0), "rows"),
    ("pad of a dict row", lambda: batch.pad([{5: 1, 6: 2}], 0), r"rows\[0\]"),
    ("attention_mask_from_lengths({3, 3, 1}) gave 2 rows",
     lambda: masks.attention_mask_from_lengths({3, 3, 1}), "lengths"),
    ("attention_mask_from_lengths of dict keys",
     lambda: masks.attention_mask_from_lengths({3: "a", 1: "b"}.keys()), "lengths"),
    ("sorted_batches({4, 4, 1}, 1) gave 2 rows", lambda: batch.sorted_batches({4, 4, 1}, 1), "lengths"),
    ("ordered_batches of a set", lambda: batch.ordered_batches({4, 4, 1}, 1), "lengths"),
    ("random_batches of a set", lambda: batch.random_batches({4, 4, 1}, 1), "lengths"),
    ("bucketed_batches of a set", lambda: batch.bucketed_batches({4, 4, 1}, 1, 2), "lengths"),
    ("batches_by of a dict", lambda: batch.batches_by("sorted", {4: 2, 1: 1}, 1, 2), "lengths"),
    ("padded_batches of a set",
     lambda: batch.padded_batches({4, 1}, batch.ordered_batches([4, 1], 1)), "lengths"),
    ("next_token_labels of a set", lambda: batch.next_token_labels({1, 2}, [0, 0]), "tokens"),
    ("doc_ids_from_lengths of a set", lambda: masks.doc_ids_from_lengths({3, 3, 1}), "lengths"),
    ("doc_ids_from_lengths of a set row", lambda: masks.doc_ids_from_lengths([{3, 1}]),
     r"lengths\[0\]"),
    ("whole_documents of a set", lambda: masks.whole_documents({1, 2}, 3), "lengths"),
    ("position_ids of a set", lambda: masks.position_ids({0, 1}), "doc_ids"),
    ("varlen_attention with a set of cu_seqlens", lambda: attention.varlen_attention(Q, Q, Q, {0, 5}),
     "cu_seqlens"),
]


@pytest.mark.parametrize("name, call, argument", CASES, ids=[c[0] for c in CASES])
def test_an_unordered_container_is_refused(name, call, argument):
    with pytest.raises(TypeError) as info:
        call()
    assert re.match(argument, str(info.value)), str(info.value)
    assert re.search(UNORDERED, str(info.value)), str(info.value)


def test_ordered_containers_of_the_same_values_still_work():
    lengths = [4, 4, 1]
    want = batch.sorted_batches(lengths, 1)
    for same in ((4, 4, 1), np.array(lengths), np.array(lengths, dtype=np.uint8)):
        assert batch.sorted_batches(same, 1) == want
    assert batch.pad([(5, 5, 6)], 0).input_ids == [[5, 5, 6]]  # no token lost
    assert masks.attention_mask_from_lengths((3, 3, 1)).shape == (3, 3)  # one row per length
    assert masks.doc_ids_from_lengths(np.array([3, 1])).tolist() == [0, 0, 0, 1]
