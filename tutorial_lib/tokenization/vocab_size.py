"""Vocabulary size: every smaller BPE from one training run, what each size buys, and what it costs.

BPE training is greedy: merge k is chosen from the pair counts that merges 1..k-1 left behind, and never
looks ahead. So the first k merges of a long run are exactly the merges a run asked for 256 + k tokens
would learn, and `first_merges` gets every smaller vocabulary from one training at the largest size.

What a size buys is measured on held-out text (`measure_sizes`): compression (bytes and characters per
token) and utilization (how many vocabulary entries the text uses at all, and how many only a few times).
A token that is learned but almost never used is a row of the embedding table that training almost never
updates: the "under-trained token" behind the famous glitch tokens. What a size costs is the token-indexed
parameters (`embedding_params`): one V x d matrix when input and output embeddings are tied, two otherwise.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from tutorial_lib._checks import (check_bool, check_callable, check_int, check_int_list, check_number,
                                  check_str_list, check_type)
from tutorial_lib.tokenization import metrics
from tutorial_lib.tokenization.tokenizer import Tokenizer

RARE_BELOW = 5  # a token used fewer times than this in a text counts as rare there


def first_merges(tokenizer: Tokenizer, num_merges: int) -> Tokenizer:
    """The tokenizer made of the 256 bytes, the special tokens and the first `num_merges` merges.

    Ids are kept, so a token has the same id in every prefix; for a tokenizer from `Tokenizer.train` the
    ids are then 0..vocab_size-1 and the result equals what training with vocab_size
    256 + len(special_tokens) + num_merges gives.
    """
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    num_merges = check_int(num_merges, "num_merges", low=0, high=len(tokenizer.merges))
    merges = tokenizer.merges[:num_merges]
    keep = {bytes([b]) for b in range(256)} | {a + b for a, b in merges}
    keep |= {token.encode("utf-8") for token in tokenizer.special_tokens}
    vocab = {i: token for i, token in tokenizer.vocab.items() if token in keep}
    metadata = {**tokenizer.metadata, "first_merges": num_merges}
    return Tokenizer(vocab, merges, list(tokenizer.special_tokens), tokenizer.pattern, metadata)


def token_counts(encode: Callable[[str], Sequence[int]], lines: Iterable[str]) -> Counter[int]:
    """How often each id occurs when every line is encoded on its own (ids that never occur are absent)."""
    check_callable(encode, "encode", "a function str -> list of ids")
    counts: Counter[int] = Counter()
    for line in check_str_list(lines, "lines"):
        counts.update(encode(line))
    return counts


@dataclass(frozen=True)
class Utilization:
    """How many entries of a vocabulary a text uses: at all, only rarely, or never."""

    tokens: int  # vocabulary entries looked at
    used: int  # entries that occur at least once
    rare: int  # entries that occur, but fewer than `rare_below` times
    rare_below: int

    @property
    def unused(self) -> int:
        return self.tokens - self.used

    @property
    def used_share(self) -> float:
        return self.used / self.tokens

    @property
    def rare_or_unused_share(self) -> float:
        """Entries the text gives fewer than `rare_below` examples of (never used ones included)."""
        return (self.rare + self.unused) / self.tokens


def utilization(counts: Counter[int] | dict[int, int], ids: Iterable[int], rare_below: int = RARE_BELOW
                ) -> Utilization:
    """Utilization of the vocabulary entries `ids` by a text whose token counts are `counts`.

    Pass the ids you want judged: all ordinary tokens, or only the learned ones (a merge made them), since
    the 256 bytes are there whether they are used or not.
    """
    check_type(counts, "counts", dict, "a dict or Counter of id -> count")
    ids = sorted(set(check_int_list(list(ids), "ids", low=0)))
    if not ids:
        raise ValueError("ids must name at least one vocabulary entry")
    rare_below = check_int(rare_below, "rare_below", low=1)
    used = [i for i in ids if counts.get(i, 0) > 0]
    rare = sum(counts[i] < rare_below for i in used)
    return Utilization(len(ids), len(used), rare, rare_below)


def learned_ids(tokenizer: Tokenizer) -> list[int]:
    """Ids of the tokens the merges made, in merge order (not the bytes, not the special tokens)."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    id_of = {token: i for i, token in tokenizer.vocab.items()}
    return [id_of[a + b] for a, b in tokenizer.merges]


@dataclass(frozen=True)
class SizePoint:
    """One vocabulary size of a training run, measured on held-out lines."""

    vocab_size: int  # 256 + special tokens + merges
    merges: int
    compression: metrics.Compression
    learned: Utilization | None  # of the learned tokens (those the merges made); None with no merge


def measure_sizes(tokenizer: Tokenizer, lines: Sequence[str], vocab_sizes: Iterable[int],
                  rare_below: int = RARE_BELOW) -> list[SizePoint]:
    """Compression and utilization on `lines` for each vocabulary size, all cut from one training run.

    A size larger than the run reached is an error, not silently the largest: the run stopped early
    because no pair was left to merge, and the notebook should say so.
    """
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    lines = check_str_list(lines, "lines", non_empty=True)
    base = 256 + len(tokenizer.special_tokens)
    largest = base + len(tokenizer.merges)
    points = []
    for size in check_int_list(list(vocab_sizes), "vocab_sizes"):
        if not base <= size <= largest:
            raise ValueError(f"each vocab size must be between {base} (bytes and special tokens) and {largest} "
                             f"(the size this tokenizer reached), got {size}")
        small = first_merges(tokenizer, size - base)
        counts = token_counts(small.encode_ordinary, lines)
        compression = metrics.Compression(sum(map(len, lines)), sum(len(line.encode("utf-8")) for line in lines),
                                          sum(counts.values()))
        learned = utilization(counts, learned_ids(small), rare_below) if size > base else None
        points.append(SizePoint(size, size - base, compression, learned))
    return points


def embedding_params(vocab_size: int, d_model: int, tied: bool = True) -> int:
    """Parameters indexed by token id: the V x d input embedding, plus the d x V output layer if untied."""
    vocab_size = check_int(vocab_size, "vocab_size", low=1)
    d_model = check_int(d_model, "d_model", low=1)
    return vocab_size * d_model * (1 if check_bool(tied, "tied") else 2)


def embedding_share(vocab_size: int, d_model: int, total_params: int | float, tied: bool = True) -> float:
    """Share of a model's `total_params` (embeddings included) that `embedding_params` takes."""
    params = embedding_params(vocab_size, d_model, tied)
    total = check_number(total_params, "total_params", low=params)
    return params / total

