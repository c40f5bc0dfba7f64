"""How `Tokenizer` encodes fast in pure Python, with exactly the ids of the plain merge loop.

Three things make minbpe's loop fast without changing an id (bench_bpe.py times them): the loop
itself (`apply_merges`: a scan on short pieces, a heap on long ones, C ints on huge ones); a cache
pre-token -> ids (`PieceEncoder`: English repeats a few thousand pre-tokens); and exact cuts
(`Boundaries`: a long Han run seldom repeats, but its segments cut where no merge reaches do).
"""

from __future__ import annotations

import heapq
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, compress, islice
from typing import Any

CACHE_SIZE = 1 << 16  # pre-tokens whose ids are remembered: English repeats a few thousand
CACHED_CHARS = 16  # only pre-tokens up to this length are remembered: bounds the cache in bytes
HEAP_ABOVE = 16  # longer pieces (bytes) merge with the heap; bench_bpe.py times both loops
LEAN_ABOVE = 1 << 16  # longer pieces (bytes) merge in rank buckets: bench_pipeline.py's long piece
_NO_MERGE = 1 << 62  # the "rank" of a pair that is not a merge: above every real rank, still an int

Ranks = dict[tuple[int, int], int]


# ----------------------------------------------------------------------------------- the merge loop


def apply_merges(ids: list[int], pair_ranks: Ranks, merged: list[int]) -> list[int]:
    """Merge `ids` (in place): while some adjacent pair is a merge, replace the lowest-ranked one
    (the leftmost, like tiktoken) by `merged[rank]`, rank = `pair_ranks[(left, right)]`."""
    if len(ids) > HEAP_ABOVE:
        return merge_with_heap(ids, pair_ranks, merged)
    return merge_by_scan(ids, pair_ranks, merged)


def merge_by_scan(ids: list[int], pair_ranks: Ranks, merged: list[int]) -> list[int]:
    """Ranks of the adjacent pairs in a list: a step finds the best with `min` and `index` (in C)
    and looks up only the two pairs next to the merge. O(n) a step, O(n^2) a piece."""
    get = pair_ranks.get
    ranks = [get(pair, _NO_MERGE) for pair in zip(ids, ids[1:])]
    while ranks:
        rank = min(ranks)
        if rank == _NO_MERGE:  # no adjacent pair is a merge: done
            break
        i = ranks.index(rank)  # the leftmost pair of the best rank
        ids[i : i + 2] = (merged[rank],)
        del ranks[i]
        # Only the pairs on either side of the new token changed.
        if i:
            ranks[i - 1] = get((ids[i - 1], ids[i]), _NO_MERGE)
        if i < len(ranks):
            ranks[i] = get((ids[i], ids[i + 1]), _NO_MERGE)
    return ids


def merge_with_heap(ids: list[int], pair_ranks: Ranks, merged: list[int]) -> list[int]:
    """The same merges in O(n log n): tokens in a linked list, pairs in a heap of (rank, position);
    an entry that no longer shows `ranks[i]`, the pair's rank now, is stale."""
    get = pair_ranks.get
    n = len(ids)
    ranks = [get(pair, _NO_MERGE) for pair in zip(ids, ids[1:])]
    heap = [(rank, i) for i, rank in enumerate(ranks) if rank != _NO_MERGE]
    heapq.heapify(heap)
    ranks.append(_NO_MERGE)  # the last token starts no pair
    after = list(range(1, n + 1))  # position of the next token; n past the end
    before = list(range(-1, n - 1))  # position of the previous token; -1 before the start
    while heap:
        rank, i = heapq.heappop(heap)
        if ranks[i] != rank:  # stale: the pair at i has changed since this entry was pushed
            continue
        # Merge the token at i with the one after it (at j), and unlink j.
        j = after[i]
        ids[i] = merged[rank]
        ranks[j] = _NO_MERGE
        k = after[i] = after[j]
        if k < n:
            before[k] = i
        # The pairs that now start at i and at the token before it (h) get their new ranks.
        ranks[i] = get((ids[i], ids[k]), _NO_MERGE) if k < n else _NO_MERGE
        h = before[i]
        if h >= 0:
            ranks[h] = get((ids[h], ids[i]), _NO_MERGE)
        for start in (i, h):
            if start >= 0 and ranks[start] != _NO_MERGE:
                heapq.heappush(heap, (ranks[start], start))
    return _linked(ids, after, [])


