"""A tokenizer's files: read from tiktoken and from GPT-2's files, saved and loaded with a manifest.

A tokenizer is a contract (vocabulary, ordered merges, split pattern, special tokens), so a saved
file carries a manifest: the schema version, a sha256 digest of each part of the contract, the
policies of this code, and the tokenizer's metadata. A file whose vocabulary, merges or pattern were
edited no longer matches its digests and refuses to load.

The readers return `Parts`, the arguments of the `Tokenizer` constructor, which checks them; so this
module never builds a Tokenizer itself: `Tokenizer.from_tiktoken`, `.from_gpt2_files` and
`.load` do.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Iterable
from itertools import chain
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from tutorial_lib._checks import check_has, check_path, check_regular_file, check_type, describe
from tutorial_lib.bpe.fast_encode import apply_merges
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, check_special_tokens
from tutorial_lib.contract.normalize import FORMS
from tutorial_lib.data import write_atomically

SCHEMA_VERSION = 1
# How this code treats text, written into every manifest so that the file states its own contract.
POLICIES = {
    "normalization": "decode(encode_ordinary(x)) == N(x), N the manifest's normalization form",
    "invalid_input": "a str holding a lone surrogate is refused (ValueError)",
    "special_token_text": "encode refuses it unless allowed_special names it; "
                          "encode_ordinary keeps it as text",
    "decode_errors": "replace by default; strict or backslashreplace on request",
}
_MANIFEST_KEYS = ("schema_version", "tokenizer_sha256", "vocab_sha256", "merges_sha256",
                  "settings_sha256", "normalization", "policies")


class Parts(NamedTuple):
    """What a Tokenizer is built from, in the order of its constructor's arguments."""

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: list[str]
    pattern: str
    metadata: dict
    normalization: str = "none"


class Contract(Protocol):
    """What a file records of a Tokenizer: the attributes that `manifest` and `save` read."""

    vocab: dict[int, bytes]
    merges: list[tuple[bytes, bytes]]
    special_tokens: dict[str, int]
    pattern: str
    metadata: dict
    normalization: str


# ------------------------------------------------------------------------------- tiktoken, GPT-2


def from_tiktoken(encoding: Any) -> Parts:
    """The parts of a tiktoken Encoding (e.g. cl100k), with its merges recovered from its ranks.

    tiktoken keeps only token -> rank. Going through the tokens by rank, BPE with the merges found
    so far takes each token's bytes down to exactly two parts (a, b): that is the merge that made
    the token (minbpe's `recover_merges`). Ids stay tiktoken's: the byte tokens keep their permuted
    ids.
    """
    check_has(encoding, "encoding", ("name", "_mergeable_ranks", "_special_tokens", "_pat_str"),
              "a tiktoken Encoding, e.g. tiktoken.get_encoding('cl100k_base')")
    ranks: dict[bytes, int] = encoding._mergeable_ranks
    vocab = {rank: token for token, rank in ranks.items()}
    byte_ids = [ranks[bytes([b])] for b in range(256)]
    pair_ranks: dict[tuple[int, int], int] = {}
    merged: list[int] = []
    merges = []
    for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
        if len(token) < 2:
            continue
        # The merges so far take the token's bytes down to the two parts its own merge joins.
        parts = apply_merges([byte_ids[b] for b in token], pair_ranks, merged)
        if len(parts) != 2:
            raise ValueError(f"cannot recover a merge for token {token!r} (rank {rank}): the "
                             f"lower-ranked merges leave {len(parts)} parts, not 2")
        pair_ranks[(parts[0], parts[1])] = len(merged)
        merged.append(rank)
        merges.append((vocab[parts[0]], vocab[parts[1]]))
    specials: dict[str, int] = encoding._special_tokens
    vocab.update({token_id: token.encode("utf-8") for token, token_id in specials.items()})
    metadata = {"source": f"tiktoken encoding {encoding.name!r}"}
    return Parts(vocab, merges, sorted(specials, key=specials.__getitem__), encoding._pat_str,
                 metadata)


