"""The byte-level BPE trainer in stages: how `trainer.train_bpe` became fast, one idea at a time.

Every stage learns exactly the same merges as `trainer.train_bpe` (same tie-break, see trainer.py); only the
work per merge differs. From slow to fast:

    train_bpe_recount          one list of ids per pre-token *occurrence*; after each merge every pair of the
                               corpus is counted again
    trainer.train_bpe_naive    equal pre-tokens stored once with their count (pre-token aggregation); every
                               pair of the distinct pre-tokens counted again
    train_bpe_incremental      pair counts kept between merges: an inverted index pair -> pre-tokens finds the
                               pre-tokens a merge changes, and only their pairs are counted again; the best
                               pair is still found by scanning all pair counts with max()
    ... (heap=True)            the best pair comes from a lazy max-heap instead of that scan
    trainer.train_bpe          the library's trainer: the same ideas, and further exact shortcuts (it recounts
                               only the pairs next to a merged position, not the whole pre-token)

The stages share input handling, pre-token counting, `_merge` and the heap with trainer.py by importing them,
so they differ from it in the merge loop only. `merge_work` records what each merge costs each stage.
"""

from __future__ import annotations

import heapq
import json
import os
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tutorial_lib._checks import check_bool, check_int, check_type
from tutorial_lib.tokenization.pretokenize import GPT2_PATTERN
from tutorial_lib.tokenization.trainer import (ByteVocab, Merges, TextSource, _descending, _merge, _pop_best,
                                               _start)

Pair = tuple[int, int]


def train_bpe_recount(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
                      pattern: str = GPT2_PATTERN) -> tuple[ByteVocab, Merges]:
    """Train with no bookkeeping at all: each occurrence of a pre-token is its own list of ids, and every pair
    of the whole corpus is counted again before each merge. Arguments and result as `trainer.train_bpe`."""
    vocab, words, freqs, num_merges = _start(texts_or_path, vocab_size, special_tokens, pattern, False, 1)
    corpus = [list(ids) for ids, freq in zip(words, freqs) for _ in range(freq)]  # " the" 1,000 times: 1,000 lists
    merges = []
    for new_id in range(len(vocab), len(vocab) + num_merges):
        counts = Counter(pair for ids in corpus for pair in zip(ids, ids[1:]))
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], vocab[p[0]], vocab[p[1]]))  # tie-break as train_bpe
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        corpus = [_merge(ids, best, new_id) for ids in corpus]
    return vocab, merges


@dataclass(frozen=True)
class MergeWork:
    """What one merge costs each stage: the pair-count work a recount does against an incremental update."""

    pair: tuple[bytes, bytes]  # the merged pair
    count: int  # how often it occurs in the corpus
    corpus_pairs: int  # pair positions in the whole corpus: what train_bpe_recount counts before this merge
    distinct_pairs: int  # pair positions in the distinct pre-tokens: what train_bpe_naive counts
    words: int  # distinct pre-tokens holding the pair: what the inverted index hands to the update
    updates: int  # pair counts changed by the incremental update (old pairs of those words out, new ones in)
    examples: tuple[tuple[tuple[bytes, ...], tuple[bytes, ...]], ...]  # the most frequent of those words, at
    # most three: (tokens before, tokens after)


def update_pair_counts(words: list[list[int]], freqs: list[int], pair_counts: Counter[Pair],
                       where: dict[Pair, set[int]], pair: Pair, new_id: int) -> None:
    """Merge `pair` into `new_id` in every word that holds it, keeping `pair_counts` and `where` exact.

    `where[p]` holds the indices of the words that contain pair p (the inverted index): only those words
    change. Each is taken out of the counts whole (each of its pairs loses the word's frequency), merged, and
    put back whole. A pair whose count falls to 0 is deleted, so `pair_counts` always equals a full recount.
    """
    for i in sorted(where.pop(pair, ())):
        old, freq = words[i], freqs[i]
        for p in zip(old, old[1:]):
            pair_counts[p] -= freq
            if not pair_counts[p]:
                del pair_counts[p]
            where[p].discard(i)
        words[i] = new = _merge(old, pair, new_id)
        for p in zip(new, new[1:]):
            pair_counts[p] += freq
            where[p].add(i)
    where.pop(pair, None)  # the discards above may have put back an empty set for `pair`


def _index(words: list[list[int]], freqs: list[int]) -> tuple[Counter[Pair], dict[Pair, set[int]]]:
    """Count every pair once, at the start, and note which words hold it."""
    pair_counts: Counter[Pair] = Counter()
    where: dict[Pair, set[int]] = defaultdict(set)
    for i, (ids, freq) in enumerate(zip(words, freqs)):
        for pair in zip(ids, ids[1:]):
            pair_counts[pair] += freq
            where[pair].add(i)
    return pair_counts, where


