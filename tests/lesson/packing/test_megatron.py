"""The .bin/.idx format: exact bytes, round trips for every dtype, validation, the plain builder (straight to
the final names, as megatron-core's) and its add_index, the documents and byte ranges of sequences, and the
pairs megatron-core itself wrote. The safe writes and merges of the production path: tests/pipeline/test_dataset.py."""

import os
import struct

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tutorial_lib import data
from tutorial_lib.packing import megatron
from tutorial_lib.packing.megatron import (DTYPES, Header, IndexedDataset, IndexedDatasetBuilder, bin_path,
                                           idx_path, read_header, write_dataset)


def test_idx_bytes_are_megatrons_layout(tmp_path):
    prefix = tmp_path / "d"
    with IndexedDatasetBuilder(prefix, np.int32) as b:
        b.add_item([5, 6, 7])
        b.add_item([8])
        b.end_document()
        b.add_document([70000, 1])
    expected = (b"MMIDIDX\x00\x00" + struct.pack("<Q", 1) + struct.pack("<B", 4) + struct.pack("<Q", 3)
                + struct.pack("<Q", 3) + struct.pack("<3i", 3, 1, 2) + struct.pack("<3q", 0, 12, 16)
                + struct.pack("<3q", 0, 2, 3))
    assert idx_path(prefix).read_bytes() == expected
    assert bin_path(prefix).read_bytes() == np.array([5, 6, 7, 8, 70000, 1], "<i4").tobytes()


def test_dtype_codes_and_rule():
    assert {c: str(d) for c, d in DTYPES.items()} == {1: "uint8", 2: "int8", 3: "int16", 4: "int32", 5: "int64",
                                                       6: "float64", 7: "float32", 8: "uint16"}
    assert megatron.optimal_dtype(65499) == np.uint16
    assert megatron.optimal_dtype(65500) == np.int32
    assert megatron.dtype_code("uint16") == megatron.dtype_code(np.uint16) == 8
    for bad in ("uint32", None, "nonsense", object()):
        with pytest.raises(ValueError, match="dtype must be one of"):
            megatron.dtype_code(bad)


def _documents(dtype):
    if np.dtype(dtype).kind == "f":
        values = st.integers(-2**20, 2**20)  # exact in float32 and float64
    else:
        info = np.iinfo(dtype)
        values = st.integers(int(info.min), int(info.max))
    return st.lists(st.lists(values, max_size=20), max_size=12)


@pytest.mark.parametrize("dtype", list(DTYPES.values()), ids=str)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_round_trip_every_dtype(tmp_path_factory, dtype, data):
    docs = data.draw(_documents(dtype))
    prefix = tmp_path_factory.mktemp("rt") / "d"
    ds = write_dataset(prefix, docs, dtype)
    assert ds.dtype == dtype and len(ds) == ds.num_documents == len(docs)
    assert [d.tolist() for d in ds] == docs
    assert [ds.document(k).tolist() for k in range(len(docs))] == docs
    assert ds.num_tokens == sum(map(len, docs))
    assert ds.document_indices.tolist() == list(range(len(docs) + 1))


def test_reads_are_zero_copy_views(tmp_path):
    ds = write_dataset(tmp_path / "d", [[1, 2, 3, 4], [5, 6]])
    window = ds.get(0, 1, 2)
    assert window.tolist() == [2, 3] and np.shares_memory(window, ds.tokens)
    assert not window.flags.writeable
    assert ds[-1].tolist() == [5, 6] and [s.tolist() for s in ds[0:2]] == [[1, 2, 3, 4], [5, 6]]
    assert ds.get(0, 4).tolist() == [] and ds.get(1, 0, 0).tolist() == []


def test_multi_sequence_documents(tmp_path):
    prefix = tmp_path / "d"
    with IndexedDatasetBuilder(prefix) as b:
        for doc in ([[1, 2], [3]], [[4]], [[5], [6, 7], [8]]):
            for sentence in doc:
                b.add_item(sentence)
            b.end_document()
    ds = IndexedDataset(prefix)
    assert len(ds) == 6 and ds.num_documents == 3
    assert ds.document_indices.tolist() == [0, 2, 3, 6]
    assert [ds.document(k).tolist() for k in range(3)] == [[1, 2, 3], [4], [5, 6, 7, 8]]


