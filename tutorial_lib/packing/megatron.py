"""Megatron-LM's indexed dataset: token ids on disk as a `.bin`/`.idx` pair, read back through
mmap.

The layout is megatron-core's (`megatron/core/datasets/indexed_dataset.py`), byte for byte, so
files written here train a Megatron model unchanged and files Megatron writes are read here: a
`.bin` of every sequence's token ids back to back in one dtype, and an `.idx` of a header, the
sequence lengths, their byte offsets and the document indices (`megatron_format` has the table).

A document is usually one sequence (one text plus its end-of-document id); Megatron's sentence
splitting makes documents of several. Reading maps both files with `np.memmap`: opening costs the
same for 1 MB or 1 TB, a sample read touches only its own pages, and every process that maps the
file shares the page cache.

Writing never touches the live files: both go to temporary names, are synced, and are renamed into
place as one group with the dataset's manifest and a record of the pair, under a lock on the prefix
(see `pair`): a process that has the old pair mapped keeps reading it, a failed rename leaves it
readable, two builders never mix their files, and a torn pair is refused. The manifest
(`dataset_manifest`) says which tokenizer made the ids and holds a sha256 of each file, hashed as
it was written; a merge refuses shards of two tokenizers. The reader refuses anything but regular
files (a FIFO would block it).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from tutorial_lib._checks import (
    check_bool,
    check_int,
    check_iterable,
    check_path,
    check_regular_file,
    check_type,
    describe,
)
from tutorial_lib.packing.bin_ids import as_dtype
from tutorial_lib.packing.megatron_format import (
    DTYPES,
    HEADER,
    MAGIC,
    VERSION,
    Header,
    bin_path,
    byte_offsets,
    dtype_code,
    idx_path,
    optimal_dtype,
    read_header,
)
from tutorial_pipeline import dataset_files as pair
from tutorial_pipeline import dataset_manifest
from tutorial_pipeline.files import CHUNK_BYTES, AtomicFile

__all__ = ["DTYPES", "MAGIC", "VERSION", "Header", "IndexedDataset", "IndexedDatasetBuilder",
           "bin_path", "byte_offsets", "dtype_code", "idx_path", "merge_datasets",
           "optimal_dtype", "read_header", "verify_dataset", "write_dataset"]


class IndexedDataset:
    """A `.bin`/`.idx` pair mapped read-only: sequences by index, zero copy.

    `ds[i]` is sequence i, `ds[i:j]` a list of them, `ds.get(i, offset, length)` a window of one
    (what a sample that starts mid-document needs), `ds.document(k)` all sequences of document k.
    The arrays returned are views of the mapping: they cost no memory until read, and they are
    read-only. Opening checks everything that can be checked without reading the tokens (header,
    sizes, that the pointers are exactly the running sum of the lengths, that document indices are
    in order) and, when the pair has a record (`pair`), that the two are the files it records, so
    a truncated, torn or mismatched pair fails here with a clear message instead of returning
    garbage later. When it has a manifest (`.manifest`, else None), the dtype, that the dtype holds
    the vocabulary, the counts and the sizes must be the manifest's; `verify=True` also reads every
    byte of both files and compares their sha256 (a bar shows the progress for big files).
    """

    def __init__(self, prefix: str | os.PathLike, *, verify: bool = False,
                 progress: bool = False) -> None:
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
        index = _map(idx_file, np.uint8)
        self.sequence_lengths = np.frombuffer(index, np.int32, s, self.header.size)
        self.sequence_pointers = np.frombuffer(index, np.int64, s, self.header.size + 4 * s)
        self.document_indices = np.frombuffer(index, np.int64, d, self.header.size + 12 * s)
        self.tokens = _map(bin_file, self.dtype)
        self._check_arrays(idx_file, bin_file)
        pair.check_record(prefix, bin_file, idx_file)  # what the structure cannot tell: a torn pair
        counts = {"sequences": s, "documents": self.num_documents, "tokens": self.num_tokens}
        self.manifest = dataset_manifest.check(prefix, self.dtype, counts, {
            "bin": bin_file, "idx": idx_file}, check_bool(verify, "verify"),
            check_bool(progress, "progress"))

    def _check_arrays(self, idx_file: Path, bin_file: Path) -> None:
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
        return (f"IndexedDataset({os.fspath(self.prefix)!r}: {len(self)} sequences, "
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
    """Writes a `.bin`/`.idx` pair the way megatron-core's builder does, but never in place.

    Tokens stream to a temporary `.bin` as they come (memory holds only 12 bytes per sequence for
    the index), hashed on the way; `finalize()` syncs it, writes the `.idx`, the manifest and the
    pair record beside it, syncs them, and renames the four over their targets as a group, under
    the prefix's lock. Used as a context manager it finalizes on success and deletes its temporary
    files on an exception, so an interrupted build leaves the old dataset (or nothing), never half
    of a new one; a builder dropped unfinished deletes them when it is collected.

    `tokenizer` is what the manifest records of the tokenizer that made the ids
    (`pipeline.tokenizer_fields`; None: ids from elsewhere), and `dtype` must hold every id of its
    vocabulary. `corpus` lists the text files the ids came from, in order, as the manifest does
    (`{"path", "bytes", "sha256"}`: the pipeline appends one per file it read).
    """

    def __init__(self, prefix: str | os.PathLike, dtype: object = np.uint16,
                 tokenizer: dict | None = None) -> None:
        self.prefix = check_path(prefix, "prefix")
        self.dtype = DTYPES[dtype_code(dtype)]
        self.tokenizer = dataset_manifest.check_tokenizer(tokenizer, self.dtype)
        self.corpus: list[dict] | None = []  # None once a shard of unknown origin is added
        self.sequence_lengths = array("q")
        self.document_indices = array("q", [0])
        self._shards: list[dict] | None = None  # what add_index appended (a merge)
        self.engine: dict | None = None  # the manifest's engine: `engines.Engine.fields()`
        pair.remove_stale_files(prefix, (bin_path(prefix), idx_path(prefix)))
        self._bin = AtomicFile(bin_path(prefix))
        self._bin_checksum = dataset_manifest.Checksum()
        self._done = False

    def __enter__(self) -> IndexedDatasetBuilder:
        return self

    def __exit__(self, exc_type: type | None, *_: object) -> None:
        if exc_type is not None:
            self.discard()
        elif not self._done:  # finalize() may already have been called inside the block
            self.finalize()

    def add_item(self, ids: object) -> None:
        """Append one sequence. Ids that the dtype cannot hold exactly are a ValueError, never a
        silent wrap."""
        self._check_open()
        tokens = as_dtype(ids, self.dtype)
        self._write_bin(tokens.tobytes())
        self.sequence_lengths.append(len(tokens))

    def _write_bin(self, raw: bytes) -> None:
        self._bin.file.write(raw)
        self._bin_checksum.update(raw)

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
        self._write_bin(tokens.tobytes())
        ends = len(self.sequence_lengths) + 1 + np.arange(len(lengths), dtype=np.int64)
        self.sequence_lengths.frombytes(lengths.tobytes())
        self.document_indices.frombytes(ends.tobytes())  # each document is one sequence

    def add_index(self, prefix: str | os.PathLike, allow_missing_manifest: bool = False) -> None:
        """Append a whole existing dataset: copy its `.bin`, shift its document indices (a shard
        merge). Its manifest must record this builder's tokenizer; a dataset without a manifest is
        refused unless `allow_missing_manifest` (see `merge_datasets`). The copy checks the
        shard's `.bin` against its manifest's sha256 on the way, at no cost of its own."""
        self._check_open()
        if self.document_indices[-1] != len(self.sequence_lengths):
            raise ValueError("add_index: the current document is not finished; call "
                             "end_document() first")
        other = IndexedDataset(prefix)
        if other.dtype != self.dtype:
            raise ValueError(f"add_index: {prefix} holds {other.dtype}, this dataset {self.dtype}; "
                             "merge only datasets of one dtype")
        dataset_manifest.check_shard(self.prefix, self.tokenizer, prefix, other.manifest,
                                     check_bool(allow_missing_manifest, "allow_missing_manifest"))
        offset = len(self.sequence_lengths)
        self.sequence_lengths.frombytes(other.sequence_lengths.astype(np.int64).tobytes())
        self.document_indices.frombytes((other.document_indices[1:] + offset).tobytes())
        copied = dataset_manifest.Checksum()
        with open(bin_path(prefix), "rb") as f:
            while chunk := f.read(CHUNK_BYTES):
                self._write_bin(chunk)
                copied.update(chunk)
        if other.manifest is not None:  # the copy read every byte: they are checked for nothing
            dataset_manifest.check_sha256(bin_path(prefix), copied.fields()["sha256"],
                                          other.manifest["bin"]["sha256"])
        corpus = None if other.manifest is None else other.manifest["corpus"]
        self.corpus = None if self.corpus is None or corpus is None else self.corpus + corpus
        self._shards = (self._shards or []) + [dataset_manifest.shard(
            prefix, other.num_documents, other.num_tokens, copied.fields()["sha256"])]

    def finalize(self) -> None:
        """Sync the tokens, write and sync the index (hashed as it is written), then put `.bin`,
        `.idx`, the manifest and the pair record in place, in that order (`pair.commit`)."""
        self._check_open()
        if self.document_indices[-1] != len(self.sequence_lengths):
            raise ValueError("finalize: sequences were added after the last end_document(); "
                             "Megatron would never read them, so finish the document first")
        idx = AtomicFile(idx_path(self.prefix))
        try:
            self._bin.sync()
            lengths = np.frombuffer(self.sequence_lengths, np.int64)
            if len(lengths) and lengths.max() > np.iinfo(np.int32).max:
                raise ValueError("a sequence longer than 2**31 - 1 tokens does not fit the int32 "
                                 "length field")
            pointers = byte_offsets(lengths, self.dtype.itemsize)[:-1]
            idx_checksum = dataset_manifest.Checksum()
            for part in (HEADER.pack(MAGIC, VERSION, dtype_code(self.dtype), len(lengths),
                                      len(self.document_indices)),
                         lengths.astype(np.int32).tobytes(), pointers.astype(np.int64).tobytes(),
                         np.frombuffer(self.document_indices, np.int64).tobytes()):
                idx.file.write(part)
                idx_checksum.update(part)
            idx.sync()
            pair.commit(self.prefix, self._bin, idx, self._manifest(idx_checksum))
        except BaseException:
            idx.discard()
            self.discard()
            raise
        self._done = True

    def _manifest(self, idx_checksum: dataset_manifest.Checksum) -> str:
        """The manifest's text. A shard of unknown origin (corpus None) leaves the tokenizer
        unknown too: the manifest does not vouch for tokens it knows nothing of."""
        counts = {"sequences": len(self.sequence_lengths),
                  "documents": len(self.document_indices) - 1,
                  "tokens": self._bin_checksum.bytes // self.dtype.itemsize}
        tokenizer = None if self.corpus is None else self.tokenizer
        return dataset_manifest.dumps(dataset_manifest.make(
            self.dtype, tokenizer, self.corpus, counts, self._bin_checksum.fields(),
            idx_checksum.fields(), self._shards, self.engine))

    def discard(self) -> None:
        """Drop everything written so far; the target files are untouched."""
        self._bin.discard()
        self._done = True

    def _check_open(self) -> None:
        if self._done:
            raise ValueError(f"the builder for {os.fspath(self.prefix)!r} is finished; start a new "
                             "one")


def write_dataset(prefix: str | os.PathLike, documents: Iterable[object],
                  dtype: object = np.uint16) -> IndexedDataset:
    """Write each document (a list or 1-D array of ids) as one sequence, and open the result."""
    check_iterable(documents, "documents", "a list of documents (each a list of ids)", ordered=True)
    if isinstance(documents, np.ndarray) and documents.ndim == 1:
        raise ValueError("documents must hold documents, each a list of ids, got a 1-D array (the "
                         "ids of one document?): write one document as [ids]")
    with IndexedDatasetBuilder(prefix, dtype) as builder:
        for ids in documents:
            builder.add_document(ids)
    return IndexedDataset(prefix)


def merge_datasets(prefixes: Sequence[str | os.PathLike], out_prefix: str | os.PathLike, *,
                   allow_missing_manifest: bool = False, corpus: list[dict] | None = None
                   ) -> IndexedDataset:
    """Concatenate datasets of one dtype and one tokenizer in order: `.bin` files back to back,
    `.idx` arrays offset, and a manifest that lists the shards (by file name: where they were
    built does not matter) with the counts summed and the corpus files one after another, or
    `corpus` instead (the whole files, when the shards were byte ranges of them: `distributed`).

    Shards of different tokenizers (by their manifests) are refused before anything is written: one
    id would mean two tokens. So is a shard without a manifest (megatron-core's): nothing says what
    its ids mean; `allow_missing_manifest=True` merges it, the tokenizer and corpus then null.
    """
    prefixes = list(check_type(prefixes, "prefixes", (list, tuple), "a list of dataset prefixes"))
    if not prefixes:
        raise ValueError("prefixes is empty: give at least one dataset to merge")
    shards = [IndexedDataset(prefix) for prefix in prefixes]  # cheap: headers and manifests
    tokenizer = dataset_manifest.common_tokenizer(  # or refused, before anything is written
        [(prefix, shard.manifest) for prefix, shard in zip(prefixes, shards)],
        check_bool(allow_missing_manifest, "allow_missing_manifest"))
    with IndexedDatasetBuilder(out_prefix, shards[0].dtype, tokenizer) as builder:
        for prefix in prefixes:
            builder.add_index(prefix, allow_missing_manifest)
        found = [None if s.manifest is None else s.manifest.get("engine") for s in shards]
        builder.engine = found[0] if all(e == found[0] for e in found) else None  # one, or none
        if corpus is not None:
            builder.corpus = check_type(corpus, "corpus", list, "a list of corpus files")
    return IndexedDataset(out_prefix)


def verify_dataset(prefix: str | os.PathLike, *, checksums: bool = True,
                   progress: bool = False) -> dict:
    """Check the dataset at `prefix` against its manifest and return the manifest: what a script
    runs before training. `checksums=False` keeps to the cheap checks. A ValueError says what does
    not match; a dataset without a manifest is one too (there is nothing to verify against)."""
    dataset = IndexedDataset(prefix, verify=checksums, progress=progress)
    if dataset.manifest is None:
        raise ValueError(dataset_manifest.no_manifest(prefix, "there is nothing to check it "
                                                              "against"))
    return dataset.manifest


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
