"""Byte-level BPE training: a naive reference trainer and a fast trainer with identical output.

Both start from the 256 single bytes, add the special tokens, then repeat: find the most frequent pair of
adjacent tokens inside the pre-tokens and merge it into a new token. They return

    vocab:  dict[int, bytes]            0..255 = bytes([i]); then the special tokens in the given order
                                        (their UTF-8 bytes); then one id per merge, in merge order
    merges: list[tuple[bytes, bytes]]   the merged pairs, in the order they were learned

`train_bpe_naive` recounts every pair after every merge: easy to check by eye, slow.
`train_bpe` gets the same result with much less work:

1. Pre-token frequency aggregation. " the" may occur 100,000 times but is stored once with its count.
2. Incremental pair counts with an inverted index. A merge only changes the pre-tokens that contain the
   merged pair; the index pair -> {pre-tokens containing it} finds them, and only their pairs are recounted.
   Most merged words hold the pair once (93% of the word updates on Lu Xun at vocab 5000, whose long
   pre-tokens seldom repeat a pair): those are edited in place, with no set of positions (`_merge_once`).
3. A lazy max-heap. The best pair is popped from a heap instead of scanned for; an entry whose count went
   stale is not searched for and updated, only corrected once it reaches the top.
4. Optional parallel pre-tokenization (`workers > 1`), the one step that does not depend on the others.

Tie-break. When several pairs share the highest count, the pair whose (left bytes, right bytes) is
lexicographically greatest wins, i.e. the winner is max over (count, (left_bytes, right_bytes)) -- the CS336
convention. The rule itself is arbitrary, but it must be fixed: a trainer that takes "whichever pair came first"
depends on dict order, file order or thread timing, and two runs on the same corpus would then disagree. Note
that it compares bytes, not ids: for the 256 single bytes both orders agree, which hides a wrong implementation
until the first merged tokens take part in a tie. No two merges ever build the same bytes (how BPE builds a
token depends on its bytes alone), so two distinct pairs never tie on bytes and the winner is unique.

Hugging Face `tokenizers` breaks ties differently (smallest pair of its own ids), so its merges agree with ours
up to the first tie at the top and its vocabulary is close but not equal after that; tests/test_trainer.py
measures it.
"""

from __future__ import annotations

import codecs
import hashlib
import heapq
import multiprocessing
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from itertools import islice, repeat
from pathlib import Path
from typing import Union

import regex
from tqdm.auto import tqdm

from tutorial_lib._checks import check_bool, check_int, check_int_list, check_iterable, check_type, check_utf8
from tutorial_lib.tokenization.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN, PATTERNS,
                                                   check_special_tokens, compile_pattern, find_pretokens,
                                                   special_regex, split_special)

# A text source is a path to a UTF-8 text file, or the texts themselves (each may contain special tokens).
TextSource = Union[str, os.PathLike, Iterable[str]]
ByteVocab = dict[int, bytes]
Merges = list[tuple[bytes, bytes]]

CHUNK_SIZE = 1 << 20  # characters per piece of a file; also the work unit of parallel pre-tokenization
# A piece is read, decoded and pre-tokenized whole, so 256 Mi characters already take gigabytes of memory.
MAX_CHUNK_SIZE = 1 << 28


# ---------------------------------------------------------------------------------------------------------
# Input: paths and texts


