"""The lesson's Megatron dataset made safe to build where others read it, and tied to its manifest.

The lesson's `megatron.IndexedDatasetBuilder` writes as megatron-core's does, straight to
`<prefix>.bin` and `<prefix>.idx`: a process that has the old pair mapped has its file cut under
it, and a build that stops midway leaves a pair that does not belong together. Here
`AtomicDatasetBuilder` hands that builder a temporary `.bin` (`files.AtomicFile`), hashes every
byte on the way, writes the `.idx` to a temporary file too, and renames both into place with the
dataset's manifest and the record of the pair as one group, under a lock on the prefix
(`dataset_files.commit`): a process that has the old pair mapped keeps reading it, a failed rename
leaves it readable, two builders never mix their files, and what a killed build left is removed
by the next builder of the prefix. The manifest (`dataset_manifest`) says which tokenizer made the
ids and holds a sha256 of each file, hashed as it was written; a merge refuses shards of two
tokenizers.

`CheckedDataset` is the lesson's reader plus what the structure of the pair cannot tell: the
record refuses a torn pair, the manifest a dtype, a count or a size that is not the dataset's
(and, with `verify=True`, a byte that changed). It also checks a `.bin` cut short under it: the
lesson's reader (and megatron-core's) dies of SIGBUS when it touches a mapped page the file no
longer has, so this one compares the file's size with the size it had at opening before it hands
out a sequence: a file truncated before the read is a ValueError, not a dead process (a file cut
between that check and the use of the view still kills it: see CheckedDataset). `write_dataset`,
`merge_datasets` and `verify_dataset` are what scripts, `local`, `distributed` and the command line
call; `check_prefix` refuses a prefix that cannot name the dataset's files before any work.
"""

from __future__ import annotations

import contextlib
import os
import weakref
from collections.abc import Iterable, Iterator, Sequence
from typing import IO

import numpy as np

from tutorial_lib._check_data import check_bool
from tutorial_lib._check_files import check_path
from tutorial_lib._checks import check_type
from tutorial_lib.packing.bin_ids import as_dtype
from tutorial_lib.packing.megatron import (DTYPES, IndexedDataset, IndexedDatasetBuilder, bin_path,
                                           check_documents, dtype_code, idx_path)
from tutorial_pipeline import dataset_files, dataset_manifest
from tutorial_pipeline.dataset_manifest import Checksum
from tutorial_pipeline.files import AtomicFile, name_length, name_too_long

__all__ = ["AtomicDatasetBuilder", "CheckedDataset", "HashedFile", "check_prefix",
           "merge_datasets", "prefix_problem", "verify_dataset", "write_dataset"]


def prefix_problem(prefix: str | os.PathLike, hidden: bool = True) -> str | None:
    """Why `prefix` cannot name a dataset's files (None: it can). Its last part must be a name:
    not empty (a trailing separator), "." or ".." (the files would be hidden ones, `..bin`), nor
    start with "." unless `hidden`; and its longest file name must fit the file system."""
    text = os.fspath(prefix)
    last = os.path.basename(text)
    if text.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        return "it ends with a path separator: it names a directory, not the files in it"
    if last in ("", ".", ".."):
        return (f"its last part {last!r} names a directory, and the files would be hidden ones "
                f"named {last}.bin, {last}.idx")
    if not hidden and last.startswith("."):
        return (f"its last part {last!r} starts with '.', so the files would be hidden ones "
                f"({last}.bin, {last}.idx)")
    names = (bin_path(text), idx_path(text), dataset_manifest.manifest_path(text),
             dataset_files.record_path(text), dataset_files.lock_path(text))
    return name_too_long(max(names, key=lambda path: name_length(path.name)))


def check_prefix(prefix: object, name: str = "prefix") -> str | os.PathLike:
    """`prefix`, refused with a ValueError naming `name` when it cannot name the dataset's files
    (`prefix_problem`): before any work, not when the first file is created."""
    check_path(prefix, name)
    problem = prefix_problem(prefix)  # as given: a Path would make "out/" "out" and "d/." "d"
    if problem is not None:
        raise ValueError(f"{name} must be DIR/NAME, which writes NAME.bin, NAME.idx and "
                         f"NAME.manifest.json in DIR, got {os.fspath(prefix)!r}: {problem}")
    return prefix


