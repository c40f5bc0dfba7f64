"""A byte-level BPE tokenizer: encode by merge rank, decode by concatenating bytes, save with a manifest.

A tokenizer is a contract (vocabulary, ordered merges, split pattern, special tokens), so it is checked when
built and fingerprinted when saved: a file whose vocabulary, merges or pattern were edited refuses to load.

Encoding is classic minbpe: cut the text into pre-tokens with the split pattern, then inside each pre-token
repeatedly merge the adjacent pair with the lowest rank (rank = position in `merges`). Ids come from the
vocabulary, never from the rank: in GPT-4's cl100k the byte tokens do not have ids 0..255.
`Tokenizer.from_tiktoken` recovers the merges of a tiktoken encoding, so the real GPT-4 tokenizer runs inside
this class and gives tiktoken's ids.

Speed, in pure Python: English repeats a few thousand pre-tokens, so a cache pre-token -> ids does most of
the work. Chinese under cl100k is cut into long runs of Han characters that seldom repeat; but almost no
merge spans two Han characters, so such a run is cut further where no merge can reach across (`Boundaries`,
exact) and its short segments, which do repeat, come from the same cache. What is left for the merge loop
(`apply_merges`) costs only a few steps of Python work per merge, and O(n log n) work for a pre-token of n
bytes, so even a megabyte without a space is affordable.

Text is never normalized, so decode(encode_ordinary(x)) == x for every str x that has a UTF-8 form. A str
holding a lone surrogate has none and is refused (tiktoken would silently turn it into U+FFFD).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import os
from array import array
from collections import defaultdict
from itertools import accumulate, chain, compress
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from tutorial_lib._checks import (check_choice, check_has, check_int, check_int_list, check_iterable, check_path,
                                  check_sequence, check_str, check_type, describe)
from tutorial_lib._files import write_atomically
from tutorial_lib.tokenization import trainer
from tutorial_lib.tokenization.pretokenize import (GPT2_PATTERN, check_special_tokens, compile_pattern, find_pretokens,
                                                   special_regex)

SCHEMA_VERSION = 1
CACHE_SIZE = 1 << 16  # pre-tokens whose ids are remembered: English repeats a few thousand, Chinese far more
CACHED_CHARS = 16  # only pre-tokens up to this length are remembered, which bounds the cache in bytes
HEAP_ABOVE = 16  # longer pieces (in bytes) merge with a heap, faster than the scan there (bench_bpe.py)
TIE_BREAK = "lexicographically greatest pair of byte strings"
DECODE_ERRORS = ("replace", "strict", "backslashreplace")  # U+FFFD, refuse, or show the bad bytes as \xNN
# How this code treats text, written into every manifest so that the file states its own contract.
POLICIES = {
    "normalization": "none: decode(encode_ordinary(x)) == x",
    "invalid_input": "a str holding a lone surrogate is refused (ValueError)",
    "special_token_text": "encode refuses it unless allowed_special names it; encode_ordinary keeps it as text",
    "decode_errors": "replace by default; strict or backslashreplace on request",
}
_MANIFEST_KEYS = ("schema_version", "vocab_sha256", "merges_sha256", "settings_sha256", "policies")
_NO_MERGE = 1 << 62  # the "rank" of a pair that is not a merge: above every real rank, and still an int


def apply_merges(ids: list[int], pair_ranks: dict[tuple[int, int], int], merged: list[int]) -> list[int]:
    """Merge `ids`: while some adjacent pair is a merge, replace the lowest-ranked one by its token.

    `pair_ranks[(left, right)]` is the rank of a merge and `merged[rank]` the id it makes. Like tiktoken, one
    step merges the leftmost occurrence of the best pair. minbpe merges all occurrences at once; that is the
    same whenever each merge makes a new token, since every merge that uses the new token comes later in the
    list (true for trained and tiktoken vocabularies). Two loops give the same ids: a scan of a list, fastest
    on short pieces, and a heap, whose O(n log n) keeps a pre-token of a million bytes affordable. Both work
    in the list `ids`, so pass a copy if you still need it.
    """
    if len(ids) > HEAP_ABOVE:
        return _merge_with_heap(ids, pair_ranks, merged)
    return _merge_by_scan(ids, pair_ranks, merged)


def _merge_by_scan(ids: list[int], pair_ranks: dict[tuple[int, int], int], merged: list[int]) -> list[int]:
    """Keep the rank of each adjacent pair in a list: a step finds the best with `min` and `index` (in C) and
    looks up only the two pairs next to the merge. Each step costs O(n), so a piece costs O(n^2)."""
    get = pair_ranks.get
    ranks = [get(pair, _NO_MERGE) for pair in zip(ids, ids[1:])]
    while ranks:
        rank = min(ranks)
        if rank == _NO_MERGE:
            break
        i = ranks.index(rank)
        ids[i : i + 2] = (merged[rank],)
        del ranks[i]
        if i:
            ranks[i - 1] = get((ids[i - 1], ids[i]), _NO_MERGE)
        if i < len(ranks):
            ranks[i] = get((ids[i], ids[i + 1]), _NO_MERGE)
    return ids


def _merge_with_heap(ids: list[int], pair_ranks: dict[tuple[int, int], int], merged: list[int]) -> list[int]:
    """The same merges in O(n log n): tokens in a linked list, pairs in a heap of (rank, position).

    A token keeps the position of its first byte, so the smallest (rank, position) is the leftmost best pair.
    `ranks[i]` is the rank of the pair that starts at position i now; a heap entry is stale (skipped) unless it
    still shows that rank: once a pair at i changes it spans more bytes, so its old rank never comes back.
    """
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
        if ranks[i] != rank:
            continue
        j = after[i]  # the right token, now part of the token at i
        ids[i] = merged[rank]
        ranks[j] = _NO_MERGE
        k = after[i] = after[j]
        if k < n:
            before[k] = i
        ranks[i] = get((ids[i], ids[k]), _NO_MERGE) if k < n else _NO_MERGE
        h = before[i]
        if h >= 0:
            ranks[h] = get((ids[h], ids[i]), _NO_MERGE)
        for start in (i, h):
            if start >= 0 and ranks[start] != _NO_MERGE:
                heapq.heappush(heap, (ranks[start], start))
    out = []
    i = 0
    while i < n:
        out.append(ids[i])
        i = after[i]
    return out


class PieceCache(dict):
    """pre-token -> ids, bounded in entries and in bytes; looking up a missing pre-token computes its ids.

    Only pre-tokens of at most CACHED_CHARS characters are kept, and once CACHE_SIZE are kept the cache starts
    afresh (the common pre-tokens are back at once). An entry is a str of at most CACHED_CHARS characters
    (4 bytes each at most) and a tuple of at most 4 * CACHED_CHARS ids: with the dict's own slots at most
    ~720 bytes, so under 50 MB in all even if every byte is its own token (benchmarks/bench_bpe.py measures
    it). Without the length cap, a unique 1 KB word costs ~8 KB, and a full cache ~500 MB. Longer pre-tokens
    seldom repeat, so little is lost by merging them each time. A dict with `__missing__`, not
    functools.lru_cache: a hit is one dict lookup, in C, and no entry needs unlinking from a recency list.
    `Boundaries` keeps its classes of characters in two more: character -> class, far smaller entries.
    """

    def __init__(self, piece_ids: Callable[[str], Any]) -> None:
        super().__init__()
        self._piece_ids = piece_ids

    def __missing__(self, piece: str) -> Any:
        ids = self._piece_ids(piece)
        if len(piece) <= CACHED_CHARS:
            if len(self) >= CACHE_SIZE:
                self.clear()
            self[piece] = ids
        return ids


class Boundaries:
    """Where a pre-token can be cut without changing its ids: a class per character, built from the merges.

    Why a cut can be exact. Merging only ever joins two adjacent tokens into a merge result. Take a boundary
    between two characters where no merge result can cover bytes on both sides. Then the pair across it is
    never merged, and a merge on one side changes no pair of the other. Each step merges the lowest-ranked
    pair (the leftmost among equals), which is also the lowest-ranked (leftmost) pair of its own side; so each
    side goes through exactly the merges it would go through alone, and encoding the two sides apart gives the
    same ids. A long run of Han characters that never repeats thus becomes short segments that do, and that
    the pre-token cache already holds (under cl100k, 98% of the boundaries between two Han characters in Lu
    Xun can be cut).

    When a merge result t can cover the boundary between x and y, with its first k bytes before it: t[:k] must
    end the text before the boundary, so it ends with x's bytes or is a proper suffix of them, and t[k:] must
    start with y's bytes or be a proper prefix of them. Each split of each merge result gives such a pair of
    keys (a character, or the bytes of a partial one); what lies before x or after y is not looked at, which
    can only forbid a cut, never allow a wrong one. The class of x is the set of right keys that its own left
    keys pair with; the class of y is its set of right keys; the cut is allowed when the two are disjoint.
    Classes are computed on first sight of a character and kept in a PieceCache, which bounds their memory.
    """

    def __init__(self, merged: Iterable[bytes]) -> None:
        partners: dict[str | bytes, set[str | bytes]] = defaultdict(set)
        for token in merged:
            for left, right in _splits(token):
                partners[left].add(right)
        self._partners = partners
        self._right_keys = set().union(*partners.values())
        self._interned: dict[frozenset, frozenset] = {}  # few distinct classes: share one object each
        self._left = PieceCache(self._left_class)
        self._right = PieceCache(self._right_class)

    def segments(self, piece: str) -> list[str]:
        """`piece` cut at every boundary that no merge can cover; "".join(segments) == piece."""
        cuts = list(map(frozenset.isdisjoint, map(self._left.__getitem__, piece),
                        map(self._right.__getitem__, piece[1:])))
        if all(cuts):  # the usual case for Han text: one character per segment
            return list(piece)
        starts = [0, *compress(range(1, len(piece)), cuts)]
        return [piece[start:end] for start, end in zip(starts, [*starts[1:], len(piece)])]

    def _left_class(self, char: str) -> frozenset:
        data = char.encode("utf-8", "surrogatepass")  # a lone surrogate is refused later, by the merge step
        keys = [char, *(data[j:] for j in range(1, len(data)))]
        return self._intern(frozenset().union(*(self._partners[k] for k in keys if k in self._partners)))

    def _right_class(self, char: str) -> frozenset:
        data = char.encode("utf-8", "surrogatepass")
        keys = [char, *(data[:j] for j in range(1, len(data)))]
        return self._intern(frozenset(k for k in keys if k in self._right_keys))

    def _intern(self, keys: frozenset) -> frozenset:
        return self._interned.setdefault(keys, keys)


def _splits(token: bytes) -> Iterator[tuple[str | bytes, str | bytes]]:
    """(left key, right key) of each split of `token` that could lie on a boundary between two characters.

    A key is the character a part ends (left) or starts (right) with or, for a part with no whole character
    there, the part's bytes if they can be the tail (head) of a character. In a token that is valid UTF-8, a
    split inside a character leaves on its left a lead byte with too few continuation bytes after it: neither
    the end of a whole character nor a tail of one. So only its splits between characters count.
    """
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
    """The whole character at `part`'s end (end=-1) or start (end=0); else `part` itself if it can be the tail
    (end=-1) or head (end=0) of a character; else None.

    Decoding four bytes from that end with surrogateescape finds it: an undecodable byte becomes a lone
    surrogate, and UTF-8 resynchronizes, so a whole last (or first) character always decodes as itself.
    """
    near = (part[-4:] if end else part[:4]).decode("utf-8", "surrogateescape")[end]
    if not "\udc80" <= near <= "\udcff":
        return near
    # A character's tail is continuation bytes (10xxxxxx); its head is a lead byte (11xxxxxx), then those.
    continuation = part if end else part[1:]
    if len(part) > 3 or (not end and part[0] < 0xC0) or not all(0x80 <= b < 0xC0 for b in continuation):
        return None
    return part


class Tokenizer:
    """Byte-level BPE: `vocab` maps id -> bytes, `merges` lists (left, right) byte pairs in rank order.

    `special_tokens` are strs whose UTF-8 bytes are in `vocab`; `pattern` is a split regex or a name from
    pretokenize.PATTERNS; `metadata` (plain JSON: it must load back unchanged) is kept in the saved manifest.
    A vocab id that is neither a byte, a merge result nor a named special token (GPT-2's <|endoftext|> when
    it is not named special) is listed in `decode_only_ids`: it decodes, but encoding never produces it.
    """

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: Iterable[str] = (),
        pattern: str = GPT2_PATTERN,
        metadata: dict | None = None,
    ) -> None:
        self.vocab, self.merges = _check_vocab_and_merges(vocab, merges)
        self._id_of = {token: i for i, token in self.vocab.items()}
        self._byte_ids = [self._id_of[bytes([b])] for b in range(256)]
        self._pair_ranks = {(self._id_of[a], self._id_of[b]): r for r, (a, b) in enumerate(self.merges)}
        self._merged = [self._id_of[a + b] for a, b in self.merges]
        self.special_tokens = self._check_specials(special_tokens)
        self.decode_only_ids = sorted(set(self.vocab).difference(self._byte_ids, self._merged,
                                                                 self.special_tokens.values()))
        self._special_regex = special_regex(tuple(self.special_tokens)) if self.special_tokens else None
        self._regex = compile_pattern(pattern)
        self.pattern = self._regex.pattern  # a name such as "gpt4" stands for its full regex
        self.metadata = _check_metadata(metadata)
        self.vocab_size = max(self.vocab) + 1  # embedding rows a model needs (cl100k leaves a few ids unused)
        self._boundaries = Boundaries(a + b for a, b in self.merges)
        self._cache = PieceCache(self._piece_ids)

    def _check_specials(self, special_tokens: Iterable[str]) -> dict[str, int]:
        ordinary = set(self._byte_ids) | set(self._merged)
        specials = {}
        for token in check_special_tokens(special_tokens):
            token_id = self._id_of.get(token.encode("utf-8"))
            if token_id is None:
                raise ValueError(f"special token {token!r} is not in the vocab (give its UTF-8 bytes an id)")
            if token_id in ordinary:  # else ordinary text could be merged into a control token
                raise ValueError(f"special token {token!r} has the bytes of ordinary token {token_id} "
                                 "(a byte or a merge result), which cannot also be special")
            specials[token] = token_id
        return specials

    def __repr__(self) -> str:
        decode_only = f", decode_only_ids={len(self.decode_only_ids)}" if self.decode_only_ids else ""
        return (f"Tokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
                f"special_tokens={list(self.special_tokens)}{decode_only})")

    def __reduce__(self) -> tuple:
        # For pickling (e.g. to worker processes): the pre-token cache cannot be pickled, so rebuild instead.
        return type(self), (self.vocab, self.merges, list(self.special_tokens), self.pattern, self.metadata)

    # --------------------------------------------------------------------------------------------- encoding

    def _piece_ids(self, piece: str) -> tuple[int, ...]:
        """The ids of a pre-token not in the cache: of its segments (see `Boundaries`), each from the cache.

        ASCII pre-tokens are merged whole: under cl100k only 0.04% of the boundaries in TinyStories' distinct
        ASCII pre-tokens can be cut, so looking for cuts there would cost more than it saves.
        """
        if not piece.isascii():
            segments = self._boundaries.segments(piece)
            if len(segments) > 1:
                return tuple(chain.from_iterable(map(self._cache.__getitem__, segments)))
        return self._merged_ids(piece)

    def _merged_ids(self, piece: str) -> tuple[int, ...]:
        """The ids of `piece` merged whole, without cuts."""
        ids = [self._byte_ids[b] for b in piece.encode("utf-8")]
        return tuple(apply_merges(ids, self._pair_ranks, self._merged))

    def _collect(self, collect: Callable[[Iterator[int]], Any], id_tuples: Iterable[tuple[int, ...]]) -> Any:
        """`collect` (list, or an array maker) applied to the ids in `id_tuples`, chained.

        map + chain keep the per-pre-token work in C; on English almost every pre-token is a cache hit.
        """
        try:
            return collect(chain.from_iterable(id_tuples))
        except UnicodeEncodeError as e:
            raise ValueError(f"text contains the lone surrogate {e.object[e.start]!r} (in {e.object!r}), which "
                             "has no UTF-8 form; repair the text first, e.g. decode its source with "
                             "errors='replace'") from None

    def _encode_pieces(self, pieces: list[str]) -> list[int]:
        return self._collect(list, map(self._cache.__getitem__, pieces))

    def _ordinary_tuples(self, text: str, offset: int = 0) -> Iterator[tuple[int, ...]]:
        return map(self._cache.__getitem__, find_pretokens(self._regex, text, offset))

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of `text` with every character treated as ordinary text, special-token look-alikes included.

        A split pattern that leaves a character of `text` out of every pre-token raises ValueError: dropping
        it would break decode(encode_ordinary(x)) == x without a word.
        """
        check_str(text, "text")
        return self._collect(list, self._ordinary_tuples(text))

    def encode(self, text: str, allowed_special: Iterable[str] | str = frozenset()) -> list[int]:
        """Ids of `text`; the special tokens named in `allowed_special` ("all" or a set) become their ids.

        Any other special-token string in `text` raises ValueError: text from a user must never silently turn
        into a control token (tiktoken's rule). Use encode_ordinary to treat such strings as plain text.
        """
        check_str(text, "text")
        return self._encode(text, self._check_allowed(allowed_special))

    def encode_to_numpy(self, text: str, allowed_special: Iterable[str] | str = frozenset()) -> np.ndarray:
        """`encode` as a 1-D uint32 array (tiktoken's `encode_to_numpy`), made without a list of Python ints.

        The cached id tuples of the pre-tokens flow into an `array.array` of C unsigned ints, filled in C, whose
        buffer numpy then wraps without a copy: 4 bytes per id held instead of a list's 8 and the array's 4, in
        about the time of `np.array(encode(text))` (within a few percent either way: benchmarks/bench_megatron.py).
        """
        check_str(text, "text")
        allowed = self._check_allowed(allowed_special)
        if self.vocab_size > 1 << 32:
            raise ValueError(f"encode_to_numpy gives uint32 ids, but this tokenizer has ids up to "
                             f"{self.vocab_size - 1}; use encode")
        return self._collect(_uint32_array, self._id_tuples(text, allowed))

    def _encode(self, text: str, allowed: frozenset[str], offset: int = 0) -> list[int]:
        """`encode` of `text`, which starts at index `offset` of what the caller was given (for messages)."""
        return self._collect(list, self._id_tuples(text, allowed, offset))

    def _id_tuples(self, text: str, allowed: frozenset[str], offset: int = 0) -> Iterator[tuple[int, ...]]:
        """The ids of `text` as a stream of tuples, one per pre-token (from the cache) or special token."""
        if self._special_regex is None:
            return self._ordinary_tuples(text, offset)
        return chain.from_iterable(self._segments(text, allowed, offset))

    def _segments(self, text: str, allowed: frozenset[str], offset: int) -> Iterator[Iterable[tuple[int, ...]]]:
        """The id tuples of each stretch of ordinary text and of each special token between them, lazily."""
        start = 0
        for match in self._special_regex.finditer(text):
            special = match.group()
            if special not in allowed:
                raise ValueError(f"text contains the special token {special!r} at index {offset + match.start()}, "
                                 f"which allowed_special does not allow: pass allowed_special={{{special!r}}} or "
                                 "'all' to encode it as a special token, or use encode_ordinary to keep it as text")
            yield self._ordinary_tuples(text[start : match.start()], offset + start)
            yield ((self.special_tokens[special],),)
            start = match.end()
        yield self._ordinary_tuples(text[start:], offset + start)

    def _check_allowed(self, allowed_special: Iterable[str] | str) -> frozenset[str]:
        if isinstance(allowed_special, str):
            if allowed_special != "all":
                raise ValueError(f"allowed_special must be 'all' or a set of special tokens, got the str "
                                 f"{allowed_special!r} (for one token write {{{allowed_special!r}}})")
            return frozenset(self.special_tokens)
        check_type(allowed_special, "allowed_special", (set, frozenset, list, tuple), "'all' or a set of str")
        unknown = [s for s in allowed_special if not isinstance(s, str) or s not in self.special_tokens]
        if unknown:
            raise ValueError(f"allowed_special contains {unknown!r}, which are not special tokens of this "
                             f"tokenizer (those are {list(self.special_tokens)})")
        return frozenset(allowed_special)

    def encode_iterable(self, chunks: Iterable[str], allowed_special: Iterable[str] | str = frozenset()
                        ) -> Iterator[int]:
        """Lazily yield the ids of ``"".join(chunks)``, the same as `encode` gives, holding little in memory.

        Text at the end of what has arrived may still split differently: a letter or digit run can grow,
        ``\\s+(?!\\S)`` and ``\\s++$`` depend on what follows, ``'l`` may become ``'ll``, a special token may be
        cut in two. So the tail is held back: the last (longest special token - 1) characters, where a special
        token could still begin, and the last two pre-tokens before them (two, because ``'`` + ``l`` may still
        become ``'ll``; enough for the bundled patterns, tests/test_tokenizer.py tries them on adversarial
        chunkings). Memory is bounded by the longest pre-token plus one chunk, not by the input. A disallowed
        special token raises when it is reached, after the ids before it were yielded.
        """
        check_iterable(chunks, "chunks", "an iterable of str (a list, a file, ...)")
        return self._encode_chunks(iter(chunks), self._check_allowed(allowed_special))

    def _encode_chunks(self, chunks: Iterator[str], allowed: frozenset[str]) -> Iterator[int]:
        hold = max(map(len, self.special_tokens), default=1) - 1
        pending = ""
        offset = 0  # where `pending` starts in the whole stream
        for chunk in chunks:
            check_str(chunk, "each chunk")
            pending += chunk
            settled = len(pending) - hold  # a special token starting before here has all its characters
            segment_start = 0  # end of the last settled special token: text before it is final
            if self._special_regex is not None:
                for match in self._special_regex.finditer(pending):
                    if match.start() >= settled:
                        break
                    segment_start = match.end()
            pieces = (find_pretokens(self._regex, pending[segment_start:settled], offset + segment_start, hold_back=2)
                      if settled > segment_start else [])
            done = segment_start + sum(map(len, pieces))
            if done:
                yield from self._encode(pending[:segment_start], allowed, offset)
                yield from self._encode_pieces(pieces)
                pending = pending[done:]
                offset += done
        yield from self._encode(pending, allowed, offset)

    # --------------------------------------------------------------------------------------------- decoding

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (a special token gives the UTF-8 of its text)."""
        token_id = check_int(token_id, "token_id")
        if token_id not in self.vocab:
            raise ValueError(f"token_id {token_id} is not in the vocab (ids are 0..{self.vocab_size - 1})")
        return self.vocab[token_id]

    def decode_bytes(self, ids: Iterable[int]) -> bytes:
        """The tokens' bytes joined: works for any known ids, even where the result is not UTF-8."""
        ids = _id_list(ids)
        try:
            return b"".join(map(self.vocab.__getitem__, ids))
        except KeyError as e:
            k = ids.index(e.args[0])
            raise ValueError(f"ids[{k}] = {ids[k]} is not a token id of this tokenizer "
                             f"(ids are 0..{self.vocab_size - 1})") from None

    def decode(self, ids: Iterable[int], errors: str = "replace") -> str:
        """Text of `ids`. Ids from a model may cut a character in two, so `errors` sets the policy:

        "replace" (default, like tiktoken) puts U+FFFD where the bytes are not UTF-8, "backslashreplace" shows
        them as \\xNN, "strict" raises ValueError naming the token where the bytes go wrong.
        """
        check_choice(errors, "errors", DECODE_ERRORS)
        ids = _id_list(ids)
        data = self.decode_bytes(ids)
        try:
            return data.decode("utf-8", errors=errors)
        except UnicodeDecodeError as e:
            ends = accumulate(len(self.vocab[t]) for t in ids)
            k = next(k for k, end in enumerate(ends) if end > e.start)
            raise ValueError(f"ids are not valid UTF-8 ({e.reason}) at byte {e.start}, in ids[{k}] = {ids[k]} "
                             f"whose bytes are {self.vocab[ids[k]]!r}; errors='replace' would put U+FFFD there"
                             ) from None

    # ------------------------------------------------------------------------------------ building and files

    @classmethod
    def from_tiktoken(cls, encoding: Any) -> Tokenizer:
        """The tokenizer of a tiktoken Encoding (e.g. cl100k), with its merges recovered from its ranks.

        tiktoken keeps only token -> rank. Going through the tokens by rank, BPE with the merges found so far
        takes each token's bytes down to exactly two parts (a, b): that is the merge that made the token
        (minbpe's `recover_merges`). Ids stay tiktoken's, so the byte tokens keep their permuted ids.
        """
        check_has(encoding, "encoding", ("name", "_mergeable_ranks", "_special_tokens", "_pat_str"),
                  "a tiktoken Encoding, e.g. tiktoken.get_encoding('cl100k_base')")
        ranks: dict[bytes, int] = encoding._mergeable_ranks
        vocab = {rank: token for token, rank in ranks.items()}
        byte_ids = [ranks[bytes([b])] for b in range(256)]
        pair_ranks: dict[tuple[int, int], int] = {}
        merged: list[int] = []
        merges = []
        for token, rank in sorted(ranks.items(), key=lambda item: item[1]):
            if len(token) < 2:
                continue
            parts = apply_merges([byte_ids[b] for b in token], pair_ranks, merged)
            if len(parts) != 2:
                raise ValueError(f"cannot recover a merge for token {token!r} (rank {rank}): the lower-ranked "
                                 f"merges leave {len(parts)} parts, not 2")
            pair_ranks[(parts[0], parts[1])] = len(merged)
            merged.append(rank)
            merges.append((vocab[parts[0]], vocab[parts[1]]))
        specials: dict[str, int] = encoding._special_tokens
        vocab.update({token_id: token.encode("utf-8") for token, token_id in specials.items()})
        metadata = {"source": f"tiktoken encoding {encoding.name!r}"}
        return cls(vocab, merges, sorted(specials, key=specials.__getitem__), encoding._pat_str, metadata)

    @classmethod
    def from_gpt2_files(cls, vocab_json: str | os.PathLike, merges_txt: str | os.PathLike,
                        special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN) -> Tokenizer:
        """GPT-2's tokenizer from OpenAI's encoder.json (token -> id) and vocab.bpe (merges in rank order).

        Hugging Face ships the same two files as vocab.json and merges.txt. Both write each byte as one
        printable character (GPT2_BYTE_DECODER; a space is "Ġ"), so each token is turned back into bytes. Ids
        stay the file's, which are tiktoken's `gpt2` ids. The files do not say which entries are special:
        name them in `special_tokens` (GPT-2 has one, "<|endoftext|>"); an entry left unnamed is decode-only.
        """
        vocab_json, merges_txt = check_path(vocab_json, "vocab_json"), check_path(merges_txt, "merges_txt")
        special_tokens = check_special_tokens(special_tokens)
        entries = _read_json(vocab_json)
        if not isinstance(entries, dict) or not all(type(i) is int for i in entries.values()):
            raise ValueError(f"{vocab_json} must hold one JSON object that maps each token to its id")
        vocab: dict[int, bytes] = {}
        for token, i in entries.items():
            if i in vocab:
                raise ValueError(f"{vocab_json} gives id {i} to two tokens, the second is {token!r}")
            vocab[i] = token.encode("utf-8") if token in special_tokens else _gpt2_bytes(token, vocab_json)
        lines = _read_text(merges_txt).split("\n")
        merges = []
        for n, line in enumerate(lines, 1):
            if (n == 1 and line.startswith("#version")) or (n == len(lines) and not line):
                continue
            parts = line.split(" ")
            if len(parts) != 2:
                raise ValueError(f"{merges_txt} line {n} must be two tokens and one space, got {line!r}")
            merges.append((_gpt2_bytes(parts[0], merges_txt), _gpt2_bytes(parts[1], merges_txt)))
        metadata = {"source": f"GPT-2 files {vocab_json.name} and {merges_txt.name}"}
        return cls(vocab, merges, special_tokens, pattern, metadata)

    @classmethod
    def train(cls, texts_or_path: Any, vocab_size: int, special_tokens: Iterable[str] = (),
              pattern: str = GPT2_PATTERN, **trainer_kwargs: Any) -> Tokenizer:
        """Train with `trainer.train_bpe`; the metadata records everything the result depends on."""
        if isinstance(texts_or_path, Iterator):
            texts_or_path = list(texts_or_path)  # it is read twice: for the digest and for training
        special_tokens = check_special_tokens(special_tokens)
        pattern = compile_pattern(pattern).pattern  # a name such as "gpt4" is recorded as its full regex
        vocab_size = check_int(vocab_size, "vocab_size", low=256 + len(special_tokens))
        vocab, merges = trainer.train_bpe(texts_or_path, vocab_size, special_tokens, pattern, **trainer_kwargs)
        metadata = {
            "trainer": {"name": "tutorial_lib.tokenization.trainer.train_bpe", "vocab_size": vocab_size,
                        "pattern": pattern, "special_tokens": list(special_tokens), "tie_break": TIE_BREAK},
            "corpus_digest": trainer.corpus_digest(texts_or_path),
        }
        return cls(vocab, merges, special_tokens, pattern, metadata)

    def manifest(self) -> dict:
        """What a saved file promises: schema, digests of the contract, policies, then the metadata."""
        return {
            "schema_version": SCHEMA_VERSION,
            "vocab_sha256": vocab_sha256(self.vocab),
            "merges_sha256": merges_sha256(self.merges),
            "settings_sha256": settings_sha256(self.pattern, self.special_tokens),
            "policies": POLICIES,
            **self.metadata,
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write one human-readable JSON file, one merge or vocab entry per line, atomically (`_files.write_atomically`).

        A token is shown as its text when its bytes are valid UTF-8 and as {"hex": "e4b8"} otherwise. Special
        tokens are listed once, under "special_tokens".
        """
        path = check_path(path, "path")
        specials = set(self.special_tokens.values())
        text = "\n".join([
            "{",
            f'"manifest": {_dumps(self.manifest())},',
            f'"pattern": {_dumps(self.pattern)},',
            f'"special_tokens": {_dumps(self.special_tokens)},',
            '"merges": [',
            ",\n".join(_dumps([_readable(a), _readable(b)]) for a, b in self.merges),
            "],",
            '"vocab": [',
            ",\n".join(_dumps([i, _readable(t)]) for i, t in sorted(self.vocab.items()) if i not in specials),
            "]",
            "}\n",
        ])
        write_atomically(path, text)
        return path

    @classmethod
    def load(cls, path: str | os.PathLike) -> Tokenizer:
        """Read a file written by `save`; refuse it if its schema is unknown or a digest does not match."""
        path = check_path(path, "path")
        doc = _read_json(path)
        manifest = doc.get("manifest") if isinstance(doc, dict) else None
        if not isinstance(manifest, dict):
            raise ValueError(f"{path} has no manifest, so it was not written by Tokenizer.save")
        if manifest.get("schema_version") != SCHEMA_VERSION:
            raise ValueError(f"{path} has schema_version {manifest.get('schema_version')!r}; this code reads "
                             f"version {SCHEMA_VERSION}")
        missing = [key for key in ("pattern", "special_tokens", "merges", "vocab") if key not in doc]
        if missing:
            raise ValueError(f"{path} lacks {missing}")
        try:
            specials = {token: _checked_id(i) for token, i in doc["special_tokens"].items()}
            vocab: dict[int, bytes] = {}
            for i, token in chain(doc["vocab"], ((i, t) for t, i in specials.items())):
                if _checked_id(i) in vocab:
                    raise ValueError(f"id {i} is listed twice")
                vocab[i] = _from_readable(token)
            merges = [(_from_readable(a), _from_readable(b)) for a, b in doc["merges"]]
        except (TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{path} has a malformed vocab, merges or special_tokens entry: {e}") from None
        digests = {"vocab_sha256": vocab_sha256(vocab), "merges_sha256": merges_sha256(merges),
                   "settings_sha256": settings_sha256(doc["pattern"], specials)}
        for key, digest in digests.items():
            if digest != manifest.get(key):
                raise ValueError(f"{path} was edited or damaged: its content gives {key} {digest}, but the manifest "
                                 f"says {manifest.get(key)}")
        metadata = {key: value for key, value in manifest.items() if key not in _MANIFEST_KEYS}
        return cls(vocab, merges, sorted(specials, key=specials.__getitem__), doc["pattern"], metadata)


# ----------------------------------------------------------------------------------------------------- helpers


def vocab_sha256(vocab: dict[int, bytes]) -> str:
    """sha256 of one line "<id> <hex bytes>" per token in id order: a canonical form anyone can recompute."""
    return hashlib.sha256("".join(f"{i} {vocab[i].hex()}\n" for i in sorted(vocab)).encode()).hexdigest()


def merges_sha256(merges: list[tuple[bytes, bytes]]) -> str:
    """sha256 of one line "<left hex> <right hex>" per merge in rank order."""
    return hashlib.sha256("".join(f"{a.hex()} {b.hex()}\n" for a, b in merges).encode()).hexdigest()


def settings_sha256(pattern: str, special_tokens: dict[str, int]) -> str:
    """sha256 of the JSON [pattern, [[id, special token], ...] in id order]: the rest of the contract."""
    settings = [pattern, sorted([i, token] for token, i in special_tokens.items())]
    return hashlib.sha256(json.dumps(settings).encode()).hexdigest()


def _check_vocab_and_merges(vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]]
                            ) -> tuple[dict[int, bytes], list[tuple[bytes, bytes]]]:
    """The contract: distinct non-empty bytes per id, all 256 bytes, each merge built from earlier tokens."""
    check_type(vocab, "vocab", dict, "a dict[int, bytes]")
    owner: dict[bytes, int] = {}
    for i, token in vocab.items():
        if check_type(i, "a vocab id", int, "an int >= 0") < 0:
            raise ValueError(f"vocab ids must be ints >= 0, got {i}")
        if not check_type(token, f"vocab[{i}]", bytes, "non-empty bytes"):
            raise ValueError(f"vocab[{i}] must be non-empty bytes, got b''")
        if owner.setdefault(token, i) != i:
            raise ValueError(f"vocab ids {owner[token]} and {i} both have the bytes {token!r}; bytes must be unique")
    missing = [b for b in range(256) if bytes([b]) not in owner]
    if missing:
        raise ValueError(f"vocab lacks the single-byte tokens of {len(missing)} byte values (first: {missing[0]}); "
                         "byte-level BPE needs all 256 so that every text can be encoded")
    merges = [tuple(check_sequence(m, f"merges[{rank}]", "a pair of bytes"))
              for rank, m in enumerate(check_iterable(merges, "merges", "a list of (bytes, bytes) pairs"))]
    made = {bytes([b]) for b in range(256)}  # the tokens that bytes and the merges so far can produce
    seen: set[tuple[bytes, bytes]] = set()
    for rank, merge in enumerate(merges):
        if len(merge) != 2:
            raise ValueError(f"merges[{rank}] must be a pair of bytes, got {len(merge)} items: {merge!r}")
        for part in merge:
            check_type(part, f"each part of merges[{rank}]", bytes, "bytes")
        unmade = [part for part in merge if part not in made]
        if unmade:
            raise ValueError(f"merges[{rank}] = {merge!r}: {unmade[0]!r} is neither a byte nor made by an earlier "
                             "merge")
        if merge in seen:
            raise ValueError(f"merges[{rank}] = {merge!r} repeats an earlier merge")
        if merge[0] + merge[1] not in owner:
            raise ValueError(f"merges[{rank}] = {merge!r} makes {merge[0] + merge[1]!r}, which is not in the vocab")
        seen.add(merge)
        made.add(merge[0] + merge[1])
    return dict(vocab), merges


def _check_metadata(metadata: dict | None) -> dict:
    """A copy of `metadata`, which must come back unchanged from the JSON file that `save` writes."""
    if metadata is None:
        return {}
    check_type(metadata, "metadata", dict, "a dict or None")
    reserved = sorted(set(metadata) & set(_MANIFEST_KEYS))
    if reserved:
        raise ValueError(f"metadata must not use the manifest's own keys {reserved}")
    try:
        problem = _json_problem(metadata, "metadata")
    except RecursionError:
        problem = "metadata is nested too deeply"
    if problem:
        raise ValueError(f"metadata must be plain JSON that save() and load() keep unchanged, but {problem}")
    return json.loads(json.dumps(metadata))


def _json_problem(value: Any, where: str) -> str | None:
    """Why `value` would not come back equal (and of the same types) from JSON, or None if it would."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return f"{where} has the key {describe(key)}, which JSON turns into a str"
            problem = _json_problem(key, f"a key of {where}") or _json_problem(item, f"{where}[{key!r}]")
            if problem:
                return problem
        return None
    if kind is list:
        return next(filter(None, (_json_problem(item, f"{where}[{i}]") for i, item in enumerate(value))), None)
    if kind is str:
        return None if _is_utf8(value) else f"{where} holds a lone surrogate, which UTF-8 cannot store"
    if kind is float and not math.isfinite(value):
        return f"{where} is {value}, which JSON does not have"
    if kind in (int, float, bool, type(None)):
        return None
    return (f"{where} is {describe(value)} of type {kind.__name__}; JSON keeps only dict (str keys), list, str, "
            "int, float, bool and None")


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True



def _uint32_array(ids: Iterator[int]) -> np.ndarray:
    """`ids` as a uint32 array. Type code "I" is C's unsigned int, numpy's uintc: 32 bits on Linux, macOS and
    Windows, as `Tokenizer.encode_to_numpy` promises (a test checks the dtype)."""
    return np.frombuffer(array("I", ids), np.uintc)


def _id_list(ids: Iterable[int], name: str = "ids") -> list[int]:
    """`ids` as a list of Python ints: a flat sequence or a 1-D numpy array; no bools, floats or nesting."""
    if type(ids) is list and all(type(i) is int for i in ids):  # the common case, checked in one quick pass
        return ids
    return check_int_list(ids, name)


def _checked_id(i: object) -> int:
    if not isinstance(i, int) or isinstance(i, bool):
        raise ValueError(f"a token id must be an int, got {i!r}")
    return i


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False)


