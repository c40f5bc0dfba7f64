"""The lattices of a whole corpus at once, as numpy arrays: what makes Unigram training fast.

Training runs forward-backward (and Viterbi) over the lattice of every distinct pre-token many
times; one edge at a time in Python (as unigram.viterbi, to be readable) costs seconds per pass on
Lu Xun. Here every pre-token's nodes get one global number (n characters own n + 1 consecutive
nodes) and every edge is a row of arrays (start node, end node, piece id, pre-token), enumerated
once by `unigram.spans` for the seed vocabulary; a smaller vocabulary masks out removed pieces.

The passes are wavefronts: all edges that end k characters into their pre-token, in every
pre-token at once, depend only on nodes before k, so one numpy step per k handles them all: as many
Python steps as the longest pre-token has characters, not as there are edges (millions).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tutorial_lib.unigram import model as unigram


@dataclass
class CorpusLattice:
    """Edges of all pre-tokens' lattices; `alive` says which edges the current vocabulary has."""

    words: list[str]
    counts: np.ndarray  # float64, how often each pre-token occurs
    first_node: np.ndarray  # node number of position 0 of each pre-token
    start: np.ndarray  # per edge: start node
    end: np.ndarray  # per edge: end node
    piece: np.ndarray  # per edge: piece id
    word: np.ndarray  # per edge: which pre-token
    local_end: np.ndarray  # per edge: end - first_node[word]
    local_start: np.ndarray
    nodes: int

    @property
    def last_node(self) -> np.ndarray:
        return self.first_node + np.array([len(w) for w in self.words], dtype=np.int64)


def build(words: list[str], counts: list[float], pieces: list[str],
          skip_whole: bool = False) -> CorpusLattice:
    """The lattice of every word over `pieces` (ids = positions in the list).

    With `skip_whole`, the edge that covers a whole word is left out: the words are then pieces
    themselves and the best path is the best *alternative* to keeping the piece (pruning's
    question).
    """
    ids = {p: i for i, p in enumerate(pieces)}
    longest = max(map(len, pieces))
    starts, ends, piece_ids, owners, firsts = [], [], [], [], []
    node = 0
    for w_index, word in enumerate(words):
        firsts.append(node)
        for s, e in unigram.spans(word, ids, longest):
            if skip_whole and s == 0 and e == len(word):
                continue
            starts.append(node + s)
            ends.append(node + e)
            piece_ids.append(ids[word[s:e]])
            owners.append(w_index)
        node += len(word) + 1
    first = np.array(firsts, dtype=np.int64)
    start, end = np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
    owner = np.array(owners, dtype=np.int64)
    return CorpusLattice(words, np.asarray(counts, dtype=np.float64), first, start, end,
                         np.array(piece_ids, dtype=np.int64), owner, end - first[owner],
                         start - first[owner], node)


@dataclass
class _Waves:
    """Edges in wavefront order: for each k, a slice of edges grouped by their target node."""

    order: np.ndarray  # edge indices
    slices: list[tuple[int, int, np.ndarray, np.ndarray]]  # (lo, hi, group starts, group nodes)


def _waves(lattice: CorpusLattice, mask: np.ndarray, backward: bool) -> _Waves:
    edges = np.flatnonzero(mask)
    key_local = lattice.local_start[edges] if backward else lattice.local_end[edges]
    node = lattice.start[edges] if backward else lattice.end[edges]
    other = lattice.end[edges] if backward else lattice.start[edges]
    # by wave, then target node, then the other end ascending (earliest start first: ties)
    order = edges[np.lexsort((other, node, -key_local if backward else key_local))]
    keys = (lattice.local_start if backward else lattice.local_end)[order]
    nodes = (lattice.start if backward else lattice.end)[order]
    cuts = np.flatnonzero(np.diff(keys)) + 1
    bounds = np.concatenate(([0], cuts, [len(order)]))
    slices = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        group = np.concatenate(([0], np.flatnonzero(np.diff(nodes[lo:hi])) + 1))
        slices.append((int(lo), int(hi), group, nodes[lo:hi][group]))
    return _Waves(order, slices)


