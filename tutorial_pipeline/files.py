"""The pipeline's armour for files: files that appear whole or not at all, alone or as a group,
and the cleanup of what a killed writer left.

Writing: under a temporary name, synced, then renamed into place. A reader that opens (or has
mapped) the old file keeps seeing the old file until the rename, and the new one after it; a crash
or Ctrl-C mid-write leaves the old file (or none), never a truncated one. `os.replace` is atomic on
one file system, which is why the temporary file sits beside its target. `replace_together` renames
several files as a group and undoes the renames already done when one fails; `locked` keeps two
writers of one group from interleaving their renames.

Nothing is left behind that can be helped: `discard` unlinks even when closing fails (a full disk
fails the flush again), and a file dropped without `commit()` or `discard()` (a notebook cell that
failed midway) is discarded by a finaliser. What a signal that cannot be caught leaves (SIGKILL, a
power cut) is found later: a temporary name records its writer, `.<name>.<pid>-<machine>-<boot>.
<random>.tmp`, so the next writer of the same target removes the files of writers that are gone
(`remove_stale_temporaries`) and never those of one still writing. A file from another machine (a
shared file system) cannot be asked about and is left alone, and so is any other name.

A temporary name is never longer than its target's name or TEMPORARY_FLOOR bytes, whichever is
more: so a target whose name the file system takes gets a temporary name it takes too. Where the
whole name would not fit, `<name>` is the start of the target's name and a hash of all of it
(`temporary_tag`). `name_too_long` says when a target's own name is over the file system's limit,
so that a writer refuses it before any work, naming what the user chose.

Windows: files are opened in binary mode (text is written with "\\n" as on every system), a
directory cannot be opened to be synced (NTFS journals the rename itself), the liveness of a pid is
not asked (os.kill would end the process) and `locked` locks nothing: the pair record of a
Megatron dataset still refuses a pair that two writers mixed.

The plain helpers are the lesson's, defined once in `tutorial_lib.data`: `write_atomically` (one
text file, whole or absent), `read_utf8` (strict UTF-8 in chunks of CHUNK_BYTES) and `file_sha256`.
Modules import them from there; they are imported here too, not defined again, so that an older
`from tutorial_pipeline.files import read_utf8` keeps working.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import os
import re
import secrets
import socket
import stat
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import IO

from tutorial_lib._check_files import check_path
from tutorial_lib.data import CHUNK_BYTES as CHUNK_BYTES  # re-exported: see the module docstring
from tutorial_lib.data import file_sha256 as file_sha256
from tutorial_lib.data import read_utf8 as read_utf8
from tutorial_lib.data import write_atomically as write_atomically

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

_TEMPORARY = re.compile(r"\.(?P<name>.+)\.(?P<pid>\d+)-(?P<machine>[0-9a-f]{8})"
                        r"-(?P<boot>[0-9a-f]{8})\.[0-9a-f]{16}\.tmp")


@functools.cache
def _machine_and_boot() -> tuple[str, str]:
    """Tags of this machine (host name and pid namespace: where a pid means a process) and of its
    boot (Linux's boot id; elsewhere one tag for every boot)."""
    def tag(text: str) -> str:
        return hashlib.blake2b(text.encode(), digest_size=4).hexdigest()

    def linux(path: str, read: Callable[[str], str]) -> str:
        try:
            return read(path)
        except OSError:
            return ""

    namespace = linux("/proc/self/ns/pid", os.readlink)
    boot = linux("/proc/sys/kernel/random/boot_id", lambda p: Path(p).read_text().strip())
    return tag(f"{socket.gethostname()}\0{namespace}"), tag(boot)


NAME_MAX = 255  # bytes in a file name on ext4, XFS, btrfs, APFS (NTFS: UTF-16 units)
TEMPORARY_FLOOR = 128  # bytes a temporary name may take however short its target's name is
# what a temporary name adds to its tag: two dots, the writer (pid of up to 10 digits) and ".tmp"
_WRITER_BYTES = len("..4294967295-01234567-01234567.0123456789abcdef.tmp")


def name_length(name: str) -> int:
    """The length of a file name as its file system counts it: bytes (UTF-16 units on Windows)."""
    return len(name.encode("utf-16-le")) // 2 if os.name == "nt" else len(os.fsencode(name))


def name_limit(directory: Path) -> int:
    """The longest file name the file system of `directory` (or of its nearest existing ancestor)
    takes; NAME_MAX where it cannot be asked (Windows)."""
    for folder in (directory, *directory.parents):
        try:
            limit = os.pathconf(folder, "PC_NAME_MAX")
        except FileNotFoundError:
            continue
        except (OSError, ValueError, AttributeError):
            break
        return limit if limit > 0 else NAME_MAX
    return NAME_MAX


def name_too_long(path: str | os.PathLike) -> str | None:
    """Why the last part of `path` is too long for its file system, or None when it fits."""
    path = Path(path)
    length, limit = name_length(path.name), name_limit(path.parent)
    if length <= limit:
        return None
    return (f"the file name {path.name!r} is {length} bytes long, but the file system of "
            f"{os.fspath(path.parent)!r} takes at most {limit} bytes in a name")


def temporary_tag(name: str) -> str:
    """What stands for the target `name` in its temporary names: `name` itself, or where that would
    make them longer than both `name` and TEMPORARY_FLOOR, its start, "~" and a hash of all of it.
    It depends on `name` alone, so that every writer of one target finds the others' files."""
    budget = max(name_length(name), TEMPORARY_FLOOR) - _WRITER_BYTES
    if name_length(name) <= budget:
        return name
    digest = hashlib.blake2b(os.fsencode(name), digest_size=4).hexdigest()
    start = name
    while name_length(start) > budget - 1 - len(digest):
        start = start[:-1]
    return f"{start}~{digest}"


def temporary_name(target: Path) -> Path:
    """A fresh name beside `target` that records who writes it (see the module docstring), no
    longer than the target's name or TEMPORARY_FLOOR bytes."""
    machine, boot = _machine_and_boot()
    return target.with_name(f".{temporary_tag(target.name)}.{os.getpid()}-{machine}-{boot}."
                            f"{secrets.token_hex(8)}.tmp")


def _writer_is_gone(pid: int, machine: str, boot: str) -> bool:
    here, this_boot = _machine_and_boot()
    if machine != here:
        return False  # another machine's process: it cannot be asked, so it may be alive
    if boot != this_boot:
        return True  # written before this machine last started
    if os.name == "nt":
        return False  # os.kill(pid, 0) would terminate the process there
    try:
        os.kill(pid, 0)  # signal 0 only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:
        return False  # EPERM: it exists, as another user
    return False


def remove_stale_temporaries(target: str | os.PathLike) -> list[Path]:
    """Remove the temporary files of `target` whose writers are gone; return them.

    A writer is gone when its process no longer exists on this machine (or the machine has
    restarted since). A file of a live writer, of another machine or of another name is kept: a
    pid reused by an unrelated process keeps a stale file, never the reverse.
    """
    target = Path(os.path.realpath(check_path(target, "target")))
    removed = []
    tags = sorted({temporary_tag(target.name), target.name})  # the name itself: older writers
    found = {path for tag in tags for path in target.parent.glob(f".{glob.escape(tag)}.*.tmp")}
    for path in sorted(found):
        match = _TEMPORARY.fullmatch(path.name)
        if match and match["name"] in tags and _writer_is_gone(
                int(match["pid"]), match["machine"], match["boot"]):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


class AtomicFile:
    """A new file beside `path`, open as `.file`; `commit()` puts it in place, `discard()` drops it.

    The new file gets the permissions `open()` would give it (0o666 minus the umask) or, when `path`
    exists, its mode. A symlink is followed: the file it points to is replaced and the link stays a
    link. `commit` is split into `sync` and `replace` so that several files can all be made durable
    before the first of them becomes visible (`replace_together`).
    """

    def __init__(self, path: str | os.PathLike, mode: str = "wb", encoding: str | None = None
                 ) -> None:
        self.target = Path(os.path.realpath(path))
        try:
            old_mode = stat.S_IMODE(self.target.stat().st_mode)
        except FileNotFoundError:
            old_mode = None
        self.tmp = temporary_name(self.target)
        # O_EXCL: never write into a file found there; O_BINARY: no newline translation on Windows
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        fd = os.open(self.tmp, flags, 0o666)
        try:
            if old_mode is not None:
                os.chmod(self.tmp, old_mode)
            self.file: IO = os.fdopen(fd, mode, encoding=encoding,
                                      newline=None if "b" in mode else "")
        except BaseException:
            os.close(fd)
            self.tmp.unlink(missing_ok=True)
            raise
        # dropped without commit() or discard(): the temporary file goes with the object (at the
        # latest when the interpreter exits), in this process only: a forked child that exits
        # must not delete what its parent is still writing
        self._drop = weakref.finalize(self, _discard, self.file, self.tmp, os.getpid())

    def sync(self) -> None:
        """Flush and fsync the data, then close: the bytes are on disk, under the temporary name."""
        if not self.file.closed:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()

    def replace(self) -> None:
        """Rename the synced file over its target, and sync the directory: the rename is durable."""
        self._rename()
        sync_directory(self.target.parent)

    def _rename(self) -> None:
        os.replace(self.tmp, self.target)
        self._drop.detach()  # the temporary name is gone: nothing left to discard

    def commit(self) -> None:
        self.sync()
        self.replace()

    def discard(self) -> None:
        """Close and delete the temporary file; the target is left as it was."""
        self._drop()


def _discard(file: IO, tmp: Path, writer: int) -> None:
    if os.getpid() != writer:
        return
    try:
        file.close()  # flushes what is buffered, which fails again on a full disk (ENOSPC)
    except OSError:
        pass  # those bytes were to be dropped anyway: what matters is the unlink
    finally:
        tmp.unlink(missing_ok=True)


def sync_directory(path: Path) -> None:
    """fsync a directory, so that a rename in it survives a crash (not on Windows, see above)."""
    if os.name == "nt":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace_together(files: Sequence[AtomicFile]) -> None:
    """Rename synced files over their targets in order, as a group: if one rename fails, those
    done before it are undone, so the targets are all old (or absent, as before) or all new.

    Undoing needs the old files, so each existing target is first hard-linked to a temporary name
    (no copy). Where that is impossible (a file system without hard links) a failure is not
    undone, and a crash between two renames is never undone: whoever reads the group must check
    that its files belong together. The links of a killed writer are stale temporary files.
    """
    kept = [_link_aside(f.target) for f in files]
    done = []
    try:
        for f in files:
            f._rename()
            done.append(f)
    except BaseException:
        for f, (existed, old) in reversed(list(zip(done, kept))):
            if old is not None:
                os.replace(old, f.target)  # the old file again
            elif not existed:
                f.target.unlink(missing_ok=True)  # there was none
        raise
    finally:
        for _, old in kept:
            if old is not None:
                old.unlink(missing_ok=True)
        if files:
            sync_directory(files[0].target.parent)


def _link_aside(target: Path) -> tuple[bool, Path | None]:
    """(whether `target` exists, a second name of it or None where no hard link can be made)."""
    aside = temporary_name(target)
    try:
        os.link(target, aside)
    except FileNotFoundError:
        return False, None
    except OSError:
        return True, None
    return True, aside


@contextlib.contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive lock named `path` (an empty file, removed when the lock is released).

    Waits for a holder to finish. The file is unlinked before the lock is released, so a waiter
    may wake up holding a lock on a file no longer there: it checks, and locks the new one. On
    Windows nothing is locked (see the module docstring).
    """
    if fcntl is None:
        yield
        return
    path = Path(path)
    fd = _lock(path)
    try:
        yield
    finally:
        path.unlink(missing_ok=True)
        os.close(fd)


def _lock(path: Path) -> int:
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            mine, there = os.fstat(fd), os.stat(path)
            if (mine.st_dev, mine.st_ino) == (there.st_dev, there.st_ino):
                return fd
        except FileNotFoundError:
            pass  # the holder removed it while we waited
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # a file no longer at `path`: lock the one that is
