"""Byte-level BPE training. `train_bpe_naive`, the reference, recounts every pair after every merge
(easy to check by eye, slow); `train_bpe` gets the same (vocab, merges) with much less work: equal
pre-tokens stored once with their count (`corpus.count_pretokens`), only the pairs next to a merged
position recounted, in the pre-tokens an inverted index says hold the pair (`PairIndex`), and the
best pair popped from a lazy max-heap (`pop_best`). `train_tokenizer` makes a `Tokenizer` with it.

Tie-break (`best_pair`): of the pairs sharing the top count, the greatest (left bytes, right bytes)
wins (CS336); "whichever came first" would depend on dict order or thread timing. It compares bytes,
not ids: for the 256 bytes both agree, which hides a wrong implementation until merged tokens tie.
Hugging Face `tokenizers` takes the smallest pair of its ids: equal merges up to the first such tie.
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from tqdm.auto import tqdm

from tutorial_lib._checks import check_int
from tutorial_lib.bpe.corpus import (TextSource, corpus_digest, count_pretokens, iter_texts,
                                     normalize_texts)
from tutorial_lib.bpe.merge import Pair, merge_unchecked, occurrences, replace
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, check_special_tokens, compile_pattern
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract.normalize import check_form

ByteVocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]
TIE_BREAK = "lexicographically greatest pair of byte strings"  # best_pair's rule, in words
# The trainer's name in the metadata `train_tokenizer` writes, hence in the manifest and sha256 of
# every shipped tokenizer file: a stable identifier, not a path (the module moved, the name stays).
TRAINER_NAME = "tutorial_lib.tokenization.trainer.train_bpe"
HeapEntry = tuple  # (-count, descending_key(left), descending_key(right), a, b): see heap_entries
T = TypeVar("T", bound=Hashable)


# The building blocks, shared with trainer_stages and chapter 06, trust their arguments.
def count_pairs(words: Iterable[Sequence[T]], freqs: Iterable[int]
                ) -> defaultdict[tuple[T, T], int]:
    """How often each pair of adjacent tokens occurs, each word's pairs counted `freq` times, in
    first-met order. A defaultdict(int), not a Counter: it fills in a missing key in C."""
    counts: defaultdict[tuple[T, T], int] = defaultdict(int)
    for ids, freq in zip(words, freqs):
        for pair in zip(ids, ids[1:]):
            counts[pair] += freq
    return counts


def best_pair(pair_counts: Mapping[Pair, int], vocab: Mapping[int, bytes]) -> Pair | None:
    """The pair to merge next: the most frequent, ties to the greatest (left bytes, right bytes);
    None if there is no pair. The heap of `heap_entries` agrees."""
    return max(pair_counts, key=lambda p: (pair_counts[p], vocab[p[0]], vocab[p[1]]), default=None)


def descending_key(token: bytes) -> tuple[int, ...]:
    """A sort key that reverses the order of byte strings, so that a min-heap pops the greatest:
    each byte b becomes 255 - b, and a final 256 marks the end, which puts prefixes right
    (b"a" < b"ab" as bytes, and (158, 256) > (158, 157, 256) as keys)."""
    return (*(255 - b for b in token), 256)


def heap_entries(pair_counts: Mapping[Pair, int], keys: Sequence[tuple[int, ...]] | None = None
                 ) -> list[HeapEntry]:
    """(-count, keys[a], keys[b], a, b) for each pair (a, b): heapq pops the smallest, so the count
    is negated and keys[id] = descending_key(vocab[id]) orders ties as `best_pair` does. Without
    `keys`, ties go to the smallest ids: the plainer heap of chapter 06's exercise."""
    if keys is None:
        return [(-count, a, b) for (a, b), count in pair_counts.items()]
    return [(-count, keys[a], keys[b], a, b) for (a, b), count in pair_counts.items()]


def pop_best(heap: list[HeapEntry], pair_counts: Mapping[Pair, int]) -> Pair | None:
    """Pop the pair with the highest current count, ties as the entries order them; None if none.

    A pair's count only falls after its entry is pushed (a merge creates only pairs that hold the
    new token), and a heap cannot update an entry cheaply: so an entry may overstate its count and
    is corrected at the top, pushed back with the true count or dropped at 0."""
    while heap:
        entry = heapq.heappop(heap)
        pair = entry[-2:]
        count = pair_counts.get(pair, 0)
        if count == -entry[0]:
            return pair  # up to date: the best pair
        if count:
            heapq.heappush(heap, (-count, *entry[1:]))  # stale: back in, with its true count
    return None