def test_bad_reads(tmp_path):
    ds = write_dataset(tmp_path / "d", [[1, 2, 3]])
    with pytest.raises(IndexError, match="out of range"):
        ds[1]
    with pytest.raises(ValueError, match="offset"):
        ds.get(0, 4)
    with pytest.raises(ValueError, match="length"):
        ds.get(0, 1, 3)
    with pytest.raises(TypeError, match="idx"):
        ds.get(0.0)
    with pytest.raises(IndexError):
        ds.document(1)


@pytest.mark.parametrize("ids, dtype, error, words", [
    ([65536], np.uint16, ValueError, "fit uint16"),
    ([-1], np.uint16, ValueError, "fit uint16"),
    ([2**31], np.int32, ValueError, "fit int32"),
    ([1.5], np.int32, TypeError, r"ids\[0\] must be an int .*got float 1.5"),
    (["a"], np.int32, TypeError, r"ids\[0\] must be an int"),
    (np.array([1.5]), np.int32, TypeError, "integers"),
    ([[1, 2]], np.int32, ValueError, "1-D"),
    ([2**24 + 1], np.float32, ValueError, "exactly representable"),
])
def test_ids_that_do_not_fit_are_refused(tmp_path, ids, dtype, error, words):
    prefix = tmp_path / "d"
    with pytest.raises(error, match=words):
        with IndexedDatasetBuilder(prefix, dtype) as b:
            b.add_document(ids)
    assert os.listdir(tmp_path) == ["d.bin"] and bin_path(prefix).read_bytes() == b""  # nothing was written


def _corrupt(tmp_path, edit):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2, 3], [4, 5]])
    edit(prefix)
    return prefix


def _patch(path, offset, data):
    raw = bytearray(path.read_bytes())
    raw[offset:offset + len(data)] = data
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("edit, error, words", [
    (lambda p: _patch(idx_path(p), 0, b"NOTMEGA"), ValueError, "not a Megatron .idx"),
    (lambda p: _patch(idx_path(p), 9, struct.pack("<Q", 2)), ValueError, "version 2"),
    (lambda p: _patch(idx_path(p), 17, bytes([9])), ValueError, "dtype code 9"),
    (lambda p: idx_path(p).write_bytes(idx_path(p).read_bytes()[:20]), ValueError, "truncated"),
    (lambda p: idx_path(p).write_bytes(idx_path(p).read_bytes()[:-3]), ValueError, "truncated"),
    (lambda p: idx_path(p).write_bytes(idx_path(p).read_bytes() + b"\x00" * 8), ValueError, "longer than"),
    (lambda p: _patch(idx_path(p), 18, struct.pack("<Q", 3)), ValueError, "3 sequences"),
    (lambda p: bin_path(p).write_bytes(bin_path(p).read_bytes()[:-2]), ValueError, "truncated"),
    (lambda p: bin_path(p).write_bytes(bin_path(p).read_bytes()[:-1]), ValueError, "whole number"),
    (lambda p: bin_path(p).write_bytes(bin_path(p).read_bytes() + b"\x00\x00"), ValueError, "does not belong"),
    (lambda p: _patch(idx_path(p), 34 + 8 + 8, struct.pack("<q", 4)), ValueError, "points to byte 4"),
    (lambda p: _patch(idx_path(p), 34, struct.pack("<i", -1)), ValueError, "negative"),
    (lambda p: _patch(idx_path(p), 34 + 8 + 16, struct.pack("<q", 1)), ValueError, "document indices"),
    (lambda p: _patch(idx_path(p), 34 + 8 + 16 + 16, struct.pack("<q", 1)), ValueError, "document indices"),
    (lambda p: idx_path(p).write_bytes(idx_path(p).read_bytes() + b"\x00\x00"), ValueError, "multimodal"),
    (lambda p: idx_path(p).unlink(), FileNotFoundError, "has no index"),
    (lambda p: bin_path(p).unlink(), FileNotFoundError, "no token file"),
])
def test_damaged_files_are_named(tmp_path, edit, error, words):
    prefix = _corrupt(tmp_path, edit)
    with pytest.raises(error, match=words):
        IndexedDataset(prefix)