def _incremental(vocab: ByteVocab, words: list[list[int]], freqs: list[int], num_merges: int, heap: bool
                 ) -> Iterator[MergeWork]:
    """The incremental trainer's merge loop: adds each merge to `vocab` and yields what it cost."""
    pair_counts, where = _index(words, freqs)
    corpus_pairs = sum(freq * (len(ids) - 1) for ids, freq in zip(words, freqs))
    distinct_pairs = sum(len(ids) - 1 for ids in words)
    keys = [_descending(token) for token in vocab.values()]  # the heap order of trainer.train_bpe
    entries = [(-count, keys[a], keys[b], a, b) for (a, b), count in pair_counts.items()] if heap else []
    heapq.heapify(entries)
    for new_id in range(len(vocab), len(vocab) + num_merges):
        if heap:
            best = _pop_best(entries, pair_counts)
        else:
            best = max(pair_counts, key=lambda p: (pair_counts[p], vocab[p[0]], vocab[p[1]]), default=None)
        if best is None:
            return
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        keys.append(_descending(vocab[new_id]))
        before = {i: words[i] for i in where[best]}  # _merge builds new lists, so these stay as they were
        count = pair_counts[best]
        update_pair_counts(words, freqs, pair_counts, where, best, new_id)
        if heap:  # the only pairs that are new hold new_id; every other count can only have fallen
            for a, b in {p for i in before for p in zip(words[i], words[i][1:]) if new_id in p}:
                heapq.heappush(entries, (-pair_counts[a, b], keys[a], keys[b], a, b))
        shown = sorted(before, key=lambda i: (-freqs[i], i))[:3]
        yield MergeWork(
            pair=(vocab[best[0]], vocab[best[1]]), count=count, corpus_pairs=corpus_pairs,
            distinct_pairs=distinct_pairs, words=len(before),
            updates=sum(len(old) + len(words[i]) - 2 for i, old in before.items()),
            examples=tuple((tuple(vocab[t] for t in before[i]), tuple(vocab[t] for t in words[i])) for i in shown))
        corpus_pairs -= sum(freqs[i] * (len(old) - len(words[i])) for i, old in before.items())
        distinct_pairs -= sum(len(old) - len(words[i]) for i, old in before.items())


def train_bpe_incremental(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
                          pattern: str = GPT2_PATTERN, *, heap: bool = False) -> tuple[ByteVocab, Merges]:
    """Train with pair counts kept up to date between merges (see `update_pair_counts`).

    heap=False finds the best pair by scanning every pair count with max(), as the recounting trainers do;
    heap=True pops it from a lazy max-heap (trainer._pop_best). Arguments and result as `trainer.train_bpe`.
    """
    check_bool(heap, "heap")
    vocab, words, freqs, num_merges = _start(texts_or_path, vocab_size, special_tokens, pattern, False, 1)
    return vocab, [work.pair for work in _incremental(vocab, words, freqs, num_merges, heap)]


def merge_work(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
               pattern: str = GPT2_PATTERN) -> list[MergeWork]:
    """Train incrementally (with the heap) and record what each merge costs: see `MergeWork`."""
    vocab, words, freqs, num_merges = _start(texts_or_path, vocab_size, special_tokens, pattern, False, 1)
    return list(_incremental(vocab, words, freqs, num_merges, heap=True))


# Hugging Face's BpeTrainer with GPT-2's byte-level pre-tokenizer (same regex, all 256 bytes in the alphabet),
# run in a child process: the Rust library reads RAYON_NUM_THREADS once, when it first starts its threads.
_HF_CHILD = """
import json, sys, time
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
texts, vocab_size = json.load(sys.stdin)
tokenizer = Tokenizer(models.BPE())
tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
trainer = trainers.BpeTrainer(vocab_size=vocab_size, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                              show_progress=False)
start = time.perf_counter()
tokenizer.train_from_iterator(texts, trainer)
print(json.dumps([time.perf_counter() - start, tokenizer.get_vocab_size()]))
"""


def hf_train_seconds(texts: list[str], vocab_size: int, threads: int) -> float:
    """Seconds Hugging Face `tokenizers` takes to train byte-level BPE on `texts` with `threads` threads.

    Only the training is timed, not starting the child process or importing the library.
    """
    texts = [check_type(text, f"texts[{i}]", str, "a str") for i, text in enumerate(texts)]
    vocab_size = check_int(vocab_size, "vocab_size", low=256)
    threads = check_int(threads, "threads", low=1)
    child = subprocess.run([sys.executable, "-c", _HF_CHILD], input=json.dumps([texts, vocab_size]),
                           capture_output=True, text=True, check=True,
                           env={**os.environ, "RAYON_NUM_THREADS": str(threads)})
    seconds, size = json.loads(child.stdout)
    if size != vocab_size:
        raise ValueError(f"texts are too small for vocab_size={vocab_size}: Hugging Face stopped at {size}")
    return seconds
