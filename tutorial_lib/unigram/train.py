"""Training a Unigram model: a large seed vocabulary, EM, and pruning down to the target size.

Kudo (2018), as SentencePiece implements it:

1. Pre-tokens. Each space-separated word gets a "▁" in front ("▁the"), so pieces never cross a
   space; a line of Chinese is one pre-token ("▁我在年青..."). Each is counted once, with its count.
2. Seed. All single characters, plus the most frequent substrings (up to `max_piece_length`
   characters, at least twice), ranked by frequency x length, which is their starting score.
3. EM. The E-step runs forward-backward over each pre-token's lattice and adds up the expected uses
   of each piece (counts="viterbi": the best path's pieces only); the M-step sets each piece's
   probability to its count / the total. EM never lowers the likelihood of the corpus.
4. Pruning. Removing a piece re-segments its uses by its best alternative (the piece's own
   second-best path); the loss is the likelihood that costs. The cheapest pieces go, shrinking the
   vocabulary by `shrinking_factor` per round; single characters are never removed.
5. Repeat EM and pruning until the target size, then EM once more.

What differs from SentencePiece (to read a comparison right): its seed is a suffix tree's nodes
(substrings with two different right contexts), its M-step a digamma "Bayesian" update that drops
pieces with expected count < 0.5 (so its objective is not monotone), it prunes to 1.1 x vocab_size
and keeps the top scores, while we prune straight to the target; and we do not normalize (its
nmt_nfkc turns "，" into ","). Its script rule comes from ICU (`script` approximates it; digits
are "Common"). Ties: by piece string (seed, pruning), the earliest start (Viterbi). Nothing is
random.
"""

from __future__ import annotations

import functools
import heapq
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from tutorial_lib._check_data import check_non_empty_dict, check_number
from tutorial_lib._checks import check_choice, check_int, check_str
from tutorial_lib.unigram import byte_fallback
from tutorial_lib.unigram import lattice as unigram_lattice
from tutorial_lib.unigram import model as unigram
from tutorial_lib.unigram.model import SP_UNDERLINE

TINY = 1e-30  # floor of a probability, so that a piece EM starves still has a finite log


@dataclass(frozen=True)
class EMStep:
    """One EM step: its pruning round, the vocabulary size, and the corpus log-likelihood under
    the parameters going into the step."""

    round: int
    step: int
    pieces: int
    log_likelihood: float


@dataclass(frozen=True)
class PruneRound:
    """One pruning round: the pieces removed, each with its estimated loss of log-likelihood."""

    round: int
    before: int
    after: int
    removed: tuple[tuple[str, float], ...]


@dataclass
class UnigramResult:
    """A trained model (`log_probs`, "▁" kept as is) and how training got there."""

    log_probs: dict[str, float]
    em_steps: list[EMStep] = field(default_factory=list)
    prune_rounds: list[PruneRound] = field(default_factory=list)
    seed_size: int = 0
    counts: str = "expected"

    def encode(self, text: str) -> list[str]:
        """The Viterbi pieces of `text`, pre-tokenized as in training; a character the vocabulary
        lacks becomes byte pieces (byte_fallback)."""
        return byte_fallback.encode_checked(words_of(check_str(text, "text")), self.log_probs,
                                            self._bounds)

    @functools.cached_property
    def _bounds(self) -> tuple[float, int]:
        return byte_fallback.table_bounds(self.log_probs)  # found once, used by every encode

    def decode(self, pieces: list[str]) -> str:
        """The text of `pieces` ("▁" back to spaces, the leading one of a line dropped); one line,
        since line breaks are not pieces."""
        return byte_fallback.decode(pieces).replace(SP_UNDERLINE, " ").removeprefix(" ")


def words_of(text: str) -> list[str]:
    """The pre-tokens of `text`, in order: each space-separated word of each line, with "▁" in
    front (SentencePiece's add_dummy_prefix and split_by_whitespace; only " " separates)."""
    return [SP_UNDERLINE + w for line in text.splitlines() for w in line.split(" ") if w]


def count_words(text: str) -> Counter[str]:
    """How often each pre-token occurs in `text` (the corpus as the trainer sees it)."""
    return Counter(words_of(text))


@functools.lru_cache(maxsize=None)
def script(char: str) -> str:
    """A character's script, as SentencePiece's split_by_unicode_script groups them: Han with kana,
    punctuation, symbols and digits as "Common", letters by the first word of their Unicode name."""
    code = ord(char)
    if 0x3040 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFAFF \
            or 0x20000 <= code <= 0x3FFFF:
        return "Han"
    category = unicodedata.category(char)
    if category[0] in "PSNZC":
        return "Common"
    if category[0] == "M":
        return "Inherited"
    return unicodedata.name(char, "UNKNOWN").split(" ")[0]


