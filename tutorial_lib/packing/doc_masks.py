"""Document masks: keep the documents packed into one row from seeing each other.

Packing puts several documents into one row of L positions. A plain causal mask then lets every token attend
to all earlier tokens of the row, including those of the documents before it: the model is asked to predict
a story from the end of an unrelated one. Everything here starts from `doc_ids`, one int per position: the
index of the document that position holds, -1 for padding. A document is one consecutive run of its id in a
row; the same id may start the next row (a document split across rows), and then that piece is a document of
its own, since rows never see each other.

From `doc_ids` come the four things a training step needs:

- `document_mask`: the block-diagonal causal mask (True = may attend): same document, not in the future;
- `position_ids`: 0, 1, 2, ... restarting at every document, so each document gets the positions it would
  have if it were alone in the row;
- `varlen`: `cu_seqlens` and `max_seqlen`, the same information in the form FlashAttention's varlen kernels
  take, which skip the masked blocks instead of computing and discarding them;
- `loss_mask` / `next_token_labels`: -100 for a target that lies in the next document or in padding.

Every function takes one row (1-D) or a batch of rows (2-D) and works on ids only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tutorial_lib._checks import check_dtype, check_int, check_int_list, check_sequence, describe

PAD = -1  # the doc id of a padding position
IGNORE_INDEX = -100  # the label PyTorch's cross_entropy skips by default (ignore_index=-100)


def as_doc_ids(doc_ids: object, name: str = "doc_ids") -> np.ndarray:
    """`doc_ids` as an int64 array of one row (1-D) or a batch of rows (2-D), checked.

    Refused: ragged rows (ValueError), values that are not integers (TypeError: floats, bools, strings), ids
    below -1, and a document id that appears in two separate runs of one row (the mask would join them while
    `cu_seqlens` would split them). An empty input gives an empty array, and every function an empty result.
    """
    array = int_rows(doc_ids, name)
    if array.size and array.min() < PAD:
        raise ValueError(f"{name} must hold document indices >= 0 and {PAD} for padding, got {int(array.min())}")
    starts, _, ids = _runs(_rows(array))
    rows = starts // max(array.shape[-1], 1)
    pairs, counts = np.unique(np.stack([rows, ids]), axis=1, return_counts=True)
    if (counts > 1).any():
        row, doc = pairs[:, np.argmax(counts > 1)]
        raise ValueError(f"{name} must hold each document as one consecutive run per row; document {doc} appears "
                         f"in {counts.max()} separate runs of row {row}")
    return array


def int_rows(value: object, name: str) -> np.ndarray:
    """`value` as an int64 array of one row (1-D) or a rectangular batch of rows (2-D).

    A list of ints or a list of equally long rows of ints; a numpy integer array. Floats and bools are a
    TypeError even when they hold whole numbers, ragged rows a ValueError.
    """
    array = _int_array(value, name)
    if array.ndim not in (1, 2):
        raise ValueError(f"{name} must be one row (1-D) or a batch of rows (2-D), got {array.ndim} dimensions")
    return array


def _int_array(value: object, name: str) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return check_dtype(value, name, "iu", "an array of int").astype(np.int64)
    rows = check_sequence(value, name, "a list of int or a list of rows of int")
    if not any(isinstance(row, (Sequence, np.ndarray)) and not isinstance(row, str) for row in rows):
        return np.array(check_int_list(rows, name), dtype=np.int64)
    rows = [check_int_list(row, f"{name}[{i}]") for i, row in enumerate(rows)]
    if len({len(row) for row in rows}) > 1:
        raise ValueError(f"{name} must be rectangular (every row the same length), got row lengths "
                         f"{describe(sorted({len(row) for row in rows}))}")
    return np.array(rows, dtype=np.int64).reshape(len(rows), len(rows[0]) if rows else 0)


def _rows(ids: np.ndarray) -> np.ndarray:
    """A batch view: one row becomes a batch of one (an empty input stays empty, shape (1, 0))."""
    return ids if ids.ndim == 2 else ids[None, :]


def _run_starts(rows: np.ndarray) -> np.ndarray:
    """For every position of the flattened rows, where its run starts (a run ends where the id changes or
    the row does, so a document split across rows gives one run per row)."""
    flat = rows.reshape(-1)
    new = np.ones(flat.size, dtype=bool)
    new[1:] = flat[1:] != flat[:-1]
    new[:: max(rows.shape[-1], 1)] = True
    return np.maximum.accumulate(np.where(new, np.arange(flat.size), 0))


def _runs(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, doc id) of every run of one document, as offsets into the flattened rows; padding left out."""
    flat = rows.reshape(-1)
    starts = np.unique(_run_starts(rows))
    ends = np.append(starts[1:], flat.size)
    keep = flat[starts] != PAD
    return starts[keep], ends[keep], flat[starts][keep]


def doc_ids_from_lengths(lengths: Sequence[int] | Sequence[Sequence[int]], length: int | None = None) -> np.ndarray:
    """`doc_ids` for rows holding documents of the given lengths in order, padded with -1 to `length`.

    One row: `doc_ids_from_lengths([3, 2], 6)` is [0, 0, 0, 1, 1, -1]. A batch (a list of rows of lengths)
    numbers the documents across the whole batch, the way a packing result indexes its input list. Without
    `length` the rows are as long as the longest. A row that does not fit is a ValueError, never cut short.
    """
    rows = check_sequence(lengths, "lengths", "a list of document lengths, or a list of rows of them")
    batch = any(isinstance(row, (Sequence, np.ndarray)) and not isinstance(row, str) for row in rows)
    rows = [check_int_list(row, f"lengths[{i}]", low=1) for i, row in enumerate(rows)] if batch else \
        [check_int_list(rows, "lengths", low=1)]
    longest = max((sum(row) for row in rows), default=0)
    width = longest if length is None else check_int(length, "length", low=0)
    if longest > width:
        raise ValueError(f"length must be at least the longest row, {longest} tokens, got {width}")
    out = np.full((len(rows), width), PAD, dtype=np.int64)
    first = 0
    for r, row in enumerate(rows):
        ids = np.repeat(np.arange(first, first + len(row)), row)
        out[r, : ids.size] = ids
        first += len(row)
    return out if batch else out[0]


