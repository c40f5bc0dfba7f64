"""Batches: rows of token ids of different lengths made into one rectangle a model can take.

A model reads a batch as a matrix of shape (rows, length), but sentences and documents come in every length.
The simplest fix is padding: add a pad id to each shorter row until all rows are equally long. The pad cells
are filler, so the batch also carries an attention mask of the same shape: 1 where a real token sits, 0 where
padding does, and attention (and the loss, through labels of -100) ignores every 0. The names follow Hugging
Face's (`input_ids`, `attention_mask`, `labels`, `padding_side`, `pad_to_multiple_of`, `max_length`,
`truncation_side`), the ones a learner meets in any training script.

Every pad cell is compute spent on nothing. Batching rows of similar length (bucketing) wastes less; the
packing strategies in this package waste less still. This module works on ids only, whatever tokenizer made
them.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tutorial_lib._checks import (check_bool, check_choice, check_dtype, check_int, check_int_list, check_sequence,
                                  check_type)

IGNORE_INDEX = -100  # the label PyTorch's cross_entropy skips by default: no loss at that position
SIDES = ("right", "left")


@dataclass(frozen=True)
class Batch:
    """A rectangle of ids plus the mask saying which cells are real tokens."""

    input_ids: list[list[int]]  # every row equally long, filled with the pad id on the padding side
    attention_mask: list[list[int]]  # 1 = real token, 0 = padding the model must ignore
    num_truncated_tokens: int = 0  # real tokens cut off by truncation (0 unless truncation was asked for)

    @property
    def lengths(self) -> list[int]:
        """Real tokens per row."""
        return [sum(mask) for mask in self.attention_mask]

    @property
    def padding_share(self) -> float:
        """Share of the batch's cells that hold padding (0.0 for a batch without cells)."""
        cells = sum(map(len, self.attention_mask))
        return 1 - sum(self.lengths) / cells if cells else 0.0


def pad(rows: Sequence[Sequence[int]], pad_id: int, *, padding_side: str = "right", max_length: int | None = None,
        pad_to_multiple_of: int | None = None, truncation: bool = False, truncation_side: str = "right") -> Batch:
    """Pad every row with `pad_id` on `padding_side` to one width, as a Hugging Face tokenizer does.

    The width is the longest row's length, or `max_length` when given, rounded up to a multiple of
    `pad_to_multiple_of` (GPU kernels run fastest on multiples of 8 or 64; like Hugging Face, the rounding
    may take the width past `max_length`). A row longer than `max_length` is an error unless `truncation`
    is True: then its tokens on `truncation_side` are cut, and `num_truncated_tokens` says how many.

    The mask comes from each row's length, not from comparing ids with `pad_id`: the pad id may also occur as
    a real token (GPT-2 has no pad token, so it is usually padded with its end-of-text token), and those real
    occurrences must stay visible.
    """
    pad_id = check_int(pad_id, "pad_id", low=0)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    truncation_side = check_choice(truncation_side, "truncation_side", SIDES)
    truncation = check_bool(truncation, "truncation")
    if max_length is not None:
        max_length = check_int(max_length, "max_length", low=1)
    if pad_to_multiple_of is not None:
        pad_to_multiple_of = check_int(pad_to_multiple_of, "pad_to_multiple_of", low=1)
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
    ids, masks = [], []
    for row in rows:
        filler = width - len(row)
        ids.append(row + [pad_id] * filler if padding_side == "right" else [pad_id] * filler + row)
        masks.append([1] * len(row) + [0] * filler if padding_side == "right" else [0] * filler + [1] * len(row))
    return Batch(ids, masks, cut)


def _truncate(rows: list[list[int]], max_length: int, truncation: bool, side: str) -> tuple[list[list[int]], int]:
    """Rows cut to `max_length` on `side`, and how many tokens that removed; an error if cutting was not asked."""
    too_long = next((i for i, row in enumerate(rows) if len(row) > max_length), None)
    if too_long is None:
        return rows, 0
    if not truncation:
        raise ValueError(f"rows[{too_long}] has {len(rows[too_long])} tokens, more than max_length={max_length}; "
                         "pass truncation=True to cut rows (nothing is cut unless asked)")
    cut = sum(max(0, len(row) - max_length) for row in rows)
    return [row[:max_length] if side == "right" else row[max(0, len(row) - max_length):] for row in rows], cut