def _log_sum_groups(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    top = np.maximum.reduceat(values, groups)
    safe = np.where(np.isfinite(top), top, 0.0)
    sizes = np.diff(np.append(groups, len(values)))
    total = np.add.reduceat(np.exp(values - np.repeat(safe, sizes)), groups)
    with np.errstate(divide="ignore"):
        return safe + np.log(total)


def _sum_pass(waves: _Waves, nodes: int, origins: np.ndarray, source: np.ndarray,
              edge_scores: np.ndarray) -> np.ndarray:
    """One wavefront pass: each target node gets the log-sum over its edges of (score at the
    edge's `source` node + the edge's score), starting from 0.0 at the `origins`."""
    score = np.full(nodes, -np.inf)
    score[origins] = 0.0
    for lo, hi, groups, targets in waves.slices:
        e = waves.order[lo:hi]
        score[targets] = _log_sum_groups(score[source[e]] + edge_scores[e], groups)
    return score


class Passes:
    """Forward-backward and Viterbi over the edges of `lattice` that `mask` keeps."""

    def __init__(self, lattice: CorpusLattice, mask: np.ndarray) -> None:
        self.lattice, self.mask = lattice, mask
        self.forward_waves = _waves(lattice, mask, backward=False)
        self._backward_waves: _Waves | None = None

    def forward(self, edge_scores: np.ndarray) -> np.ndarray:
        """alpha[node]: log of the summed weight of all paths from its word's start to it."""
        lat = self.lattice
        return _sum_pass(self.forward_waves, lat.nodes, lat.first_node, lat.start, edge_scores)

    def backward(self, edge_scores: np.ndarray) -> np.ndarray:
        """beta[node]: log of the summed weight of all paths from it to its word's end."""
        if self._backward_waves is None:
            self._backward_waves = _waves(self.lattice, self.mask, backward=True)
        lat = self.lattice
        return _sum_pass(self._backward_waves, lat.nodes, lat.last_node, lat.end, edge_scores)

    def expected_counts(self, log_probs: np.ndarray) -> tuple[np.ndarray, float]:
        """(expected count of each piece over the corpus, corpus log-likelihood): the E-step."""
        lat = self.lattice
        scores = log_probs[lat.piece]
        alpha, beta = self.forward(scores), self.backward(scores)
        z = alpha[lat.last_node]
        e = np.flatnonzero(self.mask)
        posterior = np.exp(alpha[lat.start[e]] + scores[e] + beta[lat.end[e]] - z[lat.word[e]])
        counts = np.bincount(lat.piece[e], weights=posterior * lat.counts[lat.word[e]],
                             minlength=len(log_probs))
        return counts, float(np.dot(lat.counts, z))

    def viterbi(self, log_probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(edges of every word's best path, each word's best score). On a tie the piece that
        starts earliest (the longest) wins, as in unigram.viterbi."""
        lat = self.lattice
        scores = log_probs[lat.piece]
        best = np.full(lat.nodes, -np.inf)
        best[lat.first_node] = 0.0
        back = np.full(lat.nodes, -1, dtype=np.int64)
        waves = self.forward_waves
        for lo, hi, groups, targets in waves.slices:
            e = waves.order[lo:hi]
            values = best[lat.start[e]] + scores[e]
            top = np.maximum.reduceat(values, groups)
            sizes = np.diff(np.append(groups, len(values)))
            position = np.where(values >= np.repeat(top, sizes), np.arange(len(values)), len(e))
            best[targets], back[targets] = top, e[np.minimum.reduceat(position, groups)]
        return _trace(lat, back), best[lat.last_node]


def _trace(lattice: CorpusLattice, back: np.ndarray) -> np.ndarray:
    """The edges of every word's best path, followed back from all word ends at once."""
    current = lattice.last_node.copy()
    current = current[back[current] >= 0]
    found = []
    while len(current):
        edge = back[current]
        found.append(edge)
        current = lattice.start[edge]
        current = current[back[current] >= 0]
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
