"""The pipeline's build on a Dask cluster: shards of the corpus files tokenized as tasks, merged.

    from dask.distributed import Client
    client = Client("tcp://scheduler:8786")          # or Client(LocalCluster(...)) on one machine
    distributed.build(files, tokenizer, "out/corpus", client=client, split="<|endoftext|>")

    python -m tutorial_pipeline build --scheduler tcp://scheduler:8786 ...   # the same

The steps, and why each is the way it is:

1. Plan. Each file is cut into byte ranges of about `shard_bytes` (`corpus_files.shard_ranges`),
   each cut moved forward to a document boundary, so that the documents of the shards, in order,
   are exactly those `local.build` reads. Planning reads a few bytes around each cut, not the
   files: the client seeks, the workers read. So the cuts and sizes are facts about the file as
   it was then, and nothing below takes them on trust (steps 2 and 3): a file rewritten after
   planning, even with the same size, fails the build instead of giving documents cut in two.
2. Tokenize. The tokenizer goes to every worker once (`Client.scatter`: it pickles through
   `Tokenizer.__reduce__`), and each worker checks that the one it got has the digest the client
   sent. Each shard is one task: it reads its range (`corpus_files.read_range`), encodes it as
   `local.build` does (the same batches, the same EOD) and writes its own dataset with its
   manifest into a shard directory beside the output, which every worker must see at the same path
   (a shared file system: NFS, Lustre, a mounted bucket). On the bytes it read, the task proves
   its range is still the one planned (`read_range`: all of its bytes are there, and it ends
   where a document does unless it ends the file), and returns its counts and their sha256.
3. Meanwhile the client reads each file once, hashing it whole and range by range. The whole-file
   sha256 goes into the merged manifest, so that it lists each corpus file as `local.build` does
   (a range's sha256 cannot be combined into the file's); each range's sha256 must be the one the
   worker read: a file that changed during the run, or a node that sees another copy of it, fails
   the build instead of mixing two corpora. This read also checks what a range's own bytes cannot
   show (`_read_file`): every range complete, no cut inside a character or a "\\r\\n", nothing
   after the last range. So the file the manifest lists, by its sha256, is the bytes the shards
   read, and their documents are that file's.
4. Merge. The client merges the shards in order with `merge_datasets`, which checks each shard's
   tokenizer and `.bin` sha256 on the way; the merged manifest lists the shards (their names are
   their byte ranges) and, through its `corpus` argument, the whole files.
   `.bin` and `.idx` are byte for byte those of `local.build`, and so is the manifest but for
   its `shards`. The shard directory is removed after the merge.

A failed task, an error on the client or Ctrl-C stops the run the same way: a STOP file in the
shard directory makes every running shard stop at its next batch (a running Dask task cannot be
killed from outside), the client waits for them, removes the directory, and the output prefix is
untouched (the merge writes atomically, like every builder). A client killed outright (SIGKILL, a
lost node) runs no clean-up: its shard directory, named after its host and process, is removed by
the next build of the same prefix on that host, with a warning. The cluster's workers are the
cluster's: this module starts none and leaves them running, idle. The `verify` command
removes such directories too (`remove_stale_shard_directories`).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import shutil
import socket
import tempfile
import time
import warnings
from collections.abc import Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from tutorial_lib import data
from tutorial_lib._check_data import check_bool
from tutorial_lib._check_files import check_path
from tutorial_lib._checks import check_choice, check_int, check_str, check_type
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest
from tutorial_pipeline import engines
from tutorial_pipeline.corpus_files import (changed_after_planning, check_paths, read_range,
                                            separator_of, shard_ranges)
from tutorial_pipeline.dataset import merge_datasets
from tutorial_pipeline.dataset_manifest import Checksum, manifest_path
from tutorial_pipeline.files import temporary_tag
from tutorial_lib.data import CHUNK_BYTES
from tutorial_pipeline.local import (BATCH_CHARS, DOC_CHARS, BuildSummary, encode_batch,
                                     token_dtype, tokenizer_fields, write_batches)
from tutorial_pipeline.workers import alive, batches

SHARD_BYTES = 1 << 26  # 64 MiB of text per task: ~10 s of our encoder, a few MB of ids to merge
STOP_SECONDS = 60  # how long a stopped run waits for its running shards to see the STOP file


@dataclass(frozen=True)
class Shard:
    """The bytes [start, end) of the corpus file `path` (number `file` of the build's files);
    `last`: the range ends the file, as planned."""

    index: int
    file: int
    path: str
    start: int
    end: int
    last: bool

    @property
    def name(self) -> str:
        """The shard's dataset prefix in the shard directory, and its name in the merged manifest:
        where it comes from, whatever directory it was built in."""
        return f"{self.index:05d}-file{self.file}-bytes{self.start}-{self.end}"


@dataclass(frozen=True)
class ClusterBuildSummary(BuildSummary):
    """What `build` wrote (`workers`: the cluster's worker threads when it started), and how many
    `shards` on the cluster at `scheduler`."""

    shards: int = 0
    scheduler: str = ""

    def __str__(self) -> str:
        return (f"{self.prefix}: {self.documents:,} documents, {self.tokens:,} tokens from "
                f"{self.text_bytes:,} bytes of text in {self.seconds:.2f} s "
                f"({self.mb_per_second:.2f} MB/s, {self.shards} shard"
                f"{'' if self.shards == 1 else 's'} on {self.workers} Dask worker thread"
                f"{'' if self.workers == 1 else 's'} at {self.scheduler})")


def plan(paths: str | os.PathLike | Iterable[str | os.PathLike], split: str = "line",
         shard_bytes: int = SHARD_BYTES) -> list[Shard]:
    """The shards of `paths`, in the order of their documents (an empty file has none)."""
    paths = check_paths(paths)
    shards: list[Shard] = []
    for number, path in enumerate(paths):
        ranges = shard_ranges(path, split, shard_bytes)
        for i, (start, end) in enumerate(ranges):
            shards.append(Shard(len(shards), number, str(path), start, end, i == len(ranges) - 1))
    return shards


def build(paths: str | os.PathLike | Iterable[str | os.PathLike], tokenizer: Tokenizer,
          prefix: str | os.PathLike, *, client: object, split: str = "line",
          eod: str = data.ENDOFTEXT, dtype: str = "auto", shard_bytes: int = SHARD_BYTES,
          progress: bool = True, engine: str = "ours") -> ClusterBuildSummary:
    """`local.build` of the same arguments, computed as shard tasks on the Dask `client`
    (a `dask.distributed.Client`), with the same `.bin` and `.idx`; see the module's docstring.

    The files, the output's directory and the shard directory beside it must be at the same paths
    on every worker (relative paths are made absolute here, on the client). `engine` names the
    encoder each shard uses (`engines.ENGINES`); each shard checks it on its own sample.
    """
    from distributed import Client  # only a cluster's build needs dask

    paths = check_paths(paths)
    check_type(tokenizer, "tokenizer", Tokenizer, "a tutorial_lib Tokenizer")
    prefix = check_path(prefix, "prefix")
    check_type(client, "client", Client, "a dask.distributed Client")
    separator_of(split)
    fields = tokenizer_fields(tokenizer, eod)
    dtype = token_dtype(dtype, tokenizer)
    check_choice(engine, "engine", list(engines.ENGINES))
    shard_bytes = check_int(shard_bytes, "shard_bytes", low=1)
    check_bool(progress, "progress")
    start = time.perf_counter()
    workers = sum(client.nthreads().values())
    shards = plan(paths, split, shard_bytes)
    directory = _shard_directory(prefix)
    try:
        documents, tokens, text_bytes = _run(client, paths, shards, tokenizer, fields, dtype,
                                             split, prefix, directory, progress, engine)
    finally:
        _remove(directory)
    return ClusterBuildSummary(prefix, documents, tokens, text_bytes,
                               time.perf_counter() - start, workers,
                               manifest_path(prefix), engine, shards=len(shards),
                               scheduler=str(client.scheduler.address))


def _shard_directory(prefix: Path) -> Path:
    """A new directory beside the output for the shards, named after this host and process. Those
    that a client on this host left when it was killed (SIGKILL, a lost node: no clean-up ran) are
    removed first, with a warning, as the pipeline's pool and builder remove theirs."""
    remove_stale_shard_directories(prefix)
    return Path(tempfile.mkdtemp(prefix=f"{_shard_stem(prefix)}{os.getpid()}-",
                                 dir=prefix.parent)).resolve()


def _shard_stem(prefix: Path) -> str:
    """What the name of a shard directory of `prefix` made on this host starts with; then the
    client's pid, "-" and the 8 characters `tempfile.mkdtemp` adds. The prefix's name is
    shortened as the builder's temporary names are (`files.temporary_tag`), so a prefix whose
    files are legal never gets a shard directory whose name is too long."""
    return f"{temporary_tag(prefix.name)}.shards-{socket.gethostname()[:32]}-"


def remove_stale_shard_directories(prefix: str | os.PathLike) -> list[Path]:
    """Remove the shard directories of `prefix` that clients on this host left when they were
    killed, warn about them and return them. Only a directory (not a link) named exactly as
    `_shard_directory` names one, of a process that is gone, is removed: never one of a live
    client, of another host (it cannot be asked) or of another name; on Windows none (a pid cannot
    be asked there without ending the process). A directory that cannot be written in (a
    read-only mount) is a PermissionError, not a minute of retries (`_remove`)."""
    prefix = Path(os.path.abspath(check_path(prefix, "prefix")))
    stem = _shard_stem(prefix)
    name = re.compile(rf"{re.escape(stem)}(?P<pid>\d+)-[a-z0-9_]{{8}}")
    stale = [path for path in sorted(prefix.parent.glob(f"{glob.escape(stem)}*-*"))
             if (match := name.fullmatch(path.name)) and os.name == "posix"
             and path.is_dir() and not path.is_symlink() and not alive(int(match["pid"]))]
    if stale and not os.access(prefix.parent, os.W_OK | os.X_OK):  # a read-only mount
        raise PermissionError(f"cannot remove {', '.join(path.name for path in stale)}, left by "
                              f"builds that were killed: {prefix.parent} is not writable")
    for path in stale:
        _remove(path)
    if stale:
        warnings.warn(f"removed {len(stale)} shard director{'y' if len(stale) == 1 else 'ies'} "
                      f"of {os.fspath(prefix)!r} left by builds that were killed: "
                      f"{', '.join(path.name for path in stale)}", stacklevel=3)
    return stale


def _remove(directory: Path) -> None:
    """Remove `directory` and all in it, again until it is gone (for at most STOP_SECONDS): a shard
    task still running for it (of a killed client, or one that did not stop in time) can write a
    file into it during a removal, until its next batch sees the directory gone and stops."""
    deadline = time.monotonic() + STOP_SECONDS
    shutil.rmtree(directory, ignore_errors=True)
    while directory.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
        shutil.rmtree(directory, ignore_errors=True)


def _run(client: object, paths: list[Path], shards: list[Shard], tokenizer: Tokenizer,
         fields: dict, dtype: np.dtype, split: str, prefix: Path, directory: Path,
         progress: bool, engine: str) -> tuple[int, int, int]:
    """Steps 2 to 4 of the module's docstring: documents, tokens and bytes of text; on any error
    or Ctrl-C, stop the shards first."""
    stop, futures = directory / "STOP", []
    try:
        remote = client.scatter(tokenizer, broadcast=True, hash=False)
        for shard in shards:  # absolute paths: a worker's working directory is not ours
            task = dataclasses.replace(shard, path=str(Path(shard.path).resolve()))
            futures.append(client.submit(
                _build_shard, task, str(directory / shard.name), remote, fields, dtype, split,
                str(stop), engine, key=f"tutorial_lib-shard-{directory.name}-{shard.index}",
                pure=False))
        corpus, ranges = _checksums(paths, shards)  # on the client, while the workers tokenize
        results = _gather(futures, shards, progress)
        for shard, result, expected in zip(shards, results, ranges):
            if result["sha256"] != expected:
                raise ValueError(f"{shard.path}: bytes {shard.start:,} to {shard.end:,} were not "
                                 "the same on the worker that tokenized them as on this client "
                                 "(the file changed during the build, or that node sees another "
                                 "copy of it); nothing was written")
        documents, tokens = _merge([directory / shard.name for shard in shards], prefix, corpus,
                                   results)
        return documents, tokens, sum(file["bytes"] for file in corpus)
    except BaseException:
        _stop(futures, stop)
        raise


def _build_shard(shard: Shard, prefix: str, tokenizer: Tokenizer, fields: dict, dtype: np.dtype,
                 split: str, stop: str, engine_name: str) -> dict:
    """Runs on a worker: the shard's dataset at `prefix`, as `local.build` writes one; returns
    its documents, tokens and the sha256 of the bytes it read."""
    digest = tokenizer_manifest.digest(tokenizer)
    if digest != fields["digest"]:
        raise ValueError(f"the worker got a tokenizer with digest {digest}, but the "
                         f"client sent {fields['digest']}: a different tutorial_lib on the worker "
                         "builds another tokenizer from the same pickle; install the same version")
    checksum, corpus = Checksum(), []
    engine = engines.make_engine(engine_name, tokenizer)
    sample = engines.SampleCheck(tokenizer, engine)
    documents = read_range(Path(shard.path), shard.start, shard.end, split, checksum.update,
                           last=shard.last)
    tasks = sample.batches(batches(documents, BATCH_CHARS,
                                   size=lambda doc: len(doc[2]) + DOC_CHARS))
    results = _until_stopped(Path(stop), (encode_batch(engine, fields["eod_id"], batch)
                                          for batch in tasks))
    counts = write_batches(Path(prefix), dtype,
                           _then(sample.results(results), corpus, shard, checksum),
                           fields, corpus, engine.fields())
    return {"documents": counts[0], "tokens": counts[1], "sha256": checksum.fields()["sha256"]}


class Stopped(RuntimeError):
    """A shard's task ended because its run was stopped (another task failed, or Ctrl-C)."""


def _until_stopped(stop: Path, results: Iterator) -> Iterator:
    """`results`, but a Stopped error as soon as the file `stop` exists, or its directory is gone
    (the next build removed the directory of a client that was killed), checked before each."""
    while not stop.exists() and stop.parent.is_dir():
        try:
            yield next(results)
        except StopIteration:
            return
    raise Stopped(f"stopped: {stop} exists")


def _then(results: Iterator, corpus: list, shard: Shard, checksum: Checksum) -> Iterator:
    """`results`, then the shard's range into `corpus` (`_write` lists it once all is read)."""
    yield from results
    corpus.append({"path": f"{shard.path}[{shard.start}:{shard.end}]", **checksum.fields()})


def _checksums(paths: list[Path], shards: list[Shard]) -> tuple[list[dict], list[str]]:
    """Each file's {"path", "bytes", "sha256"}, as `local.build` lists it, and the sha256 of
    each shard's range, from one read of each file (the shards of a file cover it, in order)."""
    corpus, ranges = [], []
    for number, path in enumerate(paths):
        whole, parts = _read_file(path, [shard for shard in shards if shard.file == number])
        corpus.append({"path": str(path), **whole})
        ranges.extend(parts)
    return corpus, ranges


def _read_file(path: Path, shards: list[Shard]) -> tuple[dict, list[str]]:
    """The `Checksum.fields` of `path` and the sha256 of each of its `shards`, from one read, if
    the file still fits its plan: each range all there, each cut between two characters and not
    between the "\\r" and "\\n" of a line end (a planned cut never is), nothing after the last."""
    whole, parts, before = Checksum(), [], b""  # before: the byte before the next range
    with open(path, "rb") as f:
        for shard in shards:
            part = Checksum()
            for chunk in iter(lambda: f.read(min(CHUNK_BYTES, shard.end - f.tell())), b""):
                if not part.bytes:
                    _check_cut(path, shard.start, before, chunk[:1])
                whole.update(chunk)
                part.update(chunk)
                before = chunk[-1:]
            if part.bytes != shard.end - shard.start:
                raise changed_after_planning(path, f"it ends at byte {f.tell():,}, not at byte "
                                                   f"{shards[-1].end:,}")
            parts.append(part.fields()["sha256"])
        if f.read(1):
            raise changed_after_planning(path, f"it has more than the {f.tell() - 1:,} bytes "
                                               "planned")
    return whole.fields(), parts


def _check_cut(path: Path, offset: int, before: bytes, after: bytes) -> None:
    """Refuse a cut at byte `offset` (between the bytes `before` and `after`) that no plan made."""
    if offset and after and 0x80 <= after[0] < 0xC0:
        raise changed_after_planning(path, f"byte {offset:,}, where a shard begins, is inside a "
                                           "character")
    if offset and before + after == b"\r\n":
        raise changed_after_planning(path, f"byte {offset:,}, where a shard begins, is inside a "
                                           "line end (\\r\\n)")


def _gather(futures: list, shards: list[Shard], progress: bool) -> list[dict]:
    """The results of the shard tasks in shard order, a bar counting bytes as shards finish; the
    first task that failed raises its error here."""
    from distributed import as_completed

    bar = tqdm(total=sum(s.end - s.start for s in shards), unit="B", unit_scale=True,
               desc="tokenizing on the cluster", disable=not progress)
    order = {future.key: i for i, future in enumerate(futures)}
    results: list = [None] * len(futures)
    with bar:
        for future in as_completed(futures):
            i = order[future.key]
            results[i] = future.result()
            bar.update(shards[i].end - shards[i].start)
    return results


def _merge(prefixes: list[Path], prefix: Path, corpus: list[dict], results: list[dict]
           ) -> tuple[int, int]:
    """`merge_datasets` of the shards, listing the whole `corpus` files instead of the ranges the
    shards list: what `local.build` lists."""
    merge_datasets(prefixes, prefix, corpus=corpus)
    return sum(r["documents"] for r in results), sum(r["tokens"] for r in results)


def _stop(futures: list, stop: Path) -> None:
    """Make the running shards stop at their next batch, the waiting ones at their start, and wait
    (at most STOP_SECONDS) until none is left, so that nothing writes in the shard directory once
    it is removed. Errors here (a lost scheduler) must not hide the one that stopped the run."""
    from distributed import wait

    with suppress(Exception):
        stop.touch()
        wait(futures, timeout=STOP_SECONDS)


def build_on(scheduler: str, *args: object, **kwargs: object) -> ClusterBuildSummary:
    """`build` on the Dask cluster whose scheduler is at the address `scheduler`
    ("tcp://host:8786"): what `tutorial-megatron build --scheduler` runs."""
    from distributed import Client

    check_str(scheduler, "scheduler", non_empty=True)
    with Client(scheduler) as client:
        return build(*args, client=client, **kwargs)
