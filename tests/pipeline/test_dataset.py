"""tutorial_pipeline.dataset: the lesson's builder and reader made safe. The same bytes as the plain builder,
written to temporary files that replace the pair as one (synced, renamed with the manifest and the record), a
mapped reader that keeps the old pair, merges that equal building the whole, and the builder's refusals."""

import os
import struct

import numpy as np
import pytest

from tutorial_lib.packing import megatron
from tutorial_lib.packing.megatron import IndexedDataset, bin_path, idx_path
from tutorial_pipeline.dataset import AtomicDatasetBuilder, CheckedDataset, merge_datasets, write_dataset

FOUR = ["d.bin", "d.idx", "d.manifest.json", "d.pair.json"]


def test_the_same_bytes_as_the_lessons_builder(tmp_path):
    for name, builder in (("plain", megatron.IndexedDatasetBuilder), ("atomic", AtomicDatasetBuilder)):
        with builder(tmp_path / name, np.int32) as b:
            b.add_item([5, 6, 7])
            b.add_item([8])
            b.end_document()
            b.add_document([70000, 1])
            b.add_document([2])
    for path in (bin_path, idx_path):
        assert path(tmp_path / "plain").read_bytes() == path(tmp_path / "atomic").read_bytes()
    assert struct.unpack_from("<9sQBQQ", idx_path(tmp_path / "atomic").read_bytes()) == (megatron.MAGIC, 1, 4, 4, 4)


def test_add_documents_writes_what_add_document_of_each_writes(tmp_path):
    """A batch at once (how the pipeline writes), after a document of two sequences, before another:
    the bytes the lesson's builder writes with add_document for each."""
    documents = [[5, 6, 7], [], [8], [9, 10]]
    for name, batched in (("each", False), ("batch", True)):
        with (AtomicDatasetBuilder if batched else megatron.IndexedDatasetBuilder)(tmp_path / name, np.uint16) as builder:
            builder.add_item([1])
            builder.add_document([2, 3])
            if batched:
                builder.add_documents(np.array(sum(documents, []), np.uint32), [len(d) for d in documents])
            else:
                for ids in documents:
                    builder.add_document(ids)
            builder.add_document([4])
    for path in (bin_path, idx_path):
        assert path(tmp_path / "each").read_bytes() == path(tmp_path / "batch").read_bytes()
    with AtomicDatasetBuilder(tmp_path / "bad", np.uint16) as builder:
        with pytest.raises(ValueError, match="lengths must be >= 0 and add up to the 3 ids"):
            builder.add_documents(np.array([1, 2, 3]), [1, 1])
        with pytest.raises(ValueError, match=r"ids must fit uint16 \(0..65535\), got 70000"):
            builder.add_documents(np.array([70_000]), [1])
        builder.add_item([1])  # a document left open: the batch would silently join it
        with pytest.raises(ValueError, match=r"add_documents: sequences were added after the last end_document\(\)"):
            builder.add_documents(np.array([2]), [1])
        builder.end_document()


def test_a_checked_dataset_is_the_lessons_reader_with_its_manifest(tmp_path):
    ds = write_dataset(tmp_path / "d", [[1, 2, 3], [4]])
    assert isinstance(ds, CheckedDataset) and isinstance(ds, IndexedDataset)
    assert ds.manifest["tokens"] == 4 and repr(ds).startswith("CheckedDataset(")
    assert [s.tolist() for s in IndexedDataset(tmp_path / "d")] == [[1, 2, 3], [4]]


@pytest.mark.parametrize("ids, dtype, error, words", [
    ([65536], np.uint16, ValueError, "fit uint16"),
    ([1.5], np.int32, TypeError, r"ids\[0\] must be an int .*got float 1.5"),
    ([[1, 2]], np.int32, ValueError, "1-D"),
])
def test_a_refused_id_leaves_nothing_behind(tmp_path, ids, dtype, error, words):
    with pytest.raises(error, match=words):
        with AtomicDatasetBuilder(tmp_path / "d", dtype) as b:
            b.add_document(ids)
    assert os.listdir(tmp_path) == []


