"""Vocabulary size: every smaller BPE from one training run, what each size buys, what it costs.

BPE training is greedy: merge k is chosen from the pair counts that merges 1..k-1 left behind, and
never looks ahead. So the first k merges of a long run are exactly the merges a run asked for
256 + k tokens would learn, and `first_merges` gets every smaller vocabulary from one training at
the largest size (`at_size` cuts it by size rather than by merge count).

What a size buys is measured on held-out text (`measure_sizes`, with `measure.compression` and
`measure.utilization`): bytes and characters per token, and how many of the learned entries the text
uses at all. What a size costs is the token-indexed parameters (`embedding_params`): one V x d
matrix when input and output embeddings are tied, two otherwise, V padded up to the multiple a
training stack rounds it to (`padded_vocab_size`).

A pretrained vocabulary can also grow: `extend` goes on training a tokenizer's BPE on new text
(Chinese for GPT-2, say), appending the new tokens after the old ones, and `base_parts` names the
old tokens each new one stands for, whose embeddings are where its new rows usually start.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from tutorial_lib._check_data import check_bool, check_number, check_str_list
from tutorial_lib._checks import check_int, check_int_list, check_str, check_type
from tutorial_lib.bpe import corpus
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import PairIndex, pop_best
from tutorial_lib.text.measure import (RARE_BELOW, Compression, Utilization, token_counts,
                                       utilization)


def first_merges(tokenizer: Tokenizer, num_merges: int) -> Tokenizer:
    """The tokenizer made of the 256 bytes, the special tokens and the first `num_merges` merges.

    Ids are kept, so a token has the same id in every prefix; for a tokenizer from
    `trainer.train_tokenizer` the ids are then 0..vocab_size-1 and the result equals what training
    with vocab_size 256 + len(special_tokens) + num_merges gives.
    """
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    num_merges = check_int(num_merges, "num_merges", low=0, high=len(tokenizer.merges))
    merges = tokenizer.merges[:num_merges]
    keep = {bytes([b]) for b in range(256)} | {a + b for a, b in merges}
    keep |= {token.encode("utf-8") for token in tokenizer.special_tokens}
    vocab = {i: token for i, token in tokenizer.vocab.items() if token in keep}
    metadata = {**tokenizer.metadata, "first_merges": num_merges}
    return Tokenizer(vocab, merges, list(tokenizer.special_tokens), tokenizer.pattern, metadata)


def size_range(tokenizer: Tokenizer) -> tuple[int, int]:
    """(smallest, largest) vocabulary size one training run holds: the bytes and the special
    tokens alone, and every merge the run learned."""
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    base = 256 + len(tokenizer.special_tokens)
    return base, base + len(tokenizer.merges)


def at_size(tokenizer: Tokenizer, vocab_size: int) -> Tokenizer:
    """`first_merges` by size: the prefix of `tokenizer` with `vocab_size` entries.

    A size larger than the run reached is an error, not silently the largest: the run stopped
    early because no pair was left to merge, and the notebook should say so.
    """
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
    """Compression and utilization on `lines` for each vocabulary size, all cut from one run.

    Each size is encoded once: the token counts give both the compression (their total) and the
    utilization (which learned ids occur).
    """
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


# --- what a size costs ---------------------------------------------------------------------------


def padded_vocab_size(vocab_size: int, multiple: int = 1) -> int:
    """`vocab_size` rounded up to a multiple of `multiple`: the rows a training stack allocates.

    Matrix multiplications run fastest when their dimensions are multiples of 64 or 128, so
    training code pads the embedding and the output layer with rows no token id ever reaches
    (nanoGPT: GPT-2's 50257 to 50304, a multiple of 64; Megatron-LM: a multiple of
    `--make-vocab-size-divisible-by`, 128 by default, times the tensor-parallel size). A size
    that is already a multiple stays as it is.
    """
    vocab_size = check_int(vocab_size, "vocab_size", low=1)
    multiple = check_int(multiple, "multiple", low=1)
    return -(-vocab_size // multiple) * multiple


def embedding_params(vocab_size: int, d_model: int, tied: bool = True, multiple: int = 1) -> int:
    """Parameters indexed by token id: the V x d input embedding, plus the d x V output layer if
    untied, with V padded to `multiple` (`padded_vocab_size`)."""
    rows = padded_vocab_size(vocab_size, multiple)
    d_model = check_int(d_model, "d_model", low=1)
    return rows * d_model * (1 if check_bool(tied, "tied") else 2)


def embedding_bytes(vocab_size: int, d_model: int, tied: bool = True,
                    bytes_per_param: int = 2, multiple: int = 1) -> int:
    """Memory of `embedding_params` at `bytes_per_param` bytes each (2 for bf16, 4 for fp32)."""
    params = embedding_params(vocab_size, d_model, tied, multiple)
    return params * check_int(bytes_per_param, "bytes_per_param", low=1)


def embedding_share(vocab_size: int, d_model: int, total_params: int | float,
                    tied: bool = True) -> float:
    """Share of a model's `total_params` (embeddings included) that `embedding_params` takes."""
    params = embedding_params(vocab_size, d_model, tied)
    total = check_number(total_params, "total_params", low=params)
    return params / total


# --- growing a trained vocabulary ----------------------------------------------------------------


def extend(base: Tokenizer, texts: Sequence[str], num_tokens: int) -> Tokenizer:
    """`base` plus up to `num_tokens` tokens learned on `texts` by going on with its BPE training.

    Each pre-token of `texts` (base's split pattern) starts as base encodes it, and training goes
    on from there as `trainer.train_bpe` would, each new token taking the next free id. The new
    merges rank after every old one, and they only join tokens, so base's merges all happen first:
    a text encodes as base encodes it, then some runs of base tokens are joined. Every old id and
    merge is kept; on text unlike `texts` (English, for Chinese `texts`) little or nothing changes.
    This is what extending a byte-level BPE for a new language means: new rows after the old ones.

    A pair whose bytes already are a base token (base builds them by another path) is passed over,
    so that each new merge adds one new token. Training stops early when no pair is left.
    """
    check_type(base, "base", Tokenizer, "a Tokenizer")
    texts = check_str_list(texts, "texts", non_empty=True)
    num_tokens = check_int(num_tokens, "num_tokens", low=0)
    specials = list(base.special_tokens)
    counts = corpus.count_pretokens(texts, specials, base.pattern)
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
                                              "corpus_digest": corpus.corpus_digest(texts)}}
    return Tokenizer({**base.vocab, **new}, merges, specials, base.pattern, metadata)


def base_parts(tokenizer: Tokenizer, base: Tokenizer) -> dict[int, list[int]]:
    """For each token `extend` added to `base`: the ids of base that it joins, in order.

    A new token replaces exactly these tokens wherever base's encoding had them side by side, so
    the mean of their embeddings is the usual first value of its new embedding row (and of its
    output row, when the model does not tie them): a start near what the model already knows,
    which training on enough text of the new language must then move.
    """
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