class CheckedDataset(IndexedDataset):
    """The lesson's `IndexedDataset`, and the two files the production path writes beside the pair.

    When the pair has a record (`dataset_files`), the two must be the files it records, so a torn,
    mixed or rewritten pair fails here. When it has a manifest (`.manifest`, else None), the dtype,
    that the dtype holds the vocabulary, the counts and the sizes must be the manifest's;
    `verify=True` also reads every byte of both files and compares their sha256 (a bar shows the
    progress for big files when `progress`).

    `get`, `document` and indexing first compare the size of the `.bin` this reader mapped
    (os.fstat of the file it keeps open) with its size at opening: a file truncated or rewritten
    in place by another process since is a ValueError, not a SIGBUS that ends the process. What
    they return are still views of the mapping (no copy), so the check cannot close the race: a
    file cut after the check and before the view is read, or `.tokens` read directly, still
    raises SIGBUS. Only writing a new file and renaming it over the old one (what this module's
    builders do) is safe for readers that have it open.
    """

    def __init__(self, prefix: str | os.PathLike, *, verify: bool = False,
                 progress: bool = False) -> None:
        super().__init__(prefix)
        bin_file, idx_file = bin_path(prefix), idx_path(prefix)
        self._open_tokens(bin_file)
        dataset_files.check_record(prefix, bin_file, idx_file)  # what the structure cannot tell
        counts = {"sequences": len(self), "documents": self.num_documents,
                  "tokens": self.num_tokens}
        self.manifest = dataset_manifest.check_dataset(prefix, self.dtype, counts, {
            "bin": bin_file, "idx": idx_file}, check_bool(verify, "verify"),
            check_bool(progress, "progress"))

    def _open_tokens(self, bin_file: os.PathLike) -> None:
        """Keep `.bin` open and map it again from that file: the mapping and the file whose size
        is asked before each read are then one file, even if another is renamed over the name."""
        file = open(bin_file, "rb")
        weakref.finalize(self, file.close)
        self._bin, self._bytes = file, self.num_tokens * self.dtype.itemsize  # as checked
        self._check_size()
        self.tokens = np.memmap(file, self.dtype, "r", shape=(self.num_tokens,)) if self._bytes \
            else np.empty(0, self.dtype)

    def _check_size(self) -> None:
        """Refuse a `.bin` whose size is no longer what it was when this reader opened it."""
        size = os.fstat(self._bin.fileno()).st_size
        if size != self._bytes:
            raise ValueError(
                f"{bin_path(self.prefix)} has {size} bytes now, but {self._bytes} when this reader "
                "opened it: another process truncated it or is rewriting it in place (open(path, "
                "'wb'), ndarray.tofile), and reading its lost pages through the mapping would "
                "kill this process (SIGBUS). Write a new dataset to temporary files renamed over "
                "the old ones (AtomicDatasetBuilder, the pipeline's build: open readers keep the "
                "old files), then open the dataset again")

    def get(self, idx: int, offset: int = 0, length: int | None = None) -> np.ndarray:
        """The lesson's `get` (a view of the mapping), once the file's size is checked."""
        tokens = super().get(idx, offset, length)  # a view: no page of it is read yet
        self._check_size()
        return tokens

    def document(self, k: int) -> np.ndarray:
        """The lesson's `document` (a view of the mapping), once the file's size is checked."""
        tokens = super().document(k)
        self._check_size()
        return tokens


