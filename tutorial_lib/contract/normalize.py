"""Normalization: the first step of a tokenizer's contract, N in decode(encode(x)) == N(x).

Unicode lets one text be written in several ways: "é" as one code point or as "e" + a combining
accent, "１２" in full-width digits, "ﬁ" as a ligature. A normalization form picks one way, so that
text that looks the same gets the same ids. Which form a tokenizer applies is part of its contract:
a model trained on NFKC text and served without NFKC sees ids it never saw in training.

The forms (`FORMS`):

- "none": the text as given; decode(encode(x)) == x. The course's default, and GPT's.
- "NFC": canonical composition ("e" + U+0301 -> "é"); never changes how text looks.
- "NFKC": compatibility composition as well: full-width "，１２" -> ",12", "①" -> "1", "ﬁ" -> "fi".
  SentencePiece's default (nmt_nfkc) is NFKC plus a few rules of its own.
- "NFKC_casefold": NFKC, then case folded ("Straße" -> "strasse"), then NFKC again, since folding
  can leave text that is no longer in NFKC. An example of a named custom form: whatever a tokenizer
  does before BPE must have a name, or it cannot be part of the contract.

Where normalization can be cut, so that a stream or a span can be normalized piece by piece, is
`normalize_cuts`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from tutorial_lib._checks import check_choice, check_str

FORMS = ("none", "NFC", "NFKC", "NFKC_casefold")


def _nfkc_casefold(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


_NORMALIZERS: dict[str, Callable[[str], str]] = {
    "NFC": lambda text: unicodedata.normalize("NFC", text),
    "NFKC": lambda text: unicodedata.normalize("NFKC", text),
    "NFKC_casefold": _nfkc_casefold,
}


def check_form(form: str) -> str:
    """`form` if it is one of FORMS, else a ValueError listing them."""
    return check_choice(form, "normalization", FORMS)


def normalizer(form: str) -> Callable[[str], str] | None:
    """The function that applies `form`, or None for "none" (so that skipping it costs nothing)."""
    return _NORMALIZERS.get(check_form(form))


def normalize(text: str, form: str) -> str:
    """`text` in normalization form `form` (one of FORMS)."""
    check_str(text, "text")
    apply = normalizer(form)
    return text if apply is None else apply(text)

