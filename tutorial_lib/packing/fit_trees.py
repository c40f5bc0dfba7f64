"""The trees that make first fit and best fit fast: which open row takes the next document.

The textbook loop scans every open row for each document, O(rows) per document. A segment tree of
maxima answers "the leftmost slot holding at least n" in O(log slots) instead, and both fits are
that question over different slots:

- `FirstFit`: one slot per row, in the order the rows were opened, holding the row's free room; the
  leftmost slot with room >= n is the oldest row the document fits in.
- `BestFit`: one slot per amount of free room 0..L, set when some row has exactly that much; the
  leftmost set slot >= n is the tightest room the document fits in, and among the rows with that
  room a heap hands out the oldest.

`strategies.ffd` and `strategies.bfd` drive them through the same two calls: `take(n)` a row with
room for n (or -1), `put(row, room)` a row's new free room.
"""

from __future__ import annotations

from heapq import heappop, heappush


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
    """Open rows indexed by age; leaf r holds row r's free room, so the leftmost fit is the oldest
    row."""

    def __init__(self, width: int, n_items: int) -> None:
        self.tree = MaxTree(n_items)  # never more rows than items

    def take(self, length: int) -> int:
        return self.tree.leftmost(length)

    def put(self, row: int, room: int) -> None:
        self.tree.set(row, room)


class BestFit:
    """Open rows grouped by free room; leaf c is c when some row has c tokens of room, so the
    leftmost leaf >= length is the tightest fit; among rows with the same room a heap hands out the
    oldest."""

    def __init__(self, width: int, n_items: int) -> None:
        self.tree = MaxTree(width + 1)
        self.rows_by_room: list[list[int]] = [[] for _ in range(width + 1)]  # heaps of row numbers

    def take(self, length: int) -> int:
        room = self.tree.leftmost(length)  # the least room that still holds `length`
        if room < 0:
            return -1
        rows = self.rows_by_room[room]
        row = heappop(rows)  # the oldest row with exactly that room
        if not rows:
            self.tree.set(room, 0)  # no row has this room any more
        return row

    def put(self, row: int, room: int) -> None:
        if room:  # a full row takes nothing more: forget it
            rows = self.rows_by_room[room]
            if not rows:
                self.tree.set(room, room)
            heappush(rows, row)
