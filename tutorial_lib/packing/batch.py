"""Batches: rows of token ids of different lengths made into one rectangle a model can take.

A model reads a batch as a matrix of shape (rows, length), but sentences and documents come in every
length. The simplest fix is padding: add a pad id to each shorter row until all rows are equally
long. The pad cells are filler, so the batch also carries an attention mask of the same shape: 1
where a real token sits, 0 where padding does, and attention (see `masks`) and the loss (through
labels of IGNORE_INDEX) ignore every 0. The names follow Hugging Face's (`input_ids`,
`attention_mask`, `labels`, `padding_side`, `pad_to_multiple_of`, `max_length`, `truncation_side`),
the ones a learner meets in any training script.

Every pad cell is compute spent on nothing: `padding_share` says how much of a batch, a batching
or a packing that is. Batching rows of similar length (bucketing) wastes less; the packing
strategies in this package waste less still. This module works on ids only, whatever tokenizer made
them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_bool, check_int_rows
from tutorial_lib._checks import (INT64_MAX, check_choice, check_int, check_int_list,
                                  check_sequence, check_type)
from tutorial_lib._memory import check_cells
from tutorial_lib.packing.masks import SIDES, as_doc_ids, attention_mask_from_lengths, loss_mask

IGNORE_INDEX = -100  # the label PyTorch's cross_entropy skips by default: no loss at that position


def padding_share(tokens: int, cells: int) -> float:
    """The share of `cells` that hold no token, 1 - tokens / cells (0.0 when there are no cells).

    The one formula behind every padding share of the course: a padded batch, a batching, a packing.
    """
    cells = check_int(cells, "cells", low=0)
    tokens = check_int(tokens, "tokens", low=0, high=cells)
    return 1 - tokens / cells if cells else 0.0


@dataclass(frozen=True)
class Batch:
    """A rectangle of ids plus the mask saying which cells are real tokens."""

    input_ids: list[list[int]]  # every row equally long, filled with the pad id on the padding side
    attention_mask: list[list[int]]  # 1 = real token, 0 = padding the model must ignore
    num_truncated_tokens: int = 0  # real tokens cut off by truncation (0 unless it was asked for)

    @property
    def lengths(self) -> list[int]:
        """Real tokens per row."""
        return [sum(mask) for mask in self.attention_mask]

    @property
    def padding_share(self) -> float:
        """Share of the batch's cells that hold padding (0.0 for a batch without cells)."""
        return padding_share(sum(self.lengths), sum(map(len, self.attention_mask)))


