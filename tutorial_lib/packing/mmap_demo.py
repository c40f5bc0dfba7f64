"""What mapping a dataset does and does not do, measured: resident memory, pages shared between
processes, and what a reader that has a `.bin`/`.idx` pair mapped sees when the files change.

"Zero copy" means no copy into the process's own (anonymous) memory: the pages a reader touches
still become resident, as file-backed page cache shared by every process that maps the file.
Linux's /proc tells them apart (`RssAnon` vs `RssFile`, `Shared_Clean` vs `Private_Clean`). A
measurement that must start from a clean process runs this module in a fresh interpreter
(`python -m tutorial_lib.packing.mmap_demo COMMAND PREFIX`), which prints one JSON object.
"""

from __future__ import annotations

import json
import os
import re
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_callable, check_number
from tutorial_lib._check_files import check_path
from tutorial_lib._checks import check_choice, check_int, check_type
from tutorial_lib.packing.megatron import IndexedDataset, bin_path, idx_path

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
MEMORY_FIELDS = ("VmRSS", "RssAnon", "RssFile", "RssShmem")
MAPPING_FIELDS = ("Rss", "Pss", "Shared_Clean", "Private_Clean")
HOW = ("mmap", "fromfile")
PROC = Path("/proc")  # Linux's view of each process's memory; other systems have none
_MAPPING_HEADER = re.compile(r"[0-9a-f]+-[0-9a-f]+ ")  # "7f12-7f34 r--s ... /path": a new mapping


# --- the .idx header, field by field ----------------------------------------------------------
class Field(NamedTuple):
    """One field of an `.idx` file: where it starts, its size in bytes, its name and value."""
    offset: int
    size: int
    name: str
    value: object


def idx_fields(raw: bytes, items: int = 2) -> list[Field]:
    """The header fields of an `.idx` file's bytes, then the first `items` entries of each of its
    arrays, decoded with `struct` field by field: the offsets a hand-written parser must use."""
    check_type(raw, "raw", (bytes, bytearray, memoryview), "the bytes of an .idx file")
    items = check_int(items, "items", low=0)
    header = [("magic", "9s"), ("version", "<Q"), ("dtype code", "<B"), ("sequence count", "<Q"),
              ("document count", "<Q")]
    fields, offset = [], 0
    for name, fmt in header:
        value = struct.unpack_from(fmt, raw, offset)[0]
        fields.append(Field(offset, struct.calcsize(fmt), name, value))
        offset += struct.calcsize(fmt)
    sequences, documents = fields[3].value, fields[4].value
    for name, fmt, count in [("sequence_lengths", "<i", sequences),
                             ("sequence_pointers", "<q", sequences),
                             ("document_indices", "<q", documents)]:
        size = struct.calcsize(fmt)
        for i in range(min(items, count)):
            at = offset + i * size
            fields.append(Field(at, size, f"{name}[{i}]", struct.unpack_from(fmt, raw, at)[0]))
        offset += count * size
    return fields


def hex_bytes(raw: bytes) -> str:
    """`raw` as two-digit hex numbers separated by spaces, the way a hex dump shows them."""
    return " ".join(f"{b:02x}" for b in bytes(raw))


# --- memory, from /proc -----------------------------------------------------------------------
def memory_kib(pid: int | str = "self") -> dict[str, int] | None:
    """Resident memory of a process in KiB: `VmRSS`, its anonymous, file-backed and shared parts."""
    return _kib_fields(PROC / str(pid) / "status", MEMORY_FIELDS, mapping=None)


def mapping_kib(path: str | os.PathLike, pid: int | str = "self") -> dict[str, int] | None:
    """How much of the file at `path` a process has resident through its mappings, in KiB: `Rss`
    (pages present), `Pss` (each page divided by the processes that map it), and the pages shared
    with another process or mapped by this one only."""
    path = os.path.realpath(check_path(path, "path"))
    return _kib_fields(PROC / str(pid) / "smaps", MAPPING_FIELDS, mapping=path)


def _kib_fields(source: Path, names: tuple[str, ...], mapping: str | None) -> dict[str, int] | None:
    """Sum the `name: N kB` lines of a /proc file; with `mapping`, only in mappings of that file."""
    try:
        lines = source.read_text().splitlines()
    except OSError:
        return None
    totals = dict.fromkeys(names, 0)
    inside = mapping is None
    for line in lines:
        if mapping is not None and _MAPPING_HEADER.match(line):
            inside = line.rstrip().endswith(" " + mapping)
        else:
            key, _, rest = line.partition(":")
            if inside and key in totals:
                totals[key] += int(rest.split()[0])
    return totals