def valid_piece(piece: str) -> bool:
    """Whether SentencePiece would allow `piece`: "▁" only at the start, one script, no text that
    reads as a byte piece."""
    body = piece[1:] if piece.startswith(SP_UNDERLINE) else piece
    if SP_UNDERLINE in body or byte_fallback.is_byte_piece(piece):
        return False
    return len({script(c) for c in body} - {"Inherited"}) <= 1


def seed_vocabulary(words: dict[str, int], seed_size: int, max_piece_length: int
                    ) -> dict[str, float]:
    """{piece: score}: every character with its frequency, plus the `seed_size` substrings of
    2..max_piece_length characters with the highest frequency x length (at least 2 occurrences).

    Counted level by level: a substring of length k is counted only where both of its length k-1
    parts occur at least twice (a rarer string cannot be more frequent than its parts), so the
    count stays near the number of repeated substrings rather than all of them.
    """
    chars: Counter[str] = Counter()
    for word, count in words.items():
        for char in word:
            chars[char] += count
    frequent = {c for c, n in chars.items() if n >= 2}
    scored: list[tuple[float, str]] = []
    for k in range(2, max_piece_length + 1):
        level: Counter[str] = Counter()
        for word, count in words.items():
            for i in range(len(word) - k + 1):
                sub = word[i:i + k]
                if sub[:-1] in frequent and sub[1:] in frequent:
                    level[sub] += count
        frequent = {s for s, n in level.items() if n >= 2}
        scored += [(n * k, s) for s, n in level.items() if n >= 2 and valid_piece(s)]
        if not frequent:
            break
    top = heapq.nsmallest(seed_size, scored, key=lambda item: (-item[0], item[1]))
    return {**{c: float(n) for c, n in sorted(chars.items())}, **{s: float(n) for n, s in top}}


class _Model:
    """The state of training: pieces, which are alive, their log-probabilities, the lattices."""

    def __init__(self, words: dict[str, int], scores: dict[str, float]) -> None:
        self.pieces = list(scores)
        self.single = np.array([len(p) == 1 for p in self.pieces])
        self.alive = np.ones(len(self.pieces), dtype=bool)
        values = np.array(list(scores.values()), dtype=np.float64)
        self.log_probs = np.log(values / values.sum())
        self.total = 1.0  # the expected number of pieces of the last E-step
        self.lattice = unigram_lattice.build(list(words), list(words.values()), self.pieces)
        self.refresh()

    def refresh(self) -> None:
        self.passes = unigram_lattice.Passes(self.lattice, self.alive[self.lattice.piece])

    def e_step(self, counts: str) -> tuple[np.ndarray, float]:
        """(expected count of each piece, log-likelihood): forward-backward or Viterbi counts."""
        if counts == "expected":
            return self.passes.expected_counts(self.log_probs)
        path, best = self.passes.viterbi(self.log_probs)
        lat = self.lattice
        expected = np.bincount(lat.piece[path], weights=lat.counts[lat.word[path]],
                               minlength=len(self.pieces))
        return expected, float(np.dot(lat.counts, best))

    def em_step(self, counts: str) -> tuple[np.ndarray, float]:
        """One E-step and M-step; returns the E-step's counts and the log-likelihood it measured."""
        expected, log_likelihood = self.e_step(counts)
        expected = np.where(self.alive, expected, 0.0)
        self.total = float(expected.sum())
        probs = expected / self.total
        self.log_probs = np.where(self.alive, np.log(np.maximum(probs, TINY)), -np.inf)
        return expected, log_likelihood

    def log_probs_dict(self) -> dict[str, float]:
        keep = sorted(np.flatnonzero(self.alive),
                      key=lambda i: (-self.log_probs[i], self.pieces[i]))
        return {self.pieces[i]: float(self.log_probs[i]) for i in keep}


