"""How a Unigram model segments text: the best path through a lattice of pieces, found by Viterbi.

A Unigram tokenizer (SentencePiece's default, Kudo 2018) has no merges. Each piece has a
log-probability, and a segmentation scores the sum of its pieces' log-probabilities; encoding picks
the highest. All the ways to cut a text form a lattice (nodes: the positions between characters;
edges: the pieces that fit there). A line of n characters can have 2**(n-1) paths, but one
left-to-right pass finds the best: the best path to position i is the best path to some earlier
position j plus the one piece text[j:i]. `segmentations` lists every path of a short text, to check
that pass by hand.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tutorial_lib._check_data import check_has, check_mapping_keys, check_number
from tutorial_lib._checks import check_int, check_str

SP_UNDERLINE = "\u2581"  # "▁", SentencePiece's visible stand-in for a space


@dataclass(frozen=True)
class Edge:
    """One piece that fits the text: it covers characters start..end-1 (an edge of the lattice)."""

    start: int
    end: int
    piece: str
    log_prob: float


@dataclass(frozen=True)
class Candidate:
    """One way to reach a position: the best path to `start`, then `piece`; `score`: the total."""

    start: int
    piece: str
    score: float


@dataclass(frozen=True)
class Step:
    """The best path that ends at position `end`: its score and its last piece, which starts at
    `start` (following `start` back rebuilds the path). `candidates` (filled by `viterbi_table`):
    all the ways Viterbi compared to get here, in the order it met them."""

    end: int
    score: float
    piece: str
    start: int
    candidates: tuple[Candidate, ...] = ()


def add_score(score: float, log_prob: float) -> float:
    """score + log_prob in single precision (float32), the way SentencePiece adds scores.

    Two paths whose exact totals are equal, such as 哈 + 哈哈 and 哈哈 + 哈, can differ in the last
    bit once rounded; adding with SentencePiece's precision makes the same one win here as there.
    """
    return float(np.float32(score) + np.float32(log_prob))


def check_log_probs(log_probs: object) -> dict[str, float]:
    """A copy of `log_probs` checked: non-empty pieces, each a number <= 0."""
    table = check_mapping_keys(log_probs, "log_probs", str, "a str (a piece)")
    if not table:
        raise ValueError("log_probs must contain at least one piece, got an empty dict")
    for piece, value in table.items():
        if not piece:
            raise ValueError("log_probs must not contain the empty piece ''")
        table[piece] = check_number(value, f"log_probs[{piece!r}]", high=0)
    return table


def check_inputs(text: object, log_probs: object) -> tuple[str, dict[str, float]]:
    return check_str(text, "text", non_empty=True), check_log_probs(log_probs)


def spans(text: str, pieces: Container[str], longest: int) -> Iterator[tuple[int, int]]:
    """(start, end) of every piece of `pieces` (none longer than `longest`) in `text`, sorted: the
    lattice's edges without scores. The one definition of the lattice: Viterbi, sampling and the
    trainer's vectorised lattice all enumerate their edges with it."""
    for start in range(len(text)):
        for end in range(start + 1, min(len(text), start + longest) + 1):
            if text[start:end] in pieces:
                yield start, end


def edges(text: str, log_probs: Mapping[str, float], longest: int | None = None) -> list[Edge]:
    longest = max(map(len, log_probs)) if longest is None else longest
    return [Edge(start, end, text[start:end], log_probs[text[start:end]])
            for start, end in spans(text, log_probs, longest)]


def lattice(text: str, log_probs: dict[str, float]) -> list[Edge]:
    """Every piece of `log_probs` that occurs in `text`, with its start and end, sorted: the edges a
    segmentation is made of (each path from 0 to len(text) is one segmentation)."""
    text, log_probs = check_inputs(text, log_probs)
    return edges(text, log_probs)


def best_steps(text: str, log_probs: Mapping[str, float], trace: bool = False,
                longest: int | None = None) -> list[Step | None]:
    """best[i] = the best path ending at position i (None if none gets there; best[0] is empty).

    A later candidate must score strictly higher to replace an earlier one, as in SentencePiece:
    on a tie the last piece that starts earliest (the longest) wins. `trace` keeps the candidates.
    """
    best: list[Step | None] = [Step(0, 0.0, "", 0)] + [None] * len(text)
    candidates: list[list[Candidate]] = [[] for _ in best]
    # sorted by start, so best[edge.start] is final when it is used
    for edge in edges(text, log_probs, longest):
        before = best[edge.start]
        if before is None:
            continue
        score = add_score(before.score, edge.log_prob)
        if trace:
            candidates[edge.end].append(Candidate(edge.start, edge.piece, score))
        current = best[edge.end]
        if current is None or score > current.score:
            best[edge.end] = Step(edge.end, score, edge.piece, edge.start)
    if best[-1] is None:
        reached = max(i for i, step in enumerate(best) if step is not None)
        raise ValueError(f"no segmentation of text exists: no piece in log_probs lets a path cross "
                         f"{text[reached]!r} at index {reached}; add that character as a piece")
    if trace:
        best = [step if step is None else replace(step, candidates=tuple(candidates[i]))
                for i, step in enumerate(best)]
    return best


