"""Corpus files -> documents, streamed: the first two steps of the pipeline, and what a dataset's
manifest records of each file.

1. `_files.read_utf8` reads a file in chunks of bytes and decodes them as UTF-8, refusing a file
   that is not UTF-8 (with the byte where it goes wrong) instead of guessing. `plain_text` then
   drops a byte-order mark at the start and turns Windows line ends ("\\r\\n") into "\\n", so
   that a file saved on Windows gives the same documents as the same text saved elsewhere.
2. `iter_documents` cuts the text into documents at a separator: "line" (one document per line),
   "blank" (paragraphs between empty lines) or any other string, such as TinyStories'
   `<|endoftext|>`. Each document is trimmed as `data.split_documents` does it for a whole text;
   empty or whitespace-only ones are dropped.

`read_documents` runs both over several files and hashes each file's bytes as they go by: its size
and sha256, which the manifest lists, cost no second read of the file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tutorial_lib import data
from tutorial_lib._checks import check_iterable, check_regular_file, check_str
from tutorial_lib._files import read_utf8
from tutorial_lib.packing.dataset_manifest import Checksum

SPLITS = {"line": "\n", "blank": "\n\n"}  # named separators; any other non-empty str is itself one

# (file, number of the document in its file, text): the file and number are for error messages
Document = tuple[str, int, str]


def check_paths(paths: str | os.PathLike | Iterable[str | os.PathLike]) -> list[Path]:
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


def read_documents(paths: list[Path], split: str, corpus: list[dict],
                   on_read: Callable[[bytes], object] | None = None) -> Iterator[Document]:
    """(file, number in the file, text) of each document of `paths` (checked: `check_paths`), in
    order. Once a file is read to its end, {"path", "bytes", "sha256"} of it goes into `corpus`,
    hashed from the bytes as they were read; `on_read(chunk)` sees them too (a progress bar)."""
    for path in paths:
        name, checksum = str(path), Checksum()

        def read(chunk: bytes, checksum: Checksum = checksum) -> None:
            checksum.update(chunk)
            if on_read is not None:
                on_read(chunk)

        for number, text in enumerate(iter_documents(plain_text(read_utf8(path, on_read=read)),
                                                     split)):
            yield name, number, text
        corpus.append({"path": name, **checksum.fields()})


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
            # Trimmed, or dropped if blank, as data.split_documents does (inline: the pipeline's
            # one Python step per document besides the engine's call).
            document = pending[start:end].strip("\n")
            if document.strip():
                yield document
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
