"""The record that ties a dataset's `.bin` to its `.idx`, so that a torn or mixed pair is refused.

Megatron's two files say nothing about each other beyond sizes: a `.bin` of the right size from
another build passes every check the `.idx` allows, and serves its tokens under the wrong index.
That happens when a build dies between its two renames, or when two builds of one prefix
interleave theirs. So the builder writes a third, small file beside the pair, `<prefix>.pair.json`,
which records for each of the two its size and a digest of sampled blocks (blake2b over 16 blocks
of 4 KiB spread evenly over the file and its last block: all of a file up to 64 KiB), and the
reader checks it. Both cost the same for a 1 MB or a 1 TB dataset.

megatron-core reads `<prefix>.bin` and `<prefix>.idx` only: the pair stays byte for byte
Megatron's and the record is invisible to it. A pair without a record (written by megatron-core,
or copied without it) is read with the structural checks alone; a pair rewritten by another tool
after this one wrote it no longer matches its record, and the error says to delete the record.
What the sample cannot see: a change that keeps the size and misses every sampled block (a
checksum of the whole file, as a manifest keeps, catches that at the price of reading it).

A fourth file, the dataset's manifest (`dataset_manifest`: tokenizer, corpus files, checksums of
every byte), joins the group: the record holds the manifest's sha256 (null when a pair was
committed without one), so a manifest left from another build is refused too.

`commit` renames the builder's `.bin`, `.idx`, the manifest and the record as one group, the record
last (`files.replace_together`: a rename that fails undoes those before it, so the old pair stays
readable) while it holds `<prefix>.lock`, so that two builders of one prefix take turns instead of
mixing their files. A reader that opens the prefix during those few renames can see a mix for that
moment and is refused; opening again succeeds. What a killed build leaves (temporary files named
after its pid) is removed by the next builder of the prefix, with a warning (`remove_stale_files`),
and by the `verify` command; a lock file it left is taken and removed by the next commit. Opening a
dataset never deletes anything (a reader may be on a read-only mount): it refuses a torn pair and
says to build it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from collections.abc import Iterable
from pathlib import Path

from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_pipeline.dataset_manifest import manifest_path
from tutorial_pipeline.files import AtomicFile, locked, remove_stale_temporaries, replace_together

FORMAT = "tutorial_lib .bin/.idx pair record 1"
SAMPLE_BLOCKS, BLOCK_BYTES = 16, 4096


def record_path(prefix: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(check_path(prefix, 'prefix'))}.pair.json")


def lock_path(prefix: str | os.PathLike) -> Path:
    """The lock two builders of one prefix take around their renames (present only meanwhile)."""
    return Path(f"{os.fspath(check_path(prefix, 'prefix'))}.lock")


def fingerprint(path: Path) -> dict[str, object]:
    """{"bytes": size, "sample": digest of the sampled blocks} of the file at `path`."""
    size = path.stat().st_size
    digest = hashlib.blake2b(digest_size=16)
    last = max(size - BLOCK_BYTES, 0)
    # block starts spread evenly from 0 to the last block (one start when the file is small)
    starts = sorted({last * k // (SAMPLE_BLOCKS - 1) for k in range(SAMPLE_BLOCKS)})
    with open(path, "rb") as f:
        covered = 0  # bytes hashed so far: blocks that overlap are hashed once
        for start in starts:
            f.seek(max(start, covered))
            digest.update(f.read(start + BLOCK_BYTES - max(start, covered)))
            covered = start + BLOCK_BYTES
    return {"bytes": size, "sample": digest.hexdigest()}


def record_text(bin_file: Path, idx_file: Path, manifest: str | None = None) -> str:
    """The record of the pair now in these two files (the builder's temporary files) and of the
    text of its manifest (None: the pair has none)."""
    digest = None if manifest is None else hashlib.sha256(manifest.encode()).hexdigest()
    return json.dumps({"format": FORMAT, "bin": fingerprint(bin_file),
                       "idx": fingerprint(idx_file), "manifest": digest}, indent=1) + "\n"


def check_record(prefix: str | os.PathLike, bin_file: Path, idx_file: Path) -> None:
    """Refuse the pair if `prefix` has a record and the two files are not the ones it records."""
    path = record_path(prefix)
    raw = _read_beside(path)
    if raw is None:
        return  # a pair megatron-core wrote, or one copied without its record
    try:
        record = json.loads(raw.decode("utf-8"))
        expected = {"bin": record["bin"], "idx": record["idx"]}
        if record["format"] != FORMAT:
            raise ValueError
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"{path} is not a pair record of this library; delete it to read the "
                         "pair without it") from None
    wrong = [str(file) for key, file in (("bin", bin_file), ("idx", idx_file))
             if fingerprint(file) != expected[key]]
    if wrong:
        raise ValueError(
            f"{' and '.join(wrong)} {'is' if len(wrong) == 1 else 'are'} not the file"
            f"{'' if len(wrong) == 1 else 's'} {path} records: the pair is torn (a build stopped "
            "between its renames, or two builds mixed their files) or was changed since; build "
            f"it again. If another tool rewrote the pair on purpose, delete {path}")
    if "manifest" in record:  # a record written before manifests existed says nothing of one
        _check_manifest(prefix, path, record["manifest"])


def _check_manifest(prefix: str | os.PathLike, path: Path, digest: str | None) -> None:
    """Refuse a manifest that is not the one the record at `path` names (`digest`, None: none)."""
    manifest = manifest_path(prefix)
    raw = _read_beside(manifest)
    actual = None if raw is None else hashlib.sha256(raw).hexdigest()
    if actual == digest:
        return
    if actual is None:
        raise ValueError(f"{path} records a manifest, but there is no {manifest}: it was deleted "
                         "or not copied with the pair; copy it, or delete the record too to read "
                         "the pair without either")
    raise ValueError(f"{manifest} is not the manifest {path} records "
                     + ("(it records none: the manifest is left from an earlier build); delete it"
                        if digest is None else "(it was edited, or is another build's); build the "
                        "dataset again"))


def _read_beside(path: Path) -> bytes | None:
    """The bytes of a small file beside the pair, None if there is none; anything but a regular
    file (a FIFO would block the reader) is refused before it is opened."""
    return check_regular_file(path, "prefix").read_bytes() if os.path.lexists(path) else None


def commit(prefix: str | os.PathLike, bin_file: AtomicFile, idx_file: AtomicFile,
           manifest: str | None = None) -> None:
    """Put two synced files, the `manifest` text and their record in place as one group, under the
    prefix's lock. Without a manifest, one an earlier build left is removed after the renames (a
    crash between the two leaves it refused: the record names none)."""
    record = AtomicFile(record_path(prefix), "w", encoding="utf-8")
    extra = [] if manifest is None else [AtomicFile(manifest_path(prefix), "w", encoding="utf-8")]
    try:
        for file in extra:
            file.file.write(manifest)
            file.sync()
        record.file.write(record_text(bin_file.tmp, idx_file.tmp, manifest))
        record.sync()
        with locked(lock_path(prefix)):  # another builder's renames wait for ours
            replace_together([bin_file, idx_file, *extra, record])
            if manifest is None:
                manifest_path(prefix).unlink(missing_ok=True)
    except BaseException:
        for file in (*extra, record):
            file.discard()
        raise


def remove_stale_files(prefix: str | os.PathLike, files: Iterable[Path]) -> list[Path]:
    """Remove the temporary files of `files`, of the prefix's manifest and of its record that
    killed builders left (never a live builder's), warn about them, and return them."""
    removed = [path for target in (*files, manifest_path(prefix), record_path(prefix))
               for path in remove_stale_temporaries(target)]
    if removed:
        warnings.warn(f"removed {len(removed)} temporary file(s) of {os.fspath(prefix)!r} left by "
                      f"builds that were killed: {', '.join(p.name for p in removed)}",
                      stacklevel=3)
    return removed