def viterbi_table(text: str, log_probs: dict[str, float]) -> list[Step]:
    """The Viterbi pass written out: the best path to each position 1..len(text) some path reaches,
    with the candidates (best path to an earlier j, plus text[j:i]) it was chosen from."""
    text, log_probs = check_inputs(text, log_probs)
    return [step for step in best_steps(text, log_probs, trace=True)[1:] if step is not None]


def viterbi(text: str, log_probs: dict[str, float]) -> tuple[list[str], float]:
    """(pieces, score): the segmentation of `text` with the highest total log-probability.

    ValueError if no piece covers some character (a real model adds <unk> or byte pieces for that).
    """
    text, log_probs = check_inputs(text, log_probs)
    return best_path(text, log_probs)


def best_path(text: str, log_probs: Mapping[str, float], longest: int | None = None
              ) -> tuple[list[str], float]:
    """`viterbi` without checking its inputs, for a caller that checked `log_probs` once and
    segments many words with it (`longest`: the length of its longest piece, if known)."""
    best = best_steps(text, log_probs, longest=longest)
    pieces, end = [], len(text)
    while end > 0:
        step = best[end]
        pieces.append(step.piece)
        end = step.start
    return pieces[::-1], best[-1].score


def segmentations(
    text: str, log_probs: dict[str, float], limit: int = 1000
) -> list[tuple[list[str], float]]:
    """Every segmentation of `text` with its score, best first (ties in path order): the brute
    force Viterbi avoids. More than `limit` paths is a ValueError rather than a long wait, and the
    count comes first (`count_paths`, one pass): the walk then follows only pieces from which the
    end can still be reached, so its work is at most `limit` paths of len(text) pieces, however
    many dead ends the text has ('a' * 40 + 'z' with pieces a and aa has none to find)."""
    text, log_probs = check_inputs(text, log_probs)
    check_int(limit, "limit", low=1)
    total = count_paths(text, log_probs)
    if total == 0:
        best_steps(text, log_probs)  # raises the error that names the character no piece covers
    if total > limit:
        raise ValueError(f"text has {total:,} segmentations, more than limit={limit}; use viterbi "
                         "for long texts")
    starting: dict[int, list[Edge]] = {}
    for edge in edges(text, log_probs):
        starting.setdefault(edge.start, []).append(edge)
    # reaches_end[i]: some segmentation of text[i:] exists (filled from the end backwards)
    reaches_end = [False] * len(text) + [True]
    for position in range(len(text) - 1, -1, -1):
        reaches_end[position] = any(reaches_end[e.end] for e in starting.get(position, []))
    paths: list[tuple[list[str], float]] = []

    def walk(position: int, pieces: list[str], score: float) -> None:
        if position == len(text):
            paths.append((pieces, score))
            return
        for edge in starting.get(position, []):
            if reaches_end[edge.end]:
                walk(edge.end, pieces + [edge.piece], add_score(score, edge.log_prob))

    walk(0, [], 0.0)
    return sorted(paths, key=lambda path: -path[1])


def count_paths(text: str, log_probs: dict[str, float]) -> int:
    """How many segmentations of `text` the pieces allow: Viterbi's pass with "add up" in place of
    "keep the best" (paths to i = the sum, over edges ending at i, of the paths to their start)."""
    text, log_probs = check_inputs(text, log_probs)
    paths = [1] + [0] * len(text)
    for edge in edges(text, log_probs):
        paths[edge.end] += paths[edge.start]
    return paths[-1]


def sentencepiece_log_probs(processor: Any) -> dict[str, float]:
    """{piece: log-probability} of a SentencePiece Unigram model's normal pieces, "▁" as a space.

    Control pieces, <unk> and byte pieces are left out: SentencePiece's Viterbi never matches them.
    """
    check_has(processor, "processor", ("get_piece_size", "id_to_piece", "get_score", "is_control",
                                       "is_unknown", "is_byte", "is_unused"),
              "a SentencePieceProcessor")
    return {processor.id_to_piece(i).replace(SP_UNDERLINE, " "): processor.get_score(i)
            for i in range(processor.get_piece_size())
            if not (processor.is_control(i) or processor.is_unknown(i) or processor.is_byte(i)
                    or processor.is_unused(i))}
