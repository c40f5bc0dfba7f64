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

import bisect
import os
import re
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from pathlib import Path

from tutorial_lib import data
from tutorial_lib._check_files import check_regular_file
from tutorial_lib._checks import check_int, check_iterable, check_str
from tutorial_pipeline.dataset_manifest import Checksum
from tutorial_lib.data import read_utf8

SPLITS = {"line": "\n", "blank": "\n\n"}  # named separators; any other non-empty str is itself one
BOUNDARY_BLOCK = 1 << 16  # bytes read at a time while a shard's end looks for a document boundary

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
    rest: list[str] = []
    yield from _until_last_separator(pieces, separator, rest)
    yield from data.split_documents(rest[0], separator)


def _until_last_separator(pieces: Iterable[str], separator: str, rest: list[str]
                          ) -> Iterator[str]:
    """The documents of `iter_documents` that a separator ends; then the text after the last
    separator goes into `rest` (empty when the text ends with one: it ends at a document cut)."""
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
    rest.append(pending)


def plain_text(pieces: Iterable[str], file_start: bool = True) -> Iterator[str]:
    """The pieces of a file's text, without a byte-order mark at its start, "\\r\\n" made "\\n".

    A "\\r" at the end of a piece is held until the next piece shows whether a "\\n" follows it.
    `file_start=False`: the pieces are a later part of the file (a shard), where U+FEFF is text.
    """
    started, held = not file_start, ""
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


# ------------------------------------------------------------------- byte ranges (shards of a file)


def shard_ranges(path: Path, split: str, shard_bytes: int) -> list[tuple[int, int]]:
    """[start, end) byte ranges that cut `path` into shards of about `shard_bytes` bytes (more
    where a document is longer), each cut at a `document_boundary`: `read_range` of each, in
    order, gives exactly the documents of `read_documents`. An empty file has no range."""
    separator_of(split)
    shard_bytes = check_int(shard_bytes, "shard_bytes", low=1)
    ranges, start, size = [], 0, path.stat().st_size
    while start < size:
        end = document_boundary(path, start + shard_bytes, split)  # > start: it is >= the offset
        ranges.append((start, end))
        start = end
    return ranges


def read_range(path: Path, start: int, end: int, split: str,
               on_read: Callable[[bytes], object] | None = None, *, last: bool
               ) -> Iterator[Document]:
    """(name, number in the range, text) of each document of the bytes [start, end) of `path`, a
    range of `shard_ranges`; `on_read(chunk)` sees the bytes read. Only the range at the file's
    start may begin with a byte-order mark: elsewhere U+FEFF is text.

    What the planner fixed is proven on the bytes read, not taken on trust: the range must still
    hold end - start bytes and, unless it is the `last` of its file, end where a document does
    (right after a separator, as `iter_documents` cuts the range's own text). Each range starts
    where the one before it ended, so the documents of a file's ranges are those of the bytes they
    read; a file changed since its ranges were planned (`changed_after_planning`) fails here,
    before the range's last documents, instead of cutting a document in two. (A cut inside a
    "\\r\\n" or a character, which the range's own text cannot show, is refused by the build's
    read of the whole file: `distributed`.)
    """
    name, separator, read = f"{path} (bytes {start:,} to {end:,})", separator_of(split), [0]

    def count(chunk: bytes) -> None:
        read[0] += len(chunk)
        if on_read is not None:
            on_read(chunk)

    rest: list[str] = []
    pieces = plain_text(read_utf8(path, on_read=count, start=start, end=end), start == 0)
    documents = chain(_until_last_separator(pieces, separator, rest),
                      _range_rest(path, start, end, split, last, read, rest))
    for number, text in enumerate(documents):
        yield name, number, text


def _range_rest(path: Path, start: int, end: int, split: str, last: bool, read: list[int],
                rest: list[str]) -> Iterator[str]:
    """The documents after the last separator of a range once it is read (`rest`), if the range
    is the one planned: `read` bytes are all of it, and only the `last` has text after one."""
    separator = separator_of(split)
    if read[0] != end - start:
        raise changed_after_planning(path, f"its bytes {start:,} to {end:,} are only {read[0]:,} "
                                           "bytes now")
    if rest[0] and not last:
        raise changed_after_planning(path, f"its bytes {start:,} to {end:,} no longer end where "
                                           f"a document does (split={split!r})")
    yield from data.split_documents(rest[0], separator)


