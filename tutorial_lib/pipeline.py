"""Corpus files -> documents -> token ids (+ EOD) -> a Megatron `.bin/.idx` dataset, streamed.

    python -m tutorial_lib.pipeline build --tokenizer gpt2 --output out/tinystories \\
        --split '<|endoftext|>' --workers 2 data/tinystories_v2_sample.txt

The steps, each a generator, so that only a few batches of text are ever in memory, whatever
the corpus size:

1. `_files.read_utf8` reads a file in chunks of bytes and decodes them as UTF-8, refusing a file
   that is not UTF-8 (with the byte where it goes wrong) instead of guessing. `plain_text` then
   drops a byte-order mark at the start and turns Windows line ends ("\\r\\n") into "\\n", so
   that a file saved on Windows gives the same documents as the same text saved elsewhere.
2. `iter_documents` cuts the text into documents at a separator: "line" (one document per line),
   "blank" (paragraphs between empty lines) or any other string, such as TinyStories'
   `<|endoftext|>`. Each document is trimmed as `data.split_documents` does it for a whole text;
   empty or whitespace-only ones are dropped.
3. Batches of about BATCH_CHARS characters (a document counts DOC_CHARS more, so that a batch of
   tiny documents stays small too) are encoded with `Tokenizer.encode_to_numpy` and the EOD id is
   appended to each document, in this process or in `workers` processes (`_parallel`, the pool the
   trainer uses too); either way the results come back in order, so the files are byte-identical
   for any number of workers. Workers start only for WORKERS_FROM_BYTES of text or more: each one
   starts a Python and loads the tokenizer, which costs more than it saves on a small corpus.
4. `IndexedDatasetBuilder` writes one sequence per document to temporary files and renames them into
   place only when everything worked: an error or Ctrl-C leaves no half-written dataset.

This module sits at the top of the library because it joins the two halves: `packing.megatron` works
on ids, whatever made them, and `tokenization` knows nothing of file formats.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import sys
import threading
import time
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from tutorial_lib import data
from tutorial_lib._checks import (check_bool, check_choice, check_int, check_iterable, check_path,
                                  check_regular_file, check_str, check_type)
from tutorial_lib._files import read_utf8
from tutorial_lib._parallel import MAX_WORKERS, batches, map_in_workers
from tutorial_lib.packing.megatron import IndexedDatasetBuilder, optimal_dtype
from tutorial_lib.tokenization.tokenizer import Tokenizer

SPLITS = {"line": "\n", "blank": "\n\n"}  # named separators; any other non-empty str is itself one
DTYPE_NAMES = {"uint16": np.uint16, "int32": np.int32}  # Megatron's token dtypes (optimal_dtype)
BATCH_CHARS = 1 << 20  # characters of text per batch handed to a worker
DOC_CHARS = 64  # what a document adds to its batch's size besides its text: its Python objects
WORKERS_FROM_BYTES = 1 << 24  # smaller corpora are encoded in this process: see step 3 above

# (file, number of the document in its file, text): the file and number are for error messages
Document = tuple[str, int, str]


@dataclass(frozen=True)
class BuildSummary:
    """What `build` wrote: prefix, documents and tokens (EOD included), bytes of text read, and
    how many processes encoded them (1 below WORKERS_FROM_BYTES, whatever `workers` asked)."""

    prefix: Path
    documents: int
    tokens: int
    text_bytes: int
    seconds: float
    workers: int

    @property
    def mb_per_second(self) -> float:
        """Throughput in MB (10^6 bytes) of text per second."""
        return self.text_bytes / 1e6 / self.seconds if self.seconds else float("inf")

    def __str__(self) -> str:
        return (f"{self.prefix}: {self.documents:,} documents, {self.tokens:,} tokens from "
                f"{self.text_bytes:,} bytes of text in {self.seconds:.2f} s "
                f"({self.mb_per_second:.2f} MB/s, {self.workers} encoding "
                f"process{'es' if self.workers > 1 else ''})")


def iter_documents(pieces: Iterable[str], split: str = "line") -> Iterator[str]:
    """The documents of the text `"".join(pieces)`, lazily: what `data.split_documents` gives.

    `split` is "line" (each line), "blank" (paragraphs: text between empty lines) or the separator
    itself. Only the text after the last separator seen is held, and documents are cut out one at a
    time (not split into a list: a piece of tiny lines would make a million strings at once), so
    memory is one piece plus one document.
    """
    separator = separator_of(split)
    pending = ""
    for piece in pieces:
        searched = max(0, len(pending) - len(separator) + 1)  # a separator ends in the new piece
        pending += piece
        start, end = 0, pending.find(separator, searched)
        # Each occurrence, left to right as str.split finds them, ends one document.
        while end >= 0:
            yield from data.split_documents(pending[start:end], separator)  # trimmed, or dropped
            start = end + len(separator)
            end = pending.find(separator, start)
        pending = pending[start:]
    yield from data.split_documents(pending, separator)


def plain_text(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces of a file's text, without a byte-order mark at its start, "\\r\\n" made "\\n".

    A "\\r" at the end of a piece is held until the next piece shows whether a "\\n" follows it.
    """
    started, held = False, ""
    for piece in pieces:
        if not started and piece:  # a BOM is one only at the very start of the file
            piece, started = piece.removeprefix("\ufeff"), True
        piece = held + piece
        held = "\r" if piece.endswith("\r") else ""
        yield piece[: len(piece) - len(held)].replace("\r\n", "\n")
    yield held


