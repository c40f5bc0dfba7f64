"""Corpus files -> documents -> token ids (+ EOD) -> a Megatron `.bin/.idx` dataset, streamed.

    python -m tutorial_pipeline build --tokenizer gpt2 --output out/tinystories \\
        --split '<|endoftext|>' --workers 2 data/tinystories_v2_sample.txt
    python -m tutorial_pipeline verify out/tinystories

The steps, each a generator, so that only a few batches of text are ever in memory, whatever
the corpus size:

1. `corpus_files.read_documents` reads each file as strict UTF-8 (a BOM dropped, "\\r\\n" made
   "\\n"), hashing its bytes as they go by, and cuts it into documents at a separator: "line",
   "blank" (paragraphs) or any string, such as TinyStories' `<|endoftext|>`.
2. Batches of about BATCH_CHARS characters (a document counts DOC_CHARS more, so that a batch of
   tiny documents stays small too) are encoded by an `engines.Engine` (our encoder by default;
   tiktoken or Hugging Face `tokenizers` through the tokenizer's export), and the EOD id is
   appended to each document, in this process or in `workers` processes (`_parallel`, the pool the
   trainer uses too); either way the results come back in order, so the files are byte-identical
   for any number of workers and any engine. Once per run a sample of the documents is encoded by
   ours too (`engines.SampleCheck`): an engine that disagrees stops the run. Workers start only for
   WORKERS_FROM_BYTES[engine name] of text or more: each one starts a Python and loads the
   tokenizer or its export, which costs more than it saves on a small corpus.
3. `dataset.AtomicDatasetBuilder` writes one sequence per document to temporary files and renames
   them into place only when everything worked: an error or Ctrl-C leaves no half-written dataset.
   Beside the pair goes its manifest (`dataset_manifest`): the tokenizer's digest and fields
   (`tokenizer_fields`), each corpus file's size and sha256 (hashed in step 1: no file is read
   twice), the counts, the sha256 of `.bin` and `.idx`, and the engine. The `verify` command
   checks a dataset against it.

It sits at the top of the library: it joins `packing.megatron` (ids) and `tokenization` (text).
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from tutorial_lib import data
from tutorial_lib._check_data import check_bool
from tutorial_lib._check_files import check_path
from tutorial_lib._checks import check_choice, check_int, check_str, check_type
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest
from tutorial_lib.packing.megatron import optimal_dtype
from tutorial_pipeline import dataset_manifest, engines
from tutorial_pipeline.corpus_files import Document, check_paths, read_documents, separator_of
from tutorial_pipeline.dataset import AtomicDatasetBuilder
from tutorial_pipeline.engines import Engine
from tutorial_pipeline.workers import MAX_WORKERS, batches, map_in_workers

DTYPE_NAMES = {"uint16": np.uint16, "int32": np.int32}  # Megatron's token dtypes (optimal_dtype)
BATCH_CHARS = 1 << 20  # characters of text per batch handed to a worker
DOC_CHARS = 64  # what a document adds to its batch's size besides its text: its Python objects
# Smaller corpora are encoded in this process (step 2 above), by engine: where 2 workers on 2 cores
# began to beat one process in benchmarks/bench_pipeline.py (ours between 11 and 22 MB, tiktoken at
# 11 MB, the slower tokenizers below 5 MB), rounded up so that workers are never the slower choice.
WORKERS_FROM_BYTES = {"ours": 1 << 24, "tiktoken": 1 << 24, "huggingface": 1 << 23}


@dataclass(frozen=True)
class BuildSummary:
    """What `build` wrote: prefix, documents and tokens (EOD included), bytes of text read, how
    many processes encoded them (1 below the engine's WORKERS_FROM_BYTES, whatever `workers`
    asked), the manifest beside the pair, and the engine's name."""

    prefix: Path
    documents: int
    tokens: int
    text_bytes: int
    seconds: float
    workers: int
    manifest: Path
    engine: str = "ours"

    @property
    def mb_per_second(self) -> float:
        """Throughput in MB (10^6 bytes) of text per second."""
        return self.text_bytes / 1e6 / self.seconds if self.seconds else float("inf")

    def __str__(self) -> str:
        return (f"{self.prefix}: {self.documents:,} documents, {self.tokens:,} tokens from "
                f"{self.text_bytes:,} bytes of text in {self.seconds:.2f} s "
                f"({self.mb_per_second:.2f} MB/s, {self.engine} engine, {self.workers} encoding "
                f"process{'es' if self.workers > 1 else ''})")