def from_gpt2_files(vocab_json: str | os.PathLike, merges_txt: str | os.PathLike,
                    special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN) -> Parts:
    """GPT-2's parts from OpenAI's encoder.json (token -> id) and vocab.bpe (merges in rank order).

    Hugging Face ships the same two files as vocab.json and merges.txt. Both write each byte as one
    printable character (GPT2_BYTE_DECODER; a space is "Ġ"), so each token is turned back into
    bytes. Ids stay the file's, which are tiktoken's `gpt2` ids. The files do not say which entries
    are special: name them in `special_tokens` (GPT-2 has one, "<|endoftext|>"); an entry left
    unnamed is decode-only.
    """
    vocab_json = check_regular_file(vocab_json, "vocab_json")
    merges_txt = check_regular_file(merges_txt, "merges_txt")
    special_tokens = check_special_tokens(special_tokens)
    entries = _read_json(vocab_json)
    if not isinstance(entries, dict) or not all(type(i) is int for i in entries.values()):
        raise ValueError(f"{vocab_json} must hold one JSON object that maps each token to its id")
    vocab: dict[int, bytes] = {}
    for token, i in entries.items():
        if i in vocab:
            raise ValueError(f"{vocab_json} gives id {i} to two tokens, the second is {token!r}")
        special = token in special_tokens
        vocab[i] = token.encode("utf-8") if special else _gpt2_bytes(token, vocab_json)
    lines = _read_text(merges_txt).split("\n")
    merges = []
    for n, line in enumerate(lines, 1):
        if (n == 1 and line.startswith("#version")) or (n == len(lines) and not line):
            continue  # the optional version line, the final newline
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{merges_txt} line {n} must be two tokens and one space, got "
                             f"{line!r}")
        merges.append((_gpt2_bytes(parts[0], merges_txt), _gpt2_bytes(parts[1], merges_txt)))
    metadata = {"source": f"GPT-2 files {vocab_json.name} and {merges_txt.name}"}
    return Parts(vocab, merges, special_tokens, pattern, metadata)


def _gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's `bytes_to_unicode`, inverted: printable character -> the byte it stands for.

    The 188 bytes that print as themselves (! to ~, ¡ to ¬, ® to ÿ) keep their character; the other
    68 (space, control characters, ...) take chr(256), chr(257), ... in byte order, so a token's
    text never holds a space or a line break, and the merges file can hold one "left right" pair
    per line.
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1),
                 *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return {chr(b): b for b in printable} | {chr(256 + n): b for n, b in enumerate(others)}


GPT2_BYTE_DECODER = _gpt2_byte_decoder()


def _gpt2_bytes(token: str, path: Path) -> bytes:
    try:
        return bytes(map(GPT2_BYTE_DECODER.__getitem__, token))
    except KeyError as e:
        raise ValueError(f"{path}: the token {token!r} holds {e.args[0]!r}, which is not in "
                         "GPT-2's byte alphabet (if it is a special token, name it in "
                         "special_tokens)") from None


# ---------------------------------------------------------------------- manifest, save and load


def manifest(tokenizer: Contract) -> dict:
    """What a saved file promises: schema, the tokenizer's digest and the digests it is made of,
    the normalization form, the policies, then the metadata."""
    digests = _digests(tokenizer.vocab, tokenizer.merges, tokenizer.pattern,
                       tokenizer.special_tokens, tokenizer.normalization)
    return {
        "schema_version": SCHEMA_VERSION,
        "tokenizer_sha256": tokenizer_sha256(digests),
        **digests,
        "normalization": tokenizer.normalization,
        "policies": POLICIES,
        **tokenizer.metadata,
    }


def contract_sha256(tokenizer: Contract) -> str:
    """The tokenizer's digest: one sha256 that changes with any merge, id, pattern, special token or
    normalization form, and nothing else (metadata such as the training corpus does not count).
    It is what a dataset, a model config or an evaluation report records of the tokenizer."""
    return manifest(tokenizer)["tokenizer_sha256"]


