"""The byte-level BPE trainer in stages: how `trainer.train_bpe` became fast, one idea at a time.

Every stage learns exactly the merges of `trainer.train_bpe`; only the work per merge differs:

    train_bpe_recount        one list of ids per pre-token *occurrence*; after each merge every pair
                             of the corpus is counted again
    trainer.train_bpe_naive  equal pre-tokens stored once with their count; every pair of the
                             distinct pre-tokens counted again
    train_bpe_incremental    pair counts kept between merges, only the pre-tokens a merge changes
                             (found by an inverted index) recounted; the best pair by max(), or
                             (heap=True) from a lazy max-heap
    trainer.train_bpe        the same ideas, recounting only the pairs next to a merged position

They share trainer.py's building blocks; `merge_work` records what each merge costs each stage.
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import repeat

from tutorial_lib._check_data import check_bool
from tutorial_lib._checks import check_int
from tutorial_lib.bpe.corpus import TextSource
from tutorial_lib.bpe.merge import merge_unchecked
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN
from tutorial_lib.bpe.trainer import (ByteVocab, Merges, Pair, best_pair, count_pairs,
                                      descending_key, heap_entries, pop_best,
                                      start_training)

Tokens = tuple[bytes, ...]


def train_bpe_recount(texts_or_path: TextSource, vocab_size: int,
                      special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN
                      ) -> tuple[ByteVocab, Merges]:
    """Train with no bookkeeping at all: each occurrence of a pre-token is its own list of ids, and
    every pair of the corpus is counted again for each merge. As `trainer.train_bpe` otherwise."""
    vocab, words, freqs, num_merges = start_training(texts_or_path, vocab_size, special_tokens,
                                                     pattern)
    # " the" 1,000 times: 1,000 lists, each counted once
    corpus = [list(ids) for ids, freq in zip(words, freqs) for _ in range(freq)]
    merges = []
    for new_id in range(len(vocab), len(vocab) + num_merges):
        # Count every pair of the corpus, again, and merge the best one everywhere.
        best = best_pair(count_pairs(corpus, repeat(1)), vocab)
        if best is None:
            break
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        corpus = [merge_unchecked(ids, best, new_id) for ids in corpus]
    return vocab, merges


@dataclass(frozen=True)
class MergeWork:
    """What one merge costs each stage: the pair-count work of a recount against an update."""

    pair: tuple[bytes, bytes]  # the merged pair
    count: int  # how often it occurs in the corpus
    corpus_pairs: int  # pair positions in the whole corpus: what train_bpe_recount counts
    distinct_pairs: int  # pair positions in the distinct pre-tokens: what train_bpe_naive counts
    words: int  # distinct pre-tokens holding the pair: what the inverted index hands to the update
    updates: int  # pair counts the incremental update changes (old pairs out, new ones in)
    examples: tuple[tuple[Tokens, Tokens], ...]  # up to 3 most frequent such words: before, after

    def words_share(self, distinct_words: int) -> float:
        """Share of a corpus's `distinct_words` pre-tokens that this merge hands to the update."""
        return self.words / check_int(distinct_words, "distinct_words", low=max(self.words, 1))


def update_pair_counts(words: list[list[int]], freqs: list[int], pair_counts: dict[Pair, int],
                       where: dict[Pair, set[int]], pair: Pair, new_id: int) -> None:
    """Merge `pair` into `new_id` in every word that holds it, keeping `pair_counts`, `where` exact.

    `where[p]`, the inverted index, holds the words that contain pair p: only those change. Each is
    taken out of the counts whole, merged, and put back whole; a count at 0 is deleted.
    """
    for i in sorted(where.pop(pair, ())):
        old, freq = words[i], freqs[i]
        # Take the word out: each of its pairs loses the word's frequency.
        for p in zip(old, old[1:]):
            pair_counts[p] -= freq
            if not pair_counts[p]:
                del pair_counts[p]
            where[p].discard(i)
        # Merge, and put it back.
        words[i] = new = merge_unchecked(old, pair, new_id)
        for p in zip(new, new[1:]):
            pair_counts[p] += freq
            where[p].add(i)
    where.pop(pair, None)  # the discards above may have put back an empty set for `pair`


def _incremental(vocab: ByteVocab, words: list[list[int]], freqs: list[int], num_merges: int,
                 heap: bool) -> Iterator[MergeWork]:
    """The incremental trainer's merge loop: adds each merge to `vocab` and yields what it cost."""
    # Count every pair once, at the start, and note which words hold it (the inverted index).
    pair_counts, where = count_pairs(words, freqs), defaultdict(set)
    for i, ids in enumerate(words):
        for pair in zip(ids, ids[1:]):
            where[pair].add(i)
    corpus_pairs = sum(freq * (len(ids) - 1) for ids, freq in zip(words, freqs))
    distinct_pairs = sum(len(ids) - 1 for ids in words)
    keys = [descending_key(token) for token in vocab.values()]  # the heap order of train_bpe
    entries = heap_entries(pair_counts, keys) if heap else []
    heapq.heapify(entries)
    for new_id in range(len(vocab), len(vocab) + num_merges):
        # The best pair: from the lazy heap, or by scanning every count.
        best = pop_best(entries, pair_counts) if heap else best_pair(pair_counts, vocab)
        if best is None:
            return
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        keys.append(descending_key(vocab[new_id]))
        before = {i: words[i] for i in where[best]}  # merging makes new lists: these stay
        count = pair_counts[best]
        update_pair_counts(words, freqs, pair_counts, where, best, new_id)
        if heap:  # the only pairs that are new hold new_id; every other count can only have fallen
            new = {p for i in before for p in zip(words[i], words[i][1:]) if new_id in p}
            for entry in heap_entries({p: pair_counts[p] for p in new}, keys):
                heapq.heappush(entries, entry)
        shown = sorted(before, key=lambda i: (-freqs[i], i))[:3]  # the most frequent words
        yield MergeWork(
            pair=(vocab[best[0]], vocab[best[1]]), count=count, corpus_pairs=corpus_pairs,
            distinct_pairs=distinct_pairs, words=len(before),
            updates=sum(len(old) + len(words[i]) - 2 for i, old in before.items()),
            examples=tuple((tuple(map(vocab.get, before[i])), tuple(map(vocab.get, words[i])))
                           for i in shown))
        corpus_pairs -= sum(freqs[i] * (len(old) - len(words[i])) for i, old in before.items())
        distinct_pairs -= sum(len(old) - len(words[i]) for i, old in before.items())


def train_bpe_incremental(texts_or_path: TextSource, vocab_size: int,
                          special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN, *,
                          heap: bool = False) -> tuple[ByteVocab, Merges]:
    """Train with pair counts kept up to date between merges (`update_pair_counts`); the best pair
    by max() over every count, or with heap=True from `trainer.pop_best`. Arguments and result as
    `trainer.train_bpe`."""
    check_bool(heap, "heap")
    vocab, words, freqs, num_merges = start_training(texts_or_path, vocab_size, special_tokens,
                                                     pattern)
    return vocab, [work.pair for work in _incremental(vocab, words, freqs, num_merges, heap)]


def merge_work(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
               pattern: str = GPT2_PATTERN) -> list[MergeWork]:
    """Train incrementally (with the heap) and record what each merge costs: see `MergeWork`."""
    vocab, words, freqs, num_merges = start_training(texts_or_path, vocab_size, special_tokens,
                                                     pattern)
    return list(_incremental(vocab, words, freqs, num_merges, heap=True))
