"""Argument checks for paths and files (the values themselves: `_checks`).

A path is checked before anything opens it, so that a wrong argument is named in the message: a
FIFO would block, /dev/zero would never end, and a directory would give an OSError that does not
say which argument was wrong.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tutorial_lib._checks import type_error, value_error


def check_path(value: object, name: str) -> Path:
    """A str or os.PathLike naming a file (not "", which would mean the current directory)."""
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, (str, os.PathLike)):
        raise type_error(value, name, "a path (str or pathlib.Path)")
    if not os.fspath(value):
        raise value_error(value, name, "a non-empty path")
    return Path(value)


def check_regular_file(value: object, name: str) -> Path:
    """A path to an existing regular file (or a symlink to one); a missing file is a
    FileNotFoundError, a directory, FIFO, device, socket or symlink loop a ValueError naming it."""
    path = check_path(value, name)
    try:
        mode = path.stat().st_mode  # follows symlinks: a link to a file is that file
    except FileNotFoundError:
        raise FileNotFoundError(f"{name}: no such file: {str(path)!r}") from None
    except OSError as e:  # ELOOP (a symlink loop), ENOTDIR (a file used as a directory), EACCES
        raise ValueError(f"{name} must be a readable regular file, but {str(path)!r} cannot be "
                         f"looked up: {e.strerror}") from None
    if not stat.S_ISREG(mode):
        kind = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO (named pipe)",
                stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
                stat.S_IFSOCK: "a socket"}.get(stat.S_IFMT(mode), "not a regular file")
        raise ValueError(f"{name} must be a regular file, but {str(path)!r} is {kind}")
    return path
