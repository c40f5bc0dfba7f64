"""Tokenizers from other people's files: a tiktoken Encoding, and GPT-2's encoder.json + vocab.bpe.

Each reader turns the file into `Tokenizer`'s arguments, so the constructor's checks hold a file
from anywhere to the same rules. Our own file, with its manifest, is `contract.manifest`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tutorial_lib._check_data import check_has
from tutorial_lib._check_files import check_regular_file
from tutorial_lib.bpe.fast_encode import apply_merges
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, check_special_tokens
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.data import read_json, read_utf8


def from_tiktoken(encoding: Any, normalization: str = "none") -> Tokenizer:
    """The tokenizer of a tiktoken Encoding (cl100k, say), its merges recovered from its ranks;
    `normalization` names what a model's own code applies first (Qwen: "NFC")."""
    check_has(encoding, "encoding", ("name", "_mergeable_ranks", "_special_tokens", "_pat_str"),
              "a tiktoken Encoding, e.g. tiktoken.get_encoding('cl100k_base')")
    ranks: dict[bytes, int] = encoding._mergeable_ranks
    specials: dict[str, int] = encoding._special_tokens
    vocab = {rank: token for token, rank in ranks.items()}
    vocab.update({token_id: token.encode("utf-8") for token, token_id in specials.items()})
    metadata = {"source": f"tiktoken encoding {encoding.name!r}"}
    return Tokenizer(vocab, recover_merges(ranks), sorted(specials, key=specials.__getitem__),
                     encoding._pat_str, metadata, normalization)


def recover_merges(ranks: dict[bytes, int]) -> list[tuple[bytes, bytes]]:
    """The merges that tiktoken's ranks imply: the merges found so far take each token, by rank,
    down to the two parts its own merge joined (minbpe's `recover_merges`)."""
    token_of = {rank: token for token, rank in ranks.items()}
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
        merges.append((token_of[parts[0]], token_of[parts[1]]))
    return merges


def from_gpt2_files(vocab_json: str | os.PathLike, merges_txt: str | os.PathLike,
                    special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN) -> Tokenizer:
    """GPT-2's tokenizer from encoder.json and vocab.bpe (Hugging Face: vocab.json, merges.txt),
    bytes written as printable characters (GPT2_BYTE_DECODER). The files do not say which entries
    are special: name them in `special_tokens`; an entry left unnamed is decode-only."""
    vocab_json = check_regular_file(vocab_json, "vocab_json")
    merges_txt = check_regular_file(merges_txt, "merges_txt")
    special_tokens = check_special_tokens(special_tokens)
    entries = read_json(vocab_json)
    if not isinstance(entries, dict) or not all(type(i) is int for i in entries.values()):
        raise ValueError(f"{vocab_json} must hold one JSON object that maps each token to its id")
    vocab: dict[int, bytes] = {}
    for token, i in entries.items():
        if i in vocab:
            raise ValueError(f"{vocab_json} gives id {i} to two tokens, the second is {token!r}")
        special = token in special_tokens
        vocab[i] = token.encode("utf-8") if special else _gpt2_bytes(token, vocab_json)
    merges = []
    for n, line in enumerate("".join(read_utf8(merges_txt)).splitlines(), 1):
        if n == 1 and line.startswith("#version"):
            continue  # the optional version line
        parts = line.split(" ")
        if len(parts) != 2:
            raise ValueError(f"{merges_txt} line {n} must be two tokens and one space, got "
                             f"{line!r}")
        merges.append((_gpt2_bytes(parts[0], merges_txt), _gpt2_bytes(parts[1], merges_txt)))
    metadata = {"source": f"GPT-2 files {vocab_json.name} and {merges_txt.name}"}
    return Tokenizer(vocab, merges, special_tokens, pattern, metadata)


def _gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's `bytes_to_unicode`, inverted: the 188 printable bytes keep their character, the
    other 68 take chr(256), ...: a token never holds a space, so merges.txt holds a pair a line."""
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