def _losses(model: _Model, alternatives: unigram_lattice.Passes) -> tuple[np.ndarray, np.ndarray]:
    """(loss of removing each piece, whether removing it is free), SentencePiece's estimate.

    freq = Viterbi counts. A piece whose own best segmentation is not itself, or that no best path
    uses, is free to remove. Otherwise its uses move to its alternative (its second-best path):
    loss = F x (log p(piece) - sum over the alternative's pieces n of log p'(n)), with p' the
    frequencies after the move and F the share of pre-tokens whose best path uses the piece.
    """
    lat, n = model.lattice, len(model.pieces)
    path, _ = model.passes.viterbi(model.log_probs)
    weights = lat.counts[lat.word[path]]
    freq = np.bincount(lat.piece[path], weights=weights, minlength=n)
    pairs = np.unique(lat.word[path] * n + lat.piece[path])
    share = np.bincount(pairs % n, weights=lat.counts[pairs // n], minlength=n) / lat.counts.sum()
    alt_path, alt_score = alternatives.viterbi(model.log_probs)
    alt = alternatives.lattice
    owner, used = alt.word[alt_path], alt.piece[alt_path]
    split = alt_score > model.log_probs
    total = freq.sum()
    size = np.bincount(owner, minlength=n)
    log_sum_alt = np.log(total + freq * (size - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.log(freq[used] + freq[owner]) - log_sum_alt[owner]
        log_prob_alt = np.bincount(owner, weights=terms, minlength=n)
        loss = share * (np.log(freq) - np.log(total) - log_prob_alt)
    free = (freq == 0) | split | (size == 0) & ~model.single
    return np.where(free, 0.0, loss), free


def _pieces_lattice(model: _Model) -> unigram_lattice.CorpusLattice:
    """Each piece's own text cut into the other pieces: where its uses go if it is removed."""
    return unigram_lattice.build(model.pieces, [1] * len(model.pieces), model.pieces,
                                 skip_whole=True)


def _alternatives(model: _Model, pieces_lattice: unigram_lattice.CorpusLattice
                  ) -> unigram_lattice.Passes:
    """The pieces' lattice with only the pieces still alive, on both sides."""
    mask = model.alive[pieces_lattice.piece] & model.alive[pieces_lattice.word]
    return unigram_lattice.Passes(pieces_lattice, mask)


def _prune(model: _Model, alternatives: unigram_lattice.Passes, target: int,
           shrinking_factor: float, round_: int) -> PruneRound:
    before = int(model.alive.sum())
    after = max(target, int(before * shrinking_factor))
    loss, free = _losses(model, alternatives)
    candidates = np.flatnonzero(model.alive & ~model.single)
    order = sorted(candidates, key=lambda i: (not free[i], loss[i], model.pieces[i]))
    removed = order[:before - after]
    model.alive[removed] = False
    model.refresh()
    return PruneRound(round_, before, int(model.alive.sum()),
                      tuple((model.pieces[i], float(loss[i])) for i in removed))


def train_unigram(text: str, vocab_size: int, *, seed_size: int = 100_000,
                  max_piece_length: int = 16, shrinking_factor: float = 0.75, em_steps: int = 2,
                  counts: str = "expected") -> UnigramResult:
    """Train a Unigram model of `vocab_size` pieces (all single characters included) on `text`.

    counts="expected" is EM with forward-backward counts (SentencePiece); "viterbi" counts only
    the pieces of each pre-token's best path (hard EM: faster, a sharper, greedier vocabulary).
    Each round runs `em_steps` EM steps, then prunes to max(vocab_size, shrinking_factor x size);
    after the last pruning EM runs once more.
    """
    words = dict(count_words(check_str(text, "text")))
    if not words:
        raise ValueError(f"text must contain at least one word (a non-space character), got "
                         f"{text[:40]!r}")
    vocab_size = check_int(vocab_size, "vocab_size", low=1)
    shrinking_factor = check_number(shrinking_factor, "shrinking_factor", low=0, high=1,
                                    low_open=True, high_open=True)
    check_choice(counts, "counts", ("expected", "viterbi"))
    seed_size = check_int(seed_size, "seed_size", low=1)
    max_piece_length = check_int(max_piece_length, "max_piece_length", low=1)
    em_steps = check_int(em_steps, "em_steps", low=1)
    alphabet = len({c for w in words for c in w})
    if vocab_size < alphabet:
        raise ValueError(f"vocab_size must be at least the number of distinct characters of the "
                         f"text ({alphabet}, all kept as pieces), got {vocab_size}")
    model = _Model(words, seed_vocabulary(words, seed_size, max_piece_length))
    pieces_lattice = _pieces_lattice(model)
    result = UnigramResult({}, seed_size=len(model.pieces), counts=counts)
    round_ = 0
    while True:
        for step in range(em_steps):
            _, likelihood = model.em_step(counts)
            result.em_steps.append(EMStep(round_, step, int(model.alive.sum()), likelihood))
        if model.alive.sum() <= vocab_size:
            break
        result.prune_rounds.append(_prune(model, _alternatives(model, pieces_lattice),
                                          vocab_size, shrinking_factor, round_))
        round_ += 1
    _lift_starved(model)
    result.log_probs = model.log_probs_dict()
    return result


def _lift_starved(model: _Model) -> None:
    """Give the characters EM starved (expected count < 0.5: used almost only inside longer
    pieces) a score just below the lowest other piece, each 0.0001 lower than the previous, as
    SentencePiece's FinalizePieces does, and renormalise.

    Else a character a longer piece always covers scores near log(1e-30) = -69, and one occurrence
    on its own costs as much as ten ordinary pieces. Starved longer pieces are left alone: raising
    them would let them beat real segmentations.
    """
    counts = np.exp(model.log_probs) * model.total
    starved = np.flatnonzero(model.alive & model.single & (counts < 0.5))
    fed = model.alive & ~(model.single & (counts < 0.5))
    if not len(starved) or not fed.any():
        return
    lowest = model.log_probs[fed].min()
    starved = np.array(sorted(starved, key=lambda i: model.pieces[i]))
    model.log_probs[starved] = lowest - 1e-4 * np.arange(1, len(starved) + 1)
    alive = model.log_probs[model.alive]
    model.log_probs[model.alive] = alive - np.logaddexp.reduce(alive)


def em_step(words: dict[str, int], log_probs: dict[str, float], counts: str = "expected"
            ) -> tuple[dict[str, float], dict[str, float], float]:
    """One EM step by itself: (new log-probs, the counts of the E-step, the log-likelihood under
    `log_probs`). `words` maps pre-tokens to counts; `log_probs` must contain every character."""
    model = _model_of(words, log_probs)
    check_choice(counts, "counts", ("expected", "viterbi"))
    expected, likelihood = model.em_step(counts)
    return model.log_probs_dict(), dict(zip(model.pieces, map(float, expected))), likelihood


def prune_step(words: dict[str, int], log_probs: dict[str, float], vocab_size: int,
               shrinking_factor: float = 0.75) -> PruneRound:
    """One pruning round by itself, on a vocabulary that `em_step` or training left: the pieces
    `train_unigram` would remove from `log_probs`, each with its loss (`_losses`), cheapest first,
    down to max(vocab_size, shrinking_factor x size); single characters always stay."""
    model = _model_of(words, log_probs)
    vocab_size = check_int(vocab_size, "vocab_size", low=1)
    shrinking_factor = check_number(shrinking_factor, "shrinking_factor", low=0, high=1,
                                    low_open=True, high_open=True)
    return _prune(model, _alternatives(model, _pieces_lattice(model)), vocab_size,
                  shrinking_factor, 0)


def _model_of(words: dict[str, int], log_probs: dict[str, float]) -> _Model:
    """The training state of `words` (pre-token -> count) with exactly these log-probs, which
    must contain every character of the words."""
    check_non_empty_dict(words, "words", "pre-token -> count")
    for word, count in words.items():
        check_str(word, "a key of words", non_empty=True)
        check_int(count, f"words[{word!r}]", low=1)
    table = unigram.check_log_probs(log_probs)
    missing = sorted({c for w in words for c in w} - set(table))
    if missing:
        raise ValueError(f"log_probs must contain every single character of the words (a Unigram "
                         f"vocabulary always keeps them), missing {missing[:10]!r}")
    model = _Model(words, {p: float(np.exp(v)) for p, v in table.items()})
    model.log_probs = np.array(list(table.values()), dtype=np.float64)
    return model


def corpus_log_likelihood(text: str, log_probs: dict[str, float],
                          unknown_log_prob: float | None = None) -> tuple[float, int, int]:
    """(log-likelihood of `text`, characters of its pre-tokens, how many the vocabulary lacks).

    The marginal likelihood (each pre-token summed over all its segmentations, as EM maximises). A
    character the vocabulary lacks scores as byte fallback places it in the lattice, unless
    `unknown_log_prob` is given (the same value for two models makes their numbers comparable).
    """
    text = check_str(text, "text")
    if unknown_log_prob is not None:
        unknown_log_prob = check_number(unknown_log_prob, "unknown_log_prob", high=0)
    table = unigram.check_log_probs(log_probs)
    words = count_words(text)
    if not words:
        raise ValueError(f"text must contain at least one word, got {text[:40]!r}")
    unknown = sorted({c for w in words for c in w} - set(table))
    floor, _ = byte_fallback.table_bounds(table)
    table.update(dict.fromkeys(unknown, floor if unknown_log_prob is None else unknown_log_prob))
    lattice = unigram_lattice.build(list(words), list(words.values()), list(table))
    passes = unigram_lattice.Passes(lattice, np.ones(len(lattice.piece), dtype=bool))
    _, likelihood = passes.expected_counts(np.array(list(table.values())))
    missing = set(unknown)
    return (likelihood, sum(len(w) * n for w, n in words.items()),
            sum(n for w, n in words.items() for c in w if c in missing))
