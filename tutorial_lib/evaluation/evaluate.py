"""Judging a tokenizer (chapter 12): `measure.Measurement` extended with the evaluation metrics,
and the token premium across languages, all in units every tokenizer shares.

- `evaluate` -> `Evaluation`: a `Measurement` plus tokens per 1000 characters, fertility where
  words are delimited, byte-fallback share, utilization and Rényi efficiency (`evaluation_table`);
- `token_premium` -> `Premium`: per parallel sentence tokens(lang) / tokens(English), its median,
  90th percentile, maximum and corpus ratio; `flores_premiums`, `premium_table` and
  `premium_series` over many tokenizers and the bundled FLORES-200 devtest languages.

Rényi efficiency follows Zouhar, Meister, Gastaldi, Du, Sachan and Cotterell, "Tokenization and
the Noiseless Channel", ACL 2023 (arXiv 2306.16842): for the unigram distribution p of a text's
tokens, H_alpha(p) = 1 / (1 - alpha) * log(sum_w p(w)^alpha) (alpha -> 1: Shannon entropy), and
the efficiency is H_alpha(p) / log |V|, in [0, 1] since log |V| is the largest entropy over V. A
large alpha punishes a few very frequent tokens; dividing by log |V| punishes entries hardly used.
The paper settles on alpha = 2.5, where this efficiency tracked BLEU far better than compressed
length did. The authors' `tokenization-scorer` takes |V| = the distinct tokens seen; `evaluate`
divides by the tokenizer's vocabulary size, the size of the channel.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, fields, replace
from typing import Callable, Sequence

import numpy as np
import regex

from tutorial_lib import data
from tutorial_lib._check_data import check_number, check_str_list
from tutorial_lib._checks import (check_choice, check_int, check_int_list, check_sequence,
                                  check_str, check_type, check_utf8)
from tutorial_lib.text.measure import (COLUMNS, Measurement, Segmenter, Utilization, measure,
                                       measurement_table, utilization)

RENYI_ALPHA = 2.5  # the order Zouhar et al. (2023) recommend
WINDOW = 4096  # a context window, in tokens, for `effective_context`
ENGLISH = "eng_Latn"

# Scripts written without spaces between words, whose whitespace "words" are whole clauses:
# fertility is None when more than UNSPACED_MAX of a text's letters are in them (a few Chinese names
# in English do not count; Vietnamese syllables and Korean phrases count as the "words" they are).
_UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
_LETTER = regex.compile(r"\p{L}")
UNSPACED_MAX = 0.05


def unspaced_share(lines: Sequence[str]) -> float:
    """The share of the letters of `lines` in scripts written without spaces (0.0 if no letters)."""
    letters = _LETTER.findall("\n".join(check_str_list(lines, "lines")))
    unspaced = sum(1 for ch in letters if _UNSPACED.match(ch))
    return unspaced / len(letters) if letters else 0.0


def _positive_counts(counts: object) -> list[int]:
    check_type(counts, "counts", dict, "a dict or Counter of token -> count")
    values = [v for v in check_int_list(list(counts.values()), "counts values", low=0) if v > 0]
    if not values:
        raise ValueError("counts must hold at least one token with a positive count")
    return values


def renyi_entropy(counts: Counter | dict, alpha: float = RENYI_ALPHA) -> float:
    """H_alpha of the distribution the counts give, in bits; alpha = 1 is Shannon entropy, alpha ->
    infinity -log2 of the largest p, alpha = 0 log2 of the number of distinct tokens."""
    values = _positive_counts(counts)
    alpha = check_number(alpha, "alpha", low=0)
    total = sum(values)
    probs = [v / total for v in values]
    if alpha == 1:
        return -sum(p * math.log2(p) for p in probs)
    return math.log2(sum(p ** alpha for p in probs)) / (1 - alpha)


def renyi_efficiency(counts: Counter | dict, vocab_size: int, alpha: float = RENYI_ALPHA) -> float:
    """H_alpha(p) / log2(vocab_size): how evenly a text's tokens use a vocabulary of that size (1:
    every entry equally often); `vocab_size` must be at least 2 and the distinct tokens counted."""
    types = len(_positive_counts(counts))
    vocab_size = check_int(vocab_size, "vocab_size", low=max(2, types))
    return renyi_entropy(counts, alpha) / math.log2(vocab_size)


@dataclass(frozen=True)
class Evaluation(Measurement):
    """A `Measurement` plus the evaluation chapter's metrics (the [UNK] share is `oov_rate`)."""

    unspaced_share: float  # letters in scripts written without spaces, see UNSPACED_MAX
    byte_fallback: int | None  # byte-fallback tokens; None if the tokenizer has no such pieces
    utilization: Utilization  # of the vocabulary entries judged (by default all ids)
    renyi_efficiency: float
    alpha: float

    @property
    def tokens_per_1000_chars(self) -> float:
        """Tokens for 1000 characters ("tokens/千字"): the unit of a Chinese price or context."""
        return 1000 * self.tokens / self.chars

    @property
    def words_delimited(self) -> bool:
        return self.unspaced_share <= UNSPACED_MAX

    @property
    def fertility(self) -> float | None:
        """Tokens per whitespace-separated word, or None where spaces do not delimit words
        (Chinese, Japanese, Thai: the number would look excellent and mean nothing)."""
        return self.tokens_per_word if self.words_delimited and self.words else None

    @property
    def byte_fallback_share(self) -> float | None:
        return None if self.byte_fallback is None else self.byte_fallback / self.tokens


