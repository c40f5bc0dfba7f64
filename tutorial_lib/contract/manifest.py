"""A tokenizer's file and identity: `save`, `load`, its `manifest`, its `digest`.

A tokenizer is a contract (vocabulary, ordered merges, split pattern, special tokens, normalization
form), so a saved file carries a manifest: the schema, a sha256 of each part and one of the whole
(`digest`), the policies of this code, and the metadata. An edited file no longer matches its
digests and refuses to load. The digest is what a dataset, a model config or a report records of
the tokenizer: two tokenizers that encode alike have the same digest, whatever their metadata.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from itertools import chain
from pathlib import Path
from typing import Any

from tutorial_lib._check_files import check_path, check_regular_file
from tutorial_lib._checks import check_type, describe
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract.normalize import FORMS
from tutorial_lib.data import read_json, write_atomically

SCHEMA_VERSION = 1
# How this code treats text, written into every manifest so that the file states its own contract.
POLICIES = {
    "normalization": "decode(encode_ordinary(x)) == N(x), N the manifest's normalization form",
    "invalid_input": "a str holding a lone surrogate is refused (ValueError)",
    "special_token_text": "encode refuses it unless allowed_special names it; "
                          "encode_ordinary keeps it as text",
    "decode_errors": "replace by default; strict or backslashreplace on request",
}
MANIFEST_KEYS = ("schema_version", "tokenizer_sha256", "vocab_sha256", "merges_sha256",
                 "settings_sha256", "normalization", "policies")  # the metadata's keys come after


def manifest(tokenizer: Tokenizer) -> dict:
    """What a saved file promises: schema, the tokenizer's digest and the digests it is made of,
    the normalization form, the policies, then the metadata (`check_metadata`)."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    parts = _parts(tokenizer)
    return {
        "schema_version": SCHEMA_VERSION,
        "tokenizer_sha256": tokenizer_sha256(parts),
        **parts,
        "normalization": tokenizer.normalization,
        "policies": POLICIES,
        **check_metadata(tokenizer.metadata),
    }


