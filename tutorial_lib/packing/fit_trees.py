"""The trees that make first fit and best fit fast: which open row takes the next document.

The textbook loop scans every open row for each document, O(rows) per document. A segment tree of
maxima answers "the leftmost slot holding at least n" in O(log slots) instead, and both fits are
that question over different slots, at most one slot per item whatever the row width L:
`FirstFit` has one slot per row, `BestFit` one per distinct item length. (A slot per possible room
0..L would be simpler for best fit, but long-context rows of a million tokens would then cost more
than the documents.) `strategies.ffd` and `strategies.bfd` drive both through the same two calls:
`take(n)` a row with room for n (or -1), `put(row, room)` a row's new free room.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from heapq import heappop, heappush

import numpy as np


class MaxTree:
    """A segment tree of maxima over slots 0..n-1: set a slot, or find the leftmost slot >= x."""

    def __init__(self, n: int) -> None:
        self.size = 1 << max(n - 1, 1).bit_length()  # leaves: a power of two >= n
        self.tree = [0] * (2 * self.size)  # node i has children 2i and 2i + 1; leaves start at size

    def set(self, slot: int, value: int) -> None:
        tree, i = self.tree, slot + self.size
        tree[i] = value
        while i > 1:  # walk up, each parent the max of its two children
            i >>= 1
            best = max(tree[2 * i], tree[2 * i + 1])
            if tree[i] == best:
                break  # the maxima above are unchanged too
            tree[i] = best

    def leftmost(self, at_least: int) -> int:
        """The leftmost slot whose value is >= at_least, or -1."""
        tree = self.tree
        if tree[1] < at_least:
            return -1  # even the largest value is too small
        i = 1
        while i < self.size:  # go left whenever the left half holds a large enough value
            i = 2 * i if tree[2 * i] >= at_least else 2 * i + 1
        return i - self.size


class FirstFit:
    """Leaf r holds row r's free room, so the leftmost slot with room >= n is the oldest fit."""

    def __init__(self, lengths: np.ndarray) -> None:
        self.tree = MaxTree(len(lengths))  # never more rows than items

    def take(self, length: int) -> int:
        return self.tree.leftmost(length)

    def put(self, row: int, room: int) -> None:
        self.tree.set(row, room)


class BestFit:
    """Open rows banded by free room: band j holds the rows whose room is at least the j-th
    shortest item length and less than the next one. Every room in band j fits that length and no
    room in a lower band does, so the tightest fit is the least (room, row) of the lowest non-empty
    band >= j: a MaxTree finds the band (slot j holds j + 1 while it has rows), its heap the row.
    """

    def __init__(self, lengths: np.ndarray) -> None:
        self.lengths = np.unique(lengths).tolist()  # the band floors, ascending
        self.tree = MaxTree(len(self.lengths))
        self.bands: list[list[tuple[int, int]]] = [[] for _ in self.lengths]

    def take(self, length: int) -> int:
        """The tightest row for `length` (one of the lengths given), or -1; it leaves the tree."""
        band = self.tree.leftmost(bisect_left(self.lengths, length) + 1)
        if band < 0:
            return -1  # no band from this length up has a row
        rows = self.bands[band]
        _, row = heappop(rows)  # the least room in the band, the oldest row among equals
        if not rows:
            self.tree.set(band, 0)  # the band is empty now
        return row

    def put(self, row: int, room: int) -> None:
        band = bisect_right(self.lengths, room) - 1  # the band of the longest length <= room
        if band >= 0:  # else nothing fits any more: forget the row
            rows = self.bands[band]
            if not rows:
                self.tree.set(band, band + 1)
            heappush(rows, (room, row))
