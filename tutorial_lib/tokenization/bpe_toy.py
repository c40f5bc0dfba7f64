"""Character-level BPE with an end-of-word marker: the classroom version.

Training starts from single characters plus a final ``</w>`` per word and repeatedly merges the most frequent
adjacent pair (counts weighted by word frequency), recording each step so a notebook can show why a pair won.
Encoding replays the merges by rank; decoding turns ``</w>`` back into a space. ``TinyTokenizer`` adds ids
with ``<pad>``/``<unk>`` and padded batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, NamedTuple

EOW = "</w>"  # end-of-word marker: lets BPE learn word endings ("er</w>") apart from word middles ("er")
UNK = "<unk>"
PAD = "<pad>"

Pair = tuple[str, str]

# A tie-break rule picks one pair among those sharing the maximal count (listed in first-met order).
# Strings compare by Unicode code point, pairs as (left, right) tuples: ("e", "rx") < ("er", "a").
TIE_BREAKS: dict[str, Callable[[list[Pair]], Pair]] = {
    "first": lambda tied: tied[0],  # first met scanning words in insertion order, left to right
    "lexicographic_min": min,  # smallest pair, as in the "low low low lo" chapter's code
    "lexicographic_max": max,  # greatest pair, the CS336 assignment's rule
}


@dataclass(frozen=True)
class MergeStep:
    """One training step: the counts it saw, the pair it chose, and the corpus after merging that pair."""

    step: int  # 1-based, like "round 1" in the chapters
    pair_counts: dict[Pair, int]  # in first-met order, so the "first" rule is visible in the trace
    chosen: Pair
    count: int
    corpus: dict[tuple[str, ...], int]


@dataclass(frozen=True)
class BPEResult:
    """Ordered merges (rank = position) plus the step trace and the symbols they define."""

    merges: list[Pair]
    steps: list[MergeStep]
    alphabet: list[str]  # sorted training characters; encode maps anything else to <unk>

    @property
    def vocab(self) -> list[str]:
        """Initial symbols (sorted characters, then ``</w>``), then one new symbol per merge in rank order."""
        return self.alphabet + [EOW] + ["".join(pair) for pair in self.merges]


def _check_word(word: object, name: str) -> str:
    if not isinstance(word, str):
        raise TypeError(f"{name} must be a str, got {type(word).__name__}")
    if not word or any(ch.isspace() for ch in word):
        raise ValueError(f"{name} must be a non-empty str without whitespace, got {word!r}")
    if EOW in word:
        raise ValueError(f"{name} must not contain the reserved end-of-word marker {EOW!r}, got {word!r}")
    return word


def _check_merges(merges: object) -> dict[Pair, int]:
    """Validate merges and return their ranks (earliest learned = 0)."""
    if not isinstance(merges, (list, tuple)):
        raise TypeError(f"merges must be a list of (str, str) pairs, got {type(merges).__name__}")
    for pair in merges:
        if not (isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(s, str) and s for s in pair)):
            raise TypeError(f"merges must be a list of (str, str) pairs of non-empty str, got item {pair!r}")
    ranks = {pair: rank for rank, pair in enumerate(merges)}
    if len(ranks) != len(merges):
        raise ValueError("merges must not contain the same pair twice")
    return ranks


def _check_alphabet(alphabet: Iterable[str] | None) -> frozenset[str] | None:
    if alphabet is None:
        return None
    if not isinstance(alphabet, Iterable):
        raise TypeError(f"alphabet must be None or a collection of single-character str, got {alphabet!r}")
    chars = frozenset(alphabet)
    if not all(isinstance(ch, str) and len(ch) == 1 for ch in chars):
        raise ValueError(f"alphabet must contain single-character str only, got {sorted(map(repr, chars))}")
    return chars


def count_pairs(corpus: dict[tuple[str, ...], int]) -> dict[Pair, int]:
    """Adjacent-pair counts weighted by word frequency, keyed in the order the pairs are first met."""
    counts: dict[Pair, int] = {}
    for symbols, freq in corpus.items():
        for pair in zip(symbols, symbols[1:]):
            counts[pair] = counts.get(pair, 0) + freq
    return counts


def merge_pair(symbols: tuple[str, ...], pair: Pair) -> tuple[str, ...]:
    """Replace every non-overlapping occurrence of ``pair``, scanning left to right ("aaa" -> "aa", "a")."""
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


def train(corpus: dict[str, int], num_merges: int, tie_break: str = "first") -> BPEResult:
    """Learn up to ``num_merges`` merges from a ``{word: frequency}`` corpus.

    Stops early, without error, once every word is a single symbol: no pair is left to merge, so
    ``len(result.merges)`` can be smaller than ``num_merges``. ``tie_break`` is one of ``TIE_BREAKS``.
    """
    if not isinstance(corpus, dict):
        raise TypeError(f"corpus must be a dict of word (str) -> frequency (int), got {type(corpus).__name__}")
    for word, freq in corpus.items():
        _check_word(word, "corpus word")
        if isinstance(freq, bool) or not isinstance(freq, int):
            raise TypeError(f"corpus frequency must be an int, got {type(freq).__name__} for word {word!r}")
        if freq <= 0:
            raise ValueError(f"corpus frequency must be a positive int, got {freq} for word {word!r}")
    if isinstance(num_merges, bool) or not isinstance(num_merges, int):
        raise TypeError(f"num_merges must be an int, got {type(num_merges).__name__}")
    if num_merges < 0:
        raise ValueError(f"num_merges must be >= 0, got {num_merges}")
    if tie_break not in TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {sorted(TIE_BREAKS)}, got {tie_break!r}")

    words = {tuple(word) + (EOW,): freq for word, freq in corpus.items()}
    merges: list[Pair] = []
    steps: list[MergeStep] = []
    for step in range(1, num_merges + 1):
        counts = count_pairs(words)
        if not counts:
            break
        best = max(counts.values())
        chosen = TIE_BREAKS[tie_break]([pair for pair, count in counts.items() if count == best])
        words = {merge_pair(symbols, chosen): freq for symbols, freq in words.items()}
        merges.append(chosen)
        steps.append(MergeStep(step, counts, chosen, best, dict(words)))
    return BPEResult(merges, steps, sorted(set("".join(corpus))))


def _encode_symbols(word: str, ranks: dict[Pair, int], alphabet: frozenset[str] | None) -> list[str]:
    symbols = tuple(ch if alphabet is None or ch in alphabet else UNK for ch in word) + (EOW,)
    while True:
        pairs = [pair for pair in zip(symbols, symbols[1:]) if pair in ranks]
        if not pairs:
            return list(symbols)
        symbols = merge_pair(symbols, min(pairs, key=ranks.__getitem__))


def encode_word(word: str, merges: list[Pair], alphabet: Iterable[str] | None = None) -> list[str]:
    """Split one word into symbols by applying merges in rank order (earliest learned first).

    Each round merges the adjacent pair of lowest rank, so the result never depends on where a pair sits in
    the word. With ``alphabet`` (e.g. ``result.alphabet``), characters outside it become ``<unk>``: character
    BPE only covers the characters it was trained on. Without it, characters pass through unchanged.
    """
    return _encode_symbols(_check_word(word, "word"), _check_merges(merges), _check_alphabet(alphabet))


def encode(text: str, merges: list[Pair], alphabet: Iterable[str] | None = None) -> list[str]:
    """Encode a sentence: split on whitespace, then ``encode_word`` each word; ``</w>`` marks the boundaries."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    ranks, chars = _check_merges(merges), _check_alphabet(alphabet)
    return [s for word in text.split() for s in _encode_symbols(_check_word(word, "word"), ranks, chars)]


