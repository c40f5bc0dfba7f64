"""More than the best path: the n best segmentations, and sampling one (subword regularization).

Kudo (2018) trains a translation model on segmentations *sampled* from the Unigram lattice, so it
sees 人工 智能 and 人 工 智能 for the same text and learns not to depend on one cut. A path is drawn
with probability proportional to P(path)**alpha: alpha = 1 is the model's own distribution, a large
alpha almost always the Viterbi path, a small one close to uniform.

Drawing without listing the (exponentially many) paths is forward filtering, backward sampling: one
left-to-right pass adds up the weight of every path to each position (as `count_paths`, but
weighted); then from the end, step back choosing the last piece with probability (weight of paths
to its start) x (its weight) / (weight of paths to here). `path_probabilities` gives the exact
probabilities of a short text's paths, to compare sampled frequencies with.
"""

from __future__ import annotations

import math
import random

from tutorial_lib._check_data import check_number
from tutorial_lib._checks import check_int
from tutorial_lib.unigram import model as unigram


def _check_alpha(alpha: object) -> float:
    return check_number(alpha, "alpha", low=0, low_open=True)


def _rng(seed: object) -> random.Random:
    if isinstance(seed, random.Random):
        return seed
    check_int(seed, "seed", low=0)
    return random.Random(seed)


def _log_add(a: float, b: float) -> float:
    if a == -math.inf:
        return b
    high, low = max(a, b), min(a, b)
    return high + math.log1p(math.exp(low - high))


def _forward(text: str, log_probs: dict[str, float], alpha: float
             ) -> tuple[list[float], dict[int, list[unigram.Edge]]]:
    """forward[i] = log of the summed weight P(path)**alpha of every path to position i, and the
    edges grouped by where they end (the backward step chooses among them)."""
    forward = [0.0] + [-math.inf] * len(text)
    ending: dict[int, list[unigram.Edge]] = {}
    for edge in unigram.edges(text, log_probs):  # sorted by start: forward[start] is final
        forward[edge.end] = _log_add(forward[edge.end], forward[edge.start] + alpha * edge.log_prob)
        ending.setdefault(edge.end, []).append(edge)
    if forward[-1] == -math.inf:
        unigram.best_steps(text, log_probs)  # raises the error naming the uncovered character
    return forward, ending


def sample(text: str, log_probs: dict[str, float], alpha: float = 1.0,
           seed: int | random.Random = 0) -> list[str]:
    """One segmentation of `text` drawn with probability proportional to P(path)**alpha.

    `seed`: an int, or a random.Random to draw several samples from one stream. alpha must be > 0
    (alpha = 0 would make every piece weigh 1 whatever its probability, which is rarely meant).
    """
    text, log_probs = unigram.check_inputs(text, log_probs)
    alpha, rng = _check_alpha(alpha), _rng(seed)
    return _draw(text, *_forward(text, log_probs, alpha), alpha, rng)


def _draw(text: str, forward: list[float], ending: dict[int, list[unigram.Edge]], alpha: float,
          rng: random.Random) -> list[str]:
    """The backward step: from the end, choose each last piece in proportion to its weight."""
    pieces, position = [], len(text)
    while position > 0:
        edges = ending[position]
        weights = [math.exp(forward[e.start] + alpha * e.log_prob - forward[position])
                   for e in edges]
        draw, chosen = rng.random() * sum(weights), edges[-1]
        for edge, weight in zip(edges, weights):
            draw -= weight
            if draw < 0:
                chosen = edge
                break
        pieces.append(chosen.piece)
        position = chosen.start
    return pieces[::-1]


def samples(text: str, log_probs: dict[str, float], n: int, alpha: float = 1.0,
            seed: int = 0) -> list[list[str]]:
    """`n` segmentations drawn one after another from one random stream started at `seed`: the
    same as calling `sample` n times with one random.Random, with the forward pass done once."""
    text, log_probs = unigram.check_inputs(text, log_probs)
    check_int(n, "n", low=1)
    alpha, rng = _check_alpha(alpha), _rng(seed)
    forward, ending = _forward(text, log_probs, alpha)
    return [_draw(text, forward, ending, alpha, rng) for _ in range(n)]


def path_probabilities(text: str, log_probs: dict[str, float], alpha: float = 1.0,
                       limit: int = 1000) -> list[tuple[list[str], float]]:
    """Every segmentation of a short `text` with the probability `sample` draws it with, best
    first: P(path)**alpha divided by the sum over all paths (brute force, via `segmentations`)."""
    alpha = _check_alpha(alpha)
    paths = unigram.segmentations(text, log_probs, limit)
    scaled = [alpha * score for _, score in paths]
    top = max(scaled)
    total = sum(math.exp(s - top) for s in scaled)
    return [(pieces, math.exp(s - top) / total) for (pieces, _), s in zip(paths, scaled)]


def nbest(text: str, log_probs: dict[str, float], n: int) -> list[tuple[list[str], float]]:
    """The `n` highest-scoring segmentations of `text` (fewer if it has fewer), best first.

    Viterbi keeping the n best paths to each position instead of one. Ties keep the earlier start
    first, as `viterbi` does, so nbest(..., 1)[0] is the Viterbi path.
    """
    text, log_probs = unigram.check_inputs(text, log_probs)
    check_int(n, "n", low=1)
    best: list[list[tuple[float, tuple[str, ...]]]] = [[(0.0, ())]] + [[] for _ in text]
    ending = _forward(text, log_probs, 1.0)[1]
    for position in range(1, len(text) + 1):
        # every best path to an edge's start, extended by the edge; keep the n highest
        found = [(unigram.add_score(score, e.log_prob), path + (e.piece,))
                 for e in ending.get(position, []) for score, path in best[e.start]]
        best[position] = sorted(found, key=lambda item: -item[0])[:n]
    return [(list(path), score) for score, path in best[-1]]