def build(paths: str | os.PathLike | Iterable[str | os.PathLike], tokenizer: Tokenizer,
          prefix: str | os.PathLike, *, split: str = "line", eod: str = data.ENDOFTEXT,
          dtype: str = "auto", workers: int = 1, progress: bool = True,
          engine: str | Engine = "ours") -> BuildSummary:
    """Tokenize the documents of `paths` and write them to the Megatron dataset `prefix`.bin/.idx.

    Each document becomes one sequence: its ids, then the id of the special token `eod`. A
    special-token string inside a document is an error (encode's rule): split on it instead. `dtype`
    is "auto" (uint16 when the vocabulary fits, else int32: Megatron's rule), "uint16" or "int32".
    A dtype that cannot hold every id of the vocabulary is refused, even when this corpus's ids
    would fit. `workers` > 1 (at most `_parallel.MAX_WORKERS`) encodes in that many processes with
    the same output, once the files hold WORKERS_FROM_BYTES[engine] or more (below, in this process:
    starting the workers would cost more); a script that calls this at its top level then needs
    the `if __name__ == "__main__":` guard (see `_parallel`). `engine` encodes: "ours" (the
    default: the course's encoder), "tiktoken" or "huggingface" (the tokenizer's export, the same
    ids faster: `engines`), or an `engines.Engine`; the manifest records it.
    """
    paths = check_paths(paths)
    check_type(tokenizer, "tokenizer", Tokenizer, "a tutorial_lib Tokenizer")
    prefix = check_path(prefix, "prefix")
    separator_of(split)  # checked now, not once the output is open
    fields = tokenizer_fields(tokenizer, eod)
    dtype = token_dtype(dtype, tokenizer)
    workers = check_int(workers, "workers", low=1, high=MAX_WORKERS)
    check_bool(progress, "progress")
    start = time.perf_counter()
    engine = engines.make_engine(engine, tokenizer)  # an export takes a few tenths of a second
    total = sum(path.stat().st_size for path in paths)  # sizes now: for the bar and the workers
    if total < WORKERS_FROM_BYTES.get(engine.name, WORKERS_FROM_BYTES["ours"]):
        workers = 1
    bar = tqdm(total=total, unit="B", unit_scale=True, desc="tokenizing", disable=not progress)
    corpus: list[dict] = []  # each file's size and sha256, once it has been read
    sample = engines.SampleCheck(tokenizer, engine)
    with bar:
        tasks = sample.batches(batches(
            read_documents(paths, split, corpus, lambda chunk: bar.update(len(chunk))),
            BATCH_CHARS, size=lambda doc: len(doc[2]) + DOC_CHARS))
        eod_id = fields["eod_id"]
        if workers == 1:
            results = (encode_batch(engine, eod_id, batch) for batch in tasks)
        else:
            results = _encode_in_workers(tasks, engine, eod_id, workers)
        documents, tokens = write_batches(prefix, dtype, sample.results(results), fields, corpus,
                                   engine.fields())
    # the bytes read, as the manifest lists them: a file may have changed since `total` was taken
    return BuildSummary(prefix, documents, tokens, sum(file["bytes"] for file in corpus),
                        time.perf_counter() - start, workers,
                        dataset_manifest.manifest_path(prefix), engine.name)