def iter_texts(texts_or_path: TextSource, special_tokens: Iterable[str] = (), chunk_size: int = CHUNK_SIZE,
               pattern: str = GPT2_PATTERN) -> Iterator[str]:
    """The corpus as a stream of str, checked.

    A list (or any iterable) of str is passed through, each item checked to be a str. A file is read
    `chunk_size` bytes at a time and cut only where the cut cannot change the training data (see
    `_last_safe_cut`): the pieces pre-tokenize with `pattern` exactly like the whole file would.
    `special_tokens` and `pattern` are needed for a file only, to find those safe cuts. Memory stays near
    `chunk_size` as long as safe cuts keep coming; a file without any (no special tokens, and paragraphs
    split only by blank lines, like Lu Xun) is held until its end.
    """
    special_tokens = check_special_tokens(special_tokens)
    chunk_size = check_int(chunk_size, "chunk_size", low=1, high=MAX_CHUNK_SIZE)
    compile_pattern(pattern)  # a bad pattern fails here, not after the file was read
    if isinstance(texts_or_path, (str, os.PathLike)):
        line_cut = _LINE_CUTS.get(PATTERNS.get(pattern, pattern), _LF_CUT)
        return _read_file(_existing_file(texts_or_path), special_tokens, chunk_size, line_cut)
    check_iterable(texts_or_path, "texts_or_path", "a path (str or pathlib.Path) to a UTF-8 text file or an "
                   "iterable of str")
    return _checked_texts(texts_or_path)


def corpus_digest(texts_or_path: TextSource) -> str:
    """sha256 hex digest of a corpus, for a tokenizer's manifest: "trained on exactly this".

    A path hashes the file's bytes. An iterable of str hashes each text's UTF-8 bytes behind its length, so
    the same sequence of texts always gives the same digest and moving a boundary between texts changes it.
    """
    digest = hashlib.sha256()
    if isinstance(texts_or_path, (str, os.PathLike)):
        with open(_existing_file(texts_or_path), "rb") as f:
            while block := f.read(CHUNK_SIZE):
                digest.update(block)
    else:
        for text in iter_texts(texts_or_path):
            data = _utf8(text)
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.hexdigest()


def _existing_file(path: str | os.PathLike) -> Path:
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"texts_or_path must be an existing text file, got {str(path)!r} "
                                "(to train on text held in memory, pass a list of str)")
    return path


def _checked_texts(texts: Iterable[str]) -> Iterator[str]:
    for i, text in enumerate(texts):
        yield check_type(text, f"texts_or_path[{i}]", str, "a str")


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ValueError(f"texts_or_path holds {text[err.start]!r}, a lone surrogate that UTF-8 cannot encode"
                         ) from None


def _read_file(path: Path, special_tokens: tuple[str, ...], chunk_size: int, line_cut: regex.Pattern
               ) -> Iterator[str]:
    specials = special_regex(special_tokens) if special_tokens else None
    longest = max(map(len, special_tokens), default=0)
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer, offset = "", 0
    with open(path, "rb") as f:
        while True:
            block = f.read(chunk_size)
            try:
                buffer += decoder.decode(block, final=not block)
            except UnicodeDecodeError as err:  # err.object = bytes held back from the last block + this block
                position = offset + len(block) - len(err.object) + err.start
                raise ValueError(f"texts_or_path: {str(path)!r} is not valid UTF-8 at byte offset {position} "
                                 f"({err.reason})") from None
            offset += len(block)
            if not block:
                break
            if len(buffer) >= chunk_size and (cut := _last_safe_cut(buffer, specials, longest, line_cut)):
                yield buffer[:cut]
                buffer = buffer[cut:]
    if buffer:
        yield buffer


# Where a line break between two non-space characters may be cut, for each bundled pattern; (?r) searches
# from the end, so search() finds the last one. "x\n|y" suits all three. With "\r\n" they differ: GPT-4 and
# nanochat keep "\r\n" in one pre-token, while GPT-2 splits "x\r\ny" into "x", "\r", "\n", "y" but keeps
# "\r\n" whole at the end of a piece, so it is cut between the two: "x\r|\ny".
_LF_CUT = regex.compile(r"(?r)(?<=\S\n)(?=\S)")
_AFTER_CRLF_CUT = regex.compile(r"(?r)(?<=\S\r?\n)(?=\S)")
_LINE_CUTS = {
    GPT2_PATTERN: regex.compile(r"(?r)(?<=\S\n)(?=\S)|(?<=\S\r)(?=\n\S)"),
    GPT4_PATTERN: _AFTER_CRLF_CUT,
    NANOCHAT_PATTERN: _AFTER_CRLF_CUT,
}