def evaluate(segmenter: Segmenter, lines: Sequence[str], eval_set: str = "", *,
             ids: Sequence[int] | None = None, alpha: float = RENYI_ALPHA) -> Evaluation:
    """`measure` the segmenter on `lines` (each encoded once), then judge the same tokens; `ids`
    are the entries utilization judges (default: all; the learned ones leave out the 256 bytes)."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    alpha = check_number(alpha, "alpha", low=0)
    encoded: list[list[int]] = []

    def recording(line: str) -> list[int]:  # measure encodes each line once: keep its ids
        encoded.append(segmenter.encode(line))
        return encoded[-1]

    base = measure(replace(segmenter, encode=recording), lines, eval_set)
    counts = Counter(i for line_ids in encoded for i in line_ids)
    usage = utilization(counts, range(segmenter.vocab_size) if ids is None else ids)
    fallback = segmenter.is_byte_fallback
    return Evaluation(**{f.name: getattr(base, f.name) for f in fields(Measurement)},
                      unspaced_share=unspaced_share(lines),
                      byte_fallback=None if fallback is None else sum(
                          n for i, n in counts.items() if fallback(i)),
                      utilization=usage,
                      renyi_efficiency=renyi_efficiency(counts, segmenter.vocab_size, alpha),
                      alpha=alpha)


def _share(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.2f}%"


# Columns a notebook can pick for its table: measure's COLUMNS and the evaluation's own.
EVALUATION_COLUMNS: dict[str, Callable[[Evaluation], object]] = {
    **COLUMNS,
    "token/千字": lambda e: f"{e.tokens_per_1000_chars:.1f}",
    "token/词（fertility）": lambda e: "—" if e.fertility is None else f"{e.fertility:.2f}",
    "[UNK] 占比": lambda e: _share(e.oov_rate),
    "字节回退占比": lambda e: _share(e.byte_fallback_share),
    "用到的词表": lambda e: _share(e.utilization.used_share),
    "Rényi 效率": lambda e: f"{e.renyi_efficiency:.3f}",
}


def evaluation_table(evaluations: Sequence[Evaluation], columns: Sequence[str]
                     ) -> tuple[list[str], list[tuple]]:
    """(header, rows) for `display.table`: a row per evaluation, the chosen EVALUATION_COLUMNS."""
    for i, e in enumerate(check_sequence(evaluations, "evaluations", "a list of Evaluation")):
        check_type(e, f"evaluations[{i}]", Evaluation, "an Evaluation (evaluate)")
    return measurement_table(evaluations, columns, EVALUATION_COLUMNS)


# --- token premium -------------------------------------------------------------------------------


def effective_context(premium: float, window: int = WINDOW) -> float:
    """How much English a `window`-token context holds for a language with this premium, in
    English-equivalent tokens: window / premium (a premium of 2 halves the window)."""
    premium = check_number(premium, "premium", low=0, low_open=True)
    return check_int(window, "window", low=1) / premium


@dataclass(frozen=True)
class Premium:
    """One tokenizer's token premium for one language against English, over parallel sentences."""

    tokenizer: str
    lang: str
    ratios: tuple[float, ...]  # per sentence: tokens(lang) / tokens(English)
    tokens: int  # all the language's tokens
    english_tokens: int

    @classmethod
    def from_counts(cls, tokenizer: str, lang: str, counts: Sequence[int],
                    english_counts: Sequence[int]) -> Premium:
        """The premium from tokens per sentence: counts[i] of the language's sentence i,
        english_counts[i] of the same sentence in English (each at least 1)."""
        counts = check_int_list(counts, "counts", low=1)
        english_counts = check_int_list(english_counts, "english_counts", low=1)
        if len(counts) != len(english_counts) or not counts:
            raise ValueError(f"counts and english_counts must be tokens of the same sentences, at "
                             f"least one: got {len(counts)} and {len(english_counts)} counts")
        ratios = tuple(n / e for n, e in zip(counts, english_counts))
        return cls(check_str(tokenizer, "tokenizer"), check_str(lang, "lang"), ratios,
                   sum(counts), sum(english_counts))

    @property
    def median(self) -> float:
        return float(np.median(self.ratios))

    @property
    def p90(self) -> float:
        """The 90th percentile, interpolated between ranks (numpy's default, "linear")."""
        return float(np.percentile(self.ratios, 90))

    @property
    def max(self) -> float:
        return max(self.ratios)

    @property
    def corpus(self) -> float:
        """Total tokens / total English tokens: what a whole document costs, long sentences
        weighing more (the median weighs every sentence the same)."""
        return self.tokens / self.english_tokens

    def effective_context(self, window: int = WINDOW) -> float:
        """`effective_context` of this language's corpus premium."""
        return effective_context(self.corpus, window)


