"""Masks: which keys each query of a row may attend to, each mask defined once, True = may attend.

`causal_mask`; the (B, L) padding mask, 1 = real token (from lengths, because a pad id may also
be a real token), and `padding_share`, the one formula for the share of cells that are padding;
`causal_padding_mask`, the one meaning of "因果+填充" in chapters 07 and 09 alike; `document_mask`,
the block-diagonal causal mask of a packed row. A packed row is described by `doc_ids`, one int
per position: the index of the document that position holds, PAD_DOC for padding. A document is one
consecutive run of its id in a row; a piece of it that starts the next row is a document of its
own, since rows never see each other. From `doc_ids` also come the position ids that restart at
every document, the varlen kernels' `cu_seqlens`, the loss mask, and `mask_cells`. Every function
takes one row (1-D) or a batch (2-D).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_dtype, check_int_rows
from tutorial_lib._checks import INT64_MAX, check_choice, check_int, check_int_list, check_sequence
from tutorial_lib._memory import check_cells

PAD_DOC = -1  # the doc id of a padding position: it belongs to no document
SIDES = ("right", "left")  # where a row's padding goes (padding_side)
KINDS = ("causal", "causal_padding", "document")  # the masks of a packed row, by name (row_mask)
LEAK = -2  # in mask_cells: an allowed cell where a query sees another document
BLOCKED = -3  # in mask_cells: a cell the mask does not allow


# --- causal and padding masks -----------------------------------------------------------------
def causal_mask(length: int) -> np.ndarray:
    """(L, L), True on and below the diagonal: every token sees itself and every earlier token."""
    length = check_int(length, "length", low=0, high=INT64_MAX)
    check_cells((length, length), bool, f"length={length}")
    return np.tril(np.ones((length, length), dtype=bool))


def attention_mask_from_lengths(lengths: Sequence[int], width: int | None = None,
                                padding_side: str = "right") -> np.ndarray:
    """The (B, width) 0/1 mask of rows with these lengths (`width`: the longest by default). It
    never looks at ids, so a pad id that is also a real token cannot hide that token."""
    lengths = check_int_list(lengths, "lengths", low=0)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    longest = max(lengths, default=0)
    asked = f"width={width}" if width is not None else f"the longest of lengths, {longest},"
    width = longest if width is None else check_int(width, "width", low=longest, high=INT64_MAX)
    check_cells((len(lengths), width), np.int64, asked)
    n = np.array(lengths, dtype=np.int64)[:, None]
    positions = np.arange(width)[None, :]
    real = positions < n if padding_side == "right" else positions >= width - n
    return real.astype(np.int64)


def attention_mask_from_pad_id(input_ids: Sequence[Sequence[int]], pad_id: int,
                               padding_side: str = "right") -> np.ndarray:
    """The mask many scripts write as `input_ids != pad_id`, refused (ValueError) when a pad id
    sits between real tokens: it is a real token too, and `!=` would hide it. One at the very end
    of a row cannot be told from padding at all: `batch.pad` builds masks from lengths."""
    ids = check_int_rows(input_ids, "input_ids", low=0, ndim=(2,))
    pad_id = check_int(pad_id, "pad_id", low=0, high=INT64_MAX)
    padding_side = check_choice(padding_side, "padding_side", SIDES)
    real = ids != pad_id
    ahead = np.cumsum(real[:, ::-1], axis=1)[:, ::-1] if padding_side == "right" else \
        np.cumsum(real, axis=1)  # real tokens from here to the far end of the row
    inside = (~real) & (ahead > 0)  # a pad id with a real token still to come: a real token too
    if inside.any():
        row, col = map(int, np.argwhere(inside)[0])
        raise ValueError(f"pad_id={pad_id} is also a real token: input_ids[{row}][{col}] sits "
                         "between real tokens, and a mask from input_ids != pad_id would hide it; "
                         "build the mask from the lengths (attention_mask_from_lengths) or use a "
                         "pad id the tokenizer never produces")
    return real.astype(np.int64)


def causal_padding_mask(attention_mask: object) -> np.ndarray:
    """(..., L, L): query i may attend to key j when j <= i (causal) and key j is a real token.

    Only keys are masked, as in Hugging Face's 4-D causal mask (a padding query's label is
    IGNORE_INDEX anyway). Left padding gets all-False rows, whose softmax over -inf is NaN.
    """
    real = _real(attention_mask)
    check_cells(real.shape + real.shape[-1:], bool, f"attention_mask of shape {real.shape}")
    return causal_mask(real.shape[-1]) & real[..., None, :]


def padding_share(tokens: int, cells: int) -> float:
    """The share of `cells` that hold no token, 1 - tokens / cells (0.0 when there are no cells):
    the one formula behind every padding share of the course."""
    cells = check_int(cells, "cells", low=0)
    tokens = check_int(tokens, "tokens", low=0, high=cells)
    return 1 - tokens / cells if cells else 0.0


def _real(attention_mask: object) -> np.ndarray:
    """A 0/1 (or bool) attention mask of one row or a batch as bool: True = a real token."""
    if isinstance(attention_mask, np.ndarray):
        check_dtype(attention_mask, "attention_mask", "biu", "an array of int or bool")
        attention_mask = attention_mask.astype(np.int64)
    mask = check_int_rows(attention_mask, "attention_mask")
    if not np.isin(mask, (0, 1)).all():
        raise ValueError("attention_mask must hold only 0 and 1 (or False and True)")
    return mask.astype(bool)


# --- doc_ids ----------------------------------------------------------------------------------
def as_doc_ids(doc_ids: object, name: str = "doc_ids") -> np.ndarray:
    """`doc_ids` as an int64 array of one row or a batch, checked; a document id in two separate
    runs of one row is refused (the mask would join them while `cu_seqlens` would split them)."""
    array = check_int_rows(doc_ids, name, low=PAD_DOC)
    found = runs(array, name)
    real = found.id != PAD_DOC
    pairs, counts = np.unique(np.stack([found.row[real], found.id[real]]), axis=1,
                              return_counts=True)
    if (counts > 1).any():
        row, doc = pairs[:, np.argmax(counts > 1)]
        raise ValueError(f"{name} must hold each document as one consecutive run per row; "
                         f"document {doc} appears in {counts.max()} separate runs of row {row}")
    return array


def doc_ids_from_lengths(lengths: Sequence[int] | Sequence[Sequence[int]],
                         length: int | None = None) -> np.ndarray:
    """`doc_ids` of rows holding documents of these lengths in order, padded with PAD_DOC to
    `length` (default: the longest row): `doc_ids_from_lengths([3, 2], 6)` is [0, 0, 0, 1, 1, -1].
    A batch (a list of rows of lengths) numbers the documents across the whole batch."""
    if isinstance(lengths, np.ndarray):  # one row (1-D) or a batch (2-D), as Python ints
        lengths = lengths.tolist()
    rows = check_sequence(lengths, "lengths",
                          "a list of document lengths, or a list of rows of them")
    batch = any(isinstance(row, (Sequence, np.ndarray)) and not isinstance(row, str)
                for row in rows)
    rows = [check_int_list(row, f"lengths[{i}]", low=1) for i, row in enumerate(rows)] if batch \
        else [check_int_list(rows, "lengths", low=1)]
    longest = max((sum(row) for row in rows), default=0)
    width = longest if length is None else check_int(length, "length", low=0, high=INT64_MAX)
    if longest > width:
        raise ValueError(f"length must be at least the longest row, {longest} tokens, got {width}")
    check_cells((len(rows), width), np.int64, f"length={width}")
    out = np.full((len(rows), width), PAD_DOC, dtype=np.int64)
    first = 0
    for r, row in enumerate(rows):  # document k of the batch fills its length with k
        ids = np.repeat(np.arange(first, first + len(row)), row)
        out[r, : ids.size] = ids
        first += len(row)
    return out if batch else out[0]


def whole_documents(lengths: Sequence[int], length: int) -> np.ndarray:
    """`doc_ids` of one row of `length` positions: the first documents that fit whole, in order,
    then padding; the row stops at the first document that does not fit."""
    lengths = check_int_list(lengths, "lengths", low=1)
    length = check_int(length, "length", low=0, high=INT64_MAX)
    ends = list(accumulate(lengths))  # Python ints: a sum past 2**63 would wrap in numpy
    return doc_ids_from_lengths(lengths[:bisect_right(ends, length)], length)


def padded_doc_ids(attention_mask: object) -> np.ndarray:
    """`doc_ids` of a padded batch: every row is one document, 0, and its padding is PAD_DOC."""
    return np.where(_real(attention_mask), 0, PAD_DOC)


# --- document masks ---------------------------------------------------------------------------
def document_mask(doc_ids: object) -> np.ndarray:
    """The block-diagonal causal mask, shape (..., L, L): mask[i, j] = doc[i] == doc[j] != PAD_DOC
    and j <= i. A padding row is all False (`attention.attention` outputs 0 there)."""
    ids = as_doc_ids(doc_ids)
    check_cells(ids.shape + ids.shape[-1:], bool, f"doc_ids of shape {ids.shape}")
    same = (ids[..., :, None] == ids[..., None, :]) & (ids[..., :, None] != PAD_DOC)
    return same & causal_mask(ids.shape[-1])


def row_mask(doc_ids: object, kind: str) -> np.ndarray:
    """One of the masks of a packed row by name: "causal", "causal_padding" or "document"."""
    kind = check_choice(kind, "kind", KINDS)
    ids = as_doc_ids(doc_ids)
    if kind == "document":
        return document_mask(ids)
    real = ids != PAD_DOC if kind == "causal_padding" else np.ones(ids.shape, dtype=bool)
    return causal_padding_mask(real)


def loss_mask(doc_ids: object) -> np.ndarray:
    """True at t when position t + 1 holds the same document, i.e. when input t has a target:
    the last token of a document would be trained to predict the first of an unrelated one."""
    ids = as_doc_ids(doc_ids)
    keep = np.zeros(ids.shape, dtype=bool)
    keep[..., :-1] = (ids[..., :-1] == ids[..., 1:]) & (ids[..., 1:] != PAD_DOC)
    return keep


class Cells(NamedTuple):
    """What the cells of one (L, L) mask let their queries see (from `mask_cells`)."""
    kinds: np.ndarray  # (L, L): the query's document where it sees its own, PAD_DOC, LEAK, BLOCKED
    allowed: int  # cells the mask allows
    leaks: int  # allowed cells where a query sees another document


def mask_cells(doc_ids: object, mask: object, name: str = "mask") -> Cells:
    """Every cell of one row's mask (bool or 0/1, L x L) by what it lets query i see of key j:
    BLOCKED, or the query's own document, LEAK (another document), PAD_DOC (padding on a side)."""
    ids = as_doc_ids(doc_ids)
    if ids.ndim != 1:
        raise ValueError(f"doc_ids must be one row (1-D), got {ids.ndim} dimensions")
    array = np.asarray(mask)
    if array.ndim != 2 or not (array.dtype == bool or np.isin(array, (0, 1)).all()):
        raise ValueError(f"{name} must be a 2-D array of bool or 0/1, got shape {array.shape} "
                         f"and dtype {array.dtype}")
    if array.shape != (len(ids), len(ids)):
        raise ValueError(f"{name} must be {len(ids)} x {len(ids)} (one row and column per "
                         f"position), got shape {array.shape}")
    real = ids != PAD_DOC
    own = (ids[:, None] == ids[None, :]) & real[:, None]
    seen = np.where(own, ids[:, None], np.where(real[:, None] & real[None, :], LEAK, PAD_DOC))
    kinds = np.where(array.astype(bool), seen, BLOCKED)
    return Cells(kinds, int(np.count_nonzero(array)), int((kinds == LEAK).sum()))