def _last_safe_cut(text: str, specials: regex.Pattern | None, longest: int, line_cut: regex.Pattern) -> int:
    """The last position where `text` can be cut without changing how it splits; 0 if there is none yet.

    Two kinds of cut are safe:

    - Right after a special token, since nothing is merged across one. The match must be settled: start at
      least `longest` characters before the end, or a longer special token could still grow out of it once
      more text arrives (with "<a>" and "<a>b", a buffer ending in "<a>" is not yet decided).
    - At a line break between two non-space characters, where `line_cut` puts it ("x\\n" | "y"; for "\\r\\n"
      see `_LINE_CUTS`). In the GPT-2, GPT-4 and nanochat patterns a pre-token can hold a line break only
      together with other whitespace or, in GPT-4/nanochat, after punctuation (".\\n"); it never reaches past
      the break into a non-space character, and what comes before "x\\n" does not look further than that. A
      break next to other whitespace is not safe: GPT-2 splits "  \\nb" into "  " + "\\n" but a piece ending
      in "  \\n" keeps it whole; "\\r" is such whitespace, hence the cuts of their own for "\\r\\n". (A
      pattern of your own gets the "\\n" cut only; if it can join such lines, pass its text as a list.)

    Cutting at the last safe position keeps the pieces close to `chunk_size`; the tests check that a file
    read in tiny chunks pre-tokenizes exactly like the whole text.
    """
    settled = len(text) - longest  # a special token starting after here may not be complete yet
    cut = 0
    if specials is not None:
        for match in specials.finditer(text):
            if match.start() > settled:
                break
            cut = match.end()
    line = line_cut.search(text, cut + 1, max(settled, 0))
    return line.start() if line else cut


# ---------------------------------------------------------------------------------------------------------
# Pre-tokenization and counting


def count_pretokens(texts: Iterable[str], special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN, *,
                    workers: int = 1, progress: bool = False) -> Counter[bytes]:
    """How often each pre-token (as UTF-8 bytes) occurs. Special tokens are cut out first and never counted.

    Text that the split pattern leaves out of every pre-token is a ValueError (see
    pretokenize.find_pretokens): dropped, it would be missing from the counts without a word.

    With `workers > 1` batches of about CHUNK_SIZE characters are pre-tokenized in that many processes; the
    counts are added up, so the result does not depend on which process finished first.
    """
    special_tokens = check_special_tokens(special_tokens)
    compile_pattern(pattern)  # fail on a bad pattern here, not in a worker process
    workers = check_int(workers, "workers", low=1)
    check_bool(progress, "progress")
    batches = iter(tqdm(_batches(texts), desc="pre-tokenizing", unit="batch", disable=not progress))
    counts: Counter[str] = Counter()
    if workers == 1:
        for batch in batches:
            counts.update(_count_batch(batch, special_tokens, pattern))
    else:
        for batch_counts in _count_in_workers(batches, special_tokens, pattern, workers):
            counts.update(batch_counts)
    return Counter({_utf8(word): n for word, n in counts.items()})


def _count_in_workers(batches: Iterator[list[str]], special_tokens: tuple[str, ...], pattern: str, workers: int
                      ) -> Iterator[Counter[str]]:
    """`_count_batch` of each batch, computed in `workers` new processes, in batch order.

    "spawn", not fork: forking a process that already runs threads (a notebook kernel, HF tokenizers) can
    deadlock the child, and spawn behaves the same on Linux, macOS and Windows. A spawned worker first
    imports the main script again, so a script that trains at its top level makes each worker train too;
    multiprocessing stops that inside the worker, which then dies. A `multiprocessing.Pool` would replace
    the dead worker forever; this pool reports it, and the error says what to change.
    """
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            # First a task of a few bytes: a worker that cannot start (no main guard) breaks the pool here.
            # With a large batch already queued, Python 3.10's pool would wait forever to send it.
            pool.submit(abs, 0).result()
            # A few batches per process at a time, so a large file is never all in memory at once.
            while wave := list(islice(batches, 2 * workers)):
                yield from pool.map(_count_batch, wave, repeat(special_tokens), repeat(pattern))
        except BrokenProcessPool:
            raise RuntimeError(
                "a worker process of pre-tokenization died (workers > 1). Each worker is a new Python that "
                "first imports your main script; if the script calls train_bpe at its top level, put that call "
                'under `if __name__ == "__main__":` (see the worker\'s error above), or pass workers=1. '
                "A worker can also die from lack of memory.") from None


