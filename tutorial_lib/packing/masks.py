"""Masks: which keys each query of a row may attend to, each mask defined once, True = may attend.

- `causal_mask(L)`: query i sees every key j <= i, whatever document or padding sits there.
- `attention_mask_from_lengths` / `attention_mask_from_pad_id`: the (B, L) padding mask, 1 = real
  token, 0 = padding; built from lengths, because a pad id may also be a real token.
- `causal_padding_mask(attention_mask)`: the causal mask without the padding keys, the one meaning
  of "因果+填充" in chapters 07 and 09 alike. Only keys are masked, as in Hugging Face's 4-D mask:
  `_prepare_4d_causal_attention_mask` spreads the 2-D attention_mask over the key axis and adds the
  causal triangle, so a padding query still sees the real keys before it. Its output is never used
  (its label is IGNORE_INDEX), and blanking its row as well would only add rows that allow nothing:
  a softmax over such a row divides zero by zero. The pads at the front of a left-padded row have
  no real key at or before them and get that empty row anyway; Hugging Face survives it by adding
  the dtype's minimum instead of -inf (the softmax turns uniform), and on GPU `_unmask_unattended`
  lets those rows attend to everything for SDPA's memory-efficient kernel;
  `attention.attention_weights` gives them zero weights.
- `document_mask(doc_ids)`: the block-diagonal causal mask of a packed row: same document, not in
  the future. A padding position belongs to no document, so its row is empty too (the varlen
  kernels of FlashAttention leave padding out altogether).

A packed row is described by `doc_ids`, one int per position: the index of the document that
position holds, PAD for padding. A document is one consecutive run of its id in a row; the same id
may start the next row (a document split across rows), and then that piece is a document of its
own, since rows never see each other. From `doc_ids` also come the position ids that restart at
every document, the `cu_seqlens` of the varlen kernels, the loss mask, and `mask_cells`: what every
cell of a mask lets its query see, the one classification the mask widget and heatmaps draw.

Every function takes one row (1-D) or a batch of rows (2-D) and works on ids only.
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

PAD = -1  # the doc id of a padding position: it belongs to no document
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
    """The (B, width) 0/1 mask of rows with these lengths; `width` defaults to the longest.

    This is the safe way to build a mask: it never looks at ids, so a pad id that is also a real
    token cannot hide that token.
    """
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
    """The mask many scripts write as `input_ids != pad_id`, refused when that provably hides a
    real token.

    If the pad id occurs between real tokens (before the last non-pad id of a right-padded row,
    after the first of a left-padded one), it is a real token too and `!=` would mask it:
    ValueError. A real pad id at the very end of a row cannot be told from padding at all, which is
    why `batch.pad` and `attention_mask_from_lengths` build masks from lengths instead.
    """
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

    Only keys are masked, as in Hugging Face's 4-D causal mask (see the module docstring): a
    padding query keeps the real keys before it. A query with no real key at or before it (the pads
    at the front of a left-padded row) gets an all-False row, which turns a softmax over -inf into
    NaN; an attention using this mask must guard against that (`attention.attention_weights` does).
    """
    real = _real(attention_mask)
    check_cells(real.shape + real.shape[-1:], bool, f"attention_mask of shape {real.shape}")
    return causal_mask(real.shape[-1]) & real[..., None, :]


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
    """`doc_ids` as an int64 array of one row (1-D) or a batch of rows (2-D), checked.

    Refused: ragged rows (ValueError), values that are not integers (TypeError: floats, bools,
    strings), ids outside [PAD, 2**63 - 1] whatever the dtype (a uint64 is refused, not wrapped),
    and a document id that appears in two separate runs of one row (the mask would join them while
    `cu_seqlens` would split them). An empty input gives an empty array, and every function an
    empty result.
    """
    array = check_int_rows(doc_ids, name, low=PAD)  # document indices >= 0, and PAD
    found = runs(array, name)
    real = found.id != PAD
    pairs, counts = np.unique(np.stack([found.row[real], found.id[real]]), axis=1,
                              return_counts=True)
    if (counts > 1).any():
        row, doc = pairs[:, np.argmax(counts > 1)]
        raise ValueError(f"{name} must hold each document as one consecutive run per row; "
                         f"document {doc} appears in {counts.max()} separate runs of row {row}")
    return array


