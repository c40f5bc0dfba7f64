"""Packing strategies: how documents of every length become rows of exactly `seq_len` tokens.

Each strategy decides which document (or piece of one) goes into which row, and all answer with a
`PackResult`, so their costs compare side by side: padding (compute spent on nothing) and dropped
tokens (data never trained on). `pad`: one document per row. `greedy`: in order, a new row when the
next one does not fit. `concat_chunk`: concatenate, cut every `seq_len` tokens (GPT style).
`ffd` / `bfd`: longest first, each into the first / the tightest row it fits, O(N log N) with
`fit_trees`. `bestfit_crop`: nanochat's loader, which crops instead of padding.

Documents come as token lists (rows of real ids can then be built) or as bare lengths (enough to
plan and measure a million documents); a zero-length document is an error.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_bool, check_int_rows
from tutorial_lib._checks import INT64_MAX, check_choice, check_int, check_int_list, check_sequence
from tutorial_lib._memory import check_cells
from tutorial_lib.packing.fit_trees import BestFit, FirstFit
from tutorial_lib.packing.masks import PAD_DOC, padding_share

LONG_DOCS = ("split", "truncate", "error")  # what to do with a document longer than a row


class Segment(NamedTuple):
    """One run of a row: `length` tokens of document `doc`, from `offset` tokens into it."""
    doc: int
    offset: int
    length: int

    @property
    def continues(self) -> bool:
        """Whether the segment goes on from a piece of its document in an earlier row."""
        return self.offset > 0


@dataclass(frozen=True, eq=False)  # numpy fields: compare results by their fields, not with ==
class PackResult:
    """Which tokens went where, and what it cost: parallel segment arrays sorted by row, then by
    position in the row (`rows` and `doc_ids` are built from them on first use)."""
    strategy: str
    seq_len: int  # L
    width: int  # tokens per row: L, or L + 1 for next-token rows (inputs row[:-1], targets row[1:])
    n_rows: int
    n_tokens: int  # tokens in the input
    dropped: int  # tokens cropped or truncated away, never placed in any row
    doc_lengths: np.ndarray  # the length of every input document
    seg_row: np.ndarray
    seg_start: np.ndarray  # position of the segment's first token in its row
    seg_doc: np.ndarray
    seg_offset: np.ndarray
    seg_length: np.ndarray
    pad_id: int = 0
    documents: list[np.ndarray] | None = field(default=None, repr=False)  # None: from lengths

    @property
    def placed(self) -> int:
        return self.n_tokens - self.dropped

    @property
    def padding(self) -> int:
        return self.n_rows * self.width - self.placed

    @property
    def utilization(self) -> float:
        """Real tokens / row cells: the share of the compute that trains on data (0.0: no rows)."""
        return self.placed / (self.n_rows * self.width) if self.n_rows else 0.0

    @property
    def padding_share(self) -> float:
        return padding_share(self.placed, self.n_rows * self.width)

    @property
    def dropped_share(self) -> float:
        """Dropped tokens / input tokens (0.0 for no input)."""
        return self.dropped / self.n_tokens if self.n_tokens else 0.0

    def segments(self, row: int) -> list[Segment]:
        row = check_int(row, "row", low=0, high=self.n_rows - 1)
        lo, hi = np.searchsorted(self.seg_row, [row, row + 1])
        return [Segment(int(d), int(o), int(n)) for d, o, n in
                zip(self.seg_doc[lo:hi], self.seg_offset[lo:hi], self.seg_length[lo:hi])]

    def row_padding(self, row: int) -> int:
        """The padding cells at the end of `row`."""
        return self.width - sum(segment.length for segment in self.segments(row))

    def is_cut(self, segment: Segment) -> bool:
        """Whether `segment`'s document goes on past it: cropped, truncated or carried on."""
        return segment.offset + segment.length < int(self.doc_lengths[segment.doc])

    @cached_property
    def doc_ids(self) -> np.ndarray:
        """(n_rows, width): the index of the document each cell holds, PAD_DOC for padding."""
        check_cells((self.n_rows, self.width), np.int64, "PackResult.doc_ids")
        ids = np.full((self.n_rows, self.width), PAD_DOC, dtype=np.int64)
        for r, s, d, n in zip(self.seg_row, self.seg_start, self.seg_doc, self.seg_length):
            ids[r, s:s + n] = d
        return ids

    @cached_property
    def rows(self) -> np.ndarray:
        """(n_rows, width): the token ids, `pad_id` in the padding cells."""
        if self.documents is None and self.n_rows:
            raise ValueError("this result was packed from lengths, so it has no tokens to place; "
                             "pass the token lists to get rows")
        check_cells((self.n_rows, self.width), np.int64, "PackResult.rows")
        rows = np.full((self.n_rows, self.width), self.pad_id, dtype=np.int64)
        for r, s, d, o, n in zip(self.seg_row, self.seg_start, self.seg_doc, self.seg_offset,
                                 self.seg_length):
            rows[r, s:s + n] = self.documents[d][o:o + n]
        return rows


