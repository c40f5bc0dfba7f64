"""Corpus files -> documents -> token ids (+ EOD) -> a Megatron `.bin/.idx` dataset, in constant memory.

    python -m tutorial_lib.pipeline build --tokenizer gpt2 --output out/tinystories \\
        --split '<|endoftext|>' --workers 2 data/tinystories_v2_sample.txt

The steps, each a generator, so that only a few batches of text are ever in memory, whatever the corpus size:

1. `read_text` reads a file in chunks of bytes and decodes them as UTF-8, refusing a file that is not UTF-8
   (with the byte where it goes wrong) instead of guessing.
2. `iter_documents` cuts the text into documents at a separator: "line" (one document per line), "blank"
   (paragraphs between empty lines) or any other string, such as TinyStories' `<|endoftext|>`. Each document
   is trimmed as `data.split_documents` does it for a whole text; empty or whitespace-only ones are dropped.
3. Batches of about BATCH_CHARS characters are encoded with `Tokenizer.encode_to_numpy` and the EOD id is
   appended to each document, in this process or in `workers` processes; either way the results come back
   in order, so the files are byte-identical for any number of workers.
4. `IndexedDatasetBuilder` writes one sequence per document to temporary files and renames them into place
   only when everything worked: an error or Ctrl-C leaves no half-written dataset.

This module sits at the top of the library because it joins the two halves: `packing.megatron` works on ids,
whatever made them, and `tokenization` knows nothing of file formats.
"""

from __future__ import annotations

import argparse
import codecs
import multiprocessing
import os
import pickle
import signal
import sys
import tempfile
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from tutorial_lib import data
from tutorial_lib._checks import check_bool, check_choice, check_int, check_path, check_str, check_type
from tutorial_lib.packing.megatron import IndexedDatasetBuilder, optimal_dtype
from tutorial_lib.tokenization.tokenizer import Tokenizer

SPLITS = {"line": "\n", "blank": "\n\n"}  # named separators; any other non-empty str is a separator itself
DTYPE_NAMES = {"uint16": np.uint16, "int32": np.int32}  # the two Megatron writes tokens in (optimal_dtype)
CHUNK_BYTES = 1 << 20  # bytes read from a file at a time
BATCH_CHARS = 1 << 20  # characters of text per batch handed to a worker

Document = tuple[str, int, str]  # (file, number of the document in its file, text): the file and number for errors


@dataclass(frozen=True)
class BuildSummary:
    """What `build` wrote: the dataset prefix, documents and tokens (EOD included), bytes of text read."""

    prefix: Path
    documents: int
    tokens: int
    text_bytes: int
    seconds: float

    @property
    def mb_per_second(self) -> float:
        """Throughput in MB (10^6 bytes) of text per second."""
        return self.text_bytes / 1e6 / self.seconds if self.seconds else float("inf")

    def __str__(self) -> str:
        return (f"{self.prefix}: {self.documents:,} documents, {self.tokens:,} tokens from {self.text_bytes:,} bytes "
                f"of text in {self.seconds:.2f} s ({self.mb_per_second:.2f} MB/s)")


def read_text(path: str | os.PathLike, progress: tqdm | None = None) -> Iterator[str]:
    """The text of `path` in pieces of about CHUNK_BYTES, decoded as strict UTF-8; `progress` counts bytes.

    A character cut between two reads is completed by the next one (an incremental decoder). A byte that is
    not UTF-8 raises ValueError with its position: guessing an encoding would put wrong text in the dataset.
    """
    path = check_path(path, "path")
    decoder = codecs.getincrementaldecoder("utf-8")()
    position = 0  # bytes read before this chunk
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK_BYTES):
            pending = len(decoder.getstate()[0])  # bytes of a cut character from the last chunk
            try:
                yield decoder.decode(chunk)
            except UnicodeDecodeError as e:
                raise ValueError(f"{path} is not UTF-8 text: byte {position - pending + e.start} "
                                 f"({e.object[e.start : e.start + 1]!r}) is {e.reason}; convert the file to UTF-8 "
                                 "first") from None
            position += len(chunk)
            if progress is not None:
                progress.update(len(chunk))
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as e:
            raise ValueError(f"{path} is not UTF-8 text: it ends inside a character ({e.reason})") from None


def iter_documents(pieces: Iterable[str], split: str = "line") -> Iterator[str]:
    """The documents of the text `"".join(pieces)`, lazily, the same as `data.split_documents` gives.

    `split` is "line" (each line), "blank" (paragraphs: text between empty lines) or the separator itself.
    Only the text after the last separator seen is held, so memory is one piece plus one document.
    """
    separator = separator_of(split)
    pending = ""
    for piece in pieces:
        searched = max(0, len(pending) - len(separator) + 1)  # a separator can only end in the new piece
        pending += piece
        if pending.find(separator, searched) >= 0:
            rest = pending.split(separator)[-1]
            yield from data.split_documents(pending[: len(pending) - len(rest)], separator)
            pending = rest
    yield from data.split_documents(pending, separator)