def merge_in_rank_order(ids: array, pair_ranks: Ranks, merged: list[int]) -> array | None:
    """The heap's merges, made rank by rank, in `ids` (an `array` of C ints) and a few more arrays.

    In a trained vocabulary the lowest rank present only grows: all merges of rank r happen
    together, left to right. Where that breaks the result is None, and `ids` spoilt.
    """
    get = pair_ranks.get
    n = len(ids)
    after = array("i", range(1, n + 1))  # position of the next token; n past the end, -1 if merged
    before = array("i", range(-1, n - 1))  # position of the previous token; -1 before the start
    buckets: dict[int, array] = defaultdict(lambda: array("i"))
    for i, pair in enumerate(zip(ids, islice(ids, 1, None))):
        if (rank := get(pair)) is not None:
            buckets[rank].append(i)
    pending = list(buckets)  # the ranks that have a bucket, lowest first
    heapq.heapify(pending)
    while pending:
        rank = heapq.heappop(pending)
        for i in _sorted_positions(buckets.pop(rank)):
            j = after[i]
            if j < 0 or j >= n or get((ids[i], ids[j])) != rank:
                continue  # merged away, or its pair changed since it was put in the bucket
            # Merge the token at i with the one after it (at j), and unlink j.
            ids[i] = merged[rank]
            k = after[i] = after[j]
            after[j] = -1
            if k < n:
                before[k] = i
            # The pairs that now start at the token before i and at i go to their buckets.
            for start in (before[i], i):
                end = after[start] if start >= 0 else n
                new = get((ids[start], ids[end])) if end < n else None
                if new is None:
                    continue
                if new <= rank:  # merges that break the rule: the heap copes with them
                    return None
                if new not in buckets:
                    heapq.heappush(pending, new)
                buckets[new].append(start)
    return _linked(ids, after, array("i"))


def _linked(ids: Any, after: Any, out: Any) -> Any:
    """The tokens of a merged linked list, in order: `out` (a list or an array) filled."""
    i, n = 0, len(ids)
    while i < n:
        out.append(ids[i])
        i = after[i]
    return out


def _sorted_positions(bucket: array) -> Iterator[int]:
    """A bucket's positions in order, a block at a time (as Python ints, 9 times its bytes)."""
    if len(bucket) < 1024:
        yield from sorted(bucket)
        return
    import numpy as np  # only for megabyte pieces: encoding short ones should not need numpy

    ordered = np.sort(np.frombuffer(bucket, dtype=np.intc))
    for start in range(0, len(ordered), 1 << 16):
        yield from ordered[start : start + (1 << 16)].tolist()


# --------------------------------------------------------------------------------------- the cache


def _keep(cache: dict[str, Any], key: str, value: Any) -> Any:
    """Remember key -> value if short, starting afresh at CACHE_SIZE (common keys come back)."""
    if len(key) <= CACHED_CHARS:
        if len(cache) >= CACHE_SIZE:
            cache.clear()
        cache[key] = value
    return value


class BoundedCache(dict):
    """key -> `compute(key)`, kept by `_keep`'s bounds (a hit is one dict lookup, in C)."""

    def __init__(self, compute: Callable[[str], Any]) -> None:
        super().__init__()
        self._compute = compute

    def __missing__(self, key: str) -> Any:
        return _keep(self, key, self._compute(key))


class PieceEncoder(dict):
    """pre-token -> ids: `encoder[piece]` is the fast path, `encoder.merge(piece)` the plain loop.
    Both give the same ids: `Boundaries`' segments merge alone as they do side by side."""

    def __init__(self, id_of: dict[bytes, int], merges: list[tuple[bytes, bytes]]) -> None:
        super().__init__()
        self.byte_ids = [id_of[bytes([b])] for b in range(256)]  # cl100k permutes the byte ids
        self.pair_ranks = {(id_of[a], id_of[b]): rank for rank, (a, b) in enumerate(merges)}
        self.merged = [id_of[a + b] for a, b in merges]  # merged[rank]: the id that merge makes
        self.boundaries = Boundaries(a + b for a, b in merges)

    def merge(self, piece: str) -> tuple[int, ...] | array:
        """The plain path: `piece`'s bytes merged whole, no cuts, no cache; past LEAN_ABOVE bytes
        by `merge_in_rank_order`, as an `array` (4 bytes per id; a tuple takes 36)."""
        data = piece.encode("utf-8")
        if len(data) > LEAN_ABOVE:
            ids = array("i", map(self.byte_ids.__getitem__, data))
            lean = merge_in_rank_order(ids, self.pair_ranks, self.merged)
            if lean is not None:
                return lean
        ids = [self.byte_ids[b] for b in data]
        return tuple(apply_merges(ids, self.pair_ranks, self.merged))

    def __missing__(self, piece: str) -> tuple[int, ...]:
        """The ids of a pre-token not in the cache: from its exact cuts if it has any, else merged.
        ASCII is merged whole: English merges span almost every cut, so looking costs more."""
        if not piece.isascii():
            segments = self.boundaries.segments(piece)
            if len(segments) > 1:  # each segment's ids from the cache (short ones are kept there)
                ids = tuple(chain.from_iterable(map(self.__getitem__, segments)))
                return _keep(self, piece, ids)
        return _keep(self, piece, self.merge(piece))