def touch(tokens: np.ndarray, share: float = 1.0) -> int:
    """Read one token in every page of the first `share` of `tokens`, faulting each page in;
    returns their sum, so that the reads are not skipped."""
    step = max(1, PAGE // tokens.dtype.itemsize)
    end = int(len(tokens) * check_number(share, "share", low=0, high=1))
    return int(np.asarray(tokens[:end:step]).sum(dtype=np.int64))


def copy_in_writes(prefix: str | os.PathLike, out_prefix: str | os.PathLike,
                   write_bytes: int | None) -> Path:
    """Copy the pair at `prefix` to `out_prefix`, its `.bin` in write() calls of `write_bytes` each
    (None: one call), then synced; returns the new `.bin`. The page cache holds a file in folios
    whose size follows the writes, and a fault maps a whole folio: how a file was written decides
    how much of it a few random reads make resident."""
    # from a copy in this process's own memory: writing straight from the source's mapping would
    # fault its pages in during the copy, and the kernel then fills the page cache in smaller runs
    raw = memoryview(IndexedDataset(prefix).tokens.tobytes())
    step = len(raw) if write_bytes is None else check_int(write_bytes, "write_bytes", low=1)
    with open(bin_path(out_prefix), "wb") as f:
        for start in range(0, len(raw), max(1, step)):
            f.write(raw[start:start + step])
        f.flush()
        os.fsync(f.fileno())  # the pages clean and on disk, as a builder leaves its files
    idx_path(out_prefix).write_bytes(idx_path(prefix).read_bytes())
    return bin_path(out_prefix)


# --- measurements in a fresh interpreter ------------------------------------------------------
def open_report(prefix: str | os.PathLike, how: str, reads: int = 1000, length: int = 2049,
                seed: int = 0) -> dict:
    """Open the dataset at `prefix` in a fresh interpreter, by `np.memmap` (our reader) or by
    `np.fromfile` (the whole `.bin` read into memory), read `reads` random windows of `length`
    tokens, then every page: the seconds each step took and `memory_kib()` after each."""
    check_choice(how, "how", HOW)
    _require_proc()
    args = [str(check_int(reads, "reads", low=0)), str(check_int(length, "length", low=1)),
            str(check_int(seed, "seed", low=0))]
    return _run_script("open", prefix, how, *args)


def touch_report(prefix: str | os.PathLike, share: float = 1.0) -> dict:
    """Map the dataset at `prefix` in a fresh interpreter, touch the first `share` of its pages,
    and return that process's `mapping_kib` of the `.bin` file."""
    share = check_number(share, "share", low=0, high=1)
    _require_proc()
    return _run_script("touch", prefix, repr(float(share)))


def _require_proc() -> None:
    if not (PROC / "self" / "status").exists():
        raise RuntimeError("these measurements read Linux's /proc, which this system does not "
                           "have; run this chapter on Linux (a virtual machine, container or WSL)")


def _run_script(*args: object) -> dict:
    done = subprocess.run([sys.executable, "-m", __name__, *map(str, args)], capture_output=True,
                          text=True)
    if done.returncode:
        raise RuntimeError(f"the measurement process failed ({done.returncode}): "
                           f"{_last_line(done.stderr)}")
    return json.loads(done.stdout)


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(no message)"


class ReaderResult(NamedTuple):
    """What a reader that had the dataset mapped read after the change, or what killed it."""
    returncode: int
    signal: str | None
    tokens: list[int] | None


def read_after(prefix: str | os.PathLike, change: Callable[[], object],
               sequence: int) -> ReaderResult:
    """Open the dataset in a reader process, run `change()` here while the reader holds its
    mapping, then let the reader read sequence `sequence` through the old index. A reader killed
    by a signal (SIGBUS when its pages were cut off the file) is reported, not raised."""
    check_callable(change, "change")
    sequence = check_int(sequence, "sequence", low=0)
    command = [sys.executable, "-m", __name__, "hold", os.fspath(check_path(prefix, "prefix")),
               str(sequence)]
    reader = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        if reader.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the reader process could not open {prefix}: "
                               f"{_last_line(reader.communicate()[1])}")
        change()
        out, _ = reader.communicate("go\n", timeout=60)
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()
    code = reader.returncode
    name = signal.Signals(-code).name if code < 0 else None
    return ReaderResult(code, name, json.loads(out) if code == 0 else None)


def _open(prefix: str, how: str, reads: int, length: int, seed: int) -> dict:
    report = {"start": memory_kib()}
    began = time.perf_counter()
    ds = IndexedDataset(prefix)
    tokens = ds.tokens if how == "mmap" else np.fromfile(bin_path(prefix), ds.dtype)
    report["open_seconds"] = time.perf_counter() - began
    report["opened"] = memory_kib()
    starts = np.random.default_rng(seed).integers(0, max(1, len(tokens) - length), reads)
    began = time.perf_counter()
    total = sum(int(np.array(tokens[s:s + length]).sum(dtype=np.int64)) for s in starts)
    report["read_seconds"] = time.perf_counter() - began
    report["read"] = memory_kib()
    touch(tokens)
    report["touched"] = memory_kib()
    report["checksum"] = total
    return report


def _touch(prefix: str, share: float) -> dict:
    ds = IndexedDataset(prefix)
    touch(ds.tokens, share)
    return {"mapping": mapping_kib(bin_path(prefix)), "memory": memory_kib()}


def _hold(prefix: str, sequence: int) -> list[int]:
    ds = IndexedDataset(prefix)
    print("ready", flush=True)
    sys.stdin.readline()
    return ds[sequence].tolist()


def main(argv: list[str]) -> None:
    command, prefix, *rest = argv
    if command == "open":
        result = _open(prefix, rest[0], *map(int, rest[1:]))
    elif command == "touch":
        result = _touch(prefix, float(rest[0]))
    else:
        result = _hold(prefix, int(rest[0]))
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