def separator_of(split: str) -> str:
    """The separator a `split` stands for: "line" -> "\\n", "blank" -> "\\n\\n", any other str -> itself."""
    check_str(split, "split", non_empty=True)
    return SPLITS.get(split, split)


def build(paths: str | os.PathLike | Iterable[str | os.PathLike], tokenizer: Tokenizer, prefix: str | os.PathLike,
          *, split: str = "line", eod: str = data.ENDOFTEXT, dtype: str = "auto", workers: int = 1,
          progress: bool = True) -> BuildSummary:
    """Tokenize the documents of `paths` and write them to the Megatron dataset `prefix`.bin/.idx.

    Each document becomes one sequence: its ids, then the id of the special token `eod`. A special-token
    string inside a document is an error (encode's rule): split on it instead. `dtype` is "auto" (uint16 when
    the vocabulary fits, else int32: Megatron's rule), "uint16" or "int32". `workers` > 1 encodes in that many
    processes with the same output; a script that calls this at its top level then needs the
    `if __name__ == "__main__":` guard (see `_encode_in_workers`).
    """
    paths = _check_paths(paths)
    check_type(tokenizer, "tokenizer", Tokenizer, "a tutorial_lib Tokenizer")
    prefix = check_path(prefix, "prefix")
    separator_of(split)  # checked now, not once the output is open
    eod_id = _eod_id(tokenizer, eod)
    dtype = _dtype(dtype, tokenizer)
    workers = check_int(workers, "workers", low=1)
    check_bool(progress, "progress")
    start = time.perf_counter()
    total = sum(path.stat().st_size for path in paths)
    with tqdm(total=total, unit="B", unit_scale=True, desc="tokenizing", disable=not progress) as bar:
        batches = _batches(_documents(paths, split, bar))
        if workers == 1:
            results = (_encode_batch(tokenizer, eod_id, batch) for batch in batches)
        else:
            results = _encode_in_workers(batches, tokenizer, eod_id, workers)
        documents, tokens = _write(prefix, dtype, results)
    return BuildSummary(prefix, documents, tokens, total, time.perf_counter() - start)


def _check_paths(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
    """One path or several, each an existing file: checked before anything is written."""
    paths = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    paths = [check_path(path, f"paths[{i}]") for i, path in enumerate(paths)]
    if not paths:
        raise ValueError("paths must name at least one corpus file, got none")
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"no such corpus file: {', '.join(missing)}")
    return paths


def _eod_id(tokenizer: Tokenizer, eod: str) -> int:
    check_str(eod, "eod", non_empty=True)
    if eod not in tokenizer.special_tokens:
        raise ValueError(f"eod must be a special token of the tokenizer ({list(tokenizer.special_tokens)}), got "
                         f"{eod!r}; build the tokenizer with it as a special token")
    return tokenizer.special_tokens[eod]


def _dtype(dtype: str, tokenizer: Tokenizer) -> np.dtype:
    if check_choice(dtype, "dtype", ["auto", *DTYPE_NAMES]) == "auto":
        return optimal_dtype(tokenizer.vocab_size)
    return np.dtype(DTYPE_NAMES[dtype])


def _documents(paths: list[Path], split: str, bar: tqdm) -> Iterator[Document]:
    for path in paths:
        name = str(path)
        for number, text in enumerate(iter_documents(read_text(path, bar), split)):
            yield name, number, text


def _batches(documents: Iterator[Document]) -> Iterator[list[Document]]:
    batch, size = [], 0
    for document in documents:
        batch.append(document)
        size += len(document[2])
        if size >= BATCH_CHARS:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _encode_batch(tokenizer: Tokenizer, eod_id: int, batch: list[Document]) -> tuple[np.ndarray, np.ndarray]:
    """The ids of every document of `batch`, each followed by `eod_id`, concatenated; and each one's length."""
    arrays = []
    for name, number, text in batch:
        try:
            arrays.append(tokenizer.encode_to_numpy(text))
        except ValueError as e:
            raise ValueError(f"{name}, the document at index {number}: {e}") from None
        arrays.append(np.array([eod_id], np.uint32))
    lengths = np.array([len(ids) for ids in arrays[::2]], np.int64) + 1
    return np.concatenate(arrays), lengths


_worker_args: tuple[Tokenizer, int] | None = None  # set once in each worker process by _start_worker


def _start_worker(tokenizer_file: str, eod_id: int) -> None:
    global _worker_args
    _worker_args = pickle.loads(Path(tokenizer_file).read_bytes()), eod_id


def _encode_in_worker(batch: list[Document]) -> tuple[np.ndarray, np.ndarray]:
    return _encode_batch(*_worker_args, batch)