def _batches(texts: Iterable[str]) -> Iterator[list[str]]:
    batch, size = [], 0
    for text in texts:
        batch.append(text)
        size += len(text)
        if size >= CHUNK_SIZE:
            yield batch
            batch, size = [], 0
    if batch:
        yield batch


def _count_batch(texts: list[str], special_tokens: tuple[str, ...], pattern: str) -> Counter[str]:
    compiled = compile_pattern(pattern)
    counts: Counter[str] = Counter()
    for text in texts:
        offset = 0  # where `piece` starts in `text`, so that an uncovered character is named by its index
        for piece, is_special in split_special(text, special_tokens):
            if not is_special:
                counts.update(find_pretokens(compiled, piece, offset))
            offset += len(piece)
    return counts


# ---------------------------------------------------------------------------------------------------------
# Training


def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """Replace each occurrence of `pair` in `ids` by `new_id`, scanning left to right ("aaa" -> "aa", "a").

    `ids` may be any flat sequence of ints, a 1-D numpy array too; the result is a new list.
    """
    ids = check_int_list(ids, "ids")
    pair = tuple(check_int_list(pair, "pair"))
    if len(pair) != 2:
        raise ValueError(f"pair must be two ids (left, right), got {pair}")
    return _merge(ids, pair, check_int(new_id, "new_id"))


def _merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    return _replace(ids, _occurrences(ids, pair), new_id)


def _occurrences(ids: list[int], pair: tuple[int, int]) -> list[int]:
    """Start positions of the occurrences a left-to-right merge replaces; they never overlap."""
    a, b = pair
    if ids.count(a) == 1:  # the usual case in training: found in C, without the loop's failing search
        i = ids.index(a)
        return [i] if i < len(ids) - 1 and ids[i + 1] == b else []
    starts = []
    i, last = 0, len(ids) - 1
    while True:
        try:
            i = ids.index(a, i, last)  # list.index scans in C: much faster than a Python loop on long words
        except ValueError:
            return starts
        if ids[i + 1] == b:
            starts.append(i)
            i += 2
        else:
            i += 1


def _replace(ids: list[int], starts: list[int], new_id: int) -> list[int]:
    out, done = [], 0
    for start in starts:
        out += ids[done:start]
        out.append(new_id)
        done = start + 2
    out += ids[done:]
    return out


def train_bpe_naive(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
                    pattern: str = GPT2_PATTERN, *, progress: bool = False, workers: int = 1
                    ) -> tuple[ByteVocab, Merges]:
    """Train byte-level BPE the obvious way: after every merge, count every pair again.

    The reference for `train_bpe`: same arguments, same result, written to be read. It shares the input
    handling and pre-token counting, so the two differ in the merge loop only: each distinct pre-token is a
    list of token ids weighted by how often it occurs. If no pair is left (every pre-token is a single token)
    before `vocab_size` is reached, training stops early and the vocabulary is smaller.
    """
    vocab, words, freqs, num_merges = _start(texts_or_path, vocab_size, special_tokens, pattern, progress, workers)
    merges = []
    first_id = len(vocab)
    for new_id in tqdm(range(first_id, first_id + num_merges), desc="merging", disable=not progress):
        counts: Counter[tuple[int, int]] = Counter()
        for ids, freq in zip(words, freqs):
            for pair in zip(ids, ids[1:]):
                counts[pair] += freq
        if not counts:
            break
        best = max(counts, key=lambda p: (counts[p], vocab[p[0]], vocab[p[1]]))  # ties: see the module doc
        vocab[new_id] = vocab[best[0]] + vocab[best[1]]
        merges.append((vocab[best[0]], vocab[best[1]]))
        words = [_merge(ids, best, new_id) for ids in words]
    return vocab, merges


