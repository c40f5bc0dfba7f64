"""Megatron-LM's indexed dataset: token ids on disk as a `.bin`/`.idx` pair, read back through
mmap.

The layout is megatron-core's byte for byte (`megatron_format` has the table), so files written here
train a Megatron model unchanged and files Megatron writes are read here. Reading maps both files
with `np.memmap`: opening costs the same for 1 MB or 1 TB, a sample read touches only its own pages,
and every process that maps the file shares the page cache. The builder is as plain as
megatron-core's own; replacing a pair safely is the production path's `AtomicDatasetBuilder`.
"""

from __future__ import annotations

import os
import shutil
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import numpy as np

from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_int, check_iterable, describe
from tutorial_lib.packing.bin_ids import as_dtype
from tutorial_lib.packing.megatron_format import (DTYPES, HEADER, MAGIC, VERSION, Header, bin_path,
                                                  byte_offsets, dtype_code, idx_path, optimal_dtype,
                                                  read_header)

__all__ = ["DTYPES", "MAGIC", "VERSION", "Header", "IndexedDataset", "IndexedDatasetBuilder",
           "bin_path", "byte_offsets", "check_documents", "dtype_code", "idx_path",
           "optimal_dtype", "read_header", "write_dataset"]


class IndexedDataset:
    """A `.bin`/`.idx` pair mapped read-only: `ds[i]` is sequence i, `ds.get(i, offset, length)` a
    window of one, `ds.document(k)` all of document k. Opening checks the two files against each
    other: a truncated or mismatched pair is a ValueError here, never garbage later. A `.bin` cut
    short after opening is not seen: reading its lost pages kills the process (SIGBUS). So a pair
    is replaced by new files renamed over it, never rewritten in place (chapter 10, section 3)."""

    def __init__(self, prefix: str | os.PathLike) -> None:
        self.prefix = check_path(prefix, "prefix")
        bin_file, idx_file = bin_path(prefix), idx_path(prefix)
        if not os.path.lexists(idx_file):  # a symlink loop: refused below
            what = f"{bin_file} has no index beside it" if os.path.lexists(bin_file) \
                else f"no dataset at {prefix}"
            raise FileNotFoundError(f"{what}: expected {idx_file} (write both files with "
                                    "IndexedDatasetBuilder)")
        if not os.path.lexists(bin_file):
            raise FileNotFoundError(f"{idx_file} has no token file beside it: expected {bin_file}")
        for file in (idx_file, bin_file):
            check_regular_file(file, "prefix")
        self.header = read_header(idx_file)
        self.dtype = self.header.dtype
        s, d = self.header.sequence_count, self.header.document_count
        expected = self.header.size + 4 * s + 8 * s + 8 * d
        actual = idx_file.stat().st_size
        if actual != expected:
            modes = " (one mode byte per sequence: a multimodal index, which this reader does " \
                    "not read)" if actual - expected == s else ""
            raise ValueError(f"{idx_file} has {actual} bytes, but its header ({s} sequences, {d} "
                             f"document indices) needs exactly {expected}: the file is "
                             + ("truncated" if actual < expected
                                else "longer than its header says" + modes))
        # the three arrays, one after another behind the header: views of one mapping of .idx
        index = _map(idx_file, np.uint8)
        self.sequence_lengths = np.frombuffer(index, np.int32, s, self.header.size)
        self.sequence_pointers = np.frombuffer(index, np.int64, s, self.header.size + 4 * s)
        self.document_indices = np.frombuffer(index, np.int64, d, self.header.size + 12 * s)
        self.tokens = _map(bin_file, self.dtype)
        self._check_arrays(idx_file, bin_file)

    def _check_arrays(self, idx_file: Path, bin_file: Path) -> None:
        """Pointers = the running sum of the lengths, `.bin` as long as they say, document indices
        rising from 0 to the number of sequences."""
        lengths, itemsize = self.sequence_lengths, self.dtype.itemsize
        if (lengths < 0).any():
            raise ValueError(f"{idx_file} has a negative sequence length")
        offsets = byte_offsets(lengths, itemsize)
        starts = offsets[:-1]
        if not np.array_equal(self.sequence_pointers, starts):
            bad = int(np.flatnonzero(self.sequence_pointers != starts)[0])
            raise ValueError(f"{idx_file}: sequence {bad} points to byte "
                             f"{int(self.sequence_pointers[bad])}, but the lengths before it put "
                             f"it at byte {int(starts[bad])}")
        size, needed = bin_file.stat().st_size, int(offsets[-1])
        if size != self.tokens.nbytes:
            raise ValueError(f"{bin_file} changed size while it was opened ({self.tokens.nbytes} "
                             f"bytes mapped, {size} now): another process is writing it; open it "
                             "once it is written")
        if size != needed:
            raise ValueError(f"{bin_file} has {size} bytes, but {idx_file} describes {needed} "
                             f"({len(lengths)} sequences of {self.dtype}): the pair does not "
                             "belong together or one of them is truncated")
        docs = self.document_indices
        if len(docs) == 0 or docs[0] != 0 or (np.diff(docs) < 0).any() or docs[-1] != len(lengths):
            raise ValueError(f"{idx_file}: document indices must rise from 0 to the number of "
                             f"sequences, {len(lengths)}, got {describe(docs.tolist())}")

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({os.fspath(self.prefix)!r}: {len(self)} sequences, "
                f"{self.num_documents} documents, {self.num_tokens} tokens of {self.dtype})")

    def __len__(self) -> int:
        return len(self.sequence_lengths)

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)

    @property
    def num_documents(self) -> int:
        return len(self.document_indices) - 1

    def __getitem__(self, idx: int | slice) -> np.ndarray | list[np.ndarray]:
        if isinstance(idx, slice):
            return [self.get(i) for i in range(len(self))[idx]]
        if np.ndim(idx) or isinstance(idx, (list, tuple)):  # numpy's fancy indexing is not offered
            raise TypeError(f"a dataset is indexed by an int or a slice, got {describe(idx)}; read "
                            "several sequences with [ds[i] for i in ...]")
        return self.get(idx)

    def get(self, idx: int, offset: int = 0, length: int | None = None) -> np.ndarray:
        """Tokens `[offset, offset + length)` of sequence `idx` (to its end if `length` is None)."""
        idx = _index(idx, len(self), "idx")
        size = int(self.sequence_lengths[idx])
        offset = check_int(offset, "offset", low=0, high=size)
        length = size - offset if length is None else \
            check_int(length, "length", low=0, high=size - offset)
        start = int(self.sequence_pointers[idx]) // self.dtype.itemsize + offset
        return np.asarray(self.tokens[start:start + length])

    def document_of(self, i: int) -> int:
        """The document sequence `i` belongs to: the last one starting at or before it."""
        i = _index(i, len(self), "i")
        return int(np.searchsorted(self.document_indices, i, side="right")) - 1

    def byte_range(self, i: int) -> tuple[int, int]:
        """Where sequence `i` lies in `.bin`: [pointer, pointer + length * itemsize), in bytes."""
        i = _index(i, len(self), "i")
        start = int(self.sequence_pointers[i])
        return start, start + int(self.sequence_lengths[i]) * self.dtype.itemsize

    def document(self, k: int) -> np.ndarray:
        """All tokens of document `k`: its sequences lie together in `.bin`, one view again."""
        k = _index(k, self.num_documents, "k")
        first, end = int(self.document_indices[k]), int(self.document_indices[k + 1])
        if first == end:
            return np.asarray(self.tokens[:0])
        start = int(self.sequence_pointers[first]) // self.dtype.itemsize
        return np.asarray(self.tokens[start:start + int(self.sequence_lengths[first:end].sum())])


