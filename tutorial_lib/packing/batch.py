"""Batches: rows of token ids of different lengths made into one rectangle a model can take.

Padding adds a pad id to each shorter row until all are equally long; the attention mask (1 = real
token, 0 = padding) and the labels (IGNORE_INDEX) make attention and the loss ignore the padding.
The names are Hugging Face's, the ones a learner meets in any training script. Every pad cell is
compute spent on nothing (`padding_share`); bucketing rows of similar length wastes less, and the
packing strategies less still.
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
from tutorial_lib.packing.masks import (SIDES, as_doc_ids, attention_mask_from_lengths, loss_mask,
                                        padding_share)

IGNORE_INDEX = -100  # the label PyTorch's cross_entropy skips by default: no loss at that position


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

    The width (the longest row, or `max_length`) is rounded up to `pad_to_multiple_of`. The mask
    comes from each row's length, not from `ids != pad_id`: the pad id may also be a real token
    (GPT-2 is usually padded with its end-of-text token), and those must stay visible.
    """
    pad_id = check_int(pad_id, "pad_id", low=0, high=INT64_MAX)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    truncation_side = check_choice(truncation_side, "truncation_side", SIDES)
    truncation = check_bool(truncation, "truncation")
    if max_length is not None:
        max_length = check_int(max_length, "max_length", low=1, high=INT64_MAX)
    multiple = None if pad_to_multiple_of is None else \
        check_int(pad_to_multiple_of, "pad_to_multiple_of", low=1, high=INT64_MAX)
    if truncation and max_length is None:
        raise ValueError("truncation=True needs max_length: the length to cut rows down to")
    rows = [check_int_list(row, f"rows[{i}]", low=0)
            for i, row in enumerate(check_sequence(rows, "rows", "a list of rows of ids"))]
    cut = 0
    if max_length is not None:
        rows, cut = _truncate(rows, max_length, truncation, truncation_side)
    width = max_length if max_length is not None else max(map(len, rows), default=0)
    if multiple is not None:
        width = -(-width // multiple) * multiple
    asked = [f"{k}={v}" for k, v in (("max_length", max_length),
                                     ("pad_to_multiple_of", multiple)) if v is not None]
    check_cells((len(rows), width), np.int64, " and ".join(asked) or "the longest row")
    ids = []
    for row in rows:
        filler = [pad_id] * (width - len(row))
        ids.append(row + filler if padding_side == "right" else filler + row)
    mask = attention_mask_from_lengths(list(map(len, rows)), width, padding_side).tolist()
    return Batch(ids, mask, cut)


def _truncate(rows: list[list[int]], max_length: int, truncation: bool,
              side: str) -> tuple[list[list[int]], int]:
    """Rows cut to `max_length` on `side`, and the tokens cut; an error unless `truncation`."""
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
    """Hugging Face's labels: input_ids with IGNORE_INDEX wherever the mask is 0, NOT shifted (the
    model shifts). From the mask, not `ids == pad_id`: a real end-of-text token keeps its label."""
    check_type(batch, "batch", Batch, "a Batch (from pad)")
    ids = check_int_rows(batch.input_ids, "batch.input_ids", low=0, ndim=(2,))
    mask = check_int_rows(batch.attention_mask, "batch.attention_mask", low=0, high=1, ndim=(2,))
    if ids.shape != mask.shape:  # numpy would stretch a one-row mask over every row
        raise ValueError(f"batch.input_ids and batch.attention_mask must have the same shape, got "
                         f"{ids.shape} and {mask.shape}")
    return np.where(mask == 1, ids, IGNORE_INDEX)


def next_token_labels(tokens: object, doc_ids: object) -> np.ndarray:
    """Shifted labels for a model that does not shift by itself: position t's target is
    tokens[t + 1] when t + 1 holds the same document as t (`masks.loss_mask`), else IGNORE_INDEX."""
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
    """Rows grouped into batches (indices into the lengths), and the cells they are padded to."""
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
    """Cut the rows into batches of `batch_size` in the order given (the last may be smaller)."""
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
    least padding, but the batches are not shuffled samples."""
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    return _batching(lengths, _chunks(order, batch_size))


def bucketed_batches(lengths: Sequence[int], batch_size: int, bucket_width: int,
                     seed: int = 0) -> Batching:
    """Length bucketing: rows in the same `bucket_width`-wide length range form a bucket, each
    bucket is shuffled and cut into batches, the batches shuffled: little padding, random order."""
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
    rng.shuffle(batches)  # the batches, not only the rows: no batch order by length
    return _batching(lengths, batches)


BATCHINGS = ("random", "bucketed", "sorted")  # the batchings chapter 07 compares, by name


def batches_by(how: str, lengths: Sequence[int], batch_size: int, bucket_width: int) -> Batching:
    """The batching named `how` (one of BATCHINGS); `bucket_width` is used by "bucketed" only."""
    if check_choice(how, "how", BATCHINGS) == "bucketed":
        return bucketed_batches(lengths, batch_size, bucket_width)
    return (random_batches if how == "random" else sorted_batches)(lengths, batch_size)


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
