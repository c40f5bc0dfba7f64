"""Batches: rows of token ids of different lengths made into one rectangle a model can take.

A model reads a batch as a matrix of shape (rows, length), but sentences and documents come in every length.
The simplest fix is padding: append a pad id to each shorter row until it is as long as the longest row. The
pad cells are filler, so the batch also carries an attention mask of the same shape: 1 where a real token
sits, 0 where padding does, and attention (and later the loss) ignores every 0. The names follow Hugging
Face's, `input_ids` and `attention_mask`, the ones a learner meets in any training script.

Every pad cell is compute spent on nothing; the packing strategies in this package exist to waste less.
This module works on ids only, whatever tokenizer made them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tutorial_lib._checks import check_int, check_int_list, check_sequence


@dataclass(frozen=True)
class Batch:
    """A rectangle of ids plus the mask saying which cells are real tokens."""

    input_ids: list[list[int]]  # every row as long as the longest, padded at the end with the pad id
    attention_mask: list[list[int]]  # 1 = real token, 0 = padding the model must ignore


def pad(rows: Sequence[Sequence[int]], pad_id: int) -> Batch:
    """Pad every row at the end with `pad_id` to the length of the longest row; nothing is truncated.

    The mask comes from each row's length, not from comparing ids with `pad_id`: the pad id may also occur as
    a real token (GPT-2 has no pad token, so it is usually padded with its end-of-text token), and those real
    occurrences must stay visible.
    """
    pad_id = check_int(pad_id, "pad_id", low=0)
    rows = check_sequence(rows, "rows", "a list of rows of ids")
    rows = [check_int_list(row, f"rows[{i}]", low=0) for i, row in enumerate(rows)]
    width = max(map(len, rows), default=0)
    return Batch(input_ids=[row + [pad_id] * (width - len(row)) for row in rows],
                 attention_mask=[[1] * len(row) + [0] * (width - len(row)) for row in rows])