def _encode_in_workers(batches: Iterator[list[Document]], tokenizer: Tokenizer, eod_id: int, workers: int
                       ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """`_encode_batch` of each batch in `workers` new processes, yielded in batch order.

    At most 2 x `workers` + 1 batches are in flight, so memory stays bounded and no process waits for the
    slowest of a wave. "spawn", as in the trainer: forking a process that runs threads (a notebook kernel) can
    deadlock the child. A spawned worker first imports the main script; one that builds at its top level would
    build again in each worker, which multiprocessing stops by killing the worker: that becomes an error that
    says what to change. The tokenizer reaches each worker once, through a temporary file: sent as an argument
    of the process's start, its megabyte of pickle would block this process forever if the worker died before
    reading it.
    """
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as directory:
        tokenizer_file = Path(directory) / "tokenizer.pickle"
        tokenizer_file.write_bytes(pickle.dumps(tokenizer))
        with ProcessPoolExecutor(workers, mp_context=context, initializer=_start_worker,
                                 initargs=(str(tokenizer_file), eod_id)) as pool:
            in_flight: deque[Future] = deque()
            try:
                # First a task of a few bytes: a worker that cannot start (no main guard) breaks the pool here.
                # With a megabyte batch already queued, Python 3.10's pool would wait forever to send it.
                _submit(pool, abs, 0).result()
                for batch in batches:
                    in_flight.append(_submit(pool, _encode_in_worker, batch))
                    if len(in_flight) > 2 * workers:
                        yield in_flight.popleft().result()
                while in_flight:
                    yield in_flight.popleft().result()
            except BrokenProcessPool:
                raise RuntimeError(
                    "a worker process of the pipeline died (workers > 1). Each worker is a new Python that first "
                    "imports your main script; if the script calls build at its top level, put that call under "
                    '`if __name__ == "__main__":` (see the worker\'s error above), or pass workers=1. A worker '
                    "can also die from lack of memory.") from None
            finally:
                for future in in_flight:  # after an error, do not wait for batches nobody will read
                    future.cancel()


def _submit(pool: ProcessPoolExecutor, fn: Callable, *args: object) -> Future:
    """`pool.submit(fn, *args)`, with Ctrl-C (SIGINT) held back meanwhile where the system can (not on Windows).

    A submit may start a worker, and a worker inherits the signals held back at its start, for life. So Ctrl-C,
    which a terminal sends to every process of the job, reaches only this one: it cancels the batches, waits
    for those being encoded and removes the temporary files. A worker interrupted too would print its own
    traceback and could die inside the pool's queue protocol, which can leave the pool waiting forever.
    """
    if not hasattr(signal, "pthread_sigmask"):
        return pool.submit(fn, *args)
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C that came meanwhile is delivered now


def _write(prefix: Path, dtype: np.dtype, results: Iterable[tuple[np.ndarray, np.ndarray]]) -> tuple[int, int]:
    """Write each document of each batch as one sequence; return the counts of documents and tokens."""
    documents = tokens = 0
    with IndexedDatasetBuilder(prefix, dtype) as builder:
        for ids, lengths in results:
            for document in np.split(ids, np.cumsum(lengths[:-1])):
                builder.add_document(document)
            documents += len(lengths)
            tokens += len(ids)
    return documents, tokens


# ------------------------------------------------------------------------------------------------ command line


def main(argv: list[str] | None = None) -> int:
    """`build` from the command line: argparse reports bad usage (exit code 2), a bad input exits with 1."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        tokenizer = _load_tokenizer(args.tokenizer)
        summary = build(args.files, tokenizer, args.output, split=args.split, eod=args.eod, dtype=args.dtype,
                        workers=args.workers, progress=not args.quiet)
    except FileNotFoundError as e:
        parser.error(str(e))  # a file that is not there is bad usage: exit code 2
    except (OSError, ValueError, RuntimeError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{parser.prog}: interrupted; nothing was written", file=sys.stderr)
        return 130
    print(summary)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tutorial-megatron",
                                     description="Tokenize corpus files into a Megatron .bin/.idx dataset.")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser("build", help="corpus files -> PREFIX.bin and PREFIX.idx",
                                  description="Each document becomes one sequence: its token ids, then EOD.")
    command.add_argument("--tokenizer", required=True,
                         help="a tokenizer file written by Tokenizer.save, or 'gpt2' for the bundled GPT-2 files")
    command.add_argument("--output", required=True, metavar="PREFIX", help="writes PREFIX.bin and PREFIX.idx")
    command.add_argument("--workers", type=_positive_int, default=1, help="encoding processes (default 1)")
    command.add_argument("--split", default="line", metavar="line|blank|SEP",
                         help="documents are lines (default), paragraphs between empty lines, or the text between "
                              "occurrences of the string SEP, e.g. '<|endoftext|>'")
    command.add_argument("--dtype", choices=["auto", *DTYPE_NAMES], default="auto",
                         help="token dtype; auto: uint16 if the vocabulary has fewer than 65,500 ids, else int32")
    command.add_argument("--eod", default=data.ENDOFTEXT, help=f"the special token ending each document "
                                                               f"(default {data.ENDOFTEXT})")
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    command.add_argument("files", nargs="+", metavar="FILES", help="UTF-8 text files")
    return parser


def _positive_int(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be an int >= 1, got {text!r}")
    return int(text)


def _load_tokenizer(name: str) -> Tokenizer:
    if name == "gpt2":
        return Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    return Tokenizer.load(name)


if __name__ == "__main__":
    sys.exit(main())
