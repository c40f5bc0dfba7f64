"""A byte-level BPE tokenizer: encode by merge rank, decode by concatenating bytes.

Encoding is classic minbpe, in four steps: split the text at its special tokens (`id_tuples`), cut
the ordinary text into pre-tokens (`_pretoken_ids`), look each up in the piece cache
(`fast_encode.PieceEncoder`), and on a miss merge, lowest rank first (`PieceEncoder.merge`). Ids
come from the vocabulary, never from the rank: cl100k's byte tokens do not have ids 0..255.

decode(encode_ordinary(x)) == N(x), N the `normalization` form. A lone surrogate is refused.
"""

from __future__ import annotations

import copy
from array import array
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate, chain
from typing import Any

import numpy as np

from tutorial_lib._checks import check_choice, check_int, check_int_list, check_str, check_type
from tutorial_lib.bpe.fast_encode import PieceEncoder
from tutorial_lib.bpe.pretokenize import (GPT2_PATTERN, check_special_tokens, compile_pattern,
                                          find_pretokens, special_regex)
from tutorial_lib.bpe.vocab_check import check_vocab_and_merges
from tutorial_lib.contract.normalize import check_form, normalizer

DECODE_ERRORS = ("replace", "strict", "backslashreplace")  # U+FFFD, refuse, or show bytes as \xNN

IdTuples = Iterable[tuple[int, ...]]


