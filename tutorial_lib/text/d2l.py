"""The D2L recipe of chapter 01: clean The Time Machine, split it into words or characters, number
them (`Vocab`, `<unk>` = 0); `split_lines` and `oov_rate` measure what a word vocabulary cannot
cover on held-out text, `cleaning_report` what the cleaning threw away."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from tutorial_lib._check_data import check_number, check_str_list
from tutorial_lib._checks import check_choice, check_int, check_iterable, check_str, check_type

UNK = "<unk>"
GRANULARITIES = ("word", "char")
# D2L's cleaning rule: every run of characters that are not ASCII letters becomes one space.
NON_LETTERS = re.compile(r"[^A-Za-z]+")


def clean_line(line: str) -> str:
    """D2L's cleaning: non-letter runs -> one space, trim, lower-case ("Hello, World 1898!" ->
    "hello world"). Easy to count, but it throws away punctuation, digits, case and every non-ASCII
    letter ("café" -> "caf"), which is exactly what a byte-level tokenizer refuses to do."""
    return NON_LETTERS.sub(" ", check_str(line, "line")).strip().lower()


def read_time_machine() -> list[str]:
    """The bundled The Time Machine, one cleaned str per line (D2L's `read_time_machine`)."""
    from tutorial_lib import data

    return [clean_line(line) for line in data.load_text("timemachine").splitlines()]


def tokenize(lines: Sequence[str], granularity: str = "word") -> list[list[str]]:
    """Split each line into tokens: "word" splits on whitespace, "char" keeps every character
    (spaces too). One list per line, so an empty line stays visible as []."""
    lines = check_str_list(lines, "lines")
    if check_choice(granularity, "granularity", GRANULARITIES) == "word":
        return [line.split() for line in lines]
    return [list(line) for line in lines]


def flatten(tokens: Iterable[str] | Iterable[Sequence[str]]) -> list[str]:
    """A flat list of str tokens from either a flat list or a list of lines (D2L's `count_corpus`
    accepts both)."""
    flat: list[str] = []
    allowed = "a list of str or a list of lists of str"
    for i, item in enumerate(check_iterable(tokens, "tokens", allowed)):
        if isinstance(item, str):
            flat.append(item)
        else:
            flat.extend(check_str_list(item, f"tokens[{i}]"))
    return flat


def count_tokens(tokens: Iterable[str] | Iterable[Sequence[str]]) -> Counter[str]:
    """How often each token occurs; keys keep first-appearance order, which `Vocab` uses to break
    ties."""
    return Counter(flatten(tokens))


def frequencies_by_rank(tokens: Iterable[str] | Iterable[Sequence[str]]) -> list[int]:
    """Token counts from the most to the least frequent: the y-values of a Zipf plot."""
    return sorted(count_tokens(tokens).values(), reverse=True)


class Vocab:
    """Token <-> id table: `<unk>` is 0, then the reserved tokens, then corpus tokens by falling
    frequency.

    Frequency order puts the tokens a model meets most often on small, stable ids. Ties keep the
    order in which the tokens first appear in the corpus (a stable sort over a Counter, as in D2L),
    so the same corpus always gives the same ids. Tokens seen fewer than `min_freq` times get no id
    and are looked up as `<unk>`.
    """

    def __init__(self, tokens: Iterable[str] | Iterable[Sequence[str]] = (), min_freq: int = 0,
                 reserved_tokens: Sequence[str] = ()) -> None:
        min_freq = check_int(min_freq, "min_freq", low=0)
        reserved_tokens = check_str_list(reserved_tokens, "reserved_tokens")
        if UNK in reserved_tokens or len(set(reserved_tokens)) != len(reserved_tokens):
            raise ValueError(f"reserved_tokens must be distinct and must not contain {UNK!r} (it "
                             f"is always id 0), got {list(reserved_tokens)!r}")
        counts = count_tokens(tokens)
        self.token_freqs = sorted(counts.items(), key=lambda kv: kv[1], reverse=True)
        self.idx_to_token: list[str] = [UNK, *reserved_tokens]
        self.token_to_idx: dict[str, int] = {t: i for i, t in enumerate(self.idx_to_token)}
        # Ids in order of falling frequency; from the first token below min_freq on, none get one.
        for token, freq in self.token_freqs:
            if freq < min_freq:
                break
            if token not in self.token_to_idx:
                self.token_to_idx[token] = len(self.idx_to_token)
                self.idx_to_token.append(token)

    @property
    def unk(self) -> int:
        """The id every unknown token gets."""
        return 0

    def __len__(self) -> int:
        return len(self.idx_to_token)

    def __contains__(self, token: object) -> bool:
        return token in self.token_to_idx

    def __getitem__(self, tokens: str | Sequence[str]) -> int | list[int]:
        """Id of one token, or a list of ids for a list of tokens; unknown tokens give 0."""
        if isinstance(tokens, str):
            return self.token_to_idx.get(tokens, self.unk)
        return [self.token_to_idx.get(t, self.unk) for t in check_str_list(tokens, "tokens")]

    def to_tokens(self, indices: int | Sequence[int]) -> str | list[str]:
        """Token of one id, or a list of tokens for a list/tuple of ids."""
        if isinstance(indices, (list, tuple)):
            return [self.to_tokens(i) for i in indices]
        return self.idx_to_token[check_int(indices, "indices", low=0, high=len(self) - 1)]

    def __repr__(self) -> str:
        return f"Vocab(size={len(self)}, first={self.idx_to_token[:5]})"


def load_corpus_time_machine(max_tokens: int | None = None, granularity: str = "char"
                             ) -> tuple[list[int], Vocab]:
    """D2L's `load_corpus_time_machine`: all lines cleaned, tokenized, numbered and flattened into
    one id list; `max_tokens` keeps only the first ids (D2L's -1 "all" is `None` here)."""
    if max_tokens is not None:
        check_int(max_tokens, "max_tokens", low=1)
    tokens = tokenize(read_time_machine(), granularity)
    vocab = Vocab(tokens)
    corpus = [vocab[t] for line in tokens for t in line]
    return (corpus if max_tokens is None else corpus[:max_tokens]), vocab


@dataclass(frozen=True)
class CleaningReport:
    """What `clean_line` did to a list of raw lines (line breaks themselves are not counted).

    A run of non-letters inside a line keeps one character's worth of room (the space) and loses
    the rest; a run at either end is lost whole. Which character "becomes" the space is a
    convention: the run's first whitespace if any (", " loses the comma), else its first ("-" in
    "Upper-world"). The deleted characters add up to exactly chars_before - chars_after.
    """

    chars_before: int
    chars_after: int
    # upper-case ASCII letters that became lower case (changed in place, not deleted)
    lowercased: int
    # non-letters at the start or end of a line: stripped, nothing in their place
    removed_at_edges: Counter[str]
    # characters of an inner run other than the one that became its space
    removed_inside: Counter[str]
    # the one character per inner run that the space stands for (often a space)
    became_space: Counter[str]
    # whitespace-separated raw words whose letters the cleaning cut into 2+ words
    split_words: Counter[str]

    @property
    def removed(self) -> Counter[str]:
        """Every deleted character, wherever it was."""
        return self.removed_at_edges + self.removed_inside

    @property
    def replaced(self) -> Counter[str]:
        """Every non-letter the cleaning touched: deleted or become a space."""
        return self.removed + self.became_space


def cleaning_report(raw_lines: Sequence[str]) -> CleaningReport:
    """Measure what D2L cleaning removes, so a notebook can show it instead of asserting it."""
    before = after = lowered = 0
    edges: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    spaces: Counter[str] = Counter()
    split: Counter[str] = Counter()
    for line in check_str_list(raw_lines, "raw_lines"):
        line = line.rstrip("\r\n")
        before += len(line)
        after += len(clean_line(line))
        lowered += sum(1 for ch in line if "A" <= ch <= "Z")
        # Each run of non-letters: lost whole at an edge, else one character becomes the space.
        for match in NON_LETTERS.finditer(line):
            run = match.group(0)
            if match.start() == 0 or match.end() == len(line):
                edges.update(run)
                continue
            keep = next((i for i, ch in enumerate(run) if ch.isspace()), 0)
            spaces[run[keep]] += 1
            inside.update(run[:keep] + run[keep + 1:])
        for word in line.split():
            if len(clean_line(word).split()) > 1:
                split[word] += 1
    return CleaningReport(before, after, lowered, edges, inside, spaces, split)


def split_lines(lines: Sequence[str], train_fraction: float = 0.9) -> tuple[list[str], list[str]]:
    """First `train_fraction` of the lines for training, the rest held out, in reading order.

    Not shuffled on purpose: a later part of a book has names and words the earlier part never used,
    which is what unknown words look like in practice.
    """
    lines = check_str_list(lines, "lines")
    fraction = check_number(train_fraction, "train_fraction", low=0, high=1, low_open=True,
                            high_open=True)
    cut = int(len(lines) * fraction)
    if not 0 < cut < len(lines):
        raise ValueError("train_fraction must leave both parts non-empty (0 < fraction < 1), "
                         f"got {train_fraction} for {len(lines)} lines")
    return list(lines[:cut]), list(lines[cut:])


def oov_rate(vocab: Vocab, tokens: Iterable[str] | Iterable[Sequence[str]]) -> float:
    """Share of tokens (with repetition, not distinct types) that `vocab` maps to `<unk>`."""
    check_type(vocab, "vocab", Vocab, "a Vocab")
    flat = flatten(tokens)
    if not flat:
        raise ValueError("tokens must not be empty (the rate of an empty text is undefined)")
    return sum(1 for t in flat if t not in vocab) / len(flat)
