"""mmap_demo: the labelled .idx fields, /proc memory readings, and what a mapped reader sees after a change."""

import os
import struct
import sys

import numpy as np
import pytest

from tutorial_lib.packing import megatron, mmap_demo
from tutorial_pipeline import dataset

LINUX = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")


@pytest.fixture
def prefix(tmp_path):
    # the production path's writer syncs its files: their pages are clean, as /proc's Shared_Clean counts them
    dataset.write_dataset(tmp_path / "ds", [[1, 2, 3], [4, 5, 6, 7]] * 3000)
    return tmp_path / "ds"


def test_idx_fields_are_the_header_then_the_first_entries_of_each_array(prefix):
    raw = megatron.idx_path(prefix).read_bytes()
    fields = mmap_demo.idx_fields(raw, items=2)
    assert [(f.offset, f.size, f.name) for f in fields[:5]] == [
        (0, 9, "magic"), (9, 8, "version"), (17, 1, "dtype code"), (18, 8, "sequence count"),
        (26, 8, "document count")]
    assert [f.value for f in fields] == [megatron.MAGIC, 1, 8, 6000, 6001, 3, 4, 0, 6, 0, 1]
    assert [f.offset for f in fields[5:]] == [34, 38, 34 + 4 * 6000, 42 + 4 * 6000, 34 + 12 * 6000, 42 + 12 * 6000]
    for f in fields:
        assert len(raw[f.offset:f.offset + f.size]) == f.size


def test_idx_fields_with_fewer_entries_than_asked():
    raw = struct.pack("<9sQBQQ", megatron.MAGIC, 1, 4, 1, 2) + struct.pack("<i", 5) + struct.pack("<q", 0) \
        + struct.pack("<qq", 0, 1)
    names = [f.name for f in mmap_demo.idx_fields(raw, items=3)]
    assert names[5:] == ["sequence_lengths[0]", "sequence_pointers[0]", "document_indices[0]", "document_indices[1]"]
    with pytest.raises(TypeError):
        mmap_demo.idx_fields("MMIDIDX")


def test_hex_bytes():
    assert mmap_demo.hex_bytes(b"MM\x00\xff") == "4d 4d 00 ff"
    assert mmap_demo.hex_bytes(b"") == ""


