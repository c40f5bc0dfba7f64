"""Where normalization can be cut: what streaming encode and offsets need to normalize piece by
piece and still get exactly `normalize(text, form)`.

- `starts_fresh(char, form)`: may the text be cut just before `char`? `settled_length` uses it to
  tell how much of a text that may continue normalizes the same whatever comes next
  (`stream_encode`);
- `normalize_aligned(text, form)`: the normalized text with each character's span in the original
  (`offsets`: under NFKC both "f" and "i" of "ﬁ" -> "fi" point at the ligature).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator
from functools import cache
from typing import NamedTuple

from tutorial_lib._checks import check_str
from tutorial_lib.contract.normalize import normalizer


@cache
def _joins_backward() -> frozenset[str]:
    """Characters that composition can join to the character before them: the second half of every
    two-character canonical decomposition, and the Hangul vowels and final consonants (NFC joins
    them by formula, so they are in no table). One pass over the code points (about 0.1 s)."""
    seconds = {chr(c) for c in [*range(0x1161, 0x1176), *range(0x11A8, 0x11C3)]}  # Hangul jamo
    for code in range(0x110000):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):  # canonical, two characters
            seconds.add(chr(int(parts[1], 16)))
    return frozenset(seconds)


@cache
def starts_fresh(char: str, form: str) -> bool:
    """True if normalization can be cut just before `char`: N(a + char + b) == N(a) + N(char + b)
    for every a and b.

    That holds when `char` is a starter (combining class 0: reordering never moves a mark across
    it), nothing before it can compose with it, and the form leaves it unchanged (else it could
    decompose into something that composes). Most characters qualify; combining marks, Hangul
    vowel and final jamo, full-width forms under NFKC and ligatures do not.
    """
    apply = normalizer(form)
    return apply is None or (unicodedata.combining(char) == 0 and char not in _joins_backward()
                             and apply(char) == char)


def settled_length(text: str, form: str) -> int:
    """How much of `text` (which may continue) normalizes the same whatever comes next: up to its
    last character that `starts_fresh`; all of it for "none". A streaming encoder normalizes that
    prefix now and holds the rest."""
    if normalizer(form) is None:
        return len(text)
    end = len(text) - 1
    while end > 0 and not starts_fresh(text[end], form):
        end -= 1
    return max(end, 0)


class Aligned(NamedTuple):
    """`text` normalized, and for each of its characters the span [start, end) of the original text
    it came from. Characters made from one original character ("ﬁ" -> "f", "i") share its span;
    characters that composition made from several ("e" + U+0301 -> "é") get the span of them all."""

    text: str
    spans: list[tuple[int, int]]


_REFINE_LIMIT = 32  # a run longer than this (e.g. 200 stacked accents) is not split finer


def normalize_aligned(text: str, form: str) -> Aligned:
    """`normalize(text, form)` with each normalized character's span in `text`.

    The text is cut before every character that `starts_fresh`, and each run between cuts finer
    wherever normalizing the two sides apart gives the same characters (`_pieces`). Every piece is
    normalized on its own and its characters all get the piece's span; by how the cuts were chosen,
    the pieces joined are normalize(text, form).
    """
    check_str(text, "text")
    apply = normalizer(form)
    if apply is None or apply(text) == text:  # nothing changes: every character is its own span
        return Aligned(text, [(i, i + 1) for i in range(len(text))])
    out: list[str] = []
    spans: list[tuple[int, int]] = []
    for start, end in _pieces(text, form):
        piece = apply(text[start:end])
        out.append(piece)
        spans.extend([(start, end)] * len(piece))
    return Aligned("".join(out), spans)


def _pieces(text: str, form: str) -> Iterator[tuple[int, int]]:
    """The spans of `text` that normalize independently: runs that begin at a character that
    `starts_fresh`, each cut further where both sides normalize apart to the same result."""
    cuts = [i for i in range(1, len(text)) if starts_fresh(text[i], form)]
    for start, end in zip([0, *cuts], [*cuts, len(text)]):
        if end - start == 1 or end - start > _REFINE_LIMIT:
            yield start, end
            continue
        yield from _refine(text, start, end, normalizer(form))


def _refine(text: str, start: int, end: int, apply: Callable[[str], str]
            ) -> Iterator[tuple[int, int]]:
    """Cut text[start:end] greedily: the shortest head whose normalization, followed by the
    normalization of the rest, is the normalization of the whole."""
    while start < end:
        whole = apply(text[start:end])
        cut = next(j for j in range(start + 1, end + 1)
                   if apply(text[start:j]) + apply(text[j:end]) == whole)
        yield start, cut
        start = cut