def tokenizer_fields(tokenizer: Tokenizer, eod: str = data.ENDOFTEXT) -> dict:
    """What a dataset's manifest records of the tokenizer that made its ids: the digest, vocab_size,
    `eod` and its id, the normalization, and the digests that say what changed when it did."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a tutorial_lib Tokenizer")
    header = tokenizer_manifest.manifest(tokenizer)
    digests = {key: value for key, value in header.items()
               if key.endswith("_sha256") and key != "tokenizer_sha256"}  # that one is the digest
    return {"digest": header["tokenizer_sha256"], "vocab_size": tokenizer.vocab_size, "eod": eod,
            "eod_id": _eod_id(tokenizer, eod), "normalization": tokenizer.normalization,
            "digests": digests}


def _eod_id(tokenizer: Tokenizer, eod: str) -> int:
    check_str(eod, "eod", non_empty=True)
    if eod not in tokenizer.special_tokens:
        raise ValueError(f"eod must be a special token of the tokenizer "
                         f"({list(tokenizer.special_tokens)}), got {eod!r}; build the tokenizer "
                         "with it as a special token")
    return tokenizer.special_tokens[eod]


def token_dtype(dtype: str, tokenizer: Tokenizer) -> np.dtype:
    if check_choice(dtype, "dtype", ["auto", *DTYPE_NAMES]) == "auto":
        return optimal_dtype(tokenizer.vocab_size)
    dataset_manifest.check_holds(DTYPE_NAMES[dtype], tokenizer.vocab_size, f"dtype={dtype!r}")
    return np.dtype(DTYPE_NAMES[dtype])


def encode_batch(engine: Engine, eod_id: int, batch: list[Document]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The ids of each document of `batch` then `eod_id`, all concatenated; and their lengths.
    A special token in a document is refused here, whatever the engine (`engines`, rule 1)."""
    texts = [text for _, _, text in batch]
    found = engines.find_special(texts, engine.special_tokens)
    if found is not None:
        i, index, special = found
        raise ValueError(f"{batch[i][0]}, the document at index {batch[i][1]}: "
                         f"{_special_token_message(special, index)}")
    try:
        ids, lengths = engines.concatenate(engine.encode_batch(texts), eod_id)
    except ValueError:
        for name, number, text in batch:  # which document? Each alone, until one fails
            try:
                list(engine.encode_batch([text]))
            except ValueError as e:
                raise ValueError(f"{name}, the document at index {number}: {e}") from None
        raise
    if len(lengths) != len(texts):
        raise RuntimeError(f"engine {engine!r} gave {len(lengths)} results for {len(texts)} "
                           "documents")
    return ids, lengths


def _special_token_message(special: str, index: int) -> str:
    """What to say of a special token inside a document (encode's own message speaks of its
    arguments, which neither `build` nor the command line has)."""
    return (f"it contains the special token {special!r} at index {index}, which a document may not "
            f"hold (it would become a control token). If it separates documents, split on it: "
            f"--split {shlex.quote(special)} on the command line, split={special!r} in build()")


_worker_args: tuple[Engine, int] | None = None  # set once in each worker by _start_worker


def _start_worker(engine: Engine, eod_id: int) -> None:
    global _worker_args
    _worker_args = engine, eod_id


def _encode_in_worker(batch: list[Document]) -> tuple[np.ndarray, np.ndarray]:
    return encode_batch(*_worker_args, batch)


def _encode_in_workers(batches: Iterable[list[Document]], engine: Engine, eod_id: int,
                       workers: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """`encode_batch` of each batch in `workers` new processes (`_parallel`), in batch order; the
    engine (and the tokenizer or export it holds) reaches each worker once, through the pool's
    set-up file."""
    yield from map_in_workers(_encode_in_worker, batches, workers, job="the pipeline",
                              caller="build", initializer=_start_worker,
                              initargs=(engine, eod_id))


def write_batches(prefix: Path, dtype: np.dtype, results: Iterable[tuple[np.ndarray, np.ndarray]],
           tokenizer: dict, corpus: list[dict], engine: dict) -> tuple[int, int]:
    """Write each document of each batch as one sequence (a batch at a time), and the manifest with
    the `corpus` files (all read by the time the last batch is written) and the `engine`; return
    how many documents and tokens."""
    documents = tokens = 0
    with AtomicDatasetBuilder(prefix, dtype, tokenizer) as builder:
        for ids, lengths in results:
            builder.add_documents(ids, lengths)
            documents += len(lengths)
            tokens += len(ids)
        builder.corpus.extend(corpus)
        builder.engine = engine
    return documents, tokens
