"""Character-level BPE with an end-of-word marker: the classroom version.

Training starts from single characters plus a final ``</w>`` per word and repeatedly merges the most
frequent adjacent pair, recording each step so a notebook can show why a pair won. Encoding replays
the merges by rank; ``TinyTokenizer`` adds ids. It stands alone, without the byte-level trainer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Callable, Iterable

from tutorial_lib._check_data import check_str_list
from tutorial_lib._checks import (check_choice, check_int, check_int_list, check_sequence,
                                  check_str, check_type, describe)

EOW = "</w>"  # end-of-word marker: BPE learns word endings ("er</w>") apart from middles ("er")
PAD_TOKEN = "<pad>"
UNK = "<unk>"  # as chapter 01's D2L `Vocab` spells it (text.d2l.UNK); a test holds them equal

Pair = tuple[str, str]

# A rule picks one pair of those sharing the top count; pairs compare as tuples of code points.
TIE_BREAKS: dict[str, Callable[[list[Pair]], Pair]] = {
    "first": lambda tied: tied[0],  # first met scanning words in insertion order, left to right
    "lexicographic_min": min,  # smallest pair
    "lexicographic_max": max,  # greatest pair
}


@dataclass(frozen=True)
class MergeStep:
    """One training step: the counts it saw, the pair it chose, the corpus after that merge."""

    step: int  # 1-based: step 1 learns the first merge
    pair_counts: dict[Pair, int]  # in first-met order, so the "first" rule is visible in the trace
    chosen: Pair
    count: int
    corpus: dict[tuple[str, ...], int]

    @property
    def tied(self) -> list[Pair]:
        """The pairs sharing the top count, in first-met order: what the tie-break chose among."""
        return tied(self.pair_counts)

    def ranked(self) -> list[tuple[Pair, int, int]]:
        """(pair, count, first-met position from 1), most frequent first; stable, so equal counts
        keep the order the "first" rule reads."""
        met = [(pair, count, at) for at, (pair, count) in enumerate(self.pair_counts.items(), 1)]
        return sorted(met, key=lambda row: -row[1])


@dataclass(frozen=True)
class BPEResult:
    """Ordered merges (rank = position), the step trace, and the training characters."""

    merges: list[Pair]
    steps: list[MergeStep]
    alphabet: list[str]  # sorted training characters; encode maps anything else to <unk>

    @property
    def vocab(self) -> list[str]:
        """Initial symbols (sorted characters, then ``</w>``), then one per merge, by rank."""
        return self.alphabet + [EOW] + ["".join(pair) for pair in self.merges]


def _check_word(word: object, name: str) -> str:
    if any(ch.isspace() for ch in check_str(word, name, non_empty=True)):
        raise ValueError(f"{name} must be a non-empty str without whitespace, got {word!r}")
    if EOW in word:
        raise ValueError(f"{name} must not contain the reserved end-of-word marker {EOW!r}, got "
                         f"{word!r}")
    return word


def _check_pair(pair: object, name: str) -> Pair:
    # a tuple: the list ["e", "r"] is the same pair, and must compare equal to it
    left_right = check_str_list(pair, name)
    if len(left_right) != 2 or not all(left_right):
        raise ValueError(f"{name} must be two non-empty symbols (left, right), got "
                         f"{describe(pair)}")
    return tuple(left_right)


def _check_merges(merges: object) -> dict[Pair, int]:
    """The merges' ranks (earliest learned = 0)."""
    pairs = check_sequence(merges, "merges", "a list of (str, str) pairs")
    ranks = {_check_pair(pair, f"merges[{i}]"): i for i, pair in enumerate(pairs)}
    if len(ranks) != len(pairs):
        raise ValueError("merges must not contain the same pair twice")
    return ranks


def _check_alphabet(alphabet: Iterable[str] | None) -> frozenset[str] | None:
    if alphabet is None:
        return None
    chars = frozenset(check_type(alphabet, "alphabet", Iterable,
                                 "None or a collection of single-character str"))
    for ch in chars:
        if len(check_str(ch, "each alphabet item")) != 1:
            raise ValueError(f"alphabet must contain single-character str only, got {ch!r}")
    return chars


def count_pairs(corpus: dict[tuple[str, ...], int]) -> dict[Pair, int]:
    """Adjacent-pair counts weighted by word frequency, keyed in the order pairs are first met."""
    counts: dict[Pair, int] = {}
    for symbols, freq in corpus.items():
        # Each adjacent pair of the word occurs once per occurrence of the word: add its frequency.
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_pair(symbols: Sequence[str], pair: Sequence[str]) -> tuple[str, ...]:
    """Replace every non-overlapping occurrence of ``pair``, left to right ("aaa" -> "aa", "a").

    The result is a tuple (``symbols`` and ``pair`` may be lists), the key of a word in training.
    """
    return _merge(tuple(check_str_list(symbols, "symbols")), _check_pair(pair, "pair"))