def document_mask(doc_ids: object) -> np.ndarray:
    """The block-diagonal causal mask, shape (..., L, L): True where query i may attend to key j.

    mask[i, j] = doc[i] == doc[j] != -1 and j <= i. A padding position attends to nothing and nothing attends
    to it; its row is all False, so an attention that softmaxes over it must decide what to output there
    (`attention.attention` outputs 0).
    """
    ids = as_doc_ids(doc_ids)
    length = ids.shape[-1]
    same = (ids[..., :, None] == ids[..., None, :]) & (ids[..., :, None] != PAD)
    return same & np.tril(np.ones((length, length), dtype=bool))


def position_ids(doc_ids: object) -> np.ndarray:
    """0, 1, 2, ... within each document, restarting where the next one begins; 0 on padding.

    Without the restart a document at the end of a row gets positions 300, 301, ... that it never has when
    it is alone, so even a perfect document mask would not make its outputs equal to the unpacked ones.
    """
    ids = as_doc_ids(doc_ids)
    flat = ids.reshape(-1)
    return np.where(flat != PAD, np.arange(flat.size) - _run_starts(_rows(ids)), 0).reshape(ids.shape)


@dataclass(frozen=True)
class Varlen:
    """The arguments of FlashAttention's varlen functions (flash_attn_varlen_func) for a packed batch.

    The varlen kernels take the real tokens of the whole batch as one long sequence, without padding:
    `x.reshape(-1, d)[indices]` (Hugging Face's `_get_unpad_data` returns the same three things). Document k
    is then the slice [cu_seqlens[k], cu_seqlens[k+1]) of that sequence, and attention never crosses a slice.
    """

    indices: np.ndarray  # positions of the non-padding tokens in the flattened batch, in order (int64)
    cu_seqlens: np.ndarray  # int32, starts with 0, one more entry than there are documents
    max_seqlen: int  # the longest document, which sizes the kernel's work per document

    @property
    def seqlens(self) -> np.ndarray:
        return np.diff(self.cu_seqlens)


def varlen(doc_ids: object) -> Varlen:
    """`cu_seqlens` and `max_seqlen` over the documents of the flattened batch; padding is left out.

    Padding takes no slot: `cu_seqlens` counts only real tokens, and `indices` says where they came from. A
    document split across two rows counts as two sequences, one per row, as the rows are attended separately.
    """
    ids = as_doc_ids(doc_ids)
    starts, ends, _ = _runs(_rows(ids))
    lengths = ends - starts
    cu = np.zeros(lengths.size + 1, dtype=np.int32)
    np.cumsum(lengths, out=cu[1:])
    return Varlen(indices=np.flatnonzero(ids.reshape(-1) != PAD), cu_seqlens=cu,
                  max_seqlen=int(lengths.max(initial=0)))


def loss_mask(doc_ids: object) -> np.ndarray:
    """For next-token rows of L+1 positions: shape (..., L), True where input i has a target to learn.

    Input i predicts token i+1; that target counts only if both sit in the same document. The last token of
    each document would otherwise be trained to predict the first token of an unrelated next one.
    """
    ids = as_doc_ids(doc_ids)
    return (ids[..., :-1] == ids[..., 1:]) & (ids[..., 1:] != PAD)


def next_token_labels(tokens: object, doc_ids: object) -> np.ndarray:
    """Labels for rows of L+1 tokens: tokens[..., 1:], with -100 where `loss_mask` is False.

    The inputs are tokens[..., :-1]; their document mask and position ids come from doc_ids[..., :-1].
    """
    ids = as_doc_ids(doc_ids)
    tokens = int_rows(tokens, "tokens")
    if tokens.shape != ids.shape:
        raise ValueError(f"tokens and doc_ids must have the same shape, got {tokens.shape} and {ids.shape}")
    return np.where(loss_mask(ids), tokens[..., 1:], IGNORE_INDEX)


def _foreign_and_seen(doc_ids: object) -> tuple[np.ndarray, np.ndarray]:
    """For every real token under a plain causal mask (padding hidden, documents not): how many tokens of other
    documents it sees, and how many tokens it sees in all (itself included)."""
    rows = _rows(as_doc_ids(doc_ids))
    real = rows != PAD
    seen = np.cumsum(real, axis=-1).reshape(-1)
    foreign = seen[_run_starts(rows)] - 1
    return foreign[real.reshape(-1)], seen[real.reshape(-1)]


def cross_document_share(doc_ids: object) -> float:
    """The share of tokens whose causal context holds another document when there is no document mask.

    Every token after the first document of its row sees at least one foreign token. 0.0 for no tokens.
    """
    foreign, _ = _foreign_and_seen(doc_ids)
    return float((foreign > 0).mean()) if foreign.size else 0.0


def foreign_context_share(doc_ids: object) -> float:
    """The mean, over tokens, of the share of their causal context that belongs to other documents.

    Under uniform attention this is the share of attention weight that a missing document mask lets leak.
    Padding is never counted as context. 0.0 for no tokens.
    """
    foreign, seen = _foreign_and_seen(doc_ids)
    return float((foreign / seen).mean()) if foreign.size else 0.0