# --- runs, positions and the varlen arguments -------------------------------------------------
class Runs(NamedTuple):
    """The runs of equal ids, row by row: run k is ids[row[k], start[k]:end[k]], all id[k]."""
    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    id: np.ndarray


def runs(ids: object, name: str = "ids") -> Runs:
    """Every maximal run of one id in each row, padding runs included; an id may come back later
    in its row (a Megatron sample can read one document twice)."""
    rows = _rows(check_int_rows(ids, name))
    width = max(rows.shape[-1], 1)
    starts = np.flatnonzero(_new_run(rows))
    ends = np.append(starts[1:], rows.size)
    row = starts // width
    return Runs(row, starts - row * width, ends - row * width, rows.reshape(-1)[starts])


def _rows(ids: np.ndarray) -> np.ndarray:
    """A batch view: one row becomes a batch of one (an empty input stays empty, shape (1, 0))."""
    return ids if ids.ndim == 2 else ids[None, :]


def _new_run(rows: np.ndarray) -> np.ndarray:
    """For every position of the flattened rows: does a run start here (a new id, or a new row)?"""
    flat = rows.reshape(-1)
    new = np.ones(flat.size, dtype=bool)
    new[1:] = flat[1:] != flat[:-1]
    new[:: max(rows.shape[-1], 1)] = True
    return new