def start_training(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
                   pattern: str = GPT2_PATTERN, *, progress: bool = False,
                   count: Callable[..., Counter[bytes]] | None = None
                   ) -> tuple[ByteVocab, list[list[int]], list[int], int]:
    """Check a trainer's arguments and set up: (vocab so far, each distinct pre-token as a list of
    byte ids, how often each occurs, the number of merges to make); `count` counts pre-tokens."""
    special_tokens = check_special_tokens(special_tokens)
    for i, token in enumerate(special_tokens):
        if len(token.encode("utf-8")) == 1:
            raise ValueError(f"special_tokens[{i}] = {token!r} is a single byte, which already is "
                             f"byte token {ord(token)}; a special token needs bytes of its own, "
                             f"e.g. '<|{token}|>'")
    minimum = 256 + len(special_tokens)
    vocab_size = check_int(vocab_size, "vocab_size")
    if vocab_size < minimum:
        raise ValueError(f"vocab_size must be >= 256 + len(special_tokens) = {minimum} (256 byte "
                         f"tokens and {len(special_tokens)} special tokens come first), got "
                         f"{vocab_size}")
    texts = iter_texts(texts_or_path, special_tokens, pattern=pattern)
    count = count_pretokens if count is None else count
    word_counts = count(texts, special_tokens, pattern, progress=progress)
    if not word_counts:
        raise ValueError("texts_or_path holds no ordinary text to train on (it is empty or only "
                         "special tokens)")
    vocab = {i: bytes([i]) for i in range(256)}
    vocab.update((256 + k, token.encode("utf-8")) for k, token in enumerate(special_tokens))
    words = [list(word) for word in word_counts]  # a pre-token's bytes are its initial token ids
    return vocab, words, list(word_counts.values()), vocab_size - len(vocab)


def train_bpe_naive(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
                    pattern: str = GPT2_PATTERN, *, progress: bool = False
                    ) -> tuple[ByteVocab, Merges]:
    """Train byte-level BPE the obvious way: after every merge, count every pair again. The
    reference for `train_bpe` (same arguments, same result)."""
    vocab, words, freqs, num_merges = start_training(texts_or_path, vocab_size, special_tokens,
                                                     pattern, progress=progress)
    merges = []
    new_ids = range(len(vocab), len(vocab) + num_merges)
    for new_id in tqdm(new_ids, desc="merging", disable=not progress):
        # Count every pair of every distinct pre-token, weighted by its count, and take the best.
        best = best_pair(count_pairs(words, freqs), vocab)
        if best is None:
            break  # every pre-token is a single token: nothing left to merge
        # The new token is the two tokens' bytes joined; replace the pair by it everywhere.
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        words = [merge_unchecked(ids, best, new_id) for ids in words]
    return vocab, merges


def train_bpe(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
              pattern: str = GPT2_PATTERN, *, progress: bool = False
              ) -> tuple[ByteVocab, Merges]:
    """Train byte-level BPE on a UTF-8 file or texts: `train_bpe_naive`'s result, faster.
    vocab_size = 256 bytes + special tokens (never merged) + merges (fewer if no pair is left)."""
    vocab, words, freqs, num_merges = start_training(texts_or_path, vocab_size, special_tokens,
                                                     pattern, progress=progress)
    return learn_merges(vocab, words, freqs, num_merges, progress=progress)


def learn_merges(vocab: ByteVocab, words: list[list[int]], freqs: list[int], num_merges: int, *,
                 progress: bool = False) -> tuple[ByteVocab, Merges]:
    """`train_bpe`'s merge loop, on what `start_training` returns (changed in place)."""
    index = PairIndex.build(words, freqs, vocab)
    merges = []
    new_ids = range(len(vocab), len(vocab) + num_merges)
    for new_id in tqdm(new_ids, desc="merging", disable=not progress):
        # The most frequent pair comes off the heap, not from a scan of every count.
        best = pop_best(index.heap, index.counts)
        if best is None:
            break  # every pre-token is a single token: nothing left to merge
        left, right = vocab[best[0]], vocab[best[1]]
        vocab[new_id] = left + right
        merges.append((left, right))
        # Merge it in the words that hold it; the counts, the index and the heap follow.
        index.merge(best, new_id, left + right)
    return vocab, merges