def _counts(segmenter: Segmenter, lines: Sequence[str], name: str) -> list[int]:
    """Tokens per line; every line must be non-empty text that gives at least one token."""
    counts = []
    for i, line in enumerate(check_str_list(lines, name, non_empty=True)):
        if not check_utf8(line, f"{name}[{i}]").strip():
            raise ValueError(f"{name}[{i}] must be a sentence, got an empty or blank line")
        ids = check_sequence(segmenter.encode(line), "encode(line)", "a list of ids")
        if not ids:
            raise ValueError(f"{segmenter.name} gives 0 tokens for {name}[{i}] = {line[:40]!r}; "
                             "a premium needs at least one token per sentence")
        counts.append(len(ids))
    return counts


def token_premium(segmenter: Segmenter, lines: Sequence[str], english_lines: Sequence[str],
                  lang: str = "", *, english_counts: Sequence[int] | None = None) -> Premium:
    """The premium of `lines` against `english_lines`, line i of each the same sentence;
    `english_counts` (tokens per English line) saves encoding English again for each language."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    counts = _counts(segmenter, lines, "lines")
    if english_counts is None:
        english_counts = _counts(segmenter, english_lines, "english_lines")
    else:
        english_counts = check_int_list(english_counts, "english_counts", low=1)
    if len(counts) != len(english_counts):
        raise ValueError(f"lines and english_lines must be parallel (line i the same sentence), "
                         f"got {len(counts)} and {len(english_counts)} lines")
    return Premium.from_counts(segmenter.name, lang, counts, english_counts)


def flores_premiums(segmenters: Sequence[Segmenter], langs: Sequence[str] | None = None,
                    reference: str = ENGLISH) -> list[Premium]:
    """The premium of each tokenizer for each bundled FLORES-200 devtest language against
    `reference`: rows in order tokenizer by tokenizer, languages as given (default: all 12,
    `reference` included, whose premium is 1)."""
    items = check_sequence(segmenters, "segmenters", "a list of Segmenter")
    for i, s in enumerate(items):
        check_type(s, f"segmenters[{i}]", Segmenter, "a Segmenter (compare.from_tiktoken, ...)")
    check_choice(reference, "reference", data.LANGUAGE_NAMES)
    langs = list(data.LANGUAGE_NAMES) if langs is None else check_str_list(langs, "langs",
                                                                          non_empty=True)
    for lang in langs:
        check_choice(lang, "langs item", data.LANGUAGE_NAMES)
    english = data.load_parallel(reference)
    rows = []
    for s in items:
        english_counts = _counts(s, english, f"FLORES {reference} lines")
        rows += [token_premium(s, data.load_parallel(lang), english, lang,
                               english_counts=english_counts) for lang in langs]
    return rows


# Columns of the premium table: header -> how a Premium fills it (`window` for the last one).
PREMIUM_COLUMNS: dict[str, Callable[[Premium, int], object]] = {
    "分词器": lambda p, w: p.tokenizer,
    "语言": lambda p, w: data.LANGUAGE_NAMES.get(p.lang, p.lang),
    "中位数": lambda p, w: f"{p.median:.2f}",
    "P90": lambda p, w: f"{p.p90:.2f}",
    "最大值": lambda p, w: f"{p.max:.2f}",
    "整体比值": lambda p, w: f"{p.corpus:.2f}",
    "窗口里的英语等效 token": lambda p, w: f"{p.effective_context(w):.0f}",
}


def premium_table(premiums: Sequence[Premium], window: int = WINDOW
                  ) -> tuple[list[str], list[tuple]]:
    """(header, rows) for `display.table`: a row per premium, every PREMIUM_COLUMNS column; the
    last says how much of a `window`-token context an English reader would get."""
    rows = _premiums(premiums)
    window = check_int(window, "window", low=1)
    header = list(PREMIUM_COLUMNS)
    header[-1] = f"{window} 窗口里的英语等效 token"
    return header, [tuple(fill(p, window) for fill in PREMIUM_COLUMNS.values()) for p in rows]


def premium_series(premiums: Sequence[Premium]) -> dict[str, dict[str, list[float]]]:
    """{tokenizer: {language label: per-sentence premiums}} for `plotting.evaluation`'s box plot,
    in the order the premiums come; languages are labelled by their Chinese names."""
    series: dict[str, dict[str, list[float]]] = {}
    for p in _premiums(premiums):
        series.setdefault(p.tokenizer, {})[data.LANGUAGE_NAMES.get(p.lang, p.lang)] = list(p.ratios)
    return series


def _premiums(premiums: object) -> list[Premium]:
    rows = check_sequence(premiums, "premiums", "a list of Premium")
    for i, p in enumerate(rows):
        check_type(p, f"premiums[{i}]", Premium, "a Premium (token_premium, flores_premiums)")
    return rows