def separator_of(split: str) -> str:
    """The separator of a `split`: "line" -> "\\n", "blank" -> "\\n\\n", any other str -> itself."""
    check_str(split, "split", non_empty=True)
    return SPLITS.get(split, split)


def build(paths: str | os.PathLike | Iterable[str | os.PathLike], tokenizer: Tokenizer,
          prefix: str | os.PathLike, *, split: str = "line", eod: str = data.ENDOFTEXT,
          dtype: str = "auto", workers: int = 1, progress: bool = True) -> BuildSummary:
    """Tokenize the documents of `paths` and write them to the Megatron dataset `prefix`.bin/.idx.

    Each document becomes one sequence: its ids, then the id of the special token `eod`. A
    special-token string inside a document is an error (encode's rule): split on it instead. `dtype`
    is "auto" (uint16 when the vocabulary fits, else int32: Megatron's rule), "uint16" or "int32".
    `workers` > 1 (at most `_parallel.MAX_WORKERS`) encodes in that many processes with the same
    output, once the files hold WORKERS_FROM_BYTES or more (below that, in this process: starting
    the workers would cost more); a script that calls this at its top level then needs the
    `if __name__ == "__main__":` guard (see `_parallel`).
    """
    paths = _check_paths(paths)
    check_type(tokenizer, "tokenizer", Tokenizer, "a tutorial_lib Tokenizer")
    prefix = check_path(prefix, "prefix")
    separator_of(split)  # checked now, not once the output is open
    eod_id = _eod_id(tokenizer, eod)
    dtype = _dtype(dtype, tokenizer)
    workers = check_int(workers, "workers", low=1, high=MAX_WORKERS)
    check_bool(progress, "progress")
    start = time.perf_counter()
    total = sum(path.stat().st_size for path in paths)
    if total < WORKERS_FROM_BYTES:
        workers = 1
    bar = tqdm(total=total, unit="B", unit_scale=True, desc="tokenizing", disable=not progress)
    with bar:
        tasks = batches(_documents(paths, split, bar), BATCH_CHARS,
                        size=lambda doc: len(doc[2]) + DOC_CHARS)
        if workers == 1:
            results = (_encode_batch(tokenizer, eod_id, batch) for batch in tasks)
        else:
            results = _encode_in_workers(tasks, tokenizer, eod_id, workers)
        documents, tokens = _write(prefix, dtype, results)
    return BuildSummary(prefix, documents, tokens, total, time.perf_counter() - start, workers)