def _merge(symbols: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    if pair[0] not in symbols:
        return symbols  # most words of a corpus lack the pair: nothing to rebuild
    out: list[str] = []
    i = 0
    while i < len(symbols):
        if symbols[i : i + 2] == pair:
            out.append(symbols[i] + symbols[i + 1])
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return tuple(out)


def tied(pair_counts: dict[Pair, int]) -> list[Pair]:
    """The pairs sharing the largest count, in the order the counts met them (first-met order)."""
    best = max(pair_counts.values())
    return [pair for pair, count in pair_counts.items() if count == best]


def train(corpus: dict[str, int], num_merges: int, tie_break: str = "first") -> BPEResult:
    """Learn up to ``num_merges`` merges from a ``{word: frequency}`` corpus (fewer once every word
    is a single symbol); ``tie_break`` is a key of ``TIE_BREAKS``."""
    check_type(corpus, "corpus", dict, "a dict of word (str) -> frequency (int)")
    for word, freq in corpus.items():
        _check_word(word, "corpus word")
        check_int(freq, f"corpus[{word!r}]", low=1)
    check_int(num_merges, "num_merges", low=0)
    check_choice(tie_break, "tie_break", sorted(TIE_BREAKS))
    words = {tuple(word) + (EOW,): freq for word, freq in corpus.items()}
    merges: list[Pair] = []
    steps: list[MergeStep] = []
    for step in range(1, num_merges + 1):
        # Count every adjacent pair, weighted by word frequency; the most frequent one is merged.
        counts = count_pairs(words)
        if not counts:
            break  # every word is a single symbol: nothing left to merge
        chosen = TIE_BREAKS[tie_break](tied(counts))
        # Merge it everywhere, and record what this step saw.
        words = {_merge(symbols, chosen): freq for symbols, freq in words.items()}
        merges.append(chosen)
        steps.append(MergeStep(step, counts, chosen, counts[chosen], dict(words)))
    return BPEResult(merges, steps, sorted(set("".join(corpus))))


def _encode_symbols(word: str, ranks: dict[Pair, int], alphabet: frozenset[str] | None
                    ) -> list[str]:
    symbols = tuple(ch if alphabet is None or ch in alphabet else UNK for ch in word) + (EOW,)
    while True:
        # Merge the adjacent pair learned earliest, until no adjacent pair is a merge.
        pairs = [pair for pair in zip(symbols, symbols[1:]) if pair in ranks]
        if not pairs:
            return list(symbols)
        symbols = _merge(symbols, min(pairs, key=ranks.__getitem__))


def encode_word(word: str, merges: list[Pair], alphabet: Iterable[str] | None = None) -> list[str]:
    """Split one word into symbols by applying merges in rank order (earliest learned first); with
    ``alphabet`` (``result.alphabet``) other characters become ``<unk>``."""
    return _encode_symbols(_check_word(word, "word"), _check_merges(merges),
                           _check_alphabet(alphabet))


def encode(text: str, merges: list[Pair], alphabet: Iterable[str] | None = None) -> list[str]:
    """Encode a sentence: split on whitespace, then ``encode_word`` each word."""
    words = check_str(text, "text").split()
    ranks, chars = _check_merges(merges), _check_alphabet(alphabet)
    return [s for word in words for s in _encode_symbols(_check_word(word, "word"), ranks, chars)]


def decode(symbols: list[str]) -> str:
    """Join symbols back into text; each ``</w>`` becomes a space, the final one dropped (so
    decode(encode(t)) is ``" ".join(t.split())`` for text over the training alphabet)."""
    symbols = check_str_list(symbols, "symbols")
    return "".join(s[: -len(EOW)] + " " if s.endswith(EOW) else s for s in symbols).rstrip(" ")


class TinyTokenizer:
    """End-to-end toy tokenizer: text -> BPE symbols -> ids, and back. Ids: ``<pad>`` = 0 and
    ``<unk>`` = 1 (easy to spot in a printed row), the other symbols sorted, ``</w>`` last."""

    def __init__(self, merges: list[Pair], alphabet: Iterable[str]) -> None:
        merges = list(_check_merges(merges))
        check_type(alphabet, "alphabet", Iterable, "a collection of single-character str")
        self.alphabet = _check_alphabet(alphabet)
        symbols = set(self.alphabet) | {"".join(pair) for pair in merges}
        if symbols & {PAD_TOKEN, UNK}:
            raise ValueError(f"merges must not build the reserved symbols {PAD_TOKEN!r} or {UNK!r}")
        self.vocab: list[str] = [PAD_TOKEN, UNK] + sorted(symbols - {EOW}) + [EOW]  # id -> token
        self.token_to_id: dict[str, int] = {token: i for i, token in enumerate(self.vocab)}
        self.merges = merges

    def tokenize(self, text: str) -> list[str]:
        """Text to BPE symbols; characters outside the alphabet become ``<unk>``."""
        return encode(text, self.merges, self.alphabet)

    def encode(self, text: str) -> list[int]:
        return [self.token_to_id[symbol] for symbol in self.tokenize(text)]

    def decode(self, ids: list[int]) -> str:
        """Ids back to text. ``<pad>`` ids are skipped: a padded row decodes to its text."""
        ids = check_int_list(ids, "ids", low=0, high=len(self.vocab) - 1)
        return decode([self.vocab[i] for i in ids if i != self.token_to_id[PAD_TOKEN]])
