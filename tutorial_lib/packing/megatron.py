"""Megatron-LM's indexed dataset: token ids on disk as a `.bin`/`.idx` pair, read back through
mmap.

The layout is megatron-core's (`megatron/core/datasets/indexed_dataset.py`), byte for byte, so
files written here train a Megatron model unchanged and files Megatron writes are read here: a
`.bin` of every sequence's token ids back to back in one dtype, and an `.idx` of a header, the
sequence lengths, their byte offsets and the document indices (`megatron_format` has the table).

A document is usually one sequence (one text plus its end-of-document id); Megatron's sentence
splitting makes documents of several. Reading maps both files with `np.memmap`: opening costs the
same for 1 MB or 1 TB, a sample read touches only its own pages, and every process that maps the
file shares the page cache. The reader checks everything the two files say about each other, so a
truncated or mismatched pair is a ValueError that says what is wrong, never garbage later; it
refuses anything but regular files (a FIFO would block it).

The builder is megatron-core's, as plain as its own: it writes `<prefix>.bin` as the ids come and
`<prefix>.idx` at the end, straight to those names. A build that fails midway leaves a pair that
does not belong together (the reader refuses it), and a process that has the old pair mapped sees
its file cut under it. The production path wraps this builder (its `dataset` module:
`AtomicDatasetBuilder`) to write temporary files and rename the pair into place as one, with a
manifest beside it.
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

COPY_BYTES = 1 << 20  # bytes of another dataset's .bin copied at a time by add_index


class IndexedDataset:
    """A `.bin`/`.idx` pair mapped read-only: sequences by index, zero copy.

    `ds[i]` is sequence i, `ds[i:j]` a list of them, `ds.get(i, offset, length)` a window of one
    (what a sample that starts mid-document needs), `ds.document(k)` all sequences of document k.
    The arrays returned are views of the mapping: they cost no memory until read, and they are
    read-only. Opening checks everything that can be checked without reading the tokens (header,
    sizes, that the pointers are exactly the running sum of the lengths, that document indices are
    in order), so a truncated or mismatched pair fails here with a clear message instead of
    returning garbage later. What the structure cannot tell (a `.bin` of the right size from
    another build, a flipped bit) needs what the production path writes beside the pair (its
    `dataset.CheckedDataset` checks that too).
    """

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
        """The pointers must be the running sum of the lengths, `.bin` exactly as long as they
        say, and the document indices must rise from 0 to the number of sequences."""
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
        """The document sequence `i` belongs to: the last one whose first sequence is at or before
        it (`document_indices` holds each document's first sequence, an empty document none)."""
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
    """Writes a `.bin`/`.idx` pair the way megatron-core's builder does: the tokens to `.bin` as
    they come, the index to `.idx` at the end.

    Memory holds only the index, 12 bytes per sequence: its length, and for each document where it
    starts. The tokens go to `bin_file`: `<prefix>.bin`, opened here, unless the caller gives a
    file already open for writing (the production path gives a temporary one). `finalize()`
    closes `.bin` and writes `<prefix>.idx`.

    Like megatron-core's, this builder writes the final names directly: `<prefix>.bin` is cut to
    nothing as the builder starts, so a process that has the old pair mapped loses its pages under
    it (SIGBUS), and a build that stops midway leaves a `.bin` that no `.idx` describes (the reader
    refuses the pair). To replace a dataset whole or not at all, use the production path's
    `dataset.AtomicDatasetBuilder`, which wraps this one. Used as a context manager it finalizes
    on success and stops (`discard`) on an exception.
    """

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
        """Append one sequence. Ids that the dtype cannot hold exactly are a ValueError, never a
        silent wrap (`bin_ids.as_dtype`)."""
        self._check_open()
        tokens = as_dtype(ids, self.dtype)
        self.bin_file.write(tokens.tobytes())
        self.sequence_lengths.append(len(tokens))

    def end_document(self) -> None:
        """Close the current document: the sequences added since the last call belong to it."""
        self._check_open()
        self.document_indices.append(len(self.sequence_lengths))

    def add_document(self, ids: object) -> None:
        """Append a document of one sequence (the usual case: a text's ids plus its end-of-document
        id)."""
        self.add_item(ids)
        self.end_document()

    def add_documents(self, ids: np.ndarray, lengths: np.ndarray) -> None:
        """`add_document` of each of a batch (`ids` back to back), with no Python call for each."""
        self._check_open()
        tokens, lengths = as_dtype(ids, self.dtype), np.asarray(lengths, np.int64).ravel()
        if (lengths < 0).any() or lengths.sum() != len(tokens):
            raise ValueError(f"lengths must be >= 0 and add up to the {len(tokens)} ids")
        self.bin_file.write(tokens.tobytes())
        # each document is one sequence, so document k of the batch ends after sequence k
        ends = len(self.sequence_lengths) + 1 + np.arange(len(lengths), dtype=np.int64)
        self.sequence_lengths.frombytes(lengths.tobytes())
        self.document_indices.frombytes(ends.tobytes())

    def add_index(self, other: str | os.PathLike | IndexedDataset) -> None:
        """Append a whole dataset (its prefix, or the dataset opened), as megatron-core's
        `add_index` does for its `tools/merge_datasets.py`: its lengths as they are, its document
        indices shifted by the sequences already here, its `.bin` copied byte for byte. Pointers
        need no shifting: `finalize` computes them all from the lengths."""
        self.check_between_documents("add_index")
        other = other if isinstance(other, IndexedDataset) else IndexedDataset(other)
        if other.dtype != self.dtype:
            raise ValueError(f"add_index: {os.fspath(other.prefix)} holds {other.dtype}, this "
                             f"dataset {self.dtype}; merge only datasets of one dtype")
        offset = len(self.sequence_lengths)
        self.sequence_lengths.frombytes(other.sequence_lengths.astype(np.int64).tobytes())
        self.document_indices.frombytes((other.document_indices[1:] + offset).tobytes())
        with open(bin_path(other.prefix), "rb") as f:
            shutil.copyfileobj(f, self.bin_file, COPY_BYTES)

    def check_between_documents(self, action: str) -> None:
        """Refuse `action` once the builder is finished, or while a document is open: sequences
        added after the last `end_document()` belong to no document, and Megatron would never
        read them."""
        self._check_open()
        if self.document_indices[-1] != len(self.sequence_lengths):
            raise ValueError(f"{action}: sequences were added after the last end_document(), "
                             "which Megatron would never read; call end_document() first")

    def index_parts(self) -> list[bytes]:
        """The `.idx`, as the four pieces written one after another: the header, the int32
        lengths, the int64 pointers (where each sequence starts in `.bin`, in bytes) and the int64
        document indices. Everything is checked first: a refusal writes nothing, and the builder
        stays usable (end the document, then finalize again)."""
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
            for part in parts:
                f.write(part)

    def discard(self) -> None:
        """Stop without an index: close `.bin` as far as it got. megatron-core's builder has no
        undo, nor has this one: the `.bin` written so far stays, and no `.idx` describes it."""
        self.finished = True
        self.bin_file.close()

    def _check_open(self) -> None:
        if self.finished:
            raise ValueError(f"the builder for {os.fspath(self.prefix)!r} is finished; start a new "
                             "one")


def check_documents(documents: object) -> Iterable:
    """`documents`, checked to be a list of documents (each a list or 1-D array of ids) before
    anything is written: a str, a dict, a set or the 1-D array of one document is refused."""
    check_iterable(documents, "documents", "a list of documents (each a list of ids)", ordered=True)
    if isinstance(documents, np.ndarray) and documents.ndim == 1:
        raise ValueError("documents must hold documents, each a list of ids, got a 1-D array (the "
                         "ids of one document?): write one document as [ids]")
    return documents


def write_dataset(prefix: str | os.PathLike, documents: Iterable[object],
                  dtype: object = np.uint16) -> IndexedDataset:
    """Write each document (a list or 1-D array of ids) as one sequence, and open the result.

    Straight to the final names, as the builder writes; the production path's
    `dataset.write_dataset` replaces a pair that may be in use as a whole, with its manifest."""
    documents = check_documents(documents)
    with IndexedDatasetBuilder(prefix, dtype) as builder:
        for ids in documents:
            builder.add_document(ids)
    return IndexedDataset(prefix)


def _map(path: Path, dtype: object) -> np.ndarray:
    """A read-only view of the whole file; an empty file (which mmap refuses) gives an empty array.
    """
    size = path.stat().st_size
    if size % np.dtype(dtype).itemsize:
        raise ValueError(f"{path} has {size} bytes, not a whole number of {np.dtype(dtype)} tokens")
    return np.memmap(path, dtype=dtype, mode="r") if size else np.empty(0, dtype)


def _index(i: object, n: int, name: str) -> int:
    """`i` as a position in `range(n)`, negative counting from the end; IndexError (ends iteration)
    outside."""
    i = check_int(i, name)
    if not -n <= i < n:
        raise IndexError(f"{name} = {i} is out of range for {n} items")
    return i + n if i < 0 else i