def test_syncs_all_four_then_renames_bin_idx_manifest_and_record(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")
                                                                 .rsplit("/", 1)[-1])), real_fsync(fd)))
    monkeypatch.setattr(os, "replace", lambda a, b: (events.append(("replace", os.path.basename(b))),
                                                     real_replace(a, b)))
    write_dataset(tmp_path / "d", [[1]])
    file_events = [e for e in events if e[1] != tmp_path.name]  # the directory's own fsyncs aside
    kinds = [(kind, name.split(".")[2] if kind == "fsync" else name) for kind, name in file_events]  # .d.bin.<hex>.tmp
    assert kinds == [("fsync", "bin"), ("fsync", "idx"), ("fsync", "manifest"), ("fsync", "pair"), ("replace", "d.bin"),
                     ("replace", "d.idx"), ("replace", "d.manifest.json"), ("replace", "d.pair.json")]


def test_finalize_inside_the_block_is_not_repeated(tmp_path):
    with AtomicDatasetBuilder(tmp_path / "d") as b:
        b.add_document([1, 2])
        b.finalize()
    assert CheckedDataset(tmp_path / "d")[0].tolist() == [1, 2]


def test_interrupted_build_keeps_the_old_pair(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2]])
    before = bin_path(prefix).read_bytes(), idx_path(prefix).read_bytes()
    with pytest.raises(KeyboardInterrupt):
        with AtomicDatasetBuilder(prefix) as b:
            b.add_document([3, 4, 5])
            raise KeyboardInterrupt
    assert (bin_path(prefix).read_bytes(), idx_path(prefix).read_bytes()) == before
    assert sorted(os.listdir(tmp_path)) == FOUR


def test_a_mapped_reader_keeps_the_old_data_after_a_replace(tmp_path):
    prefix = tmp_path / "d"
    old = write_dataset(prefix, [[1, 2, 3]])
    write_dataset(prefix, [[7, 8, 9, 10]])
    assert old[0].tolist() == [1, 2, 3]  # the old inode lives on while it is mapped
    assert CheckedDataset(prefix)[0].tolist() == [7, 8, 9, 10]


def test_new_files_follow_the_umask(tmp_path):
    old_umask = os.umask(0o027)
    try:
        write_dataset(tmp_path / "d", [[1]])
    finally:
        os.umask(old_umask)
    assert {oct(p.stat().st_mode & 0o777) for p in tmp_path.iterdir()} == {"0o640"}


def test_merge_equals_building_the_whole(tmp_path):
    docs = [[i] * (i % 5 + 1) for i in range(30)]
    write_dataset(tmp_path / "a", docs[:11])
    write_dataset(tmp_path / "b", docs[11:])
    write_dataset(tmp_path / "whole", docs)
    merged = merge_datasets([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    assert [d.tolist() for d in merged] == docs
    for path in (bin_path, idx_path):
        assert path(tmp_path / "m").read_bytes() == path(tmp_path / "whole").read_bytes()


def test_merge_refuses_mixed_dtypes_and_nothing(tmp_path):
    write_dataset(tmp_path / "a", [[1]], np.uint16)
    write_dataset(tmp_path / "b", [[1]], np.int32)
    with pytest.raises(ValueError, match="one dtype"):
        merge_datasets([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    assert not bin_path(tmp_path / "m").exists()
    with pytest.raises(ValueError, match="at least one"):
        merge_datasets([], tmp_path / "m")
    with pytest.raises(TypeError, match="prefixes"):
        merge_datasets(tmp_path / "a", tmp_path / "m")


def test_builder_refuses_unfinished_documents_and_reuse(tmp_path):
    b = AtomicDatasetBuilder(tmp_path / "d")
    b.add_item([1])
    with pytest.raises(ValueError, match="end_document"):
        b.add_index(tmp_path / "d")
    with pytest.raises(ValueError, match="end_document"):
        b.finalize()
    b.end_document()  # the builder is still usable after the mistake
    b.finalize()
    assert sorted(os.listdir(tmp_path)) == FOUR and CheckedDataset(tmp_path / "d")[0].tolist() == [1]
    with pytest.raises(ValueError, match="finished"):
        b.add_item([2])
