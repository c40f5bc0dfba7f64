"""Offsets: which characters of the original text each token came from.

A highlighter, an NER label or a "which words did the model see" report needs more than ids: for
each token, the span [start, end) of the text as the user gave it, before normalization. This is
Hugging Face's offset mapping (`Encoding.offsets`), built in two steps:

1. normalization is aligned (`normalize_cuts.normalize_aligned`): each normalized character knows
   the original span it came from, so under NFKC both "f" and "i" of "ﬁ" -> "fi" point at the
   ligature, and "..." from "…" points three times at "…";
2. each token's bytes are placed inside its pre-token, and the characters those bytes belong to
   give the span.

A byte-level token need not hold whole characters: "世" is 3 UTF-8 bytes, and GPT-2 cuts it into
two tokens; an emoji can take four. Such a token gets the span of every character any of its bytes
belongs to, so the spans of neighbouring tokens overlap (both halves of "世" get its span, as
Hugging Face's tokenizers also do), and its `partial` flag says so: its bytes begin or end inside
a character, and text[start:end] is more than the token holds. Special tokens get the span of their
text, matched in the original text as `encode` does.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from collections.abc import Iterable
from typing import NamedTuple

from tutorial_lib._checks import check_str, check_type
from tutorial_lib.bpe.pretokenize import find_pretokens
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract.normalize_cuts import normalize_aligned


class TokenOffsets(NamedTuple):
    """`ids` (equal to `encode`), each token's span in the original text, and whether the token
    begins or ends inside a character (then its span is that of every character it touches)."""

    ids: list[int]
    offsets: list[tuple[int, int]]
    partial: list[bool]


def encode_with_offsets(tokenizer: Tokenizer, text: str,
                        allowed_special: Iterable[str] | str = frozenset()) -> TokenOffsets:
    """The ids of `tokenizer.encode(text, allowed_special)` with each token's span in `text`.

    Special tokens are found in the text as given, and the ordinary text between them is
    normalized, split and encoded on its own, exactly as `encode` does.
    """
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    check_str(text, "text", utf8=True)
    allowed = tokenizer.check_allowed(allowed_special)
    result = TokenOffsets([], [], [])
    start = 0  # where the current stretch of ordinary text begins
    matches = tokenizer.compiled_specials.finditer(text) if tokenizer.compiled_specials else ()
    for match in matches:
        _ordinary(tokenizer, text[start : match.start()], start, result)
        # the tokenizer's own step 1 gives the special's id, or its error if it is not allowed
        [(special_id,)] = tokenizer.id_tuples(match.group(), allowed, match.start())
        result.ids.append(special_id)
        result.offsets.append(match.span())
        result.partial.append(False)
        start = match.end()
    _ordinary(tokenizer, text[start:], start, result)
    return result


def _ordinary(tokenizer: Tokenizer, stretch: str, base: int, result: TokenOffsets) -> None:
    """Append the tokens of `stretch` (ordinary text that starts at `base` in the whole text)."""
    normalized, spans = normalize_aligned(stretch, tokenizer.normalization)
    at = 0  # where the current pre-token starts in `normalized`
    for piece in find_pretokens(tokenizer.compiled_pattern, normalized, base):
        char_ends = list(accumulate(len(char.encode("utf-8")) for char in piece))  # in bytes
        byte = 0  # where the current token starts in the piece's bytes
        for token_id in tokenizer.piece_ids[piece]:
            end = byte + len(tokenizer.vocab[token_id])
            first = bisect_right(char_ends, byte)  # the characters holding its first and last byte
            last = bisect_right(char_ends, end - 1)
            result.ids.append(token_id)
            result.offsets.append((base + spans[at + first][0], base + spans[at + last][1]))
            starts_inside = byte != (char_ends[first - 1] if first else 0)
            result.partial.append(starts_inside or char_ends[last] != end)
            byte = end
        at += len(piece)


def offset_rows(tokenizer: Tokenizer, text: str,
                allowed_special: Iterable[str] | str = frozenset()
                ) -> list[tuple[int, bytes, tuple[int, int], str, bool]]:
    """One row per token of `text`: (id, its bytes, its span, text[start:end], partial), the table
    to read offsets from: a partial token's bytes are only part of the characters in its span."""
    ids, spans, partial = encode_with_offsets(tokenizer, text, allowed_special)
    return [(i, tokenizer.vocab[i], (s, e), text[s:e], p)
            for i, (s, e), p in zip(ids, spans, partial)]