def test_missing_dataset(tmp_path):
    with pytest.raises(FileNotFoundError, match="no dataset"):
        IndexedDataset(tmp_path / "nothing")
    with pytest.raises(TypeError, match="prefix"):
        IndexedDataset(b"x")


def test_finalize_inside_the_block_is_not_repeated(tmp_path):
    with IndexedDatasetBuilder(tmp_path / "d") as b:
        b.add_document([1, 2])
        b.finalize()
    assert IndexedDataset(tmp_path / "d")[0].tolist() == [1, 2]


def test_the_plain_builder_writes_the_final_names_and_nothing_else(tmp_path):
    write_dataset(tmp_path / "d", [[1, 2]])
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx"]  # no temporary file, no record, no manifest


def test_an_interrupted_plain_build_leaves_a_pair_the_reader_refuses(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2]])
    with pytest.raises(KeyboardInterrupt):
        with IndexedDatasetBuilder(prefix) as b:
            b.add_document([3, 4, 5])
            raise KeyboardInterrupt
    assert bin_path(prefix).read_bytes() == np.array([3, 4, 5], np.uint16).tobytes()  # the old .bin is gone
    with pytest.raises(ValueError, match="does not belong together"):
        IndexedDataset(prefix)  # the old .idx describes 2 tokens


def test_a_rewrite_in_place_corrupts_a_mapped_reader(tmp_path):
    prefix = tmp_path / "d"
    old = write_dataset(prefix, [[1, 2, 3]])
    with open(bin_path(prefix), "r+b") as f:  # what the production path's writer never does
        f.write(np.array([7, 8, 9], np.uint16).tobytes())
    assert old[0].tolist() == [7, 8, 9]  # the reader's view changed under it


def test_add_index_equals_building_the_whole(tmp_path):
    docs = [[i] * (i % 5 + 1) for i in range(30)]
    write_dataset(tmp_path / "a", docs[:11])
    write_dataset(tmp_path / "whole", docs)
    with IndexedDatasetBuilder(tmp_path / "m") as b:
        b.add_index(tmp_path / "a")
        b.add_index(write_dataset(tmp_path / "b", docs[11:]))  # a prefix, or a dataset already open
    assert [d.tolist() for d in IndexedDataset(tmp_path / "m")] == docs
    for path in (bin_path, idx_path):
        assert path(tmp_path / "m").read_bytes() == path(tmp_path / "whole").read_bytes()


def test_add_index_refuses_another_dtype(tmp_path):
    write_dataset(tmp_path / "a", [[1]], np.int32)
    with IndexedDatasetBuilder(tmp_path / "m") as b:
        with pytest.raises(ValueError, match=r"add_index: .*a holds int32, this dataset uint16; merge only "
                                             "datasets of one dtype"):
            b.add_index(tmp_path / "a")


def test_builder_refuses_unfinished_documents_and_reuse(tmp_path):
    b = IndexedDatasetBuilder(tmp_path / "d")
    b.add_item([1])
    with pytest.raises(ValueError, match="add_index: sequences were added after the last end_document"):
        b.add_index(tmp_path / "d")
    with pytest.raises(ValueError, match="finalize: .*call end_document"):
        b.finalize()
    b.end_document()  # the builder is still usable after the mistake
    b.finalize()
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx"] and IndexedDataset(tmp_path / "d")[0].tolist() == [1]
    with pytest.raises(ValueError, match="finished"):
        b.add_item([2])


def test_write_dataset_checks_the_documents_before_it_opens_a_file(tmp_path):
    for documents, error in (("abc", TypeError), (np.array([1, 2]), ValueError), ({1: [2]}, TypeError)):
        with pytest.raises(error, match="documents"):
            write_dataset(tmp_path / "d", documents)
    assert os.listdir(tmp_path) == []