def doc_ids_from_lengths(lengths: Sequence[int] | Sequence[Sequence[int]],
                         length: int | None = None) -> np.ndarray:
    """`doc_ids` of rows holding documents of these lengths in order, padded with PAD to `length`.

    One row: `doc_ids_from_lengths([3, 2], 6)` is [0, 0, 0, 1, 1, PAD]. A batch (a list of rows of
    lengths) numbers the documents across the whole batch, the way a packing result indexes its
    input list. Without `length` the rows are as long as the longest. A row that does not fit is a
    ValueError, never cut short.
    """
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
    out = np.full((len(rows), width), PAD, dtype=np.int64)
    first = 0
    for r, row in enumerate(rows):
        ids = np.repeat(np.arange(first, first + len(row)), row)
        out[r, : ids.size] = ids
        first += len(row)
    return out if batch else out[0]


def whole_documents(lengths: Sequence[int], length: int) -> np.ndarray:
    """`doc_ids` of one row of `length` positions holding the first documents that fit whole, in
    order, and padding after them: the row stops at the first document that does not fit."""
    lengths = check_int_list(lengths, "lengths", low=1)
    length = check_int(length, "length", low=0, high=INT64_MAX)
    ends = list(accumulate(lengths))  # Python ints: a sum past 2**63 would wrap in numpy
    fitting = bisect_right(ends, length)  # the documents that end within the row: whole ones
    return doc_ids_from_lengths(lengths[:fitting], length)


def padded_doc_ids(attention_mask: object) -> np.ndarray:
    """`doc_ids` of a padded batch: every row is one document, 0, and its padding is PAD."""
    return np.where(_real(attention_mask), 0, PAD)


# --- document masks ---------------------------------------------------------------------------


def document_mask(doc_ids: object) -> np.ndarray:
    """The block-diagonal causal mask, shape (..., L, L): True where query i may attend to key j.

    mask[i, j] = doc[i] == doc[j] != PAD and j <= i. A padding position attends to nothing and
    nothing attends to it; its row is all False, so an attention that softmaxes over it must decide
    what to output there (`attention.attention` outputs 0).
    """
    ids = as_doc_ids(doc_ids)
    check_cells(ids.shape + ids.shape[-1:], bool, f"doc_ids of shape {ids.shape}")
    same = (ids[..., :, None] == ids[..., None, :]) & (ids[..., :, None] != PAD)
    return same & causal_mask(ids.shape[-1])


def row_mask(doc_ids: object, kind: str) -> np.ndarray:
    """One of the masks of a packed row by name: "causal", "causal_padding" or "document"."""
    kind = check_choice(kind, "kind", KINDS)
    ids = as_doc_ids(doc_ids)
    if kind == "document":
        return document_mask(ids)
    real = ids != PAD if kind == "causal_padding" else np.ones(ids.shape, dtype=bool)
    return causal_padding_mask(real)


def loss_mask(doc_ids: object) -> np.ndarray:
    """Shape of `doc_ids`: True at t when position t + 1 holds the same document, i.e. when input t
    has a next-token target to learn.

    False on the last token of each document (it would be trained to predict the first token of an
    unrelated next one), on padding, and at the end of the row, where there is no next token.
    """
    ids = as_doc_ids(doc_ids)
    keep = np.zeros(ids.shape, dtype=bool)
    keep[..., :-1] = (ids[..., :-1] == ids[..., 1:]) & (ids[..., 1:] != PAD)
    return keep


class Cells(NamedTuple):
    """What the cells of one (L, L) mask let their queries see (from `mask_cells`)."""

    kinds: np.ndarray  # (L, L) int: the query's document where it sees its own, PAD, LEAK, BLOCKED
    allowed: int  # cells the mask allows
    leaks: int  # allowed cells where a query sees another document


def mask_cells(doc_ids: object, mask: object, name: str = "mask") -> Cells:
    """Every cell of one row's mask (bool or 0/1, L x L) by what it lets query i see of key j.

    A blocked cell is BLOCKED; an allowed one is the query's document when the key is in it too,
    LEAK when the key is another document's token, PAD when either of them is padding. This is the
    one classification the mask widget and the mask heatmaps colour: one colour per document, one
    for a leak, one for padding.
    """
    ids = as_doc_ids(doc_ids)
    if ids.ndim != 1:
        raise ValueError(f"doc_ids must be one row (1-D), got {ids.ndim} dimensions")
    mask = _square(mask, name, len(ids))
    real = ids != PAD
    own = (ids[:, None] == ids[None, :]) & real[:, None]
    seen = np.where(own, ids[:, None], np.where(real[:, None] & real[None, :], LEAK, PAD))
    kinds = np.where(mask, seen, BLOCKED)
    return Cells(kinds, int(mask.sum()), int((kinds == LEAK).sum()))