def digest(tokenizer: Tokenizer) -> str:
    """The tokenizer's sha256: it changes with any merge, id, pattern, special token or
    normalization form, and nothing else (metadata such as the training corpus does not count)."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    return tokenizer_sha256(_parts(tokenizer))


def save(tokenizer: Tokenizer, path: str | os.PathLike) -> Path:
    """Write one human-readable JSON file, one merge or vocab entry per line, atomically (a failed
    save leaves the old file). A token is its text if its bytes are UTF-8, else {"hex": "e4b8"}."""
    header = manifest(tokenizer)
    path = check_path(path, "path")
    specials = set(tokenizer.special_tokens.values())
    merges = (_dumps([_readable(a), _readable(b)]) for a, b in tokenizer.merges)
    vocab = (_dumps([i, _readable(t)]) for i, t in sorted(tokenizer.vocab.items())
             if i not in specials)
    text = "\n".join([
        "{",
        f'"manifest": {_dumps(header)},',
        f'"pattern": {_dumps(tokenizer.pattern)},',
        f'"normalization": {_dumps(tokenizer.normalization)},',
        f'"special_tokens": {_dumps(tokenizer.special_tokens)},',
        '"merges": [',
        ",\n".join(merges),
        "],",
        '"vocab": [',
        ",\n".join(vocab),
        "]",
        "}\n",
    ])
    write_atomically(path, text)
    return path


def load(path: str | os.PathLike) -> Tokenizer:
    """Read a file written by `save`; refuse it if its schema is unknown or a digest is wrong."""
    path = check_regular_file(path, "path")
    doc = read_json(path)
    header = doc.get("manifest") if isinstance(doc, dict) else None
    if not isinstance(header, dict):
        raise ValueError(f"{path} has no manifest, so it was not written by manifest.save")
    if header.get("schema_version") != SCHEMA_VERSION:
        raise ValueError(f"{path} has schema_version {header.get('schema_version')!r}; this code "
                         f"reads version {SCHEMA_VERSION}")
    missing = [key for key in ("pattern", "special_tokens", "merges", "vocab") if key not in doc]
    if missing:
        raise ValueError(f"{path} lacks {missing}")
    try:
        specials = {token: _checked_id(i) for token, i in doc["special_tokens"].items()}
        vocab: dict[int, bytes] = {}
        for i, token in chain(doc["vocab"], ((i, t) for t, i in specials.items())):
            if _checked_id(i) in vocab:
                raise ValueError(f"id {i} is listed twice")
            vocab[i] = _from_readable(token)
        merges = [(_from_readable(a), _from_readable(b)) for a, b in doc["merges"]]
    except (TypeError, ValueError, AttributeError) as e:
        raise ValueError(f"{path} has a malformed vocab, merges or special_tokens entry: {e}"
                         ) from None
    normalization = doc.get("normalization", "none")  # files from before it was recorded
    if normalization not in FORMS:
        raise ValueError(f"{path} has the normalization {normalization!r}; this code knows "
                         f"{list(FORMS)}")
    # The content must give the digests the manifest promises (tokenizer_sha256 is made of them).
    for key, value in digests(vocab, merges, doc["pattern"], specials, normalization).items():
        if value != header.get(key):
            raise ValueError(f"{path} was edited or damaged: its content gives {key} {value}, but "
                             f"the manifest says {header.get(key)}")
    metadata = {key: value for key, value in header.items() if key not in MANIFEST_KEYS}
    return Tokenizer(vocab, merges, sorted(specials, key=specials.__getitem__), doc["pattern"],
                     metadata, normalization)


def _parts(tokenizer: Tokenizer) -> dict[str, str]:
    return digests(tokenizer.vocab, tokenizer.merges, tokenizer.pattern, tokenizer.special_tokens,
                   tokenizer.normalization)


def digests(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], pattern: str,
            special_tokens: dict[str, int], normalization: str = "none") -> dict[str, str]:
    """The digests of the three parts of a contract (`tokenizer_sha256` of them: the whole). Parts,
    not a Tokenizer: a reader checks a file against its digests before it builds anything."""
    return {"vocab_sha256": vocab_sha256(vocab), "merges_sha256": merges_sha256(merges),
            "settings_sha256": settings_sha256(pattern, special_tokens, normalization)}


def vocab_sha256(vocab: dict[int, bytes]) -> str:
    """sha256 of one line "<id> <hex bytes>" per token in id order: a canonical form anyone can
    recompute."""
    lines = "".join(f"{i} {vocab[i].hex()}\n" for i in sorted(vocab))
    return hashlib.sha256(lines.encode()).hexdigest()


def merges_sha256(merges: list[tuple[bytes, bytes]]) -> str:
    """sha256 of one line "<left hex> <right hex>" per merge in rank order."""
    lines = "".join(f"{a.hex()} {b.hex()}\n" for a, b in merges)
    return hashlib.sha256(lines.encode()).hexdigest()


def settings_sha256(pattern: str, special_tokens: dict[str, int], normalization: str = "none"
                    ) -> str:
    """sha256 of the JSON [pattern, [[id, special token], ...] in id order, normalization]; "none"
    is left out, so a tokenizer saved before the form was in the contract keeps its digest."""
    settings = [pattern, sorted([i, token] for token, i in special_tokens.items())]
    if normalization != "none":
        settings.append(normalization)
    return hashlib.sha256(json.dumps(settings).encode()).hexdigest()


def tokenizer_sha256(parts: dict[str, str]) -> str:
    """sha256 of the line "<vocab_sha256> <merges_sha256> <settings_sha256>": the whole contract."""
    line = " ".join(parts[key] for key in ("vocab_sha256", "merges_sha256", "settings_sha256"))
    return hashlib.sha256(line.encode()).hexdigest()


def check_metadata(metadata: dict) -> dict:
    """`metadata` if it comes back unchanged from the JSON file `save` writes (a tuple would load
    as a list, an int key as a str, NaN not at all) and leaves the manifest's own keys alone."""
    reserved = sorted(set(metadata) & set(MANIFEST_KEYS))
    if reserved:
        raise ValueError(f"metadata must not use the manifest's own keys {reserved}")
    try:
        problem = _json_problem(metadata, "metadata")
    except RecursionError:
        problem = "metadata is nested too deeply"
    if problem:
        raise ValueError("metadata must be plain JSON that save() and load() keep unchanged, but "
                         f"{problem}")
    return metadata


def _json_problem(value: Any, where: str) -> str | None:
    """Why `value` would not come back equal (and of the same types) from JSON; None if it would."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"{where} has the key {describe(key)}, which JSON turns into a str"
            problem = (_json_problem(key, f"a key of {where}")
                       or _json_problem(item, f"{where}[{key!r}]"))
            if problem:
                return problem
        return None
    if kind is list:
        problems = (_json_problem(item, f"{where}[{i}]") for i, item in enumerate(value))
        return next(filter(None, problems), None)
    if kind is str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return f"{where} holds a lone surrogate, which UTF-8 cannot store"
        return None
    if kind is float and not math.isfinite(value):
        return f"{where} is {value}, which JSON does not have"
    if kind in (int, float, bool, type(None)):
        return None
    return (f"{where} is {describe(value)} of type {kind.__name__}; JSON keeps only dict (str "
            "keys), list, str, int, float, bool and None")


def _checked_id(i: object) -> int:
    if not isinstance(i, int) or isinstance(i, bool):
        raise ValueError(f"a token id must be an int, got {i!r}")
    return i


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _readable(token: bytes) -> str | dict[str, str]:
    """A token as a learner can read it: its text if its bytes are UTF-8, else {"hex": "e4b8"}."""
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": token.hex()}


def _from_readable(token: str | dict[str, str]) -> bytes:
    if isinstance(token, str):
        return token.encode("utf-8")
    if isinstance(token, dict) and set(token) == {"hex"} and isinstance(token["hex"], str):
        return bytes.fromhex(token["hex"])
    raise ValueError(f"a token must be a str or {{'hex': ...}}, got {token!r}")