def _readable(token: bytes) -> str | dict[str, str]:
    """A token as a learner can read it: its text if the bytes are valid UTF-8, else {"hex": "e4b8"}."""
    try:
        return token.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": token.hex()}


def _from_readable(token: str | dict[str, str]) -> bytes:
    if isinstance(token, str):
        return token.encode("utf-8")
    if isinstance(token, dict) and set(token) == {"hex"} and isinstance(token["hex"], str):
        return bytes.fromhex(token["hex"])
    raise ValueError(f"a token must be a str or {{'hex': ...}}, got {token!r}")


def _gpt2_byte_decoder() -> dict[str, int]:
    """GPT-2's `bytes_to_unicode`, inverted: the printable character that stands for each byte -> the byte.

    The 188 bytes that print as themselves (! to ~, ¡ to ¬, ® to ÿ) keep their character; the other 68
    (space, control characters, ...) take chr(256), chr(257), ... in byte order, so a token's text never
    holds a space or a line break, and the merges file can be one "left right" pair per line.
    """
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    return {chr(b): b for b in printable} | {chr(256 + n): b for n, b in enumerate(others)}


GPT2_BYTE_DECODER = _gpt2_byte_decoder()


def _gpt2_bytes(token: str, path: Path) -> bytes:
    try:
        return bytes(map(GPT2_BYTE_DECODER.__getitem__, token))
    except KeyError as e:
        raise ValueError(f"{path}: the token {token!r} holds {e.args[0]!r}, which is not in GPT-2's byte alphabet "
                         "(if it is a special token, name it in special_tokens)") from None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text: {e}") from None


def _read_json(path: Path) -> Any:
    """The JSON value in `path`; text that is not JSON, or nests too deeply to read, is a ValueError."""
    try:
        return json.loads(_read_text(path))
    except (json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{path} is not a JSON file this code can read: {e}") from None
