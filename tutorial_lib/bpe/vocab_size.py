"""Vocabulary size: every smaller BPE from one training run, what each size buys, what it costs.

BPE training is greedy (merge k never looks ahead), so the first k merges of a long run are exactly
what a run asked for 256 + k tokens would learn: `first_merges` (`at_size`) cuts every smaller
vocabulary from one run. A size buys compression on held-out text (`measure_sizes`); what it costs
a model is `embedding`'s subject. A trained vocabulary can also grow (`extend`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from tutorial_lib._check_data import check_str_list
from tutorial_lib._checks import check_int, check_int_list, check_str, check_type
from tutorial_lib.bpe.corpus import corpus_digest, count_pretokens
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import PairIndex, pop_best
from tutorial_lib.text.measure import (RARE_BELOW, Compression, Utilization, token_counts,
                                       utilization)


def first_merges(tokenizer: Tokenizer, num_merges: int) -> Tokenizer:
    """The tokenizer made of the 256 bytes, the special tokens and the first `num_merges` merges.
    Ids are kept, so a token has the same id in every prefix."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    num_merges = check_int(num_merges, "num_merges", low=0, high=len(tokenizer.merges))
    merges = tokenizer.merges[:num_merges]
    keep = {bytes([b]) for b in range(256)} | {a + b for a, b in merges}
    keep |= {token.encode("utf-8") for token in tokenizer.special_tokens}
    vocab = {i: token for i, token in tokenizer.vocab.items() if token in keep}
    metadata = {**tokenizer.metadata, "first_merges": num_merges}
    return Tokenizer(vocab, merges, list(tokenizer.special_tokens), tokenizer.pattern, metadata)


def size_range(tokenizer: Tokenizer) -> tuple[int, int]:
    """(smallest, largest) vocabulary size one training run holds."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    base = 256 + len(tokenizer.special_tokens)
    return base, base + len(tokenizer.merges)


def at_size(tokenizer: Tokenizer, vocab_size: int) -> Tokenizer:
    """`first_merges` by size; a size beyond what the run reached (out of pairs) is an error."""
    low, high = size_range(tokenizer)
    size = check_int(vocab_size, "vocab_size")
    if not low <= size <= high:
        raise ValueError(f"each vocab size must be between {low} (bytes and special tokens) and "
                         f"{high} (the size this tokenizer reached), got {size}")
    return first_merges(tokenizer, size - low)


def segment_at_size(tokenizer: Tokenizer, vocab_size: int, text: str
                    ) -> tuple[list[bytes], list[int]]:
    """(tokens as bytes, ids) of `text` under the prefix of `tokenizer` of `vocab_size` entries."""
    small = at_size(tokenizer, vocab_size)
    ids = small.encode_ordinary(check_str(text, "text", utf8=True))
    return [small.token_bytes(i) for i in ids], ids


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
    compression: Compression
    learned: Utilization | None  # of the learned tokens (those the merges made); None with no merge


def measure_sizes(tokenizer: Tokenizer, lines: Sequence[str], vocab_sizes: Iterable[int],
                  rare_below: int = RARE_BELOW) -> list[SizePoint]:
    """Compression and utilization on `lines` for each vocabulary size, all cut from one run."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    lines = check_str_list(lines, "lines", non_empty=True)
    points = []
    for size in check_int_list(list(vocab_sizes), "vocab_sizes"):
        small = at_size(tokenizer, size)
        counts = token_counts(small.encode_ordinary, lines)
        compression = Compression.of_lines(lines, sum(counts.values()))
        merges = len(small.merges)
        learned = utilization(counts, learned_ids(small), rare_below) if merges else None
        points.append(SizePoint(size, merges, compression, learned))
    return points


def extend(base: Tokenizer, texts: Sequence[str], num_tokens: int) -> Tokenizer:
    """`base` plus up to `num_tokens` tokens learned on `texts` by going on with its BPE training.

    Each pre-token of `texts` starts as base encodes it; the new merges rank after every old one,
    and every old id and merge is kept. A pair whose bytes already are a base token (built by
    another path) is passed over, so each new merge adds one new token.
    """
    check_type(base, "base", Tokenizer, "a Tokenizer")
    texts = check_str_list(texts, "texts", non_empty=True)
    num_tokens = check_int(num_tokens, "num_tokens", low=0)
    specials = list(base.special_tokens)
    counts = count_pretokens(texts, specials, base.pattern)
    words = [base.encode_ordinary(piece.decode("utf-8")) for piece in counts]
    # PairIndex orders ids by their bytes through a list indexed by id: fill the ids base skips.
    vocab = {i: base.vocab.get(i, b"") for i in range(base.vocab_size)}
    index = PairIndex.build(words, list(counts.values()), vocab)
    known, merges, first = set(base.vocab.values()), list(base.merges), base.vocab_size
    while len(vocab) < first + num_tokens and (best := pop_best(index.heap, index.counts)):
        left, right = vocab[best[0]], vocab[best[1]]
        if left + right in known:
            continue  # off the heap for good: later pairs all hold a new id, never this pair
        new_id = len(vocab)
        vocab[new_id] = left + right
        known.add(left + right)
        merges.append((left, right))
        index.merge(best, new_id, left + right)
    new = {i: vocab[i] for i in range(first, len(vocab))}
    metadata = {**base.metadata, "extended": {"num_tokens": num_tokens, "learned": len(new),
                                              "corpus_digest": corpus_digest(texts)}}
    return Tokenizer({**base.vocab, **new}, merges, specials, base.pattern, metadata)


def base_parts(tokenizer: Tokenizer, base: Tokenizer) -> dict[int, list[int]]:
    """For each token `extend` added to `base`: the ids of base that it joins, in order (the mean
    of their embeddings is the usual first value of its new row)."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    check_type(base, "base", Tokenizer, "a Tokenizer")
    old_merges = len(base.merges)
    if tokenizer.merges[:old_merges] != base.merges or any(
            tokenizer.vocab.get(i) != token for i, token in base.vocab.items()):
        raise ValueError("tokenizer must extend base (keep its ids and merges, as `extend` does)")
    old = {token: i for i, token in base.vocab.items()}
    parts: dict[bytes, list[int]] = {}
    for left, right in tokenizer.merges[old_merges:]:  # a merge's parts come before it
        parts[left + right] = [*parts.get(left, [old.get(left)]),
                               *parts.get(right, [old.get(right)])]
    id_of = {token: i for i, token in tokenizer.vocab.items()}
    return {id_of[token]: ids for token, ids in parts.items()}