def decode(symbols: list[str]) -> str:
    """Join symbols back into text; each ``</w>`` becomes a space, and the final one is dropped.

    Words hold no whitespace, so whitespace runs in the input come back as single spaces: decode(encode(t))
    equals ``" ".join(t.split())`` for text over the training alphabet.
    """
    if not isinstance(symbols, (list, tuple)) or not all(isinstance(s, str) for s in symbols):
        raise TypeError(f"symbols must be a list of str, got {symbols!r}")
    return "".join(s[: -len(EOW)] + " " if s.endswith(EOW) else s for s in symbols).rstrip(" ")


class Batch(NamedTuple):
    """A rectangle of ids the model can take, plus the mask saying which cells are real."""

    ids: list[list[int]]  # padded with the <pad> id to the longest sequence
    mask: list[list[int]]  # 1 = real token, 0 = padding the model must ignore


class TinyTokenizer:
    """End-to-end toy tokenizer: text -> BPE symbols -> ids, and back; padded batches with attention masks.

    Ids: ``<pad>`` = 0 and ``<unk>`` = 1, then the other symbols sorted, then ``</w>`` last (the seed's
    layout, so its printed ids are reproduced).
    """

    def __init__(self, merges: list[Pair], alphabet: Iterable[str]) -> None:
        _check_merges(merges)
        if alphabet is None:
            raise TypeError("alphabet must be a collection of single-character str, got None")
        self.alphabet = _check_alphabet(alphabet)
        symbols = set(self.alphabet) | {"".join(pair) for pair in merges}
        if symbols & {PAD, UNK}:
            raise ValueError(f"merges must not build the reserved symbols {PAD!r} or {UNK!r}")
        self.vocab: list[str] = [PAD, UNK] + sorted(symbols - {EOW}) + [EOW]  # id -> token
        self.token_to_id: dict[str, int] = {token: i for i, token in enumerate(self.vocab)}
        self.merges = list(merges)

    def tokenize(self, text: str) -> list[str]:
        """Text to BPE symbols; characters outside the alphabet become ``<unk>``, so every symbol has an id."""
        return encode(text, self.merges, self.alphabet)

    def encode(self, text: str) -> list[int]:
        return [self.token_to_id[symbol] for symbol in self.tokenize(text)]

    def decode(self, ids: list[int]) -> str:
        """Ids back to text. ``<pad>`` ids are skipped, so a padded batch row decodes to its sentence."""
        if not isinstance(ids, (list, tuple)):
            raise TypeError(f"ids must be a list of int, got {type(ids).__name__}")
        for i in ids:
            if isinstance(i, bool) or not isinstance(i, int):
                raise TypeError(f"ids must be a list of int, got item {i!r}")
            if not 0 <= i < len(self.vocab):
                raise ValueError(f"ids must be in [0, {len(self.vocab)}), got {i}")
        return decode([self.vocab[i] for i in ids if i != self.token_to_id[PAD]])

    def batch(self, texts: list[str]) -> Batch:
        """Encode several texts and pad them to the longest; nothing is truncated."""
        if not isinstance(texts, (list, tuple)):
            raise TypeError(f"texts must be a list of str, got {type(texts).__name__}")
        rows = [self.encode(text) for text in texts]
        width = max(map(len, rows), default=0)
        pad = self.token_to_id[PAD]
        ids = [row + [pad] * (width - len(row)) for row in rows]
        return Batch(ids, [[1] * len(row) + [0] * (width - len(row)) for row in rows])