# --- masks ----------------------------------------------------------------------------------------------


def attention_mask_from_lengths(lengths: Sequence[int], width: int | None = None,
                                padding_side: str = "right") -> np.ndarray:
    """The (B, width) 0/1 mask of rows with these lengths; `width` defaults to the longest.

    This is the safe way to build a mask: it never looks at ids, so a pad id that is also a real token
    cannot hide that token.
    """
    lengths = check_int_list(lengths, "lengths", low=0)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    longest = max(lengths, default=0)
    width = longest if width is None else check_int(width, "width", low=longest)
    n = np.array(lengths, dtype=np.int64)[:, None]
    positions = np.arange(width)[None, :]
    real = positions < n if padding_side == "right" else positions >= width - n
    return real.astype(np.int64)


def attention_mask_from_pad_id(input_ids: Sequence[Sequence[int]], pad_id: int,
                               padding_side: str = "right") -> np.ndarray:
    """The mask many scripts write as `input_ids != pad_id`, refused when that provably hides a real token.

    If the pad id occurs between real tokens (before the last non-pad id of a right-padded row, after the first
    of a left-padded one), it is a real token too and `!=` would mask it: ValueError. A real pad id at the
    very end of a row cannot be told from padding at all, which is why `pad` and
    `attention_mask_from_lengths` build masks from lengths instead.
    """
    ids = _matrix(input_ids, "input_ids")
    pad_id = check_int(pad_id, "pad_id", low=0)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    real = ids != pad_id
    run = np.cumsum(real[:, ::-1], axis=1)[:, ::-1] if padding_side == "right" else np.cumsum(real, axis=1)
    inside = (~real) & (run > 0)  # a pad id with a real token still to come on the far side
    if inside.any():
        row, col = map(int, np.argwhere(inside)[0])
        raise ValueError(f"pad_id={pad_id} is also a real token: input_ids[{row}][{col}] sits between real tokens, "
                         "and a mask from input_ids != pad_id would hide it; build the mask from the lengths "
                         "(attention_mask_from_lengths) or use a pad id the tokenizer never produces")
    return real.astype(np.int64)


def causal_padding_mask(attention_mask: Sequence[Sequence[int]]) -> np.ndarray:
    """Boolean (B, L, L): query i of row b may attend to key j when j <= i (causal) and key j is a real token.

    Only keys are masked, as in Hugging Face's 4-D causal mask: a padding query's output is never used. A query
    with no real key at or before it (the pads at the front of a left-padded row) gets an all-False row, which
    turns a softmax over -inf into NaN; an attention using this mask must guard against that.
    """
    mask = _matrix(attention_mask, "attention_mask")
    if not np.isin(mask, (0, 1)).all():
        raise ValueError("attention_mask must hold only 0 and 1 (or False and True)")
    length = mask.shape[1]
    causal = np.tril(np.ones((length, length), dtype=bool))
    return causal[None, :, :] & mask.astype(bool)[:, None, :]


def _matrix(rows: object, name: str) -> np.ndarray:
    """A rectangular 2-D array of ints >= 0 from a list of equally long rows (or a 2-D array); ragged rows are
    refused."""
    if isinstance(rows, np.ndarray) and rows.ndim == 2:
        check_dtype(rows, name, "biu", "ints")
        if (rows < 0).any():
            raise ValueError(f"{name} must hold ints >= 0, got {rows.min()}")
        return rows.astype(np.int64)
    rows = [check_int_list(row, f"{name}[{i}]", low=0)
            for i, row in enumerate(check_sequence(rows, name, "a list of rows"))]
    widths = sorted({len(row) for row in rows})
    if len(widths) > 1:
        raise ValueError(f"{name} must be rectangular (every row equally long), got rows of lengths {widths}; "
                         "pad the rows first")
    return np.array(rows, dtype=np.int64).reshape(len(rows), widths[0] if widths else 0)