@LINUX
def test_touching_a_mapping_makes_its_pages_resident_file_backed(prefix):
    ds = megatron.IndexedDataset(prefix)
    path = megatron.bin_path(prefix)
    assert mmap_demo.mapping_kib(path)["Rss"] == 0  # mapped, nothing read yet
    mmap_demo.touch(ds.tokens)
    resident = mmap_demo.mapping_kib(path)
    assert resident["Rss"] == -(-path.stat().st_size // mmap_demo.PAGE) * mmap_demo.PAGE // 1024
    assert resident["Private_Clean"] == resident["Rss"] == resident["Pss"]  # no other process maps it
    assert set(mmap_demo.memory_kib()) == set(mmap_demo.MEMORY_FIELDS)


def test_a_process_that_does_not_exist_reads_as_none(tmp_path):
    assert mmap_demo.memory_kib(pid=2**31) is None
    assert mmap_demo.mapping_kib(tmp_path, pid=2**31) is None


def test_touch_reads_one_token_per_page():
    tokens = np.ones(10_000, np.uint16)
    assert mmap_demo.touch(tokens) == len(range(0, 10_000, mmap_demo.PAGE // 2))
    assert mmap_demo.touch(tokens, 0.0) == 0
    with pytest.raises(ValueError, match="share"):
        mmap_demo.touch(tokens, 1.5)


@LINUX
def test_open_report_fromfile_copies_and_mmap_does_not(prefix):
    for how in mmap_demo.HOW:
        report = mmap_demo.open_report(prefix, how, reads=5, length=3)
        assert report["checksum"] > 0 and report["open_seconds"] >= 0
    with pytest.raises(ValueError):
        mmap_demo.open_report(prefix, "read")


@LINUX
def test_a_second_process_shares_the_pages_this_one_has_touched(prefix):
    alone = mmap_demo.touch_report(prefix)["mapping"]
    assert alone["Shared_Clean"] == 0 and alone["Pss"] == alone["Rss"] > 0
    ds = megatron.IndexedDataset(prefix)
    mmap_demo.touch(ds.tokens)
    shared = mmap_demo.touch_report(prefix)["mapping"]
    assert shared["Shared_Clean"] == shared["Rss"] == alone["Rss"]
    assert shared["Pss"] < shared["Rss"]


def test_a_reader_keeps_the_old_pair_after_a_replace_by_rename(prefix):
    result = mmap_demo.read_after(prefix, lambda: dataset.write_dataset(prefix, [[9, 9]] * 10), 5999)
    assert result == (0, None, [4, 5, 6, 7])


@LINUX
def test_the_plain_builder_cuts_a_mapped_readers_file_under_it(prefix):
    """megatron-core's way, and the lesson's builder: `<prefix>.bin` opened "wb", cut to nothing, then
    shorter than the reader's old index says."""
    result = mmap_demo.read_after(prefix, lambda: megatron.write_dataset(prefix, [[9, 9]] * 10), 5999)
    assert result.signal == "SIGBUS" and result.tokens is None


def test_a_reader_sees_new_bytes_under_its_old_index_after_a_rewrite_in_place(prefix):
    def rewrite():
        with open(megatron.bin_path(prefix), "r+b") as f:
            f.write(np.full(6, 9, np.uint16).tobytes())
    assert mmap_demo.read_after(prefix, rewrite, 1).tokens == [9, 9, 9, 7]


@LINUX
def test_a_reader_dies_of_sigbus_when_its_pages_are_cut_off_the_file(prefix):
    result = mmap_demo.read_after(prefix, lambda: os.truncate(megatron.bin_path(prefix), 100), 5999)
    assert result.signal == "SIGBUS" and result.returncode < 0 and result.tokens is None


def test_a_reader_that_cannot_open_says_why(tmp_path):
    with pytest.raises(RuntimeError, match="no dataset"):
        mmap_demo.read_after(tmp_path / "none", lambda: None, 0)
    with pytest.raises(RuntimeError, match="no dataset"):
        mmap_demo.touch_report(tmp_path / "none")


def test_reports_say_when_there_is_no_proc(tmp_path, monkeypatch):
    monkeypatch.setattr(mmap_demo, "PROC", tmp_path / "no-proc")
    assert mmap_demo.memory_kib() is None
    with pytest.raises(RuntimeError, match="Linux's /proc"):
        mmap_demo.open_report(tmp_path / "d", "mmap")
    with pytest.raises(RuntimeError, match="Linux's /proc"):
        mmap_demo.touch_report(tmp_path / "d")


@pytest.mark.parametrize("write_bytes", [None, 1, 3, 64 * 1024])
def test_copy_in_writes_copies_the_pair_byte_for_byte(tmp_path, write_bytes):
    source = megatron.write_dataset(tmp_path / "a", [[1, 2, 3], [], [4, 5, 6, 7]], np.uint16)
    out = mmap_demo.copy_in_writes(source.prefix, tmp_path / "b", write_bytes)
    assert out == megatron.bin_path(tmp_path / "b")
    for path in (megatron.bin_path, megatron.idx_path):
        assert path(tmp_path / "b").read_bytes() == path(tmp_path / "a").read_bytes()
    assert megatron.IndexedDataset(tmp_path / "b")[2].tolist() == [4, 5, 6, 7]
    assert sorted(p.name for p in tmp_path.glob("b*")) == ["b.bin", "b.idx"]  # the pair only, as a plain copy
    with pytest.raises(ValueError, match="write_bytes"):
        mmap_demo.copy_in_writes(source.prefix, tmp_path / "c", 0)