def _square(mask: object, name: str, length: int) -> np.ndarray:
    array = np.asarray(mask)
    if array.ndim != 2 or not (array.dtype == bool or np.isin(array, (0, 1)).all()):
        raise ValueError(f"{name} must be a 2-D array of bool or 0/1, got shape {array.shape} "
                         f"and dtype {array.dtype}")
    if array.shape != (length, length):
        raise ValueError(f"{name} must be {length} x {length} (one row and column per position), "
                         f"got shape {array.shape}")
    return array.astype(bool)


# --- runs, positions and the varlen arguments -------------------------------------------------


class Runs(NamedTuple):
    """The runs of equal ids, row by row: run k is ids[row[k], start[k]:end[k]], all id[k]."""

    row: np.ndarray
    start: np.ndarray
    end: np.ndarray
    id: np.ndarray


def runs(ids: object, name: str = "ids") -> Runs:
    """Every maximal run of one id in each row, padding runs included; a run ends where the id
    changes or the row does. Any ints: unlike in `doc_ids`, an id may come back later in its row (a
    Megatron sample can read one document twice)."""
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
    """0, 1, 2, ... within each document, restarting where the next one begins; 0 on padding.

    Without the restart a document at the end of a row gets positions 300, 301, ... that it never
    has when it is alone, so even a perfect document mask would not make its outputs equal to the
    unpacked ones.
    """
    ids = as_doc_ids(doc_ids)
    flat = ids.reshape(-1)
    offsets = np.arange(flat.size) - _run_starts(_rows(ids))
    return np.where(flat != PAD, offsets, 0).reshape(ids.shape)


@dataclass(frozen=True)
class Varlen:
    """The arguments of FlashAttention's varlen functions (flash_attn_varlen_func).

    The varlen kernels take the real tokens of the whole batch as one long sequence, without
    padding: `x.reshape(-1, d)[indices]` (Hugging Face's `_get_unpad_data` returns the same three
    things). Document k is then the slice [cu_seqlens[k], cu_seqlens[k+1]) of that sequence, and
    attention never crosses a slice.
    """

    indices: np.ndarray  # positions of the real tokens in the flattened batch, in order (int64)
    cu_seqlens: np.ndarray  # int32, starts with 0, one more entry than there are documents
    max_seqlen: int  # the longest document, which sizes the kernel's work per document
    padding: int  # positions of padding, left out of the sequence

    @property
    def seqlens(self) -> np.ndarray:
        return np.diff(self.cu_seqlens)


def varlen(doc_ids: object) -> Varlen:
    """`cu_seqlens` and `max_seqlen` over the documents of the flattened batch; padding is left out.

    Padding takes no slot: `cu_seqlens` counts only real tokens, and `indices` says where they came
    from. A document split across two rows counts as two sequences, one per row, as the rows are
    attended separately.
    """
    ids = as_doc_ids(doc_ids)
    found = runs(ids)
    real = found.id != PAD
    lengths = found.end[real] - found.start[real]
    cu = np.zeros(lengths.size + 1, dtype=np.int32)
    np.cumsum(lengths, out=cu[1:])
    indices = np.flatnonzero(ids.reshape(-1) != PAD)
    return Varlen(indices=indices, cu_seqlens=cu, max_seqlen=int(lengths.max(initial=0)),
                  padding=ids.size - indices.size)


# --- how much a missing document mask leaks ---------------------------------------------------


def _foreign_and_seen(doc_ids: object) -> tuple[np.ndarray, np.ndarray]:
    """For every real token under the causal + padding mask (documents not kept apart): how many
    tokens of other documents it sees, and how many tokens it sees in all (itself included)."""
    rows = _rows(as_doc_ids(doc_ids))
    real = rows != PAD
    seen = np.cumsum(real, axis=-1).reshape(-1)
    foreign = seen[_run_starts(rows)] - 1  # the real tokens before its document's first one
    return foreign[real.reshape(-1)], seen[real.reshape(-1)]


def cross_document_share(doc_ids: object) -> float:
    """The share of tokens whose causal context holds another document without a document mask.

    Every token after the first document of its row sees a foreign token. 0.0 for no tokens.
    """
    foreign, _ = _foreign_and_seen(doc_ids)
    return float((foreign > 0).mean()) if foreign.size else 0.0


def foreign_context_share(doc_ids: object) -> float:
    """The mean, over tokens, of the share of their causal context that belongs to other documents.

    Under uniform attention this is the share of attention weight that a missing document mask lets
    leak. Padding is never counted as context. 0.0 for no tokens.
    """
    foreign, seen = _foreign_and_seen(doc_ids)
    return float((foreign / seen).mean()) if foreign.size else 0.0
