"""Files that appear whole or not at all: written under a temporary name, synced, then renamed into place.

A reader that opens (or has mapped) the old file keeps seeing the old file until the rename, and the new one
after it; a crash or Ctrl-C mid-write leaves the old file (or none) and no temporary file, never a truncated
one. `os.replace` is atomic on one file system, which is why the temporary file sits beside its target.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import IO


class AtomicFile:
    """A new file beside `path`, open for writing as `.file`; `commit()` puts it in place, `discard()` drops it.

    The new file gets the permissions `open()` would give it (0o666 minus the umask) or, when `path` exists,
    its mode. A symlink is followed: the file it points to is replaced and the link stays a link.
    `commit` is split into `sync` and `replace` so that several files can all be made durable before the
    first of them becomes visible (a dataset's `.bin` before its `.idx`).
    """

    def __init__(self, path: str | os.PathLike, mode: str = "wb", encoding: str | None = None) -> None:
        self.target = Path(os.path.realpath(path))
        try:
            old_mode = stat.S_IMODE(self.target.stat().st_mode)
        except FileNotFoundError:
            old_mode = None
        self.tmp = self.target.with_name(f".{self.target.name}.{secrets.token_hex(8)}.tmp")  # 64 random bits
        fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # O_EXCL: never write into a file found there
        try:
            if old_mode is not None:
                os.chmod(self.tmp, old_mode)
            self.file: IO = os.fdopen(fd, mode, encoding=encoding)
        except BaseException:
            os.close(fd)
            self.tmp.unlink(missing_ok=True)
            raise

    def sync(self) -> None:
        """Flush and fsync the data, then close: after this the bytes are on disk under the temporary name."""
        if not self.file.closed:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()

    def replace(self) -> None:
        """Rename the synced file over its target, and sync the directory so the rename itself is durable."""
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
    """Write `text` (UTF-8) to `path` through an `AtomicFile`: the old file or the new one, never half of it."""
    out = AtomicFile(path, "w", encoding="utf-8")
    try:
        out.file.write(text)
        out.commit()
    except BaseException:
        out.discard()
        raise