def train_bpe(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
              pattern: str = GPT2_PATTERN, *, progress: bool = False, workers: int = 1) -> tuple[ByteVocab, Merges]:
    """Train byte-level BPE on a file or a list of texts; same result as `train_bpe_naive`, much faster.

    texts_or_path: path to a UTF-8 text file (read in chunks), or an iterable of str.
    vocab_size: 256 byte tokens + len(special_tokens) + number of merges. If no pair is left before that,
        training stops early and the vocabulary is smaller.
    special_tokens: cut out of the text before pre-tokenization, so never merged with anything; they get
        the ids right after the bytes, in the given order.
    pattern: the pre-tokenization regex (or a name from pretokenize.PATTERNS); merges never cross its pieces.
    progress: show tqdm progress bars. workers: processes for pre-tokenization (same result for any number).
    """
    vocab, words, freqs, num_merges = _start(texts_or_path, vocab_size, special_tokens, pattern, progress, workers)

    # pair -> total count, and pair -> indices of the words holding it. The index may keep a word that lost
    # the pair since, or list a word twice; merging such a word again changes nothing (a left-to-right merge
    # leaves no occurrence behind), which is cheaper than keeping the index exact or its lists free of repeats.
    pair_counts: dict[tuple[int, int], int] = defaultdict(int)  # keeps pairs whose count fell to 0
    where: dict[tuple[int, int], list[int]] = defaultdict(list)
    for i, (ids, freq) in enumerate(zip(words, freqs)):
        for pair in zip(ids, ids[1:]):
            pair_counts[pair] += freq
            where[pair].append(i)

    keys = [_descending(token) for token in vocab.values()]  # keys[id] sorts greatest bytes first
    heap = [(-count, keys[a], keys[b], a, b) for (a, b), count in pair_counts.items()]
    heapq.heapify(heap)

    merges = []
    first_id = len(vocab)
    for new_id in tqdm(range(first_id, first_id + num_merges), desc="merging", disable=not progress):
        best = _pop_best(heap, pair_counts)
        if best is None:
            break
        left, right = vocab[best[0]], vocab[best[1]]
        vocab[new_id] = left + right
        keys.append(_descending(left + right))
        merges.append((left, right))

        # Only pairs that touch a merged position change: those go, and the pairs touching the new token come.
        # The pairs that come all hold new_id: they are new, and each gets its heap entry once all is counted.
        new_pairs: dict[tuple[int, int], int] = defaultdict(int)
        for i in where.pop(best):
            ids = words[i]
            starts = _occurrences(ids, best)
            if len(starts) == 1:
                _merge_once(ids, starts[0], new_id, freqs[i], i, pair_counts, new_pairs, where)
                continue
            if not starts:
                continue  # a stale or repeated index entry
            # Positions are collected in sets, so in runs like "aaaa" a pair touched by two merges goes once.
            freq = freqs[i]
            for j in {j for s in starts for j in (s - 1, s, s + 1) if 0 <= j < len(ids) - 1}:
                pair_counts[ids[j], ids[j + 1]] -= freq
            words[i] = ids = _replace(ids, starts, new_id)
            # The k-th merge lands at start - k in the new word, each earlier merge having saved one position.
            for j in {j for k, s in enumerate(starts) for j in (s - k - 1, s - k) if 0 <= j < len(ids) - 1}:
                pair = ids[j], ids[j + 1]
                new_pairs[pair] += freq
                where[pair].append(i)
        pair_counts.update(new_pairs)
        for (a, b), count in new_pairs.items():
            heapq.heappush(heap, (-count, keys[a], keys[b], a, b))
    return vocab, merges