# --- input ------------------------------------------------------------------------------------
class _Input(NamedTuple):
    lengths: np.ndarray
    tokens: list[np.ndarray] | None  # None: packed from lengths
    seq_len: int
    width: int  # seq_len, or seq_len + 1 for next-token rows


def _read(documents: object, seq_len: object, next_token: object) -> _Input:
    """The documents (token lists or lengths) and the row width, checked."""
    tokens = None
    if isinstance(documents, np.ndarray) and documents.ndim == 1 and documents.dtype.kind in "iu":
        lengths = check_int_rows(documents, "documents", ndim=(1,))  # a uint64 > 2**63 - 1 refused
    else:
        items = check_sequence(documents, "documents", "a list of token lists or a list of lengths")
        first = items[0] if items else None
        if hasattr(first, "__index__") and not isinstance(first, bool) and np.ndim(first) == 0:
            lengths = np.array(check_int_list(items, "documents"), dtype=np.int64)
        else:
            tokens = [_token_array(doc, f"documents[{i}]") for i, doc in enumerate(items)]
            lengths = np.array([len(t) for t in tokens], dtype=np.int64)
    _check_lengths(lengths)
    seq_len = check_int(seq_len, "seq_len", low=1, high=INT64_MAX)
    width = seq_len + check_bool(next_token, "next_token")
    if width > INT64_MAX:  # a next-token row holds seq_len + 1 tokens
        raise ValueError(f"seq_len must be an int in [1, 2**63 - 2] with next_token, got {seq_len}")
    return _Input(lengths, tokens, seq_len, width)


def _token_array(doc: object, name: str) -> np.ndarray:
    if isinstance(doc, np.ndarray) and doc.ndim == 1 and doc.dtype.kind in "iu":
        return check_int_rows(doc, name, low=0, ndim=(1,))
    return np.array(check_int_list(doc, name, low=0), dtype=np.int64)


def _check_lengths(lengths: np.ndarray) -> None:
    if (lengths < 1).any():
        i = int(np.argmax(lengths < 1))
        raise ValueError(f"documents[{i}] has length {int(lengths[i])}; every document needs at "
                         "least one token (drop empty documents before packing)")
    if len(lengths) and int(lengths.max()) > INT64_MAX // len(lengths):  # the sum might not fit
        total = sum(lengths.tolist())  # exact, where an int64 sum would wrap
        if total > INT64_MAX:
            raise ValueError(f"documents hold {total:,} tokens in all, more than the 2**63 - 1 an "
                             "int64 can count")


