"""Files that appear whole or not at all, and files read as strict UTF-8 a piece at a time.

Writing: under a temporary name, synced, then renamed into place. A reader that opens (or has
mapped) the old file keeps seeing the old file until the rename, and the new one after it; a crash
or Ctrl-C mid-write leaves the old file (or none) and no temporary file, never a truncated one.
`os.replace` is atomic on one file system, which is why the temporary file sits beside its target.

Reading: `read_utf8` streams a file of any size as str, refusing bytes that are not UTF-8 instead of
guessing an encoding; the trainer's corpus reader and the dataset pipeline both read through it.
"""

from __future__ import annotations

import codecs
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from tutorial_lib._checks import check_int, check_path

CHUNK_BYTES = 1 << 20  # bytes read from a file at a time


class AtomicFile:
    """A new file beside `path`, open as `.file`; `commit()` puts it in place, `discard()` drops it.

    The new file gets the permissions `open()` would give it (0o666 minus the umask) or, when `path`
    exists, its mode. A symlink is followed: the file it points to is replaced and the link stays a
    link. `commit` is split into `sync` and `replace` so that several files can all be made durable
    before the first of them becomes visible (a dataset's `.bin` before its `.idx`).
    """

    def __init__(self, path: str | os.PathLike, mode: str = "wb", encoding: str | None = None
                 ) -> None:
        self.target = Path(os.path.realpath(path))
        try:
            old_mode = stat.S_IMODE(self.target.stat().st_mode)
        except FileNotFoundError:
            old_mode = None
        # 64 random bits in the name; O_EXCL: never write into a file found there
        self.tmp = self.target.with_name(f".{self.target.name}.{secrets.token_hex(8)}.tmp")
        fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        try:
            if old_mode is not None:
                os.chmod(self.tmp, old_mode)
            self.file: IO = os.fdopen(fd, mode, encoding=encoding)
        except BaseException:
            os.close(fd)
            self.tmp.unlink(missing_ok=True)
            raise

    def sync(self) -> None:
        """Flush and fsync the data, then close: the bytes are on disk, under the temporary name."""
        if not self.file.closed:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()

    def replace(self) -> None:
        """Rename the synced file over its target, and sync the directory: the rename is durable."""
        os.replace(self.tmp, self.target)
        dir_fd = os.open(self.target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    def commit(self) -> None:
        self.sync()
        self.replace()

    def discard(self) -> None:
        """Close and delete the temporary file; the target is left as it was."""
        self.file.close()
        self.tmp.unlink(missing_ok=True)


def write_atomically(path: str | os.PathLike, text: str) -> None:
    """Write `text` (UTF-8) to `path` through an `AtomicFile`: old file or new, never half of it."""
    out = AtomicFile(path, "w", encoding="utf-8")
    try:
        out.file.write(text)
        out.commit()
    except BaseException:
        out.discard()
        raise


def read_utf8(path: str | os.PathLike, chunk_bytes: int = CHUNK_BYTES,
              on_read: Callable[[int], object] | None = None) -> Iterator[str]:
    """The text of `path` in pieces, decoded as strict UTF-8, `chunk_bytes` bytes read at a time.

    A character cut between two reads is completed by the next one (an incremental decoder). A byte
    that is not UTF-8 raises ValueError naming the file and the byte's offset: guessing an encoding
    would put wrong text into a tokenizer or a dataset. `on_read(n)` is told the size of each read
    (a progress bar's `update`).
    """
    path = check_path(path, "path")
    chunk_bytes = check_int(chunk_bytes, "chunk_bytes", low=1)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0  # bytes read before this chunk
    with open(path, "rb") as f:
        while chunk := f.read(chunk_bytes):
            pending = len(decoder.getstate()[0])  # bytes of a character the last read cut
            try:
                yield decoder.decode(chunk)
            except UnicodeDecodeError as e:  # e.object = the pending bytes, then this chunk
                bad = e.object[e.start : e.start + 1]
                raise ValueError(f"{path} is not UTF-8 text: byte {offset - pending + e.start} "
                                 f"({bad!r}) is {e.reason}; convert the file to UTF-8 first"
                                 ) from None
            offset += len(chunk)
            if on_read is not None:
                on_read(len(chunk))
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError as e:  # e.object = the bytes of the cut character
            raise ValueError(f"{path} is not UTF-8 text: it ends inside a character that starts at "
                             f"byte {offset - len(e.object) + e.start} ({e.reason})") from None