# --- where a sequence lives -------------------------------------------------------------------------------


def test_byte_offsets_are_the_pointers_and_the_size_of_the_bin(tmp_path):
    ds = write_dataset(tmp_path / "d", [[1, 2, 3], [], [4, 5]], np.int32)
    offsets = megatron.byte_offsets(ds.sequence_lengths, ds.dtype.itemsize)
    assert offsets.tolist() == [0, 12, 12, 20]
    assert offsets[:-1].tolist() == ds.sequence_pointers.tolist()
    assert offsets[-1] == bin_path(tmp_path / "d").stat().st_size
    assert megatron.byte_offsets([], 2).tolist() == [0]
    with pytest.raises(ValueError, match=r"lengths\[1\] must be an int >= 0"):
        megatron.byte_offsets([1, -1], 2)
    with pytest.raises(ValueError, match="itemsize"):
        megatron.byte_offsets([1], 0)


def test_document_of_and_byte_range_follow_the_idx_arrays(tmp_path):
    prefix = tmp_path / "d"
    with IndexedDatasetBuilder(prefix, np.int32) as b:
        b.add_document([1, 2, 3])
        b.end_document()  # an empty document: it holds no sequence
        b.add_item([4])
        b.add_item([5, 6])
        b.end_document()
        b.add_document([])
    ds = IndexedDataset(prefix)
    assert ds.document_indices.tolist() == [0, 1, 1, 3, 4]
    assert [ds.document_of(i) for i in range(len(ds))] == [0, 2, 2, 3]
    assert [ds.byte_range(i) for i in range(len(ds))] == [(0, 12), (12, 16), (16, 24), (24, 24)]
    for i in range(len(ds)):
        start, end = ds.byte_range(i)
        assert start == int(ds.sequence_pointers[i]) and end - start == 4 * len(ds[i])
    assert ds.document_of(-1) == 3
    with pytest.raises(IndexError):
        ds.document_of(4)
    with pytest.raises(IndexError):
        ds.byte_range(-5)


# --- the pairs megatron-core wrote (data/megatron/, tools/make_megatron_fixture.py, data/PROVENANCE.md) ----
# our reader must get back exactly what our GPT-2 tokenizer makes of the same stories

FIXTURE = data.DATA_DIR / "megatron"
EOD = 50256  # GPT-2's <|endoftext|>


# gpt2: the session fixture of tests/conftest.py (GPT-2's files, <|endoftext|> special)


def test_one_sequence_per_story_uint16(gpt2):
    prefix = FIXTURE / "tinystories_gpt2_text_document"
    stories = data.tinystories_documents()[:40]
    assert read_header(idx_path(prefix)) == Header(1, np.dtype(np.uint16), 40, 41, 34)
    dataset = IndexedDataset(prefix)
    assert dataset.document_indices.tolist() == list(range(41))
    for i, story in enumerate(stories):
        assert dataset[i].tolist() == gpt2.encode_ordinary(story) + [EOD], f"story {i}"
    assert dataset.num_tokens == sum(len(dataset[i]) for i in range(40))


def test_one_sequence_per_line_int32(gpt2):
    prefix = FIXTURE / "tinystories_gpt2_int32_text_sentence"
    expected = []
    for story in data.tinystories_documents()[:8]:
        lines = [gpt2.encode_ordinary(line) for line in story.split("\n") if line]
        lines[-1].append(EOD)
        expected.append(lines)
    n_sequences = sum(map(len, expected))
    assert read_header(idx_path(prefix)) == Header(1, np.dtype(np.int32), n_sequences, 9, 34)
    dataset = IndexedDataset(prefix)
    assert dataset.document_indices.tolist() == np.cumsum([0] + [len(lines) for lines in expected]).tolist()
    sequences = [ids for lines in expected for ids in lines]
    assert [s.tolist() for s in dataset[:]] == sequences
    for k, lines in enumerate(expected):
        assert dataset.document(k).tolist() == [i for ids in lines for i in ids]