class IndexedDatasetBuilder:
    """Writes a `.bin`/`.idx` pair as megatron-core's builder does: the tokens to `.bin` as they
    come (to `bin_file` if given), the index to `.idx` at the end. Like megatron-core's, it writes
    the final names directly: a process that has the old pair mapped loses its pages (SIGBUS)."""

    def __init__(self, prefix: str | os.PathLike, dtype: object = np.uint16,
                 bin_file: IO[bytes] | None = None) -> None:
        self.prefix = check_path(prefix, "prefix")
        self.dtype = DTYPES[dtype_code(dtype)]
        self.sequence_lengths = array("q")  # one per sequence, in tokens
        self.document_indices = array("q", [0])  # each document's first sequence, then the end
        self.finished = False
        self.bin_file = open(bin_path(prefix), "wb") if bin_file is None else bin_file

    def __enter__(self) -> IndexedDatasetBuilder:
        return self

    def __exit__(self, exc_type: type | None, *_: object) -> None:
        if exc_type is not None:
            self.discard()
        elif not self.finished:  # finalize() may already have been called inside the block
            self.finalize()

    def add_item(self, ids: object) -> None:
        """Append one sequence; an id the dtype cannot hold is a ValueError, never a wrap."""
        self._check_open()
        tokens = as_dtype(ids, self.dtype)
        self.bin_file.write(tokens.tobytes())
        self.sequence_lengths.append(len(tokens))

    def end_document(self) -> None:
        """Close the current document: the sequences added since the last call belong to it."""
        self._check_open()
        self.document_indices.append(len(self.sequence_lengths))

    def add_document(self, ids: object) -> None:
        """Append a document of one sequence (a text's ids plus its end-of-document id)."""
        self.add_item(ids)
        self.end_document()

    def add_index(self, other: str | os.PathLike | IndexedDataset) -> None:
        """Append a whole dataset (its prefix, or the dataset opened), as megatron-core's
        `add_index`: its lengths as they are, its document indices shifted by the sequences already
        here, its `.bin` copied byte for byte (`finalize` computes every pointer)."""
        self.check_between_documents("add_index")
        other = other if isinstance(other, IndexedDataset) else IndexedDataset(other)
        if other.dtype != self.dtype:
            raise ValueError(f"add_index: {os.fspath(other.prefix)} holds {other.dtype}, this "
                             f"dataset {self.dtype}; merge only datasets of one dtype")
        offset = len(self.sequence_lengths)
        self.sequence_lengths.frombytes(other.sequence_lengths.astype(np.int64).tobytes())
        self.document_indices.frombytes((other.document_indices[1:] + offset).tobytes())
        with open(bin_path(other.prefix), "rb") as f:
            shutil.copyfileobj(f, self.bin_file)

    def check_between_documents(self, action: str) -> None:
        """Refuse `action` once the builder is finished, or while a document is open (sequences
        after the last `end_document()` belong to no document)."""
        self._check_open()
        if self.document_indices[-1] != len(self.sequence_lengths):
            raise ValueError(f"{action}: sequences were added after the last end_document(), "
                             "which Megatron would never read; call end_document() first")

    def index_parts(self) -> list[bytes]:
        """The `.idx` as four pieces: header, int32 lengths, int64 pointers, int64 document
        indices. Checked first: a refusal writes nothing and leaves the builder usable."""
        self.check_between_documents("finalize")
        lengths = np.frombuffer(self.sequence_lengths, np.int64)
        if len(lengths) and lengths.max() > np.iinfo(np.int32).max:
            raise ValueError("a sequence longer than 2**31 - 1 tokens does not fit the int32 "
                             "length field")
        pointers = byte_offsets(lengths, self.dtype.itemsize)[:-1]  # the running sum, in bytes
        header = HEADER.pack(MAGIC, VERSION, dtype_code(self.dtype), len(lengths),
                             len(self.document_indices))
        return [header, lengths.astype(np.int32).tobytes(), pointers.astype(np.int64).tobytes(),
                np.frombuffer(self.document_indices, np.int64).tobytes()]

    def finalize(self) -> None:
        """Close `.bin` and write `<prefix>.idx` (megatron-core's `finalize(idx_path)`)."""
        parts = self.index_parts()
        self.finished = True
        self.bin_file.close()
        with open(idx_path(self.prefix), "wb") as f:
            f.writelines(parts)

    def discard(self) -> None:
        """Stop without an index: `.bin` stays as far as it got (megatron-core's has no undo)."""
        self.finished = True
        self.bin_file.close()

    def _check_open(self) -> None:
        if self.finished:
            raise ValueError(f"the builder for {os.fspath(self.prefix)!r} is finished; start a new "
                             "one")