def changed_after_planning(path: Path, what: str) -> ValueError:
    """The error of a corpus file that is not the one its shards were planned on: `what` differs."""
    return ValueError(f"{path} changed after its shards were planned: {what}; nothing was written. "
                      "Build it again once nothing writes to it")


def document_boundary(path: Path, offset: int, split: str) -> int:
    """The first byte offset at or after `offset` where `path` can be cut so that the documents of
    the two sides, one after the other, are those of the whole file; its size if there is none.

    The cut goes right after an occurrence of the separator in the text `iter_documents` sees
    (after `plain_text`: "\\r\\n" is one "\\n" there), and only one that no other occurrence
    overlaps from the left, which str.split then cuts at whatever came before ("\\n\\n" occurs
    twice in "x\\n\\n\\n": at the first, which is a cut, and overlapping it). The left side ends
    with the separator (its last piece is empty, dropped); the right side is split from where
    str.split would go on. Only the bytes from a few separators before `offset` up to the cut are
    read: planning the shards of a terabyte costs a seek per shard, not a pass over the data.
    """
    size, offset = path.stat().st_size, check_int(offset, "offset", low=0)
    if offset == 0 or offset >= size:
        return min(offset, size)
    separator = separator_of(split)
    keep = 4 * len(separator) + 4  # characters kept of a block searched: _first_cut's `whole`
    base = _character_start(path, max(0, offset - 8 * len(separator.encode())))
    text, whole = "", base == 0  # the text from byte `base`; whole: nothing of the file before it
    for piece in chain(read_utf8(path, BOUNDARY_BLOCK, start=base), [None]):  # None: the end
        text += piece or ""
        if whole and base == 0 and text.startswith("\ufeff"):  # the file's BOM is not its text
            text, base = text[1:], len("\ufeff".encode())
        usable = text if piece is None or not text.endswith("\r") else text[:-1]  # "\r\n"?
        cut = _first_cut(usable, separator, whole, base, offset)
        if cut is not None:
            return cut
        if len(text) > 2 * keep:  # go on with the last characters, where a cut can still start
            drop = len(text) - keep
            drop -= text[drop - 1:drop + 1] == "\r\n"  # never between the two of a pair
            base, text, whole = base + len(text[:drop].encode()), text[drop:], False
    return size


def _first_cut(text: str, separator: str, whole: bool, base: int, offset: int) -> int | None:
    """The byte offset of the first cut of `document_boundary` at or after `offset` in `text`, the
    text from byte `base` of the file (`whole`: all of it before that), None if there is none.

    An occurrence at q is a cut if none starts in the len(separator) - 1 characters before it:
    then str.split, scanning from the left, cannot be inside another one there. Those characters
    must be in `text` (or before the file's start) to tell, so the first few are skipped unless
    `whole`: `document_boundary` starts its window far enough before `offset`.
    """
    n, plain = len(separator), text.replace("\r\n", "\n")
    # where each "\r\n" of text became a "\n" of plain: the pairs before it are one shorter each
    pairs = [match.start() - j for j, match in enumerate(re.finditer("\r\n", text))]
    q = plain.find(separator)
    while q >= 0:
        if (whole or q >= n - 1) and not any(plain.startswith(separator, r)
                                             for r in range(max(0, q - n + 1), q)):
            end = q + n  # in plain; in text, one more for each pair before it
            cut = base + len(text[:end + bisect.bisect_left(pairs, end)].encode())
            if cut >= offset:
                return cut
        q = plain.find(separator, q + 1)
    return None


def _character_start(path: Path, offset: int) -> int:
    """`offset`, or the byte before it where the character around it starts, and never between
    the "\r" and "\n" of a line end: where text can be decoded from."""
    low = max(0, offset - 4)  # a UTF-8 character has at most 4 bytes
    with open(path, "rb") as f:
        f.seek(low)
        window = f.read(offset - low + 1)  # the bytes before `offset`, then the one at it
    at = offset - low
    if at >= len(window):  # the end of the file
        return offset
    while at > 0 and 0x80 <= window[at] < 0xC0:  # a continuation byte: the character began before
        at -= 1
    if at > 0 and window[at - 1:at + 1] == b"\r\n":
        at -= 1
    return low + at
