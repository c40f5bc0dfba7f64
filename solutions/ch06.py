"""Chapter 06: reference solutions, and the typical wrong answer each checker must reject."""

import heapq

from tutorial_lib.tokenization.trainer import merge


def update_pair_counts(words: list[list[int]], freqs: list[int], pair_counts: dict[tuple[int, int], int],
                       pair: tuple[int, int], new_id: int) -> dict[tuple[int, int], int]:
    counts = dict(pair_counts)
    for ids, freq in zip(words, freqs):
        if pair not in zip(ids, ids[1:]):
            continue
        for p in zip(ids, ids[1:]):
            counts[p] -= freq
            if not counts[p]:
                del counts[p]
        new = merge(ids, pair, new_id)
        for p in zip(new, new[1:]):
            counts[p] = counts.get(p, 0) + freq
    return counts


def pop_best(heap: list[tuple[int, int, int]], pair_counts: dict[tuple[int, int], int]) -> tuple[int, int] | None:
    heap = list(heap)  # a trainer pops from its own heap; here the caller's list is left as it was
    while heap:
        neg_count, a, b = heapq.heappop(heap)
        now = pair_counts.get((a, b), 0)
        if now == -neg_count:
            return a, b
        if now:
            heapq.heappush(heap, (-now, a, b))
    return None


def _only_the_pair_itself(words, freqs, pair_counts, pair, new_id):
    # Removes the merged pair and adds the pairs around the new token, but forgets that the neighbours of
    # each merged occurrence lose their old pairs: in "x a b y", x-a and b-y stay counted.
    counts = dict(pair_counts)
    counts.pop(pair, None)
    for ids, freq in zip(words, freqs):
        new = merge(ids, pair, new_id)
        for p in zip(new, new[1:]):
            if new_id in p:
                counts[p] = counts.get(p, 0) + freq
    return counts


def _skip_stale(heap, pair_counts):
    # Drops an entry whose count is out of date instead of pushing it back: right only if every change of a
    # count pushes a new entry, which this heap does not do.
    heap = list(heap)
    while heap:
        neg_count, a, b = heapq.heappop(heap)
        if pair_counts.get((a, b), 0) == -neg_count:
            return a, b
    return None


WRONG_ANSWERS = {
    "update_pair_counts": _only_the_pair_itself,
    "pop_best": _skip_stale,
}