class Tokenizer:
    """Byte-level BPE: `vocab` maps id -> bytes, `merges` lists (left, right) byte pairs by rank.

    A vocab id that is neither a byte, a merge result nor a special token (GPT-2's <|endoftext|>
    unless named special) is in `decode_only_ids`.
    """

    def __init__(self, vocab: dict[int, bytes], merges: list[tuple[bytes, bytes]],
                 special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN,
                 metadata: dict | None = None, normalization: str = "none") -> None:
        self.vocab, self.merges = check_vocab_and_merges(vocab, merges)
        self._id_of = {token: i for i, token in self.vocab.items()}
        ordinary = {self._id_of[bytes([b])] for b in range(256)}  # what encoding can make
        ordinary.update(self._id_of[a + b] for a, b in self.merges)
        self.special_tokens = self._check_specials(special_tokens, ordinary)
        special_ids = set(self.special_tokens.values())
        self.decode_only_ids = sorted(set(self.vocab) - ordinary - special_ids)
        self.compiled_pattern = compile_pattern(pattern)
        self.pattern = self.compiled_pattern.pattern  # "gpt4" and the like: the full regex
        check_type(metadata, "metadata", (dict, type(None)), "a dict or None")
        try:  # a copy: the caller's later edits must not reach the saved manifest
            self.metadata = copy.deepcopy(metadata or {})
        except RecursionError:
            raise ValueError("metadata is nested too deeply") from None
        self.normalization = check_form(normalization)
        self._normalize = normalizer(normalization)  # None for "none": nothing to do
        self.vocab_size = max(self.vocab) + 1  # embedding rows a model needs (cl100k skips ids)
        names = tuple(self.special_tokens)
        self.compiled_specials = special_regex(names) if names else None
        self.piece_ids = PieceEncoder(self._id_of, self.merges)  # pre-token -> ids; built last

    def _check_specials(self, special_tokens: Iterable[str], ordinary: set[int]) -> dict[str, int]:
        specials = {}
        for token in check_special_tokens(special_tokens):
            token_id = self._id_of.get(token.encode("utf-8"))
            if token_id is None:
                raise ValueError(f"special token {token!r} is not in the vocab (give its UTF-8 "
                                 "bytes an id)")
            if token_id in ordinary:  # else ordinary text could be merged into a control token
                raise ValueError(f"special token {token!r} has the bytes of ordinary token "
                                 f"{token_id} (a byte or a merge result), which cannot also be "
                                 "special")
            specials[token] = token_id
        return specials

    def __repr__(self) -> str:
        n = len(self.decode_only_ids)
        decode_only = f", decode_only_ids={n}" if n else ""
        form = f", normalization={self.normalization!r}" if self._normalize else ""
        return (f"Tokenizer(vocab_size={self.vocab_size}, merges={len(self.merges)}, "
                f"special_tokens={list(self.special_tokens)}{form}{decode_only})")

    def __reduce__(self) -> tuple:
        # For pickling (e.g. to worker processes): the piece cache is not worth sending, so rebuild.
        args = (self.vocab, self.merges, list(self.special_tokens), self.pattern, self.metadata,
                self.normalization)
        return type(self), args

    def replace(self, **changes: Any) -> Tokenizer:
        """The same tokenizer with some constructor arguments changed (normalization="NFKC")."""
        names = ("vocab", "merges", "special_tokens", "pattern", "metadata", "normalization")
        return Tokenizer(**dict(zip(names, self.__reduce__()[1])) | changes)

    def encode(self, text: str, allowed_special: Iterable[str] | str = frozenset()) -> list[int]:
        """Ids of `text`; the special tokens named in `allowed_special` ("all" or a set) become ids,
        any other is a ValueError (tiktoken's rule: user text must never become control tokens)."""
        check_str(text, "text")
        return collect_ids(list, self.id_tuples(text, self.check_allowed(allowed_special)))

    def id_tuples(self, text: str, allowed: frozenset[str], offset: int = 0) -> IdTuples:
        """Step 1: `text` split at its special tokens, as one id tuple per pre-token or special;
        `offset`, where `text` starts in the caller's text, is for messages."""
        if self.compiled_specials is None:  # nothing to split: straight to step 2
            return self._pretoken_ids(text, offset)
        return chain.from_iterable(self._split_specials(text, allowed, offset))

    def _split_specials(self, text: str, allowed: frozenset[str], offset: int
                        ) -> Iterator[IdTuples]:
        """The id tuples of each stretch of ordinary text and of each special token, lazily."""
        start = 0
        for match in self.compiled_specials.finditer(text):
            special = match.group()
            if special not in allowed:
                raise ValueError(f"text contains the special token {special!r} at index "
                                 f"{offset + match.start()}, which allowed_special does not allow: "
                                 f"pass allowed_special={{{special!r}}} or 'all' to encode it as a "
                                 "special token, or use encode_ordinary to keep it as text")
            yield self._pretoken_ids(text[start : match.start()], offset + start)
            yield ((self.special_tokens[special],),)
            start = match.end()
        yield self._pretoken_ids(text[start:], offset + start)

    def _pretoken_ids(self, text: str, offset: int = 0) -> IdTuples:
        """Steps 2 and 3 (4 on a miss): `text` normalized, cut into pre-tokens, each looked up."""
        if self._normalize is not None:
            text = self._normalize(text)
        return map(self.piece_ids.__getitem__, find_pretokens(self.compiled_pattern, text, offset))

    def check_allowed(self, allowed_special: Iterable[str] | str) -> frozenset[str]:
        if isinstance(allowed_special, str):
            if allowed_special != "all":
                raise ValueError(f"allowed_special must be 'all' or a set of special tokens, got "
                                 f"the str {allowed_special!r} (for one token write "
                                 f"{{{allowed_special!r}}})")
            return frozenset(self.special_tokens)
        check_type(allowed_special, "allowed_special", (set, frozenset, list, tuple),
                   "'all' or a set of str")
        unknown = [s for s in allowed_special
                   if not isinstance(s, str) or s not in self.special_tokens]
        if unknown:
            raise ValueError(f"allowed_special contains {unknown!r}, which are not special tokens "
                             f"of this tokenizer (those are {list(self.special_tokens)})")
        return frozenset(allowed_special)

    def encode_ordinary(self, text: str) -> list[int]:
        """Ids of `text` with every character ordinary text, special-token look-alikes included."""
        check_str(text, "text")
        return collect_ids(list, self._pretoken_ids(text))

    def encode_to_numpy(self, text: str, allowed_special: Iterable[str] | str = frozenset()
                        ) -> np.ndarray:
        """`encode` as a 1-D uint32 array (tiktoken's `encode_to_numpy`), without a list of ints:
        the ids flow into an `array.array`, whose buffer numpy wraps without a copy."""
        check_str(text, "text")
        allowed = self.check_allowed(allowed_special)
        if self.vocab_size > 1 << 32:
            raise ValueError(f"encode_to_numpy gives uint32 ids, but this tokenizer has ids up to "
                             f"{self.vocab_size - 1}; use encode")
        # Type code "I" is C's unsigned int, numpy's uintc: 32 bits on Linux, macOS and Windows.
        return collect_ids(lambda ids: np.frombuffer(array("I", ids), np.uintc),
                           self.id_tuples(text, allowed))

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (a special token gives the UTF-8 of its text)."""
        if type(token_id) is not int:  # a plain int, the usual case, needs no check
            token_id = check_int(token_id, "token_id")
        if token_id not in self.vocab:
            raise ValueError(f"token_id {token_id} is not in the vocab (ids are "
                             f"0..{self.vocab_size - 1})")
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
        """Text of `ids`. Ids from a model may cut a character in two: `errors` "replace" (like
        tiktoken) puts U+FFFD there, "strict" raises ValueError naming the token."""
        check_choice(errors, "errors", DECODE_ERRORS)
        ids = _id_list(ids)
        data = self.decode_bytes(ids)
        try:
            return data.decode("utf-8", errors=errors)
        except UnicodeDecodeError as e:
            # The token whose bytes reach past the first bad byte.
            ends = accumulate(len(self.vocab[t]) for t in ids)
            k = next(k for k, end in enumerate(ends) if end > e.start)
            raise ValueError(f"ids are not valid UTF-8 ({e.reason}) at byte {e.start}, in "
                             f"ids[{k}] = {ids[k]} whose bytes are {self.vocab[ids[k]]!r}; "
                             "errors='replace' would put U+FFFD there") from None


def collect_ids(collect: Callable[[Iterator[int]], Any], id_tuples: IdTuples) -> Any:
    """`collect` (list, or an array maker) of the ids in `id_tuples`, chained in C. A lone surrogate
    fails where its pre-token is first merged (`str.encode`), and is named here."""
    try:
        return collect(chain.from_iterable(id_tuples))
    except UnicodeEncodeError as e:
        raise ValueError(f"text contains the lone surrogate {e.object[e.start]!r} (in "
                         f"{e.object!r}), which has no UTF-8 form; repair the text first, e.g. "
                         "decode its source with errors='replace'") from None


def _id_list(ids: Iterable[int], name: str = "ids") -> list[int]:
    if type(ids) is list and all(type(i) is int for i in ids):  # the common case, one quick pass
        return ids
    return check_int_list(ids, name)