class HashedFile:
    """A file being written whose bytes are hashed as they pass: the sha256 of what is written
    anyway costs no second read. `checksums[0]` sees every byte; `also` adds a second checksum for
    a stretch (a shard's bytes while they are copied)."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        self.checksums = [Checksum()]

    def write(self, data: bytes) -> int:
        self.file.write(data)
        for checksum in self.checksums:
            checksum.update(data)
        return len(data)

    @contextlib.contextmanager
    def also(self, checksum: Checksum) -> Iterator[Checksum]:
        self.checksums.append(checksum)
        try:
            yield checksum
        finally:
            self.checksums.remove(checksum)


class AtomicDatasetBuilder(IndexedDatasetBuilder):
    """The lesson's builder, writing to temporary files that replace the pair as one, never in
    place.

    Tokens stream to a temporary `.bin` as they come (memory holds only 12 bytes per sequence for
    the index), hashed on the way; `finalize()` writes the `.idx` to a temporary file, syncs both,
    and renames them, the manifest and the pair record over their targets as a group, under the
    prefix's lock. Used as a context manager it finalizes on success and deletes its temporary
    files on an exception, so an interrupted build leaves the old dataset (or nothing), never half
    of a new one; a builder dropped unfinished deletes them when it is collected.

    `tokenizer` is what the manifest records of the tokenizer that made the ids
    (`local.tokenizer_fields`; None: ids from elsewhere), and `dtype` must hold every id of its
    vocabulary. `corpus` lists the text files the ids came from, in order, as the manifest does
    (`{"path", "bytes", "sha256"}`: the pipeline appends one per file it read), and `engine` what
    encoded them (`engines.Engine.fields()`).
    """

    def __init__(self, prefix: str | os.PathLike, dtype: object = np.uint16,
                 tokenizer: dict | None = None) -> None:
        targets = (bin_path(check_prefix(prefix)), idx_path(prefix))
        self.tokenizer = dataset_manifest.check_tokenizer(tokenizer, DTYPES[dtype_code(dtype)])
        self.corpus: list[dict] | None = []  # None once a shard of unknown origin is added
        self.engine: dict | None = None
        self._shards: list[dict] | None = None  # what add_index appended (a merge)
        dataset_files.remove_stale_files(prefix, targets)
        self._bin = AtomicFile(targets[0])
        self._written = HashedFile(self._bin.file)
        super().__init__(prefix, dtype, self._written)

    def add_documents(self, ids: np.ndarray, lengths: np.ndarray) -> None:
        """`add_document` of each of a batch (`ids` back to back, as the encoding workers send
        them), with no Python call per document."""
        self.check_between_documents("add_documents")
        tokens, lengths = as_dtype(ids, self.dtype), np.asarray(lengths, np.int64).ravel()
        if (lengths < 0).any() or lengths.sum() != len(tokens):
            raise ValueError(f"lengths must be >= 0 and add up to the {len(tokens)} ids")
        self.bin_file.write(tokens.tobytes())
        # each document is one sequence, so document k of the batch ends after sequence k
        ends = len(self.sequence_lengths) + 1 + np.arange(len(lengths), dtype=np.int64)
        self.sequence_lengths.frombytes(lengths.tobytes())
        self.document_indices.frombytes(ends.tobytes())

    def add_index(self, prefix: str | os.PathLike, allow_missing_manifest: bool = False) -> None:
        """Append a whole existing dataset (a shard merge): the lesson's `add_index`, once the
        shard's record and manifest are checked. Its manifest must record this builder's
        tokenizer; a dataset without a manifest is refused unless `allow_missing_manifest` (see
        `merge_datasets`). The copy checks the shard's `.bin` against its manifest's sha256 on the
        way, at no cost of its own."""
        self.check_between_documents("add_index")
        other = CheckedDataset(prefix)
        dataset_manifest.check_shard(self.prefix, self.tokenizer, prefix, other.manifest,
                                     check_bool(allow_missing_manifest, "allow_missing_manifest"))
        with self._written.also(Checksum()) as copied:
            super().add_index(other)
        sha256 = copied.fields()["sha256"]
        if other.manifest is not None:  # the copy read every byte: they are checked for nothing
            dataset_manifest.check_sha256(bin_path(prefix), sha256, other.manifest["bin"]["sha256"])
        corpus = None if other.manifest is None else other.manifest["corpus"]
        self.corpus = None if self.corpus is None or corpus is None else self.corpus + corpus
        self._shards = (self._shards or []) + [dataset_manifest.shard(
            prefix, other.num_documents, other.num_tokens, sha256)]

    def finalize(self) -> None:
        """Write the index to a temporary file (hashed as it is written), sync the tokens and the
        index, then put `.bin`, `.idx`, the manifest and the pair record in place, in that order
        (`dataset_files.commit`). An index the lesson refuses (an unfinished document) writes
        nothing and leaves the builder usable."""
        parts = self.index_parts()
        idx = AtomicFile(idx_path(self.prefix))
        try:
            index = HashedFile(idx.file)
            for part in parts:
                index.write(part)
            self._bin.sync()
            idx.sync()
            dataset_files.commit(self.prefix, self._bin, idx, self._manifest(index.checksums[0]))
        except BaseException:
            idx.discard()
            self.discard()
            raise
        self.finished = True

    def _manifest(self, idx_checksum: Checksum) -> str:
        """The manifest's text. A shard of unknown origin (corpus None) leaves the tokenizer
        unknown too: the manifest does not vouch for tokens it knows nothing of."""
        written = self._written.checksums[0]
        counts = {"sequences": len(self.sequence_lengths),
                  "documents": len(self.document_indices) - 1,
                  "tokens": written.bytes // self.dtype.itemsize}
        tokenizer = None if self.corpus is None else self.tokenizer
        return dataset_manifest.dumps(dataset_manifest.make(
            self.dtype, tokenizer, self.corpus, counts, written.fields(), idx_checksum.fields(),
            self._shards, self.engine))

    def discard(self) -> None:
        """Drop everything written so far; the target files are untouched."""
        self._bin.discard()
        self.finished = True


def write_dataset(prefix: str | os.PathLike, documents: Iterable[object],
                  dtype: object = np.uint16) -> CheckedDataset:
    """Write each document (a list or 1-D array of ids) as one sequence, replacing the pair at
    `prefix` as a whole, and open the result (the lesson's `megatron.write_dataset`, made safe)."""
    documents = check_documents(documents)
    with AtomicDatasetBuilder(prefix, dtype) as builder:
        for ids in documents:
            builder.add_document(ids)
    return CheckedDataset(prefix)


def merge_datasets(prefixes: Sequence[str | os.PathLike], out_prefix: str | os.PathLike, *,
                   allow_missing_manifest: bool = False, corpus: list[dict] | None = None
                   ) -> CheckedDataset:
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
    shards = [CheckedDataset(prefix) for prefix in prefixes]  # cheap: headers and manifests
    tokenizer = dataset_manifest.common_tokenizer(  # or refused, before anything is written
        [(prefix, shard.manifest) for prefix, shard in zip(prefixes, shards)],
        check_bool(allow_missing_manifest, "allow_missing_manifest"))
    with AtomicDatasetBuilder(out_prefix, shards[0].dtype, tokenizer) as builder:
        for prefix in prefixes:
            builder.add_index(prefix, allow_missing_manifest)
        found = [None if s.manifest is None else s.manifest.get("engine") for s in shards]
        builder.engine = found[0] if all(e == found[0] for e in found) else None  # one, or none
        if corpus is not None:
            builder.corpus = check_type(corpus, "corpus", list, "a list of corpus files")
    return CheckedDataset(out_prefix)


def verify_dataset(prefix: str | os.PathLike, *, checksums: bool = True,
                   progress: bool = False) -> dict:
    """Check the dataset at `prefix` against its manifest and return the manifest: what a script
    runs before training. `checksums=False` keeps to the cheap checks. A ValueError says what does
    not match; a dataset without a manifest is one too (there is nothing to verify against)."""
    dataset = CheckedDataset(prefix, verify=checksums, progress=progress)
    if dataset.manifest is None:
        raise ValueError(dataset_manifest.no_manifest(prefix, "there is nothing to check it "
                                                              "against"))
    return dataset.manifest
