"""Root cause 6: an argument sized an allocation before anything judged it (max_length=10**12 ended
in a bare MemoryError); an array larger than the machine's memory is now refused by check_cells
with the size it would need, and every long-context size that fits is still allowed."""

import os

import numpy as np
import pytest

from tutorial_lib import _memory
from tutorial_lib._memory import check_cells
from tutorial_lib.packing import attention, batch, masks
from tutorial_lib.packing.attention import OneHead

MEMORY = 16 * 10**9  # the machine every test here runs on, whatever the real one has


@pytest.fixture(autouse=True)
def a_16_gb_machine(monkeypatch):
    monkeypatch.setattr(_memory, "MEMORY_BYTES", MEMORY)


LONG = 150_000  # a row whose L x L mask (22.5 GB of bool) does not fit in 16 GB
MORE = r", more than this machine's memory \(16 GB\)"

CASES = [
    ("pad, max_length=10**12", lambda: batch.pad([[1], [2]], 0, max_length=10**12),
     r"max_length=1000000000000 would need a 2 x 1,000,000,000,000 array of int64 \(16 TB\)" + MORE),
    ("pad, pad_to_multiple_of=10**12", lambda: batch.pad([[1], [2]], 0, pad_to_multiple_of=10**12),
     r"pad_to_multiple_of=1000000000000 would need a 2 x 1,000,000,000,000 array of int64 \(16 TB\)"),
    ("pad, both", lambda: batch.pad([[1]], 0, max_length=8, pad_to_multiple_of=10**12),
     r"max_length=8 and pad_to_multiple_of=1000000000000 would need a 1 x 1,000,000,000,000"),
    ("attention_mask_from_lengths, width=10**11",
     lambda: masks.attention_mask_from_lengths([1], width=10**11),
     r"width=100000000000 would need a 1 x 100,000,000,000 array of int64 \(800 GB\)" + MORE),
    ("attention_mask_from_lengths, a length of 10**11",
     lambda: masks.attention_mask_from_lengths([10**11, 1]),
     r"the longest of lengths, 100000000000, would need a 2 x 100,000,000,000 array of int64 \(1.6 TB\)"),
    ("doc_ids_from_lengths, length=10**11", lambda: masks.doc_ids_from_lengths([1], length=10**11),
     r"length=100000000000 would need a 1 x 100,000,000,000 array of int64 \(800 GB\)" + MORE),
    ("whole_documents, length=10**11", lambda: masks.whole_documents([1], 10**11),
     r"length=100000000000 would need a 1 x 100,000,000,000 array of int64"),
    ("causal_mask(10**6)", lambda: masks.causal_mask(10**6),
     r"length=1000000 would need a 1,000,000 x 1,000,000 array of bool \(1 TB\)" + MORE),
    ("document_mask of a long row", lambda: masks.document_mask(np.zeros(LONG, dtype=np.int64)),
     r"doc_ids of shape \(150000,\) would need a 150,000 x 150,000 array of bool \(22.5 GB\)"),
    ("causal_padding_mask of a long row", lambda: masks.causal_padding_mask(np.ones((1, LONG), int)),
     r"attention_mask of shape \(1, 150000\) would need a 1 x 150,000 x 150,000 array of bool"),
    ("attention_weights of a long row",
     lambda: attention.attention_weights(np.zeros((LONG, 1)), np.zeros((LONG, 1)),
                                         np.broadcast_to(True, (LONG, LONG))),
     r"q of shape \(150000, 1\) and k of shape \(150000, 1\) would need a 150,000 x 150,000 array "
     r"of float64 \(180 GB\)"),
    ("OneHead.random(vocab_size=10**12)", lambda: OneHead.random(10**12),
     r"vocab_size=1000000000000, dim=16 and max_position=4096 would need a "
     r"1,000,000,000,000 x 16 array of float64 \(128 TB\)"),
]


@pytest.mark.parametrize("name, call, message", CASES, ids=[c[0] for c in CASES])
def test_an_array_beyond_the_machine_is_refused_with_its_size(name, call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_bound_is_the_machine_memory_exactly(monkeypatch):
    monkeypatch.setattr(_memory, "MEMORY_BYTES", 800)
    assert check_cells((10, 10), np.int64, "n") == (10, 10)  # 800 bytes: fits
    with pytest.raises(ValueError, match=r"n would need a 101 array of int64 \(808 B\), more than "
                                         r"this machine's memory \(800 B\)"):
        check_cells((101,), np.int64, "n")
    assert check_cells((101,), np.int8, "n") == (101,)  # the dtype's size counts, not the cells
    assert check_cells((0, 10**30), np.int64, "n") == (0, 10**30)  # no cells, nothing to hold


def test_long_context_sizes_are_never_refused():
    # a batch of 256 rows of 4M tokens (8 GB of int64) is checked, not built; rows of 1M tokens
    # are built, with the masks and ids a long-context run uses
    assert check_cells((256, 4 * 2**20), np.int64, "rows") == (256, 4 * 2**20)
    long = 2**20
    assert masks.attention_mask_from_lengths([long, 5]).shape == (2, long)
    doc_ids = masks.doc_ids_from_lengths([long - 3, 3], length=long + 1)
    assert masks.position_ids(doc_ids)[-2] == 2
    assert masks.varlen(doc_ids).max_seqlen == long - 3
    padded = batch.pad([[7] * 3], 0, max_length=long)
    assert len(padded.input_ids[0]) == long and padded.lengths == [3]


def test_the_memory_is_the_machines_ram_or_1_tib_where_the_os_does_not_say(monkeypatch):
    assert _memory._physical_memory() >= 2**28  # at least what runs this suite
    monkeypatch.setattr(os, "sysconf", lambda name: -1)  # POSIX: "indeterminate"
    assert _memory._physical_memory() == 2**40
    monkeypatch.delattr(os, "sysconf")  # Windows has no sysconf
    assert _memory._physical_memory() == 2**40
