"""The characters of a text: UTF-8 bytes, Han, the character inventory, coverage, unseen characters.

Chapter 03 asks what Chinese text needs before any tokenizer is trained: how many distinct
characters, how many of them cover most of it, which ones held-out text adds, how many bytes a Han
character takes, what NFKC changes, how long the pre-tokens are. Measuring a tokenizer is `measure`.
"""

from __future__ import annotations

import statistics
import unicodedata
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Iterable

import regex

from tutorial_lib._check_data import check_number
from tutorial_lib._checks import check_int_list, check_str, describe
from tutorial_lib.bpe.pretokenize import pretokenize
from tutorial_lib.contract.normalize import normalize

_HAN = regex.compile(r"\p{Han}")


def utf8_breakdown(text: str) -> list[tuple[str, str, str]]:
    """One row per character: (char, code point "U+XXXX", its UTF-8 bytes in hex): why a model
    that reads bytes sees "你" as three tokens before any merge."""
    text = check_str(text, "text", utf8=True)
    return [(ch, f"U+{ord(ch):04X}", ch.encode("utf-8").hex(" ")) for ch in text]


def chars_and_bytes(text: str) -> tuple[int, int]:
    """(characters, UTF-8 bytes) of `text`: the two units every tokenizer can be put against."""
    return len(check_str(text, "text", utf8=True)), len(text.encode("utf-8"))


def is_han(ch: str) -> bool:
    """True for a Han character (Unicode script Han: 〇 and the CJK extensions too; "，" and "。"
    are not Han but Common)."""
    if len(check_str(ch, "ch")) != 1:
        raise ValueError(f"ch must be a single-character str, got {describe(ch)}")
    return _HAN.match(ch) is not None


@dataclass(frozen=True)
class Inventory:
    """Characters and distinct characters of a text: the alphabet a character-level start needs."""

    chars: int  # characters, counted with repetition
    distinct: int  # different characters
    han: int  # Han characters, with repetition
    distinct_han: int

    @property
    def han_share(self) -> float:
        return self.han / self.chars


def inventory(text: str) -> Inventory:
    """Count characters and distinct characters, all and Han only. A vocabulary that starts from
    characters holds every one before its first word: about a hundred for English, thousands for
    Chinese."""
    counts = Counter(check_str(text, "text", non_empty=True))
    han = {ch: n for ch, n in counts.items() if is_han(ch)}
    return Inventory(sum(counts.values()), len(counts), sum(han.values()), len(han))


def coverage_curve(text: str) -> list[float]:
    """curve[k - 1] = share of the text's characters covered by its k most frequent characters.

    It rises steeply (a few hundred characters cover most of a Chinese novel), then crawls through a
    long tail of characters that occur once or twice.
    """
    counts = Counter(check_str(text, "text", non_empty=True))
    total = sum(counts.values())
    return [covered / total for covered in accumulate(sorted(counts.values(), reverse=True))]


def chars_for_coverage(text: str, fraction: float) -> int:
    """The fewest distinct characters whose occurrences make up at least `fraction` of `text`.

    This is what SentencePiece's `character_coverage` (e.g. 0.9995) decides: the characters outside
    this set are left out of the vocabulary and become <unk> or byte-fallback tokens.
    """
    check_number(fraction, "fraction", low=0, high=1, low_open=True)
    curve = coverage_curve(text)
    return next((k for k, covered in enumerate(curve, start=1) if covered >= fraction), len(curve))


def unseen_chars(train_text: str, test_text: str) -> tuple[int, float]:
    """(distinct characters of `test_text` absent from `train_text`, their share of `test_text`):
    without byte fallback a character vocabulary of the training text makes them <unk>, lost."""
    seen = set(check_str(train_text, "train_text"))
    test = Counter(check_str(test_text, "test_text", non_empty=True))
    missing = {ch: n for ch, n in test.items() if ch not in seen}
    return len(missing), sum(missing.values()) / sum(test.values())


def han_utf8_lengths(text: str) -> dict[int, int]:
    """{UTF-8 length in bytes: Han characters that long}, with repetition: 3 in the Basic
    Multilingual Plane, 4 for the rare ones of the CJK extensions (U+20000 and up)."""
    lengths = Counter(len(ch.encode("utf-8")) for ch in check_str(text, "text") if is_han(ch))
    return dict(sorted(lengths.items()))


def nfkc_changes(text: str, form: str = "NFKC") -> list[tuple[str, str, int]]:
    """(character, its normalized form, count) for every character `form` changes, most frequent
    first; `form` is one of normalize.FORMS (NFKC by default).

    SentencePiece's default nmt_nfkc turns full-width "，" into ASCII ",": the decoded text is no
    longer the input. Characters are looked at one by one, so what only a sequence changes (NFC
    composing "e" + U+0301) is not listed; on Chinese text NFKC acts character by character.
    """
    counts = Counter(check_str(text, "text"))
    forms = {ch: normalize(ch, form) for ch in counts}
    changed = [(ch, forms[ch], n) for ch, n in counts.items() if forms[ch] != ch]
    return sorted(changed, key=lambda row: (-row[2], row[0]))


# What NFKC changes in Chinese text, by kind, in the order `change_kind` tries them.
CHANGE_KINDS = ("full-width punctuation", "full-width digits and Latin",
                "compatibility ideographs", "ellipsis and ligatures", "other")