def _check_paths(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
    """One path or several, each a regular file: checked before anything is written."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [_regular_or_missing(paths, "paths")]
    else:
        check_iterable(paths, "paths", "a path (str or pathlib.Path) or a list of paths",
                       ordered=True)
        paths = [_regular_or_missing(path, f"paths[{i}]")
                 for i, path in enumerate(paths)]
    if not paths:
        raise ValueError("paths must name at least one corpus file, got none")
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise FileNotFoundError(f"no such corpus file: {', '.join(missing)}")
    return paths


def _regular_or_missing(path: object, name: str) -> Path:
    """`check_regular_file`, but a missing file is left to the caller, which names all of them."""
    try:
        return check_regular_file(path, name)
    except FileNotFoundError:
        return Path(path)


def _eod_id(tokenizer: Tokenizer, eod: str) -> int:
    check_str(eod, "eod", non_empty=True)
    if eod not in tokenizer.special_tokens:
        raise ValueError(f"eod must be a special token of the tokenizer "
                         f"({list(tokenizer.special_tokens)}), got {eod!r}; build the tokenizer "
                         "with it as a special token")
    return tokenizer.special_tokens[eod]


def _dtype(dtype: str, tokenizer: Tokenizer) -> np.dtype:
    if check_choice(dtype, "dtype", ["auto", *DTYPE_NAMES]) == "auto":
        return optimal_dtype(tokenizer.vocab_size)
    return np.dtype(DTYPE_NAMES[dtype])


def _documents(paths: list[Path], split: str, bar: tqdm) -> Iterator[Document]:
    for path in paths:
        name = str(path)
        text = plain_text(read_utf8(path, on_read=bar.update))
        for number, text in enumerate(iter_documents(text, split)):
            yield name, number, text


def _encode_batch(tokenizer: Tokenizer, eod_id: int, batch: list[Document]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The ids of each document of `batch` then `eod_id`, all concatenated; and their lengths."""
    arrays, eod = [], np.array([eod_id], np.uint32)
    for name, number, text in batch:
        try:
            arrays.append(tokenizer.encode_to_numpy(text))
        except ValueError as e:
            raise ValueError(f"{name}, the document at index {number}: "
                             f"{_special_token_hint(tokenizer, text) or e}") from None
        arrays.append(eod)
    lengths = np.array([len(ids) for ids in arrays[::2]], np.int64) + 1
    return np.concatenate(arrays), lengths


def _special_token_hint(tokenizer: Tokenizer, text: str) -> str | None:
    """What to say of a special token inside a document (encode's own message speaks of its
    arguments, which neither `build` nor the command line has); None if there is none."""
    found = sorted((text.find(special), special) for special in tokenizer.special_tokens
                   if special in text)
    if not found:
        return None
    index, special = found[0]
    return (f"it contains the special token {special!r} at index {index}, which a document may not "
            f"hold (it would become a control token). If it separates documents, split on it: "
            f"--split {shlex.quote(special)} on the command line, split={special!r} in build()")


_worker_args: tuple[Tokenizer, int] | None = None  # set once in each worker by _start_worker


def _start_worker(tokenizer: Tokenizer, eod_id: int) -> None:
    global _worker_args
    _worker_args = tokenizer, eod_id


def _encode_in_worker(batch: list[Document]) -> tuple[np.ndarray, np.ndarray]:
    return _encode_batch(*_worker_args, batch)


def _encode_in_workers(batches: Iterable[list[Document]], tokenizer: Tokenizer, eod_id: int,
                       workers: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """`_encode_batch` of each batch in `workers` new processes (`_parallel`), in batch order; the
    tokenizer reaches each worker once, through the pool's set-up file."""
    yield from map_in_workers(_encode_in_worker, batches, workers, job="the pipeline",
                              caller="build", initializer=_start_worker,
                              initargs=(tokenizer, eod_id))


def _write(prefix: Path, dtype: np.dtype, results: Iterable[tuple[np.ndarray, np.ndarray]]
           ) -> tuple[int, int]:
    """Write each document of each batch as one sequence; return how many documents and tokens."""
    documents = tokens = 0
    with IndexedDatasetBuilder(prefix, dtype) as builder:
        for ids, lengths in results:
            for document in np.split(ids, np.cumsum(lengths[:-1])):
                builder.add_document(document)
            documents += len(lengths)
            tokens += len(ids)
    return documents, tokens


# ---------------------------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    """`build` from the command line: bad usage exits with 2 (argparse), a bad input with 1.

    Ctrl-C (SIGINT), SIGTERM and SIGHUP stop the build the same way: nothing is written, and the
    exit code is 128 + the signal's number, as a shell reports a process killed by it. A signal that
    was ignored when the command started (a background job, nohup) stays ignored.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    received, previous = _stop_on_signals()
    try:
        with warnings.catch_warnings():  # e.g. stale temporary files removed: one line, no source
            warnings.showwarning = lambda message, *_: print(f"{parser.prog}: warning: {message}",
                                                             file=sys.stderr)
            tokenizer = _load_tokenizer(args.tokenizer)
            summary = build(args.files, tokenizer, args.output, split=args.split, eod=args.eod,
                            dtype=args.dtype, workers=args.workers, progress=not args.quiet)
    except FileNotFoundError as e:
        parser.error(str(e))  # a file that is not there is bad usage: exit code 2
    except (OSError, ValueError, RuntimeError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        signum = received[0] if received else signal.SIGINT
        how = "interrupted" if signum == signal.SIGINT else f"stopped by {signum.name}"
        print(f"{parser.prog}: {how}; nothing was written", file=sys.stderr)
        return 128 + signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print(summary)
    return 0


def _stop_on_signals() -> tuple[list[signal.Signals], dict[signal.Signals, object]]:
    """Turn the first SIGINT, SIGTERM or SIGHUP into a KeyboardInterrupt, so that each cleans up as
    Ctrl-C does; later ones are only noted, so that they cannot cut the clean-up short. Returns
    the signals received and the handlers to put back."""
    received: list[signal.Signals] = []

    def stop(signum: int, _frame: object) -> None:
        received.append(signal.Signals(signum))
        if len(received) == 1:
            raise KeyboardInterrupt

    previous = {}
    if threading.current_thread() is not threading.main_thread():
        return received, previous  # only the main thread may set handlers
    names = ("SIGINT", "SIGTERM", "SIGHUP")  # Windows has no SIGHUP
    for signum in [getattr(signal, name) for name in names if hasattr(signal, name)]:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, stop)
    return received, previous


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tutorial-megatron",
        description="Tokenize corpus files into a Megatron .bin/.idx dataset.")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser(
        "build", help="corpus files -> PREFIX.bin and PREFIX.idx",
        description="Each document becomes one sequence: its token ids, then EOD.")
    command.add_argument("--tokenizer", required=True,
                         help="a tokenizer file written by Tokenizer.save, or 'gpt2' for the "
                              "bundled GPT-2 files")
    command.add_argument("--output", required=True, metavar="PREFIX",
                         help="writes PREFIX.bin and PREFIX.idx")
    command.add_argument("--workers", type=_worker_count, default=1,
                         help=f"encoding processes, at most {MAX_WORKERS} (default 1); files "
                              f"of less than {WORKERS_FROM_BYTES >> 20} MiB in all are encoded in "
                              "one process, since starting workers costs more than they save there")
    command.add_argument("--split", default="line", metavar="line|blank|SEP",
                         help="documents are lines (default), paragraphs between empty lines, or "
                              "the text between occurrences of the string SEP, e.g. "
                              "'<|endoftext|>'")
    command.add_argument("--dtype", choices=["auto", *DTYPE_NAMES], default="auto",
                         help="token dtype; auto: uint16 if the vocabulary has fewer than 65,500 "
                              "ids, else int32")
    command.add_argument("--eod", default=data.ENDOFTEXT,
                         help=f"the special token ending each document (default {data.ENDOFTEXT})")
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    command.add_argument("files", nargs="+", metavar="FILES", help="UTF-8 text files")
    return parser


def _worker_count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be an int from 1 to {MAX_WORKERS}, got {text!r}")
    return int(text)


def _load_tokenizer(name: str) -> Tokenizer:
    if name == "gpt2":
        return Tokenizer.from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])
    return Tokenizer.load(check_regular_file(name, "--tokenizer"))


if __name__ == "__main__":
    sys.exit(main())
