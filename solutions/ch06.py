"""Chapter 06: reference solutions, and the typical wrong answer each checker must reject."""

import heapq
from collections import defaultdict

from tutorial_lib.bpe.merge import merge
from tutorial_lib.bpe.trainer import best_pair, count_pairs, descending_key, heap_entries
from tutorial_lib.bpe.trainer import pop_best as library_pop_best


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


def pop_best(heap: list[tuple[int, int, int]], pair_counts: dict[tuple[int, int], int]
             ) -> tuple[tuple[int, int] | None, list[tuple[int, int, int]]]:
    heap = list(heap)  # a trainer pops from its own heap; here the caller's list is left as it was
    best = None
    while heap:
        neg_count, a, b = heapq.heappop(heap)
        now = pair_counts.get((a, b), 0)
        if now == -neg_count:
            best = (a, b)
            break
        if now:
            heapq.heappush(heap, (-now, a, b))
    return best, sorted(heap)


def _index(words):
    where = defaultdict(set)
    for i, ids in enumerate(words):
        for p in zip(ids, ids[1:]):
            where[p].add(i)
    return where


def train_incremental(words, freqs, vocab, num_merges, pair_counts, *, keyed=True, push_new=True):
    words, vocab = [list(ids) for ids in words], dict(vocab)
    where = _index(words)  # index: pair -> the words that hold it; pair_counts came counted
    keys = [descending_key(token) for token in vocab.values()] if keyed else None
    heap = heap_entries(pair_counts, keys)  # lazy heap; ties to the greatest bytes (keyed)
    heapq.heapify(heap)
    merges = []
    for new_id in range(len(vocab), len(vocab) + num_merges):
        best = library_pop_best(heap, pair_counts)
        if best is None:
            break
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        if keyed:
            keys.append(descending_key(vocab[new_id]))
        new = set()
        for i in sorted(where.pop(best)):  # update in place: only the words the index hands over
            old, freq = words[i], freqs[i]
            for p in zip(old, old[1:]):
                pair_counts[p] -= freq
                if not pair_counts[p]:
                    del pair_counts[p]
                where[p].discard(i)
            words[i] = merged = merge(old, best, new_id)
            for p in zip(merged, merged[1:]):
                pair_counts[p] += freq
                where[p].add(i)
                if new_id in p:
                    new.add(p)
        for entry in heap_entries({p: pair_counts[p] for p in new} if push_new else {}, keys):
            heapq.heappush(heap, entry)
    return merges, pair_counts


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
            return (a, b), sorted(heap)
    return None, sorted(heap)


def _ties_to_smallest_ids(words, freqs, vocab, num_merges, pair_counts):
    # Exercise 2's heap, (-count, a, b): ties go to the smallest ids, not to the greatest bytes as in
    # train_bpe (chapter 05), so the merges part ways at the first tie at the top.
    return train_incremental(words, freqs, vocab, num_merges, pair_counts, keyed=False)


def _recounts_with_count_pairs(words, freqs, vocab, num_merges, pair_counts):
    # train_bpe_naive's loop: count_pairs after every merge, into counts of its own. The merges are
    # right, but the handed counts, which the trainer was to keep up to date, are never written.
    vocab, merges = dict(vocab), []
    for new_id in range(len(vocab), len(vocab) + num_merges):
        best = best_pair(count_pairs(words, freqs), vocab)
        if best is None:
            break
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        words = [merge(ids, best, new_id) for ids in words]
    return merges, pair_counts


WRONG_ANSWERS = {
    "update_pair_counts": _only_the_pair_itself,
    "pop_best": _skip_stale,
    "train_incremental": _recounts_with_count_pairs,
}