def pad(rows: Sequence[Sequence[int]], pad_id: int, *, padding_side: str = "right",
        max_length: int | None = None, pad_to_multiple_of: int | None = None,
        truncation: bool = False, truncation_side: str = "right") -> Batch:
    """Pad every row with `pad_id` on `padding_side` to one width, as a Hugging Face tokenizer does.

    The width is the longest row's length, or `max_length` when given, rounded up to a multiple of
    `pad_to_multiple_of` (GPU kernels run fastest on multiples of 8 or 64; like Hugging Face, the
    rounding may take the width past `max_length`). A row longer than `max_length` is an error
    unless `truncation` is True: then its tokens on `truncation_side` are cut, and
    `num_truncated_tokens` says how many.

    The mask comes from each row's length, not from comparing ids with `pad_id`: the pad id may also
    occur as a real token (GPT-2 has no pad token, so it is usually padded with its end-of-text
    token), and those real occurrences must stay visible.
    """
    pad_id = check_int(pad_id, "pad_id", low=0, high=INT64_MAX)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    truncation_side = check_choice(truncation_side, "truncation_side", SIDES)
    truncation = check_bool(truncation, "truncation")
    if max_length is not None:
        max_length = check_int(max_length, "max_length", low=1, high=INT64_MAX)
    if pad_to_multiple_of is not None:
        pad_to_multiple_of = check_int(pad_to_multiple_of, "pad_to_multiple_of", low=1,
                                       high=INT64_MAX)
    if truncation and max_length is None:
        raise ValueError("truncation=True needs max_length: the length to cut rows down to")
    rows = [check_int_list(row, f"rows[{i}]", low=0)
            for i, row in enumerate(check_sequence(rows, "rows", "a list of rows of ids"))]
    cut = 0
    if max_length is not None:
        rows, cut = _truncate(rows, max_length, truncation, truncation_side)
    width = max_length if max_length is not None else max(map(len, rows), default=0)
    if pad_to_multiple_of is not None:
        width = -(-width // pad_to_multiple_of) * pad_to_multiple_of
    asked = [f"{k}={v}" for k, v in (("max_length", max_length),
                                     ("pad_to_multiple_of", pad_to_multiple_of)) if v is not None]
    check_cells((len(rows), width), np.int64, " and ".join(asked) or "the longest row")
    ids = []
    for row in rows:
        filler = [pad_id] * (width - len(row))
        ids.append(row + filler if padding_side == "right" else filler + row)
    mask = attention_mask_from_lengths(list(map(len, rows)), width, padding_side).tolist()
    return Batch(ids, mask, cut)


def _truncate(rows: list[list[int]], max_length: int, truncation: bool,
              side: str) -> tuple[list[list[int]], int]:
    """Rows cut to `max_length` on `side`, and how many tokens that removed; an error if cutting
    was not asked for."""
    too_long = next((i for i, row in enumerate(rows) if len(row) > max_length), None)
    if too_long is None:
        return rows, 0
    if not truncation:
        raise ValueError(f"rows[{too_long}] has {len(rows[too_long])} tokens, more than "
                         f"max_length={max_length}; pass truncation=True to cut rows (nothing is "
                         "cut unless asked)")
    cut = sum(max(0, len(row) - max_length) for row in rows)
    if side == "right":
        return [row[:max_length] for row in rows], cut
    return [row[max(0, len(row) - max_length):] for row in rows], cut


# --- labels -----------------------------------------------------------------------------------


def labels(batch: Batch) -> np.ndarray:
    """Hugging Face's labels: a copy of input_ids with IGNORE_INDEX wherever the mask is 0. NOT
    shifted.

    A Hugging Face causal LM shifts inside the model (logits at t are scored against labels at
    t + 1), so the labels a data collator hands it line up with input_ids. Built from the mask,
    never from `ids == pad_id`, so a real end-of-text token that doubles as the pad id keeps its
    label and the model learns to stop. The mask must hold only 0 and 1 and have the shape of the
    ids: a 2 or a one-row mask would otherwise be read as padding or stretched over every row.
    """
    check_type(batch, "batch", Batch, "a Batch (from pad)")
    ids = check_int_rows(batch.input_ids, "batch.input_ids", low=0, ndim=(2,))
    mask = check_int_rows(batch.attention_mask, "batch.attention_mask", low=0, high=1, ndim=(2,))
    if ids.shape != mask.shape:  # numpy would stretch a one-row mask over every row
        raise ValueError(f"batch.input_ids and batch.attention_mask must have the same shape, got "
                         f"{ids.shape} and {mask.shape}")
    return np.where(mask == 1, ids, IGNORE_INDEX)


def next_token_labels(tokens: object, doc_ids: object) -> np.ndarray:
    """Shifted labels, in the shape of `tokens`: position t's target is tokens[t + 1] when t + 1
    holds the same document as t (`masks.loss_mask`), else IGNORE_INDEX.

    For a model that does not shift by itself (the loss compares logits[t] with labels[t]). The last
    token of a document has no target: its next token starts an unrelated document, or is padding,
    or lies past the row. A padded batch is one document per row, `masks.padded_doc_ids(mask)`; a
    packed row of L + 1 tokens trains its L inputs tokens[:-1] on the labels [:-1]. Tokens are ids
    >= 0: a negative one in the labels could not be told from IGNORE_INDEX.
    """
    ids = as_doc_ids(doc_ids)
    tokens = check_int_rows(tokens, "tokens", low=0)  # a negative one would look like a label
    if tokens.shape != ids.shape:
        raise ValueError(f"tokens and doc_ids must have the same shape, got {tokens.shape} and "
                         f"{ids.shape}")
    out = np.full_like(tokens, IGNORE_INDEX)
    out[..., :-1] = np.where(loss_mask(ids)[..., :-1], tokens[..., 1:], IGNORE_INDEX)
    return out


# --- bucketing --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Batching:
    """Rows grouped into batches (indices into the lengths), with what padding each batch to its
    longest row costs."""

    batches: list[list[int]]
    tokens: int  # real tokens
    cells: int  # sum over batches of rows x longest row: what the model computes on

    @property
    def padding_share(self) -> float:
        """Share of the cells that are padding (0.0 when there are no cells)."""
        return padding_share(self.tokens, self.cells)


class PaddedBatch(NamedTuple):
    """One batch of a batching: its rows, the width they are padded to, the share of padding."""

    rows: list[int]  # indices into the lengths
    width: int  # the longest row of the batch
    padding_share: float


def ordered_batches(lengths: Sequence[int], batch_size: int) -> Batching:
    """Cut the rows into batches of `batch_size` in the order given (the last may be smaller), as a
    data loader that does not shuffle does."""
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    return _batching(lengths, _chunks(list(range(len(lengths))), batch_size))


def random_batches(lengths: Sequence[int], batch_size: int, seed: int = 0) -> Batching:
    """Shuffle the rows, then cut them into batches of `batch_size` (the last may be smaller)."""
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    order = list(range(len(lengths)))
    random.Random(check_int(seed, "seed")).shuffle(order)
    return _batching(lengths, _chunks(order, batch_size))


def sorted_batches(lengths: Sequence[int], batch_size: int) -> Batching:
    """Sort the rows by length (shortest first, ties in input order), then cut into batches: the
    least padding for contiguous batches, but every batch holds one length range, so the batches
    are not shuffled samples."""
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    return _batching(lengths, _chunks(order, batch_size))


def bucketed_batches(lengths: Sequence[int], batch_size: int, bucket_width: int,
                     seed: int = 0) -> Batching:
    """Length bucketing: rows whose lengths fall in the same `bucket_width`-wide range ([0, w),
    [w, 2w), ...) form a bucket; each bucket is shuffled and cut into batches, and the batches are
    shuffled.

    Every batch then mixes only similar lengths, so little padding is needed, while the order stays
    random enough for training. A bucket's last batch may be smaller than `batch_size`.
    """
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    bucket_width = check_int(bucket_width, "bucket_width", low=1)
    rng = random.Random(check_int(seed, "seed"))
    buckets: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        buckets.setdefault(n // bucket_width, []).append(i)
    batches = []
    for key in sorted(buckets):
        rng.shuffle(buckets[key])
        batches += _chunks(buckets[key], batch_size)
    rng.shuffle(batches)
    return _batching(lengths, batches)


BATCHINGS = ("random", "bucketed", "sorted")  # the batchings chapter 07 compares, by name


def batches_by(how: str, lengths: Sequence[int], batch_size: int, bucket_width: int) -> Batching:
    """The batching named `how` (one of BATCHINGS); `bucket_width` is used by "bucketed" only."""
    check_choice(how, "how", BATCHINGS)
    if how == "random":
        return random_batches(lengths, batch_size)
    if how == "bucketed":
        return bucketed_batches(lengths, batch_size, bucket_width)
    return sorted_batches(lengths, batch_size)


def padded_batches(lengths: Sequence[int], batching: Batching) -> list[PaddedBatch]:
    """Every batch of `batching` on its own: the width it is padded to and its share of padding."""
    lengths = check_int_list(lengths, "lengths", low=0)
    check_type(batching, "batching", Batching, "a Batching (from packing.batch)")
    out = []
    for rows in batching.batches:
        width = max(lengths[i] for i in rows)
        out.append(PaddedBatch(rows, width, padding_share(sum(lengths[i] for i in rows),
                                                          len(rows) * width)))
    return out


def _lengths_and_size(lengths: Sequence[int], batch_size: int) -> tuple[list[int], int]:
    return check_int_list(lengths, "lengths", low=0), check_int(batch_size, "batch_size", low=1)


def _chunks(order: list[int], size: int) -> list[list[int]]:
    return [order[i:i + size] for i in range(0, len(order), size)]


def _batching(lengths: list[int], batches: list[list[int]]) -> Batching:
    cells = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return Batching(batches, sum(lengths), cells)