# --- labels ---------------------------------------------------------------------------------------------


def labels(batch: Batch) -> np.ndarray:
    """Hugging Face's labels: a copy of input_ids with IGNORE_INDEX (-100) wherever the mask is 0. NOT shifted.

    A Hugging Face causal LM shifts inside the model (logits at t are scored against labels at t + 1), so the
    labels a data collator hands it line up with input_ids. Built from the mask, never from `ids == pad_id`,
    so a real end-of-text token that doubles as the pad id keeps its label and the model learns to stop.
    """
    ids, mask = _batch_arrays(batch)
    return np.where(mask == 1, ids, IGNORE_INDEX)


def next_token_labels(batch: Batch) -> np.ndarray:
    """Shifted labels: position t's target is the token at t + 1, IGNORE_INDEX where t or t + 1 is padding.

    For a model that does not shift by itself (the loss compares logits[t] with labels[t] directly). The last
    real token of each row has no next token, so a row of n real tokens has n - 1 targets.
    """
    ids, mask = _batch_arrays(batch)
    out = np.full_like(ids, IGNORE_INDEX)
    both = (mask[:, :-1] == 1) & (mask[:, 1:] == 1)
    out[:, :-1] = np.where(both, ids[:, 1:], IGNORE_INDEX)
    return out


def _batch_arrays(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    check_type(batch, "batch", Batch, "a Batch (from pad)")
    return _matrix(batch.input_ids, "batch.input_ids"), _matrix(batch.attention_mask, "batch.attention_mask")


# --- bucketing ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Batching:
    """Rows grouped into batches (indices into the lengths), with what padding each batch to its longest costs."""

    batches: list[list[int]]
    tokens: int  # real tokens
    cells: int  # sum over batches of rows x longest row: what the model computes on

    @property
    def padding_ratio(self) -> float:
        """Share of the cells that are padding (0.0 when there are no cells)."""
        return 1 - self.tokens / self.cells if self.cells else 0.0


def random_batches(lengths: Sequence[int], batch_size: int, seed: int = 0) -> Batching:
    """Shuffle the rows, then cut them into batches of `batch_size` (the last may be smaller)."""
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    order = list(range(len(lengths)))
    random.Random(check_int(seed, "seed")).shuffle(order)
    return _batching(lengths, _chunks(order, batch_size))


def sorted_batches(lengths: Sequence[int], batch_size: int) -> Batching:
    """Sort the rows by length (shortest first, ties in input order), then cut into batches: the least padding
    for contiguous batches, but every batch holds one length range, so the batches are not shuffled samples."""
    lengths, batch_size = _lengths_and_size(lengths, batch_size)
    return _batching(lengths, _chunks(sorted(range(len(lengths)), key=lengths.__getitem__), batch_size))


def bucketed_batches(lengths: Sequence[int], batch_size: int, bucket_width: int, seed: int = 0) -> Batching:
    """Length bucketing: rows whose lengths fall in the same `bucket_width`-wide range ([0, w), [w, 2w), ...)
    form a bucket; each bucket is shuffled and cut into batches, and the batches are shuffled.

    Every batch then mixes only similar lengths, so little padding is needed, while the order stays random
    enough for training. A bucket's last batch may be smaller than `batch_size`.
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


def _lengths_and_size(lengths: Sequence[int], batch_size: int) -> tuple[list[int], int]:
    return check_int_list(lengths, "lengths", low=0), check_int(batch_size, "batch_size", low=1)


def _chunks(order: list[int], size: int) -> list[list[int]]:
    return [order[i:i + size] for i in range(0, len(order), size)]


def _batching(lengths: list[int], batches: list[list[int]]) -> Batching:
    cells = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return Batching(batches, sum(lengths), cells)