def _run_starts(rows: np.ndarray) -> np.ndarray:
    """For every position of the flattened rows, the flat offset where its run starts."""
    return np.maximum.accumulate(np.where(_new_run(rows), np.arange(rows.size), 0))


def position_ids(doc_ids: object) -> np.ndarray:
    """0, 1, 2, ... within each document, restarting where the next one begins; 0 on padding
    (without the restart a document mask alone would not give a document its outputs alone)."""
    ids = as_doc_ids(doc_ids)
    flat = ids.reshape(-1)
    offsets = np.arange(flat.size) - _run_starts(_rows(ids))
    return np.where(flat != PAD_DOC, offsets, 0).reshape(ids.shape)


@dataclass(frozen=True)
class Varlen:
    """The arguments of FlashAttention's varlen functions: the batch's real tokens as one sequence,
    `x.reshape(-1, d)[indices]`, document k its slice [cu_seqlens[k], cu_seqlens[k+1])."""
    indices: np.ndarray  # positions of the real tokens in the flattened batch, in order (int64)
    cu_seqlens: np.ndarray  # int32, starts with 0, one more entry than there are documents
    max_seqlen: int  # the longest document, which sizes the kernel's work per document
    padding: int  # positions of padding, left out of the sequence

    @property
    def seqlens(self) -> np.ndarray:
        return np.diff(self.cu_seqlens)


