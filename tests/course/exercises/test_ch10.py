"""Chapter 10 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases come from the library and hold what the wrong
answers get wrong."""

import struct

import numpy as np

from solutions import ch10
from tutorial_course import exercises
from tutorial_lib.packing import gpt_samples, megatron

KEYS = ["10.idx_bytes", "10.parse_header", "10.sample_index", "10.samples_with_document",
        "10.sequence_offset"]


def test_chapter_10_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("10.")) == KEYS
    assert set(ch10.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


def test_the_sample_cases_are_the_library_on_the_stream_order():
    cases = exercises.REGISTRY["10.samples_with_document"].make_cases()
    for case in cases:
        lengths, seq_len, k = case.args
        index = gpt_samples.build_sample_index(np.array(lengths), np.arange(len(lengths)), seq_len)
        assert case.expected == gpt_samples.samples_of_document(index, k).tolist()
    # some document is reached only by the last target of a sample: the case the wrong answer misses
    wrong = ch10.WRONG_ANSWERS["samples_with_document"]
    assert any(wrong(*case.args) != case.expected for case in cases)



def _passes(key, fn):
    return all(exercises.same_value(fn(*case.args), case.expected)
               for case in exercises.REGISTRY[key].make_cases())


def _idx_with(documents, dtype, header="<9sQBQQ", lengths="i", pointer_unit=None):
    """The reference .idx with one format rule broken: native alignment, int64 lengths or pointers
    counted in tokens."""
    sizes = [len(d) for d in documents]
    s = len(sizes)
    unit = dtype.itemsize if pointer_unit is None else pointer_unit
    pointers = [sum(sizes[:i]) * unit for i in range(s)]
    return (struct.pack(header, megatron.MAGIC, 1, megatron.dtype_code(dtype), s, s + 1)
            + struct.pack(f"<{s}{lengths}", *sizes) + struct.pack(f"<{s}q", *pointers)
            + struct.pack(f"<{s + 1}q", *range(s + 1)))


def test_the_idx_cases_are_the_builders_bytes_and_hold_every_format_rule():
    cases = exercises.REGISTRY["10.idx_bytes"].make_cases()
    assert {case.args[1] for case in cases} == set(megatron.DTYPES.values())
    assert any(len(case.args[0]) == 0 for case in cases)  # no document: header and d[0] only
    assert any(len(d) == 0 for case in cases for d in case.args[0])  # an empty document
    assert any(len(case.args[0]) >= 40 for case in cases)  # real text
    for case in cases:
        assert case.expected[:9] == megatron.MAGIC
    def native(docs, dtype):
        return _idx_with(docs, dtype, header="9sQBQQ")

    def int64_lengths(docs, dtype):
        return _idx_with(docs, dtype, lengths="q")

    def token_pointers(docs, dtype):
        return _idx_with(docs, dtype, pointer_unit=1)

    def itemsize_as_code(docs, dtype):
        raw = bytearray(_idx_with(docs, dtype))
        raw[17] = dtype.itemsize
        return bytes(raw)
    assert _passes("10.idx_bytes", _idx_with)
    for wrong in (native, int64_lengths, token_pointers, itemsize_as_code):
        assert not _passes("10.idx_bytes", wrong), wrong.__name__


def test_the_learners_idx_opens_with_the_library_reader(tmp_path):
    documents = [[1, 2, 3], [], [4, 5]]
    dtype = np.dtype(np.int32)
    (tmp_path / "mine.idx").write_bytes(ch10.idx_bytes(documents, dtype))
    np.concatenate([np.array(d, dtype) for d in documents]).tofile(tmp_path / "mine.bin")
    ds = megatron.IndexedDataset(tmp_path / "mine")
    assert [ds[i].tolist() for i in range(len(ds))] == documents


def _sample_index_variant(sizes, document_index, seq_len, *, count=None, side="right",
                          in_order=False):
    """The sample index with one of the slips a learner makes."""
    lengths = np.array(sizes if in_order else [sizes[d] for d in document_index])
    ends = np.cumsum(lengths)
    total = int(ends[-1])
    n = (total - 1) // seq_len if count is None else count(total, seq_len)
    starts = np.arange(n + 1) * seq_len
    position = np.minimum(np.searchsorted(ends, starts, side=side), len(lengths) - 1)
    position[0] = 0
    return [(int(p), int(s - (ends - lengths)[p])) for p, s in zip(position, starts)]


def test_the_sample_index_cases_catch_the_slips():
    assert _passes("10.sample_index", _sample_index_variant)
    slips = {"keeps the incomplete last sample": dict(count=lambda total, n: total // n),
             "a start on a boundary goes to the document before": dict(side="left"),
             "ignores document_index": dict(in_order=True)}
    for name, slip in slips.items():
        assert not _passes("10.sample_index", lambda *a, slip=slip: _sample_index_variant(
            *a, **slip)), name
    cases = exercises.REGISTRY["10.sample_index"].make_cases()
    for case in cases:
        sizes, order, seq_len = case.args
        rows = gpt_samples.build_sample_index(np.array(sizes), np.array(order), seq_len).tolist()
        assert case.expected == [tuple(row) for row in rows]
    assert any(len(case.expected) > 100 for case in cases)  # the real lengths, two epochs