@dataclass
class PairIndex:
    """What `train_bpe` keeps between merges; `counts` always equals a recount of `words`. The
    inverted index where[pair] may keep a word that lost the pair, or list one twice: merging it
    again changes nothing, which is cheaper than keeping the index exact."""

    words: list[list[int]]
    freqs: list[int]
    counts: defaultdict[Pair, int]
    where: defaultdict[Pair, list[int]]
    heap: list[HeapEntry]
    keys: list[tuple[int, ...]]

    @classmethod
    def build(cls, words: list[list[int]], freqs: list[int], vocab: ByteVocab) -> PairIndex:
        """Count every pair once, note which words hold it, and put every pair on the heap."""
        counts = count_pairs(words, freqs)
        where = defaultdict(list)
        for i, ids in enumerate(words):
            for pair in zip(ids, ids[1:]):
                where[pair].append(i)
        keys = [descending_key(token) for token in vocab.values()]
        heap = heap_entries(counts, keys)
        heapq.heapify(heap)
        return cls(words, freqs, counts, where, heap, keys)

    def merge(self, pair: Pair, new_id: int, token: bytes) -> None:
        """Merge `pair` into the new token `new_id` (bytes `token`) in every word that holds it."""
        self.keys.append(descending_key(token))
        # Only pairs that touch a merged position change: those go, and pairs holding the new
        # token come; those are all new, and each gets its heap entry once all is counted.
        new_pairs: defaultdict[Pair, int] = defaultdict(int)
        words, freqs = self.words, self.freqs
        merge_once, merge_many = self._merge_once, self._merge_many
        for i in self.where.pop(pair):
            ids = words[i]
            starts = occurrences(ids, pair)
            if len(starts) == 1:  # the common case: edited in place
                merge_once(i, ids, freqs[i], starts[0], new_id, new_pairs)
            elif starts:  # no starts: a stale or repeated index entry
                merge_many(i, ids, freqs[i], starts, new_id, new_pairs)
        self.counts.update(new_pairs)
        for entry in heap_entries(new_pairs, self.keys):
            heapq.heappush(self.heap, entry)

    def _merge_once(self, i: int, ids: list[int], freq: int, start: int, new_id: int,
                    new_pairs: defaultdict[Pair, int]) -> None:
        """`_merge_many` for a single occurrence, at `start`, in place: the pairs that go and come
        are at distinct positions ("aaa" included), so no set of positions is needed."""
        counts, where = self.counts, self.where
        left, right = ids[start], ids[start + 1]
        counts[left, right] -= freq
        if start:  # a token before: (before, left) goes, (before, new) comes
            before = ids[start - 1]
            counts[before, left] -= freq
            new_pairs[before, new_id] += freq
            where[before, new_id].append(i)
        if start + 2 < len(ids):  # a token after: (right, after) goes, (new, after) comes
            after = ids[start + 2]
            counts[right, after] -= freq
            new_pairs[new_id, after] += freq
            where[new_id, after].append(i)
        ids[start] = new_id
        del ids[start + 1]

    def _merge_many(self, i: int, ids: list[int], freq: int, starts: list[int], new_id: int,
                    new_pairs: defaultdict[Pair, int]) -> None:
        """Merge the pair at each of `starts` in word `i` (`ids`) into a new list; count."""
        counts, where = self.counts, self.where
        # Positions are collected in sets: in runs like "aaaa" a pair two merges touch goes once.
        end = len(ids) - 1  # pairs start at 0 .. end - 1
        for j in {j for s in starts for j in (s - 1, s, s + 1) if 0 <= j < end}:
            counts[ids[j], ids[j + 1]] -= freq
        self.words[i] = ids = replace(ids, starts, new_id)
        # The k-th merge lands at start - k in the new word: each earlier merge saved a position.
        end = len(ids) - 1
        for j in {j for k, s in enumerate(starts) for j in (s - k - 1, s - k) if 0 <= j < end}:
            pair = ids[j], ids[j + 1]
            new_pairs[pair] += freq
            where[pair].append(i)


def train_tokenizer(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
                    pattern: str = GPT2_PATTERN, normalization: str = "none",
                    **trainer_kwargs: Any) -> Tokenizer:
    """A `Tokenizer` trained by `train_bpe`, its metadata recording all the result depends on. With
    a `normalization`, training sees the texts normalized, as `encode` will."""
    if isinstance(texts_or_path, Iterator):
        texts_or_path = list(texts_or_path)  # it is read twice: for the digest and for training
    special_tokens = check_special_tokens(special_tokens)
    pattern = compile_pattern(pattern).pattern  # a name such as "gpt4" is kept as its regex
    vocab_size = check_int(vocab_size, "vocab_size", low=256 + len(special_tokens))
    texts = texts_or_path
    if check_form(normalization) != "none":
        chunks = iter_texts(texts_or_path, special_tokens, pattern=pattern)
        texts = normalize_texts(chunks, normalization, special_tokens)
    vocab, merges = train_bpe(texts, vocab_size, special_tokens, pattern, **trainer_kwargs)
    settings = {"name": TRAINER_NAME, "vocab_size": vocab_size, "pattern": pattern,
                "special_tokens": list(special_tokens), "tie_break": TIE_BREAK}
    if normalization != "none":  # only then, so that the metadata of earlier tokenizers stays
        settings["normalization"] = normalization
    metadata = {"trainer": settings, "corpus_digest": corpus_digest(texts_or_path)}
    return Tokenizer(vocab, merges, special_tokens, pattern, metadata, normalization)