# -------------------------------------------------------------------------------------- exact cuts


class Boundaries:
    """Where a pre-token can be cut without changing its ids: a class per character, from merges.

    If no merge result can cover bytes on both sides of a boundary, each side makes exactly the
    merges it would alone. A result covers the boundary between x and y only if some split of it
    ends with x (or x's tail bytes) and starts with y (or y's head bytes). The class of x is the
    set of right keys its left keys pair with, that of y its own right keys: cut when disjoint.
    """

    def __init__(self, merged: Iterable[bytes]) -> None:
        partners: dict[str | bytes, set[str | bytes]] = defaultdict(set)
        for token in merged:
            for left, right in _splits(token):
                partners[left].add(right)
        self._partners = partners
        self._right_keys = set().union(*partners.values())
        self._interned: dict[frozenset, frozenset] = {}  # few distinct classes: one object each
        self._left = BoundedCache(self._left_class)
        self._right = BoundedCache(self._right_class)

    def segments(self, piece: str) -> list[str]:
        """`piece` cut at every boundary that no merge can cover; "".join(segments) == piece."""
        # cuts[i]: may the boundary between piece[i] and piece[i + 1] be cut?
        cuts = list(map(frozenset.isdisjoint, map(self._left.__getitem__, piece),
                        map(self._right.__getitem__, piece[1:])))
        if all(cuts):  # the usual case for Han text: one character per segment
            return list(piece)
        starts = [0, *compress(range(1, len(piece)), cuts)]
        return [piece[start:end] for start, end in zip(starts, [*starts[1:], len(piece)])]

    def _left_class(self, char: str) -> frozenset:
        data = char.encode("utf-8", "surrogatepass")  # a lone surrogate is refused later, by merge
        keys = [char, *(data[j:] for j in range(1, len(data)))]
        partners = (self._partners[k] for k in keys if k in self._partners)
        return self._intern(frozenset().union(*partners))

    def _right_class(self, char: str) -> frozenset:
        data = char.encode("utf-8", "surrogatepass")
        keys = [char, *(data[:j] for j in range(1, len(data)))]
        return self._intern(frozenset(k for k in keys if k in self._right_keys))

    def _intern(self, keys: frozenset) -> frozenset:
        return self._interned.setdefault(keys, keys)


def _splits(token: bytes) -> Iterator[tuple[str | bytes, str | bytes]]:
    """(left key, right key) of each split of `token` that could lie between two characters (a
    valid UTF-8 token only between its characters); a key is a character or partial bytes."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        for k in range(1, len(token)):
            left, right = _key(token[:k], -1), _key(token[k:], 0)
            if left is not None and right is not None:
                yield left, right
        return
    yield from zip(text, text[1:])


def _key(part: bytes, end: int) -> str | bytes | None:
    """The whole character at `part`'s end (end=-1) or start (end=0) (UTF-8 resynchronizes, so it
    decodes as itself); else `part` if it can be a character's tail (end=-1) or head; else None."""
    near = (part[-4:] if end else part[:4]).decode("utf-8", "surrogateescape")[end]
    if not "\udc80" <= near <= "\udcff":
        return near
    # A tail is continuation bytes (10xxxxxx); a head is a lead byte (11xxxxxx), then those.
    if len(part) > 3 or (not end and part[0] < 0xC0):
        return None
    return part if all(0x80 <= b < 0xC0 for b in (part if end else part[1:])) else None
