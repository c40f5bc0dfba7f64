"""Corpus files -> documents -> token ids (+ EOD) -> a Megatron `.bin/.idx` dataset, streamed.

    python -m tutorial_lib.pipeline build --tokenizer gpt2 --output out/tinystories \\
        --split '<|endoftext|>' --workers 2 data/tinystories_v2_sample.txt

The steps, each a generator, so that only a few batches of text are ever in memory, whatever
the corpus size:

1. `_files.read_utf8` reads a file in chunks of bytes and decodes them as UTF-8, refusing a file
   that is not UTF-8 (with the byte where it goes wrong) instead of guessing.
2. `iter_documents` cuts the text into documents at a separator: "line" (one document per line),
   "blank" (paragraphs between empty lines) or any other string, such as TinyStories'
   `<|endoftext|>`. Each document is trimmed as `data.split_documents` does it for a whole text;
   empty or whitespace-only ones are dropped.
3. Batches of about BATCH_CHARS characters are encoded with `Tokenizer.encode_to_numpy` and the EOD
   id is appended to each document, in this process or in `workers` processes (`_parallel`, the pool
   the trainer uses too); either way the results come back in order, so the files are byte-identical
   for any number of workers.
4. `IndexedDatasetBuilder` writes one sequence per document to temporary files and renames them into
   place only when everything worked: an error or Ctrl-C leaves no half-written dataset.

This module sits at the top of the library because it joins the two halves: `packing.megatron` works
on ids, whatever made them, and `tokenization` knows nothing of file formats.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from tutorial_lib import data
from tutorial_lib._checks import (check_bool, check_choice, check_int, check_path, check_str,
                                  check_type)
from tutorial_lib._files import read_utf8
from tutorial_lib._parallel import batches, map_in_workers
from tutorial_lib.packing.megatron import IndexedDatasetBuilder, optimal_dtype
from tutorial_lib.tokenization.tokenizer import Tokenizer

SPLITS = {"line": "\n", "blank": "\n\n"}  # named separators; any other non-empty str is itself one
DTYPE_NAMES = {"uint16": np.uint16, "int32": np.int32}  # Megatron's token dtypes (optimal_dtype)
BATCH_CHARS = 1 << 20  # characters of text per batch handed to a worker

# (file, number of the document in its file, text): the file and number are for error messages
Document = tuple[str, int, str]


@dataclass(frozen=True)
class BuildSummary:
    """What `build` wrote: prefix, documents and tokens (EOD included), bytes of text read."""

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
        return (f"{self.prefix}: {self.documents:,} documents, {self.tokens:,} tokens from "
                f"{self.text_bytes:,} bytes of text in {self.seconds:.2f} s "
                f"({self.mb_per_second:.2f} MB/s)")


def iter_documents(pieces: Iterable[str], split: str = "line") -> Iterator[str]:
    """The documents of the text `"".join(pieces)`, lazily: what `data.split_documents` gives.

    `split` is "line" (each line), "blank" (paragraphs: text between empty lines) or the separator
    itself. Only the text after the last separator seen is held, so memory is one piece plus one
    document.
    """
    separator = separator_of(split)
    pending = ""
    for piece in pieces:
        searched = max(0, len(pending) - len(separator) + 1)  # a separator ends in the new piece
        pending += piece
        if pending.find(separator, searched) >= 0:
            rest = pending.split(separator)[-1]
            yield from data.split_documents(pending[: len(pending) - len(rest)], separator)
            pending = rest
    yield from data.split_documents(pending, separator)


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
    `workers` > 1 encodes in that many processes with the same output; a script that calls this at
    its top level then needs the `if __name__ == "__main__":` guard (see `_parallel`).
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
    bar = tqdm(total=total, unit="B", unit_scale=True, desc="tokenizing", disable=not progress)
    with bar:
        tasks = batches(_documents(paths, split, bar), BATCH_CHARS, size=lambda doc: len(doc[2]))
        if workers == 1:
            results = (_encode_batch(tokenizer, eod_id, batch) for batch in tasks)
        else:
            results = _encode_in_workers(tasks, tokenizer, eod_id, workers)
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
        for number, text in enumerate(iter_documents(read_utf8(path, on_read=bar.update), split)):
            yield name, number, text


def _encode_batch(tokenizer: Tokenizer, eod_id: int, batch: list[Document]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The ids of each document of `batch` then `eod_id`, all concatenated; and their lengths."""
    arrays = []
    for name, number, text in batch:
        try:
            arrays.append(tokenizer.encode_to_numpy(text))
        except ValueError as e:
            raise ValueError(f"{name}, the document at index {number}: {e}") from None
        arrays.append(np.array([eod_id], np.uint32))
    lengths = np.array([len(ids) for ids in arrays[::2]], np.int64) + 1
    return np.concatenate(arrays), lengths


_worker_args: tuple[Tokenizer, int] | None = None  # set once in each worker by _start_worker


def _start_worker(tokenizer_file: str, eod_id: int) -> None:
    global _worker_args
    _worker_args = pickle.loads(Path(tokenizer_file).read_bytes()), eod_id


def _encode_in_worker(batch: list[Document]) -> tuple[np.ndarray, np.ndarray]:
    return _encode_batch(*_worker_args, batch)


def _encode_in_workers(batches: Iterable[list[Document]], tokenizer: Tokenizer, eod_id: int,
                       workers: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """`_encode_batch` of each batch in `workers` new processes (`_parallel`), in batch order.

    The tokenizer reaches each worker once, through a temporary file: sent as an argument of the
    process's start, its megabyte of pickle would block this process forever if the worker died
    before reading it.
    """
    with tempfile.TemporaryDirectory() as directory:
        tokenizer_file = Path(directory) / "tokenizer.pickle"
        tokenizer_file.write_bytes(pickle.dumps(tokenizer))
        yield from map_in_workers(_encode_in_worker, batches, workers, job="the pipeline",
                                  caller="build", initializer=_start_worker,
                                  initargs=(str(tokenizer_file), eod_id))


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
    """`build` from the command line: bad usage exits with 2 (argparse), a bad input with 1."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        tokenizer = _load_tokenizer(args.tokenizer)
        summary = build(args.files, tokenizer, args.output, split=args.split, eod=args.eod,
                        dtype=args.dtype, workers=args.workers, progress=not args.quiet)
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
    command.add_argument("--workers", type=_positive_int, default=1,
                         help="encoding processes (default 1)")
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
