"""Corpus files -> documents, streamed: the same documents as splitting the whole text, for every way the
text can be cut into pieces, never more than one piece held, and each file hashed as it is read."""

import hashlib
from itertools import repeat

from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_pipeline.corpus_files import iter_documents, read_documents, separator_of

EOT = data.ENDOFTEXT


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab \n<|>", max_size=60), st.sampled_from(["line", "blank", "<|>", "aa", "|", "\n \n"]),
       st.data())
def test_streamed_documents_equal_split_documents_on_the_whole_text(text, split, draw):
    cuts = sorted(draw.draw(st.lists(st.integers(0, len(text)), max_size=10)))
    pieces = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
    assert list(iter_documents(pieces, split)) == data.split_documents(text, separator_of(split))


def test_the_three_kinds_of_split():
    text = "one\ntwo\n\n\nthree\n  \nfour<|endoftext|>\nfive\n"
    assert list(iter_documents([text], "line")) == ["one", "two", "three", "four<|endoftext|>", "five"]
    assert list(iter_documents([text], "blank")) == ["one\ntwo", "three\n  \nfour<|endoftext|>\nfive"]
    assert list(iter_documents([text], EOT)) == ["one\ntwo\n\n\nthree\n  \nfour", "five"]


def test_documents_are_streamed_not_collected():
    endless = repeat("a line\n")  # never ends: only a lazy reader can give the first document
    assert next(iter_documents(endless, "line")) == "a line"


def test_each_file_is_hashed_as_it_is_read(tmp_path):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_bytes("\ufeffone\r\ntwo\r\n".encode())  # the manifest hashes the bytes, BOM and CRLF included
    second.write_bytes("三\n".encode() * 1000)
    corpus, seen = [], []
    documents = read_documents([first, second], "line", corpus, seen.append)
    assert next(documents) == (str(first), 0, "one") and corpus == []  # a file is listed once it is read to its end
    assert len(list(documents)) == 1 + 1000
    assert corpus == [{"path": str(p), "bytes": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
                      for p in (first, second)]
    assert b"".join(seen) == first.read_bytes() + second.read_bytes()  # on_read saw every byte, once


# ------------------------------------------------------------------- byte ranges (shards of a file)

import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from unittest import mock  # noqa: E402

import pytest  # noqa: E402

from tutorial_pipeline import corpus_files  # noqa: E402
from tutorial_pipeline.corpus_files import document_boundary, read_range, shard_ranges  # noqa: E402

# Pieces that make cuts hard: line ends of both kinds and a lone "\r", a BOM (at the start it is not text,
# elsewhere it is), characters of 2 to 4 bytes, and the pieces of self-overlapping separators.
PIECES = ["a", "b", "\r", "\n", "\r\n", "\ufeff", "é", "中", "😀", " ", "<|", "|>"]
SEPARATORS = ["line", "blank", "a", "aa", "aba", "\r", "\n\r", "\r\n", "\r\r\n", "\ufeff", "中a", "\n\n\n",
              "ab\nab", "😀😀", "<|<|", "|><|"]


def shard_documents(path, split, shard_bytes):
    """The documents of each range of `shard_ranges`, one range after the other, and the ranges."""
    ranges = shard_ranges(path, split, shard_bytes)  # each checked as a worker checks its range's end
    return [doc for i, (start, end) in enumerate(ranges)
            for _, _, doc in read_range(path, start, end, split, last=i == len(ranges) - 1)], ranges


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=80), st.booleans(),
       st.one_of(st.sampled_from(SEPARATORS), st.text(alphabet="".join(PIECES), min_size=1, max_size=3)),
       st.integers(1, 16), st.integers(2, 64))
def test_the_shards_of_a_file_hold_exactly_its_documents(pieces, bom, split, shard_bytes, block):
    text = ("\ufeff" if bom else "") + "".join(pieces)
    with tempfile.TemporaryDirectory() as directory, mock.patch.object(corpus_files, "BOUNDARY_BLOCK", block):
        path = Path(directory) / "corpus.txt"  # a tiny block: the search goes on over many reads
        path.write_bytes(text.encode())
        whole = [doc for _, _, doc in read_documents([path], split, [])]
        documents, ranges = shard_documents(path, split, shard_bytes)
        assert documents == whole
        # the ranges cover the file, in order, each at least shard_bytes long but the last
        assert [start for start, _ in ranges] == [0, *(end for _, end in ranges)][:len(ranges)]
        assert (ranges[-1][1] if ranges else 0) == len(text.encode())
        assert all(end - start >= shard_bytes for start, end in ranges[:-1])


def test_a_cut_goes_after_the_separator_that_str_split_cuts_at(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(b"x\n\n\ny\n\nz")  # "\n\n" at 1 (split cuts there) and at 2 (overlapping it)
    assert [document_boundary(path, offset, "blank") for offset in range(9)] == [0, 3, 3, 3, 7, 7, 7, 7, 8]
    path.write_bytes(b"x\r\n\r\ny")  # CRLF: the text has "\n\n" after x, which ends at byte 5
    assert document_boundary(path, 1, "blank") == 5
    assert shard_documents(path, "blank", 1) == (["x", "y"], [(0, 5), (5, 6)])


def test_a_file_without_a_cut_is_one_shard_and_an_empty_file_none(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes("一个很长的文档".encode() * 100)
    assert shard_ranges(path, "line", 10) == [(0, path.stat().st_size)]
    path.write_bytes(b"")
    assert shard_ranges(path, "line", 10) == []


def test_a_range_keeps_the_files_byte_offsets_in_errors_and_names_its_bytes(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_bytes(b"one\ntwo\n\xff\n")
    assert [name for name, _, _ in read_range(path, 4, 8, "line", last=False)] == [f"{path} (bytes 4 to 8)"]
    with pytest.raises(ValueError, match="byte 8 "):
        list(read_range(path, 8, 10, "line", last=True))
    with pytest.raises(ValueError, match="byte 8 "):  # the planner decodes near its cuts: the same error
        shard_ranges(path, "line", 1)