def save(tokenizer: Contract, path: str | os.PathLike) -> Path:
    """Write one human-readable JSON file, one merge or vocab entry per line, atomically.

    A token is shown as its text when its bytes are valid UTF-8 and as {"hex": "e4b8"} otherwise.
    Special tokens are listed once, under "special_tokens". `data.write_atomically` writes it to a
    temporary name and renames it into place, so a failed save leaves the old file.
    """
    path = check_path(path, "path")
    specials = set(tokenizer.special_tokens.values())
    merges = (_dumps([_readable(a), _readable(b)]) for a, b in tokenizer.merges)
    vocab = (_dumps([i, _readable(t)]) for i, t in sorted(tokenizer.vocab.items())
             if i not in specials)
    text = "\n".join([
        "{",
        f'"manifest": {_dumps(manifest(tokenizer))},',
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


def load(path: str | os.PathLike) -> Parts:
    """Read a file written by `save`; refuse it if its schema is unknown or a digest is wrong."""
    path = check_regular_file(path, "path")
    doc = _read_json(path)
    header = doc.get("manifest") if isinstance(doc, dict) else None
    if not isinstance(header, dict):
        raise ValueError(f"{path} has no manifest, so it was not written by Tokenizer.save")
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
    digests = _digests(vocab, merges, doc["pattern"], specials, normalization)
    for key, digest in digests.items():
        if digest != header.get(key):
            raise ValueError(f"{path} was edited or damaged: its content gives {key} {digest}, but "
                             f"the manifest says {header.get(key)}")
    metadata = {key: value for key, value in header.items() if key not in _MANIFEST_KEYS}
    return Parts(vocab, merges, sorted(specials, key=specials.__getitem__), doc["pattern"],
                 metadata, normalization)


# --------------------------------------------------------------------------------------- digests


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
    """sha256 of the JSON [pattern, [[id, special token], ...] in id order, normalization]: the
    rest of the contract. "none" is left out of the list, so that a tokenizer saved before the
    normalization form was part of the contract keeps its digest."""
    settings = [pattern, sorted([i, token] for token, i in special_tokens.items())]
    if normalization != "none":
        settings.append(normalization)
    return hashlib.sha256(json.dumps(settings).encode()).hexdigest()


def tokenizer_sha256(digests: dict[str, str]) -> str:
    """sha256 of the line "<vocab_sha256> <merges_sha256> <settings_sha256>": the whole contract."""
    line = " ".join(digests[key] for key in ("vocab_sha256", "merges_sha256", "settings_sha256"))
    return hashlib.sha256(line.encode()).hexdigest()


def _digests(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]], pattern: str,
             special_tokens: dict[str, int], normalization: str) -> dict[str, str]:
    return {"vocab_sha256": vocab_sha256(vocab), "merges_sha256": merges_sha256(merges),
            "settings_sha256": settings_sha256(pattern, special_tokens, normalization)}


# -------------------------------------------------------------------------------------- metadata


def check_metadata(metadata: dict | None) -> dict:
    """A copy of `metadata`, which must come back unchanged from the JSON file `save` writes."""
    if metadata is None:
        return {}
    check_type(metadata, "metadata", dict, "a dict or None")
    reserved = sorted(set(metadata) & set(_MANIFEST_KEYS))
    if reserved:
        raise ValueError(f"metadata must not use the manifest's own keys {reserved}")
    try:
        problem = _json_problem(metadata, "metadata")
    except RecursionError:
        problem = "metadata is nested too deeply"
    if problem:
        raise ValueError("metadata must be plain JSON that save() and load() keep unchanged, but "
                         f"{problem}")
    return json.loads(json.dumps(metadata))


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
        if _is_utf8(value):
            return None
        return f"{where} holds a lone surrogate, which UTF-8 cannot store"
    if kind is float and not math.isfinite(value):
        return f"{where} is {value}, which JSON does not have"
    if kind in (int, float, bool, type(None)):
        return None
    return (f"{where} is {describe(value)} of type {kind.__name__}; JSON keeps only dict (str "
            "keys), list, str, int, float, bool and None")


# --------------------------------------------------------------------------------------- helpers


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text: {e}") from None


def _read_json(path: Path) -> Any:
    """The JSON value in `path`; text that is not JSON, or nests too deeply, is a ValueError."""
    try:
        return json.loads(_read_text(path))
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path} is not a JSON file this code can read: {e}") from None