def change_kind(ch: str, normalized: str) -> str:
    """Which of CHANGE_KINDS the change `ch` -> `normalized` is, from the character's Unicode
    decomposition: <wide> to an ASCII letter or digit, other <wide> (punctuation, symbols, the
    ideographic space U+3000), a CJK compatibility ideograph (a duplicate of a unified one, e.g.
    U+F900 -> U+8C48), <compat> to several characters ("…" -> "...", "ﬁ" -> "fi"), or other
    (fractions, circled numbers, small forms, letterlike symbols, ...)."""
    tag = unicodedata.decomposition(ch).split(" ")[0]
    if tag == "<wide>":
        return CHANGE_KINDS[1] if normalized.isascii() and normalized.isalnum() else CHANGE_KINDS[0]
    if unicodedata.name(ch, "").startswith("CJK COMPATIBILITY IDEOGRAPH"):
        return CHANGE_KINDS[2]
    if tag == "<compat>" and len(normalized) > 1:
        return CHANGE_KINDS[3]
    return CHANGE_KINDS[4]


@dataclass(frozen=True)
class ChangeCount:
    """One kind of change: characters changed (with repetition), their share of the text, how many
    different ones, and the most frequent few as "，->," ."""

    kind: str
    chars: int
    share: float
    distinct: int
    examples: str


def change_summary(text: str, form: str = "NFKC", examples: int = 4) -> list[ChangeCount]:
    """What `form` changes in `text`, one row per kind of CHANGE_KINDS (every kind, zeros too),
    then a "total" row: the table chapter 13 shows for Lu Xun, Tatoeba and FLORES Chinese."""
    rows = []
    changes = nfkc_changes(text, form)
    total = max(len(text), 1)
    for kind in (*CHANGE_KINDS, "total"):
        mine = [row for row in changes if kind in ("total", change_kind(row[0], row[1]))]
        shown = " ".join(f"{a}->{b}" for a, b, _ in mine[:examples])
        chars = sum(n for *_, n in mine)
        rows.append(ChangeCount(kind, chars, chars / total, len(mine), shown))
    return rows


@dataclass(frozen=True)
class LengthSummary:
    count: int
    mean: float
    median: float
    p99: float  # 99th percentile (nearest rank)
    longest: int


def length_summary(lengths: Iterable[int]) -> LengthSummary:
    """Count, mean, median, 99th percentile and maximum of some lengths (e.g. pre-token lengths):
    the mean alone hides the long tail, and one 60-character pre-token may become one token."""
    values = sorted(check_int_list(lengths, "lengths", low=0))
    if not values:
        raise ValueError("lengths must not be empty")
    p99 = values[max(0, -(-99 * len(values) // 100) - 1)]  # nearest rank: ceil(0.99 n), 1-based
    median = statistics.median(values)
    return LengthSummary(len(values), statistics.fmean(values), median, p99, values[-1])


def pretoken_lengths(text: str, pattern: str, han_only: bool = True) -> list[int]:
    """Length in characters of every pre-token `pattern` cuts from `text` (with `han_only`, only
    of those that contain a Han character).

    BPE never merges across a pre-token boundary, so the longest pre-token bounds the longest token;
    `han_only` keeps one-character punctuation from hiding how long the Han runs are.
    """
    pieces = pretokenize(check_str(text, "text"), pattern)
    return [len(p) for p in pieces if not han_only or any(map(is_han, p))]

_LATIN = regex.compile(r"\p{Latin}")

# Chinese names of the kinds `char_category` tells apart, in the order `unseen_by_category` lists.
CHAR_CATEGORIES = {"han": "汉字", "digit": "数字", "latin": "拉丁字母", "punctuation": "标点和符号",
                   "other": "其他"}


def char_category(ch: str) -> str:
    """"han", "digit" (Unicode Nd, e.g. 0-9), "latin" (a Latin letter, accented ones too),
    "punctuation" (Unicode P* and S*: ，。（）% ° ...) or "other" (spaces, ½, kana, Greek, ...)."""
    if is_han(ch):
        return "han"
    kind = unicodedata.category(ch)
    if kind == "Nd":
        return "digit"
    if kind.startswith("L") and _LATIN.match(ch):
        return "latin"
    return "punctuation" if kind[0] in "PS" else "other"


@dataclass(frozen=True)
class UnseenCategory:
    """The characters of one kind that a test text has and a training text lacks."""

    category: str  # a key of CHAR_CATEGORIES
    distinct: int  # different unseen characters of this kind
    occurrences: int  # how often they occur in the test text
    share: float  # occurrences / all characters of the test text
    examples: str  # up to 8 of them, most frequent first


def unseen_by_category(train_text: str, test_text: str) -> list[UnseenCategory]:
    """`unseen_chars` split by kind of character: one row per key of CHAR_CATEGORIES, in order.

    The total mixes kinds: Arabic digits in a Chinese test text are "missed" by the training text,
    yet any byte-level vocabulary covers them; only the Han row says how well a Chinese character
    inventory carries over. The rows add up to `unseen_chars(train_text, test_text)`.
    """
    seen = set(check_str(train_text, "train_text"))
    test = Counter(check_str(test_text, "test_text", non_empty=True))
    total = sum(test.values())
    missing: dict[str, list[tuple[str, int]]] = {key: [] for key in CHAR_CATEGORIES}
    # most frequent first, so each kind's examples are its most frequent unseen characters
    for ch, n in sorted(test.items(), key=lambda item: (-item[1], item[0])):
        if ch not in seen:
            missing[char_category(ch)].append((ch, n))
    return [UnseenCategory(key, len(rows), sum(n for _, n in rows), sum(n for _, n in rows) / total,
                           "".join(ch for ch, _ in rows[:8]))
            for key, rows in missing.items()]