def check_documents(documents: object) -> Iterable:
    """`documents`, checked to be a list of documents (each a list or 1-D array of ids)."""
    check_iterable(documents, "documents", "a list of documents (each a list of ids)", ordered=True)
    if isinstance(documents, np.ndarray) and documents.ndim == 1:
        raise ValueError("documents must hold documents, each a list of ids, got a 1-D array (the "
                         "ids of one document?): write one document as [ids]")
    return documents


def write_dataset(prefix: str | os.PathLike, documents: Iterable[object],
                  dtype: object = np.uint16) -> IndexedDataset:
    """Write each document (a list or 1-D array of ids) as one sequence, and open the result."""
    documents = check_documents(documents)
    with IndexedDatasetBuilder(prefix, dtype) as builder:
        for ids in documents:
            builder.add_document(ids)
    return IndexedDataset(prefix)


def _map(path: Path, dtype: object) -> np.ndarray:
    """A read-only view of the whole file; an empty file (mmap refuses it) gives an empty array."""
    size = path.stat().st_size
    if size % np.dtype(dtype).itemsize:
        raise ValueError(f"{path} has {size} bytes, not a whole number of {np.dtype(dtype)} tokens")
    return np.memmap(path, dtype=dtype, mode="r") if size else np.empty(0, dtype)


def _index(i: object, n: int, name: str) -> int:
    """`i` as a position in `range(n)`, negative from the end; IndexError (ends a loop) outside."""
    i = check_int(i, name)
    if not -n <= i < n:
        raise IndexError(f"{name} = {i} is out of range for {n} items")
    return i + n if i < 0 else i