def _pieces(inp: _Input, long_docs: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """(doc, offset, length) of the items to pack, and the tokens dropped: documents longer than a
    row are split into row-sized chunks plus a tail, truncated to one row, or refused."""
    check_choice(long_docs, "long_docs", LONG_DOCS)
    lengths, width = inp.lengths, inp.width
    long = lengths > width
    if long_docs == "error" and long.any():
        i = int(np.flatnonzero(long)[0])
        raise ValueError(f"documents[{i}] has {int(lengths[i])} tokens, more than a row of "
                         f"{width}; choose long_docs='split' or 'truncate'")
    if long_docs == "truncate":
        kept = np.minimum(lengths, width)
        starts = np.zeros(len(lengths), np.int64)
        return np.arange(len(lengths)), starts, kept, int((lengths - kept).sum())
    counts = -(-lengths // width)  # chunks per document
    check_cells((int(counts.sum()), 5), np.int64,  # 5 per segment: row, start, doc, offset, length
                f"long_docs='split' of documents into rows of {width:,}")
    doc = np.repeat(np.arange(len(lengths)), counts)
    first = np.cumsum(counts) - counts
    offset = (np.arange(len(doc)) - np.repeat(first, counts)) * width
    return doc, offset, np.minimum(lengths[doc] - offset, width), 0


def _result(strategy: str, inp: _Input, pad_id: int, row: np.ndarray, doc: np.ndarray,
            offset: np.ndarray, length: np.ndarray, dropped: int) -> PackResult:
    """Order the segments by row (stable: each row keeps its placement order), add positions."""
    order = np.argsort(row, kind="stable")
    row, doc, offset, length = (np.asarray(a, dtype=np.int64)[order]
                                for a in (row, doc, offset, length))
    ends = np.cumsum(length)
    first = np.searchsorted(row, row)  # index of each row's first segment
    start = ends - length - (ends - length)[first]
    n_rows = int(row[-1]) + 1 if len(row) else 0
    return PackResult(strategy, inp.seq_len, inp.width, n_rows, int(inp.lengths.sum()), dropped,
                      inp.lengths, row, start, doc, offset, length,
                      check_int(pad_id, "pad_id", low=0, high=INT64_MAX), inp.tokens)


# --- the strategies ---------------------------------------------------------------------------
def pad(documents: Sequence, seq_len: int, *, long_docs: str = "split", next_token: bool = False,
        pad_id: int = 0) -> PackResult:
    """One document per row, padded to the row width: as wasteful as documents are short."""
    inp = _read(documents, seq_len, next_token)
    doc, offset, length, dropped = _pieces(inp, long_docs)
    return _result("pad", inp, pad_id, np.arange(len(doc)), doc, offset, length, dropped)


def greedy(documents: Sequence, seq_len: int, *, long_docs: str = "split",
           next_token: bool = False, pad_id: int = 0) -> PackResult:
    """Fill rows in input order; start a new row whenever the next document does not fit."""
    inp = _read(documents, seq_len, next_token)
    doc, offset, length, dropped = _pieces(inp, long_docs)
    row, r, used = np.empty(len(doc), np.int64), -1, inp.width  # "full": the first opens row 0
    for i, n in enumerate(length.tolist()):
        if used + n > inp.width:
            r, used = r + 1, 0
        row[i], used = r, used + n
    return _result("greedy", inp, pad_id, row, doc, offset, length, dropped)


def concat_chunk(documents: Sequence, seq_len: int, *, next_token: bool = False,
                 pad_id: int = 0) -> PackResult:
    """Concatenate all documents and cut every `width` tokens: only the last row is padded, nothing
    dropped, and a document may continue in the next row."""
    inp = _read(documents, seq_len, next_token)
    lengths, width = inp.lengths, inp.width
    doc_start = np.cumsum(lengths) - lengths
    total = int(lengths.sum())
    check_cells((len(lengths) + total // width + 1, 5), np.int64,  # 5 per segment, as in _pieces
                f"cutting {total:,} tokens every {width:,}")
    cuts = np.union1d(doc_start, np.arange(0, total, width))  # every place a segment begins
    doc = np.searchsorted(doc_start, cuts, side="right") - 1
    length = np.diff(np.append(cuts, total))
    return _result("concat_chunk", inp, pad_id, cuts // width, doc, cuts - doc_start[doc], length,
                   0)


def ffd(documents: Sequence, seq_len: int, *, long_docs: str = "split", next_token: bool = False,
        pad_id: int = 0) -> PackResult:
    """First-fit decreasing: longest first, each into the first (oldest) row with room for it."""
    return _fit_decreasing("ffd", FirstFit, documents, seq_len, long_docs, next_token, pad_id)


def bfd(documents: Sequence, seq_len: int, *, long_docs: str = "split", next_token: bool = False,
        pad_id: int = 0) -> PackResult:
    """Best-fit decreasing: longest first, each into the row it leaves the least room in (ties:
    the oldest row), found by one walk down `fit_trees.BestFit`."""
    return _fit_decreasing("bfd", BestFit, documents, seq_len, long_docs, next_token, pad_id)


def ffd_scan(documents: Sequence, seq_len: int, *, long_docs: str = "split",
             next_token: bool = False, pad_id: int = 0) -> PackResult:
    """First-fit decreasing as the textbook loop writes it: scan every open row for each document.
    Same rows as `ffd` in O(N x rows) time: the baseline the fast versions are measured against."""
    inp = _read(documents, seq_len, next_token)
    doc, offset, length, dropped = _pieces(inp, long_docs)
    order, width = np.argsort(-length, kind="stable"), inp.width  # a local: read N x rows times
    used: list[int] = []
    row = np.empty(len(order), np.int64)
    for i, n in zip(order.tolist(), length[order].tolist()):
        for r, u in enumerate(used):  # the first open row with room for n
            if u + n <= width:
                break
        else:  # none: open a new one
            r = len(used)
            used.append(0)
        used[r] += n
        row[i] = r
    return _result("ffd", inp, pad_id, row[order], doc[order], offset[order], length[order],
                   dropped)


def _fit_decreasing(strategy: str, policy: type, documents: Sequence, seq_len: int,
                    long_docs: str, next_token: bool, pad_id: int) -> PackResult:
    """Sort the pieces longest first and place them one run of equal lengths at a time.

    Within a run of k pieces of length n, the row that takes the first piece stays the first (or
    tightest) fit for the next ones while it has room for n, so it takes min(k, room // n) of them
    at once: one tree walk per row touched, not per piece. No other row can overtake it: under first
    fit the rows before it still lack room, under best fit its room shrinks to a value no other row
    had (all rooms between n and its old room were empty, or it would not have been the tightest).
    """
    inp = _read(documents, seq_len, next_token)
    doc, offset, length, dropped = _pieces(inp, long_docs)
    order = np.argsort(-length, kind="stable")  # longest first; equal lengths in input order
    doc, offset, length = doc[order], offset[order], length[order]
    rows = policy(length)  # FirstFit or BestFit: take a row for n tokens, put it back
    row = np.empty(len(length), np.int64)
    rooms: list[int] = []  # free room of each row opened so far
    run_ends = np.flatnonzero(np.diff(length, append=0)).tolist()  # last index of each length run
    i = 0
    for end, n in zip(run_ends, length[run_ends].tolist()):
        while i <= end:  # pieces i..end all have length n
            r = rows.take(n)  # the first (ffd) or tightest (bfd) row with room for n, or -1
            if r < 0:  # no row has room: open a new, empty one
                r = len(rooms)
                rooms.append(inp.width)
            k = min(rooms[r] // n, end + 1 - i)  # as many of the run as the row holds
            row[i:i + k] = r
            i += k
            rooms[r] -= k * n
            rows.put(r, rooms[r])  # back into the tree under its new room
    return _result(strategy, inp, pad_id, row, doc, offset, length, dropped)


def bestfit_crop(documents: Sequence, seq_len: int, *, buffer_size: int = 1000, refill: int = 128,
                 next_token: bool = False, pad_id: int = 0) -> PackResult:
    """nanochat's BOS-aligned best-fit loader: documents enter a buffer `refill` at a time (its
    `tokenizer_batch_size=128`) whenever it holds fewer than `buffer_size`; a row takes the largest
    buffered document that fits, and when none fits the shortest is cropped to fill the row, its
    rest dropped. Every row starts at a document's first token (its BOS); only the last is padded.
    """
    inp = _read(documents, seq_len, next_token)
    buffer_size = check_int(buffer_size, "buffer_size", low=1)
    refill, n_docs, width = check_int(refill, "refill", low=1), len(inp.lengths), inp.width
    all_lengths = inp.lengths.tolist()
    buffer: list[tuple[int, int]] = []  # (length, -doc), sorted: of equal lengths, first comes last
    segments: list[tuple[int, int, int]] = []  # (row, doc, length); every one starts at offset 0
    dropped, arrived, r, pos = 0, 0, 0, 0  # r: the row being filled, pos: tokens already in it
    while arrived < n_docs or buffer:
        while len(buffer) < buffer_size and arrived < n_docs:  # top up: `refill` documents at once
            for d in range(arrived, min(arrived + refill, n_docs)):
                bisect.insort(buffer, (all_lengths[d], -d))
            arrived = min(arrived + refill, n_docs)
        room = width - pos
        i = bisect.bisect_right(buffer, (room, 0)) - 1  # the largest that fits (first arrival)
        if i < 0:  # nothing fits: crop the shortest (first arrival) to the room left, drop the rest
            i = bisect.bisect_right(buffer, (buffer[0][0], 0)) - 1
            dropped += buffer[i][0] - room
        n, d = buffer.pop(i)
        segments.append((r, -d, min(n, room)))
        pos += min(n, room)
        if pos == width:  # the row is exactly full: the next document starts a new one
            r, pos = r + 1, 0
    row, doc, length = np.array(segments, dtype=np.int64).reshape(-1, 3).T
    return _result("bestfit_crop", inp, pad_id, row, doc, np.zeros_like(doc), length, dropped)


STRATEGIES = {"pad": pad, "greedy": greedy, "concat_chunk": concat_chunk, "ffd": ffd, "bfd": bfd,
              "bestfit_crop": bestfit_crop}