def varlen(doc_ids: object) -> Varlen:
    """`cu_seqlens` and `max_seqlen` over the documents of the flattened batch, padding left out
    (a document split across two rows is two sequences: the rows are attended apart)."""
    ids = as_doc_ids(doc_ids)
    found = runs(ids)
    real = found.id != PAD_DOC
    lengths = found.end[real] - found.start[real]
    cu = np.zeros(lengths.size + 1, dtype=np.int32)
    np.cumsum(lengths, out=cu[1:])
    indices = np.flatnonzero(ids.reshape(-1) != PAD_DOC)
    return Varlen(indices=indices, cu_seqlens=cu, max_seqlen=int(lengths.max(initial=0)),
                  padding=ids.size - indices.size)


# --- how much a missing document mask leaks ---------------------------------------------------
def _foreign_and_seen(doc_ids: object) -> tuple[np.ndarray, np.ndarray]:
    """For every real token under the causal + padding mask: how many tokens of other documents it
    sees, and how many tokens it sees in all (itself included)."""
    rows = _rows(as_doc_ids(doc_ids))
    real = rows != PAD_DOC
    seen = np.cumsum(real, axis=-1).reshape(-1)
    foreign = seen[_run_starts(rows)] - 1  # the real tokens before its document's first one
    return foreign[real.reshape(-1)], seen[real.reshape(-1)]


def cross_document_share(doc_ids: object) -> float:
    """The share of tokens whose causal context holds another document without a document mask."""
    foreign, _ = _foreign_and_seen(doc_ids)
    return float((foreign > 0).mean()) if foreign.size else 0.0


def foreign_context_share(doc_ids: object) -> float:
    """The mean over tokens of the share of their causal context that belongs to other documents:
    under uniform attention, the attention weight a missing document mask leaks (0.0: no tokens)."""
    foreign, seen = _foreign_and_seen(doc_ids)
    return float((foreign / seen).mean()) if foreign.size else 0.0