def _merge_once(ids: list[int], start: int, new_id: int, freq: int, i: int, pair_counts: dict[tuple[int, int], int],
                new_pairs: dict[tuple[int, int], int], where: dict[tuple[int, int], list[int]]) -> None:
    """Merge the pair at `start` of word `i`, its only occurrence, in place, and update the counts.

    The common case: on Chinese, long pre-tokens that seldom repeat a pair, almost every merged word holds the
    pair once. Then the pairs that go (at start - 1, start, start + 1) are at distinct positions, and so are
    the two that come, so no set of positions is needed; editing the list saves building a new one. Exactly
    what the general path does for one occurrence, "aaa" included: its pairs at 0 and 1 are both (a, a), and
    both go, as they should, since "Xa" (X the new token) holds none.
    """
    left, right = ids[start], ids[start + 1]
    pair_counts[left, right] -= freq
    if start:
        before = ids[start - 1]
        pair_counts[before, left] -= freq
        new_pairs[before, new_id] += freq
        where[before, new_id].append(i)
    if start + 2 < len(ids):
        after = ids[start + 2]
        pair_counts[right, after] -= freq
        new_pairs[new_id, after] += freq
        where[new_id, after].append(i)
    ids[start] = new_id
    del ids[start + 1]


def _start(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str], pattern: str, progress: bool,
           workers: int) -> tuple[ByteVocab, list[list[int]], list[int], int]:
    """Check the arguments and set up training: the initial vocabulary (bytes, then specials), each distinct
    pre-token as a list of byte ids with its count, and the number of merges to make."""
    special_tokens = check_special_tokens(special_tokens)
    for i, token in enumerate(special_tokens):
        if len(check_utf8(token, f"special_tokens[{i}]").encode("utf-8")) == 1:
            raise ValueError(f"special_tokens[{i}] = {token!r} is a single byte, which already is byte token "
                             f"{ord(token)}; a special token needs bytes of its own, e.g. '<|{token}|>'")
    minimum = 256 + len(special_tokens)
    vocab_size = check_int(vocab_size, "vocab_size")
    if vocab_size < minimum:
        raise ValueError(f"vocab_size must be >= 256 + len(special_tokens) = {minimum} (256 byte tokens and "
                         f"{len(special_tokens)} special tokens come first), got {vocab_size}")
    texts = iter_texts(texts_or_path, special_tokens, CHUNK_SIZE, pattern)
    word_counts = count_pretokens(texts, special_tokens, pattern, workers=workers, progress=progress)
    if not word_counts:
        raise ValueError("texts_or_path holds no ordinary text to train on (it is empty or only special tokens)")
    vocab = {i: bytes([i]) for i in range(256)}
    for token in special_tokens:
        vocab[len(vocab)] = token.encode("utf-8")
    words = [list(word) for word in word_counts]  # the bytes of a pre-token are its initial token ids
    return vocab, words, list(word_counts.values()), vocab_size - len(vocab)


def _descending(token: bytes) -> tuple[int, ...]:
    """A sort key that reverses the lexicographic order of byte strings, so a min-heap pops the greatest.

    Each byte b becomes 255 - b, and a final 256 marks the end. That end marker is what makes prefixes come
    out right: b"a" < b"ab" as bytes, and (158, 256) > (158, 157, 256) as keys.
    """
    return (*(255 - b for b in token), 256)


def _pop_best(heap: list, pair_counts: dict[tuple[int, int], int]) -> tuple[int, int] | None:
    """Pop the pair with the highest current count (ties as in the module doc), or None if no pair is left.

    Each pair gets one heap entry when it first appears. After that its count can only fall: a merge takes
    from the pairs around it and creates only pairs that hold the new token. So instead of finding and
    updating an entry whenever a count falls (a heap cannot do that cheaply), the entry is left to overstate
    the count and is corrected when it reaches the top: pushed back with the true count, or dropped at 0.
    An entry at the top that shows the true count beats every other pair's true count.
    """
    while heap:
        neg_count, left_key, right_key, a, b = heapq.heappop(heap)
        count = pair_counts[a, b]
        if count == -neg_count:
            return a, b
        if count:
            heapq.heappush(heap, (-count, left_key, right_key, a, b))
    return None
