"""The manifest that travels with a dataset: which tokenizer made its ids, from which files, and a
checksum of every byte, in `<prefix>.manifest.json` beside `.bin` and `.idx`.

The pair record (`dataset_files`) ties the `.bin` to its `.idx`, but nothing in the three files says
where the ids came from: a shard built with another tokenizer has the same format and merges
silently, and a byte changed where the record's sampled blocks do not look (or an `.idx` edited
together with its record) is served as data. The manifest records what a training run has to agree
with:

- `tokenizer`: its digest (`manifest.digest`, one sha256 of its whole contract), `vocab_size`, the
  end-of-document token `eod` and its id `eod_id`, the `normalization`, and the `digests` its own
  manifest is made of (vocab, merges, settings, ...: they say what changed when the digest did);
  null for ids written without a tokenizer (`write_dataset`);
- `dtype`, and the numbers of `sequences`, `documents` and `tokens`;
- `corpus`: the text files read, in order, each as given (`path`) with its `bytes` and `sha256`,
  hashed as the pipeline read them; null when unknown (a merge that took a shard without one);
- `bin`, `idx`: the `bytes` and `sha256` of each file, hashed as the builder wrote it;
- `shards`, for a merge: each input by its file name, with its documents, tokens and `.bin` sha256;
- `engine`, for a pipeline build: the `name`, `library` and `version` of what encoded the text
  (`engines`: the ids are our encoder's whichever it was, so it is a note, not part of the data).

The builder writes the manifest in the same atomic group as the pair and its record, and the record
holds the manifest's sha256 (`dataset_files.commit`), so an old manifest never describes a new pair
and a killed build leaves none. Opening a dataset checks, whenever a manifest is there, what costs
nothing (`check`: the dtype, that the dtype holds every id of the vocabulary, the counts and the
sizes; nothing is read but the manifest and the headers); `verify=True` reads every byte and
compares the checksums. megatron-core never reads this file.

The JSON is deterministic (sorted keys, ASCII, ints and strs only: no float to format), and a merge
names its shards by file name alone, so a dataset merged from shards built anywhere (a cluster's
scratch directories) has the same bytes as one merged from shards built here.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_type, describe
from tutorial_lib.data import CHUNK_BYTES

FORMAT, VERSION = "tutorial_lib dataset manifest", 1
TOKENIZER_FIELDS = {"digest": str, "vocab_size": int, "eod": str, "eod_id": int,
                    "normalization": str, "digests": dict}
COUNTS = ("sequences", "documents", "tokens")
PROGRESS_FROM_BYTES = 1 << 26  # a progress bar for checksums of files of 64 MiB or more


def manifest_path(prefix: str | os.PathLike) -> Path:
    return Path(f"{os.fspath(check_path(prefix, 'prefix'))}.manifest.json")


def largest_id(dtype: object) -> int:
    """The largest id `dtype` holds exactly, every smaller id >= 0 included (a float holds the ints
    up to 2 ** (mantissa bits + 1))."""
    dtype = np.dtype(dtype)
    return int(np.iinfo(dtype).max) if dtype.kind in "iu" else 2 ** (np.finfo(dtype).nmant + 1)


def check_holds(dtype: object, vocab_size: int, name: str) -> None:
    """Refuse a dtype that cannot hold every id of a vocabulary of `vocab_size` (0..vocab_size - 1),
    even when the ids of one corpus happen to fit: the next corpus, or a model's own samples, need
    the others, and the builder refuses an id the dtype cannot hold only when one comes."""
    dtype = np.dtype(dtype)
    if vocab_size - 1 > largest_id(dtype):
        raise ValueError(f"{name}: {dtype} holds ids up to {largest_id(dtype):,}, but the "
                         f"tokenizer has {vocab_size:,} ids (0..{vocab_size - 1:,}); use a wider "
                         "dtype (int32)")


def check_tokenizer(tokenizer: dict | None, dtype: object) -> dict | None:
    """`tokenizer` (the fields a manifest records, `local.tokenizer_fields`, or None for ids
    written without one) checked, as a copy; `dtype` must hold every id of its vocabulary."""
    if tokenizer is None:
        return None
    check_type(tokenizer, "tokenizer", dict, "the tokenizer fields of a manifest or None")
    _check_tokenizer_fields(tokenizer, "tokenizer")
    check_holds(dtype, tokenizer["vocab_size"], "dtype")
    return json.loads(json.dumps(tokenizer))


def _check_tokenizer_fields(tokenizer: object, name: str) -> None:
    for key, kind in TOKENIZER_FIELDS.items():
        value = tokenizer.get(key) if isinstance(tokenizer, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool):
            article = "an" if kind is int else "a"
            raise ValueError(f"{name}[{key!r}] must be {article} {kind.__name__}, got "
                             f"{describe(value)}")
    if not 0 <= tokenizer["eod_id"] < tokenizer["vocab_size"]:
        raise ValueError(f"{name}: eod_id {tokenizer['eod_id']} is not an id of a vocabulary of "
                         f"{tokenizer['vocab_size']}")


class Checksum:
    """The size and sha256 of bytes as they stream past: to a file being written, from one being
    read. Hashing what is written anyway costs no second read of the file."""

    def __init__(self) -> None:
        self._sha256, self.bytes = hashlib.sha256(), 0

    def update(self, data: bytes) -> None:
        self._sha256.update(data)
        self.bytes += len(data)

    def fields(self) -> dict[str, object]:
        return {"bytes": self.bytes, "sha256": self._sha256.hexdigest()}


def file_checksum(path: Path, progress: bool = False) -> dict[str, object]:
    """The `Checksum.fields` of the file at `path`, read once (a progress bar for a big file)."""
    checksum, size = Checksum(), path.stat().st_size
    bar = tqdm(total=size, unit="B", unit_scale=True, desc=f"sha256 {path.name}",
               disable=not progress or size < PROGRESS_FROM_BYTES)
    with bar, open(path, "rb") as f:
        while chunk := f.read(CHUNK_BYTES):
            checksum.update(chunk)
            bar.update(len(chunk))
    return checksum.fields()


def make(dtype: object, tokenizer: dict | None, corpus: list | None, counts: dict[str, int],
         bin_file: dict, idx_file: dict, shards: list | None = None, engine: dict | None = None
         ) -> dict:
    """The manifest of a dataset, checked as a reader checks it (`shards` only for a merge,
    `engine` only for a pipeline build)."""
    manifest = {"format": FORMAT, "version": VERSION, "dtype": str(np.dtype(dtype)),
                "tokenizer": tokenizer, "corpus": corpus, **counts, "bin": bin_file,
                "idx": idx_file}
    if shards is not None:
        manifest["shards"] = shards
    if engine is not None:
        manifest["engine"] = engine
    _check_fields(manifest)
    return manifest


def dumps(manifest: dict) -> str:
    """The manifest as its file holds it: the same manifest gives the same bytes, always."""
    return json.dumps(manifest, sort_keys=True, indent=1, ensure_ascii=True) + "\n"


def read(prefix: str | os.PathLike) -> dict | None:
    """The manifest of the dataset at `prefix`, its fields checked; None if it has none."""
    path = manifest_path(prefix)
    if not os.path.lexists(path):
        return None
    check_regular_file(path, "prefix")  # a FIFO would block the reader
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        _check_fields(manifest)
    except (ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"{path} is not a dataset manifest of this library ({e}); build the "
                         f"dataset again, or delete {path} (and its pair record) to read the pair "
                         "without it") from None
    return manifest


def _check_fields(manifest: object) -> None:
    """The shape of a manifest: a ValueError names the first field that is wrong."""
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ValueError(f"its format is not {FORMAT!r}")
    if manifest.get("version") != VERSION:
        raise ValueError(f"version {manifest.get('version')!r}; this library reads version "
                         f"{VERSION}")
    _need(manifest, {"dtype": str, "bin": dict, "idx": dict} | dict.fromkeys(COUNTS, int))
    for key in ("bin", "idx"):
        _need(manifest[key], {"bytes": int, "sha256": str}, key)
    if manifest.get("tokenizer") is not None:
        _check_tokenizer_fields(manifest["tokenizer"], "tokenizer")
    if "engine" in manifest:
        _need(manifest["engine"], {"name": str, "library": str, "version": str}, "engine")
    for key, fields in (("corpus", {"path": str, "bytes": int, "sha256": str}),
                        ("shards", {"name": str, "documents": int, "tokens": int,
                                    "bin_sha256": str})):
        entries = manifest.get(key)
        if entries is not None:
            if not isinstance(entries, list):
                raise ValueError(f"{key} must be a list or null, got {describe(entries)}")
            for i, entry in enumerate(entries):
                _need(entry, fields, f"{key}[{i}]")


def _need(fields: object, kinds: dict[str, type], where: str = "") -> None:
    for key, kind in kinds.items():
        value = fields.get(key) if isinstance(fields, dict) else None
        if not isinstance(value, kind) or isinstance(value, bool) or (kind is int and value < 0):
            name = f"{where}[{key!r}]" if where else repr(key)
            allowed = "an int >= 0" if kind is int else f"a {kind.__name__}"
            raise ValueError(f"{name} must be {allowed}, got {describe(value)}")


def check_dataset(prefix: str | os.PathLike, dtype: np.dtype, counts: dict[str, int],
                  files: dict[str, Path], verify: bool = False,
                  progress: bool = False) -> dict | None:
    """Check the dataset at `prefix` (its `dtype`, `counts` and `files` {"bin": ..., "idx": ...})
    against its manifest, and return the manifest (None if there is none).

    Always: the dtype the `.idx` declares (an edited dtype code of the same size passes every
    structural check), that it holds every id of the tokenizer, the counts and the file sizes.
    `verify`: also the sha256 of every byte of both files. Verifying without a manifest is refused:
    there would be nothing to verify against.
    """
    manifest, path = read(prefix), manifest_path(prefix)
    if manifest is None:
        if verify:
            raise ValueError(no_manifest(prefix, "there is no checksum to verify it against"))
        return None
    if manifest["dtype"] != str(dtype):
        raise ValueError(f"{files['idx']} holds {dtype}, but {path} says {manifest['dtype']}: the "
                         ".idx (its dtype code) was changed after it was written")
    if manifest["tokenizer"] is not None:
        check_holds(dtype, manifest["tokenizer"]["vocab_size"], str(path))
    for key in COUNTS:
        if manifest[key] != counts[key]:
            raise ValueError(f"{prefix} has {counts[key]:,} {key}, but {path} says "
                             f"{manifest[key]:,}: the manifest is not this dataset's")
    for key, file in files.items():
        if manifest[key]["bytes"] != file.stat().st_size:
            raise ValueError(f"{file} has {file.stat().st_size:,} bytes, but {path} says "
                             f"{manifest[key]['bytes']:,}: the manifest is not this dataset's")
    for key, file in files.items() if verify else ():
        check_sha256(file, file_checksum(file, progress)["sha256"], manifest[key]["sha256"])
    return manifest


def check_sha256(file: Path, actual: str, expected: str) -> None:
    if actual != expected:
        raise ValueError(f"{file}: sha256 {actual}, but the manifest says {expected}: the file "
                         "changed after it was written (a flipped bit, an edit in place); build "
                         "it again")


def no_manifest(prefix: str | os.PathLike, why: str) -> str:
    """What to say of a dataset without a manifest (megatron-core writes none; a copy can lose one)
    and `why` that matters."""
    return (f"{prefix} has no manifest ({manifest_path(prefix)}: a dataset megatron-core wrote, or "
            f"one copied without its manifest), so {why}")


MISSING = ("nothing says which tokenizer made its ids; merge it only if you know they are the "
           "other shards' tokenizer's, with allow_missing_manifest=True (the merged manifest then "
           "records the tokenizer and the corpus as unknown: null)")


def common_tokenizer(shards: list[tuple[object, dict | None]], allow_missing_manifest: bool
                     ) -> dict | None:
    """The tokenizer the manifests of all `shards` ((prefix, manifest or None), in order) record,
    or a ValueError naming two shards that disagree (`check_shard`)."""
    first, tokenizer = next(((prefix, manifest["tokenizer"]) for prefix, manifest in shards
                             if manifest is not None), (None, None))
    for prefix, manifest in shards:
        check_shard(first, tokenizer, prefix, manifest, allow_missing_manifest)
    return tokenizer


def check_shard(first: object, tokenizer: dict | None, prefix: object, manifest: dict | None,
                allow_missing_manifest: bool) -> None:
    """Refuse to put the ids of the dataset at `prefix` (its `manifest`) beside those of `first`,
    made with `tokenizer` (None: ids written without one): the same id would mean two tokens.
    Without a manifest nothing says what its ids mean: refused unless `allow_missing_manifest`."""
    if manifest is None:
        if not allow_missing_manifest:
            raise ValueError(no_manifest(prefix, MISSING))
        return
    others = manifest["tokenizer"]
    if tokenizer == others:
        return
    if tokenizer is not None and others is not None and tokenizer["digest"] == others["digest"]:
        keys = sorted(k for k in tokenizer.keys() | others.keys()
                      if tokenizer.get(k) != others.get(k))
        raise ValueError(f"{prefix} and {first} were built with the same tokenizer "
                         f"({tokenizer['digest']}) but differ in {', '.join(keys)}: merge only "
                         "shards built alike")
    raise ValueError(f"{prefix} was built with {_tokenizer_name(others)}, but {first} with "
                     f"{_tokenizer_name(tokenizer)}: the same id means a different token in each, "
                     "so they do not merge into one dataset; build both with one tokenizer")


def _tokenizer_name(tokenizer: dict | None) -> str:
    return (f"tokenizer {tokenizer['digest']}" if tokenizer is not None
            else "no tokenizer (ids written without one)")


def shard(prefix: str | os.PathLike, documents: int, tokens: int, bin_sha256: str) -> dict:
    """What a merged manifest lists of one input: its file name only, so that where the shards
    were built does not change the merged manifest."""
    return {"name": Path(prefix).name, "documents": documents, "tokens": tokens,
            "bin_sha256": bin_sha256}


def describe_manifest(manifest: dict) -> str:
    """The manifest as a few readable lines (what `tutorial-megatron verify` prints)."""
    lines = [f"format     {manifest['format']}, version {manifest['version']}"]
    tokenizer = manifest["tokenizer"]
    if tokenizer is None:
        lines.append("tokenizer  none recorded (ids written without a tokenizer, or merged with "
                     "a shard that had no manifest)")
    else:
        lines += [f"tokenizer  {tokenizer['digest']}",
                  f"{'':11}vocab_size {tokenizer['vocab_size']:,}, eod {tokenizer['eod']!r} = id "
                  f"{tokenizer['eod_id']}, normalization {tokenizer['normalization']}"]
        lines += [f"{'':11}{key} {value}" for key, value in sorted(tokenizer["digests"].items())]
    lines += [f"dtype      {manifest['dtype']}",
              "counts     " + ", ".join(f"{manifest[key]:,} {key}" for key in COUNTS)]
    corpus = manifest["corpus"]
    if corpus is None:
        lines.append("corpus     unknown (merged with a shard that had no manifest)")
    else:
        total = sum(entry["bytes"] for entry in corpus)
        lines.append(f"corpus     {len(corpus)} file{'' if len(corpus) == 1 else 's'}, "
                     f"{total:,} bytes")
        lines += [f"           {e['path']}  {e['bytes']:,} bytes  sha256 {e['sha256']}"
                  for e in corpus]
    if "engine" in manifest:
        engine = manifest["engine"]
        lines.append(f"engine     {engine['name']} ({engine['library']} {engine['version']})")
    for key in ("bin", "idx"):
        lines.append(f".{key}       {manifest[key]['bytes']:,} bytes  sha256 "
                     f"{manifest[key]['sha256']}")
    for i, entry in enumerate(manifest.get("shards", ())):
        lines.append(f"{'shards' if i == 0 else '':<11}{entry['name']}: {entry['documents']:,} "
                     f"documents, {entry['tokens']:,} tokens, .bin sha256 {entry['bin_sha256']}")
    return "\n".join(lines)
