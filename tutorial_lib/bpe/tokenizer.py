"""A byte-level BPE tokenizer: encode by merge rank, decode by concatenating bytes.

Encoding is classic minbpe: cut the text into pre-tokens with the split pattern, then inside each
pre-token repeatedly merge the adjacent pair with the lowest rank (rank = position in `merges`). Ids
come from the vocabulary, never from the rank: in GPT-4's cl100k the byte tokens do not have ids
0..255. `Tokenizer.from_tiktoken` recovers the merges of a tiktoken encoding, so the real GPT-4
tokenizer runs inside this class and gives tiktoken's ids.

`encode` takes four steps, each a named function below:

1. split the text at the special tokens it may contain (`_id_tuples`);
2. cut each stretch of ordinary text into pre-tokens (`_pretoken_ids`);
3. look each pre-token's ids up in the piece cache (`fast_encode.PieceEncoder`);
4. on a miss, run the merge loop (`PieceEncoder.merge`, i.e. `fast_encode.apply_merges`).

What makes that fast in pure Python (the cache, exact cuts of long pieces, a heap for very long
ones) lives in `fast_encode`, and gives the plain merge loop's ids; the files (tiktoken, GPT-2,
save/load with a manifest of digests) live in `formats`. Carrying a tokenizer into other libraries
(Hugging Face's tokenizer.json both ways, a tiktoken Encoding) is the production path's job, not
this class's: functions of the pipeline's `interop.hf_json` and `interop.tiktoken_export`.

By default text is not normalized, so decode(encode_ordinary(x)) == x for every str x that has a
UTF-8 form; a tokenizer built with `normalization="NFKC"` (or another of `normalize.FORMS`) applies
it to the ordinary text between special tokens, and then decode(encode_ordinary(x)) == N(x). A str
holding a lone surrogate has no UTF-8 form and is refused (tiktoken would silently make it U+FFFD).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Iterable, Iterator
from functools import cached_property
from itertools import accumulate, chain
from pathlib import Path
from typing import Any

import numpy as np

from tutorial_lib._checks import (check_choice, check_int, check_int_list, check_iterable,
                                  check_str, check_type)
from tutorial_lib.bpe import corpus, formats, stream_encode, trainer
from tutorial_lib.bpe.fast_encode import PieceEncoder
from tutorial_lib.bpe.pretokenize import (GPT2_PATTERN, check_special_tokens, compile_pattern,
                                          find_pretokens, special_regex)
from tutorial_lib.bpe.vocab_check import check_vocab_and_merges
from tutorial_lib.contract import offsets
from tutorial_lib.contract.normalize import check_form, normalize_texts, normalizer

DECODE_ERRORS = ("replace", "strict", "backslashreplace")  # U+FFFD, refuse, or show bytes as \xNN

IdTuples = Iterable[tuple[int, ...]]


class Tokenizer:
    """Byte-level BPE: `vocab` maps id -> bytes, `merges` lists (left, right) byte pairs by rank.

    `special_tokens` are strs whose UTF-8 bytes are in `vocab`; `pattern` is a split regex or a name
    from pretokenize.PATTERNS; `metadata` (plain JSON: it must load back unchanged) is kept in the
    saved manifest; `normalization` is one of `normalize.FORMS`, applied by every encode method to
    the text between special tokens (special tokens are matched in the text as given). A vocab id
    that is neither a byte, a merge result nor a named special token (GPT-2's <|endoftext|> when it
    is not named special) is listed in `decode_only_ids`: it decodes, but encoding never produces
    it.
    """

    def __init__(
        self,
        vocab: dict[int, bytes],
        merges: list[tuple[bytes, bytes]],
        special_tokens: Iterable[str] = (),
        pattern: str = GPT2_PATTERN,
        metadata: dict | None = None,
        normalization: str = "none",
    ) -> None:
        self.vocab, self.merges = check_vocab_and_merges(vocab, merges)
        self._id_of = {token: i for i, token in self.vocab.items()}
        ordinary = {self._id_of[bytes([b])] for b in range(256)}  # what encoding can make
        ordinary.update(self._id_of[a + b] for a, b in self.merges)
        self.special_tokens = self._check_specials(special_tokens, ordinary)
        special_ids = set(self.special_tokens.values())
        self.decode_only_ids = sorted(set(self.vocab) - ordinary - special_ids)
        self._regex = compile_pattern(pattern)
        self.pattern = self._regex.pattern  # a name such as "gpt4" stands for its full regex
        self.metadata = formats.check_metadata(metadata)
        self.normalization = check_form(normalization)
        self._normalize = normalizer(normalization)  # None for "none": nothing to do
        self.vocab_size = max(self.vocab) + 1  # embedding rows a model needs (cl100k skips ids)
        names = tuple(self.special_tokens)
        self._special_regex = special_regex(names) if names else None
        self._pieces = PieceEncoder(self._id_of, self.merges)  # pre-token -> ids; built last

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
        """The same tokenizer with some constructor arguments changed (normalization="NFKC",
        special_tokens=(), metadata=...): how "this tokenizer but for one part" is made."""
        names = ("vocab", "merges", "special_tokens", "pattern", "metadata", "normalization")
        return Tokenizer(**dict(zip(names, self.__reduce__()[1])) | changes)

    # ------------------------------------------------------------------------------------ encoding

    def encode(self, text: str, allowed_special: Iterable[str] | str = frozenset()) -> list[int]:
        """Ids of `text`; the special tokens named in `allowed_special` ("all" or a set) become ids.

        Any other special-token string in `text` raises ValueError: text from a user must never
        silently turn into a control token (tiktoken's rule). Use encode_ordinary to treat such
        strings as plain text.
        """
        check_str(text, "text")
        return _joined(list, self._id_tuples(text, self._check_allowed(allowed_special)))

    def _id_tuples(self, text: str, allowed: frozenset[str], offset: int = 0) -> IdTuples:
        """Step 1: `text` split at its special tokens, as one id tuple per pre-token or special.

        `offset` is where `text` starts in what the caller was given (for messages). Without special
        tokens there is nothing to split, and the text goes straight to step 2.
        """
        if self._special_regex is None:
            return self._pretoken_ids(text, offset)
        return chain.from_iterable(self._split_specials(text, allowed, offset))

    def _split_specials(self, text: str, allowed: frozenset[str], offset: int
                        ) -> Iterator[IdTuples]:
        """The id tuples of each stretch of ordinary text and of each special token, lazily."""
        start = 0
        for match in self._special_regex.finditer(text):
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
        """Steps 2 and 3: `text` normalized, cut into pre-tokens, each looked up in the piece cache.

        Only a pre-token the cache does not hold goes on to step 4, the merge loop
        (`PieceEncoder.__missing__`).
        """
        if self._normalize is not None:
            text = self._normalize(text)
        return map(self._pieces.__getitem__, find_pretokens(self._regex, text, offset))

    def _check_allowed(self, allowed_special: Iterable[str] | str) -> frozenset[str]:
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
        """Ids of `text` with every character ordinary text, special-token look-alikes included.

        A split pattern that leaves a character of `text` out of every pre-token raises ValueError:
        dropping it would break decode(encode_ordinary(x)) == x without a word.
        """
        check_str(text, "text")
        return _joined(list, self._pretoken_ids(text))

    def encode_to_numpy(self, text: str, allowed_special: Iterable[str] | str = frozenset()
                        ) -> np.ndarray:
        """`encode` as a 1-D uint32 array (tiktoken's `encode_to_numpy`), without a list of ints.

        The cached id tuples of the pre-tokens flow into an `array.array` of C unsigned ints, filled
        in C, whose buffer numpy then wraps without a copy: 4 bytes per id held instead of a list's
        8 and the array's 4, in about the time of `np.array(encode(text))`
        (benchmarks/bench_megatron.py compares the two).
        """
        check_str(text, "text")
        allowed = self._check_allowed(allowed_special)
        if self.vocab_size > 1 << 32:
            raise ValueError(f"encode_to_numpy gives uint32 ids, but this tokenizer has ids up to "
                             f"{self.vocab_size - 1}; use encode")
        return _joined(_uint32_array, self._id_tuples(text, allowed))

    def encode_iterable(self, chunks: Iterable[str],
                        allowed_special: Iterable[str] | str = frozenset()) -> Iterator[int]:
        """Lazily yield the ids of ``"".join(chunks)``, the same as `encode` (normalization
        included, however the chunks are cut), in little memory: `stream_encode` says how."""
        check_iterable(chunks, "chunks", "an iterable of str (a list, a file, ...)")
        batches = stream_encode.id_batches(self, iter(chunks), self._check_allowed(allowed_special))
        return (i for batch in batches for i in _joined(list, batch))

    def encode_with_offsets(self, text: str, allowed_special: Iterable[str] | str = frozenset()
                            ) -> offsets.TokenOffsets:
        """`encode`'s ids with each token's span in the original text: `offsets`."""
        return offsets.encode_with_offsets(self, text, allowed_special)

    # ------------------------------------------------------------------------------------ decoding

    def token_bytes(self, token_id: int) -> bytes:
        """The bytes of one token (a special token gives the UTF-8 of its text)."""
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
        """Text of `ids`. Ids from a model may cut a character in two, so `errors` sets the policy:

        "replace" (default, like tiktoken) puts U+FFFD where the bytes are not UTF-8,
        "backslashreplace" shows them as \\xNN, "strict" raises ValueError naming the token where
        the bytes go wrong.
        """
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

    # ------------------------------------------------------------------------- building and files

    @classmethod
    def train(cls, texts_or_path: Any, vocab_size: int, special_tokens: Iterable[str] = (),
              pattern: str = GPT2_PATTERN, normalization: str = "none", **trainer_kwargs: Any
              ) -> Tokenizer:
        """Train with `trainer.train_bpe`; the metadata records everything the result depends on.

        `texts_or_path` is a path to a UTF-8 text file, an iterable of str, or a dict of word ->
        count (the classic BPE example, {"low": 5, "lower": 2, ...}): each word counts as that many
        texts (`corpus.WordCounts`), so the result equals training on the list with each word
        repeated count times. With a `normalization` other than "none" the trainer sees each text
        (or each chunk of the file, cut where normalization cannot change) normalized between its
        special tokens, as `encode` will; the corpus digest stays that of the text as given.
        """
        if isinstance(texts_or_path, Iterator):
            texts_or_path = list(texts_or_path)  # it is read twice: for the digest and for training
        special_tokens = check_special_tokens(special_tokens)
        pattern = compile_pattern(pattern).pattern  # a name such as "gpt4" is kept as its regex
        vocab_size = check_int(vocab_size, "vocab_size", low=256 + len(special_tokens))
        texts = texts_or_path
        if check_form(normalization) != "none":
            chunks = corpus.iter_texts(texts_or_path, special_tokens, corpus.CHUNK_SIZE, pattern)
            texts = normalize_texts(chunks, normalization, special_tokens)
        vocab, merges = trainer.train_bpe(texts, vocab_size, special_tokens, pattern,
                                          **trainer_kwargs)
        settings = {"name": "tutorial_lib.tokenization.trainer.train_bpe", "vocab_size": vocab_size,
                    "pattern": pattern, "special_tokens": list(special_tokens),
                    "tie_break": trainer.TIE_BREAK}
        if normalization != "none":  # only then, so that the digests of earlier tokenizers stay
            settings["normalization"] = normalization
        metadata = {"trainer": settings, "corpus_digest": corpus.corpus_digest(texts_or_path)}
        return cls(vocab, merges, special_tokens, pattern, metadata, normalization)

    @classmethod
    def from_tiktoken(cls, encoding: Any) -> Tokenizer:
        """The tokenizer of a tiktoken Encoding (e.g. cl100k): `formats.from_tiktoken`."""
        return cls(*formats.from_tiktoken(encoding))

    @classmethod
    def from_gpt2_files(cls, vocab_json: str | os.PathLike, merges_txt: str | os.PathLike,
                        special_tokens: Iterable[str] = (), pattern: str = GPT2_PATTERN
                        ) -> Tokenizer:
        """GPT-2's tokenizer from encoder.json and vocab.bpe: `formats.from_gpt2_files`."""
        return cls(*formats.from_gpt2_files(vocab_json, merges_txt, special_tokens, pattern))

    @classmethod
    def load(cls, path: str | os.PathLike) -> Tokenizer:
        """Read a file written by `save`, checked against its manifest: `formats.load`."""
        return cls(*formats.load(path))

    def save(self, path: str | os.PathLike) -> Path:
        """Write a readable JSON file with a manifest, atomically: `formats.save`."""
        return formats.save(self, path)

    def manifest(self) -> dict:
        """What a saved file promises (schema, digests, policies, metadata): `formats.manifest`."""
        return formats.manifest(self)

    @cached_property
    def digest(self) -> str:
        """The tokenizer's sha256, over its whole contract (`formats.contract_sha256`): what a
        dataset built with it, a model config or an evaluation report records."""
        return formats.contract_sha256(self)


# ------------------------------------------------------------------------------------------ helpers


def _joined(collect: Callable[[Iterator[int]], Any], id_tuples: IdTuples) -> Any:
    """`collect` (list, or an array maker) applied to the ids in `id_tuples`, chained.

    map + chain keep the per-pre-token work in C; on English almost every pre-token is a cache hit.
    """
    try:
        return collect(chain.from_iterable(id_tuples))
    except UnicodeEncodeError as e:
        raise ValueError(f"text contains the lone surrogate {e.object[e.start]!r} (in "
                         f"{e.object!r}), which has no UTF-8 form; repair the text first, e.g. "
                         "decode its source with errors='replace'") from None


def _uint32_array(ids: Iterator[int]) -> np.ndarray:
    """`ids` as a uint32 array. Type code "I" is C's unsigned int, numpy's uintc: 32 bits on Linux,
    macOS and Windows, as `Tokenizer.encode_to_numpy` promises (a test checks the dtype)."""
    return np.frombuffer(array("I", ids), np.uintc)


def _id_list(ids: Iterable[int], name: str = "ids") -> list[int]:
    """`ids` as a list of Python ints: a flat sequence or a 1-D numpy array; no bools or nesting."""
    if type(ids) is list and all(type(i) is int for i in ids):  # the common case, one quick pass
        return ids
    return check_int_list(ids, name)
