"""Bits per byte: a small n-gram language model over a tokenizer's ids, scored per UTF-8 byte.

Why per byte. A model's loss per token, the mean of -log p(token | what came before), is not in one
unit across tokenizers: one with longer tokens has fewer, bigger guesses to make, so its loss per
token goes *up* while its token count goes down. The total information of the text is

    total bits = (bits / token) * tokens,  so  bits / byte = (bits / token) / (bytes / token)

and divided by the text's UTF-8 bytes, which every tokenizer shares, it is one scale: bits per byte
(bpb). `Evaluation` keeps the parts (`tokens`, `bytes`, `nll_bits`) so each side can be shown;
`from_loss` computes bpb from what a training log has (mean loss in nats, tokens, bytes).

The model. Interpolated Witten-Bell smoothing (Witten & Bell 1991, in the form of Chen & Goodman's
1998 survey), of order 1, 2 or 3. With h a history, h' the history one token shorter, c(h w) the
training count of h followed by w, c(h) = sum_w c(h w) and T(h) the distinct tokens seen after h:

    P(w | h) = (c(h w) + T(h) * P(w | h')) / (c(h) + T(h))    if c(h) > 0,  else P(w | h')

bottoming out in the uniform 1/V. Why this smoothing: no parameter to tune (a tuned discount would
favour whichever tokenizer it was tuned on), one line per level, and a proper distribution by
construction: P(. | h) sums to (c(h) + T(h)) / (c(h) + T(h)) = 1 over all V ids, seen or not.
(Kneser-Ney scores a little better but needs discounts; for comparing tokenizers on the same data
the simpler estimator is enough.)

Each document starts fresh from a start state (the id V, only ever a context), so the model learns
how documents begin; no end-of-document token is predicted, only the tokens whose bytes bpb divides
by. The total is an exact sum (`math.fsum`), so the same documents in any order give the same bpb.

Limits, said plainly. One or two tokens of context put an n-gram's bpb far above a neural model's,
and sparsity grows with the vocabulary: the more ids, the fewer held-out trigrams occurred in a
small training text, and the more the smoothing decides (`Evaluation.seen` counts the seen ones; a
trigram can score worse than a bigram, benchmarks/bench_bpb.py measures both). Read this bpb as a
comparison of tokenizers on the same training and evaluation text, not as the quality a language
model on those tokens would reach.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence

import numpy as np

from tutorial_lib._check_data import check_int_rows, check_number, check_same_length, check_str_list
from tutorial_lib._checks import (check_choice, check_int, check_int_list, check_sequence,
                                  check_type)
from tutorial_lib.text.measure import Segmenter

ORDERS = (1, 2, 3)
# Keys pack a history and the next id into one int64: (V + 1) ** 2 * V must stay below 2**63.
MAX_VOCAB_SIZE = 2**20


@dataclass(frozen=True)
class _Level:
    """The counts of one order, as sorted arrays: events are history * V + id, histories their
    first part; c(h w), c(h) and T(h) are found with searchsorted, never in a V x V table."""

    events: np.ndarray
    event_counts: np.ndarray
    histories: np.ndarray
    history_counts: np.ndarray  # c(h)
    history_types: np.ndarray  # T(h)


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The loss of a model on some documents, in every unit a comparison needs.

    `nll_bits` holds each token's -log2 p, in document order; `seen[k - 1]` is how many tokens had
    their k-gram (history and token) in the training data.
    """

    documents: int
    tokens: int
    bytes: int
    seen: tuple[int, ...]
    nll_bits: np.ndarray = field(repr=False, compare=False)

    @cached_property
    def total_bits(self) -> float:
        """The total negative log2-likelihood of the documents (correctly rounded sum)."""
        return math.fsum(self.nll_bits.tolist())

    @property
    def bits_per_token(self) -> float:
        return self.total_bits / self.tokens

    @property
    def nats_per_token(self) -> float:
        """The loss per token as a training loop prints it (natural log)."""
        return self.bits_per_token * math.log(2)

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens

    @property
    def bits_per_byte(self) -> float:
        """Total bits / total UTF-8 bytes: the one number comparable across tokenizers."""
        return from_loss(self.nats_per_token, self.tokens, self.bytes)


def from_loss(mean_loss_nats: float, tokens: int, n_bytes: int) -> float:
    """Bits per byte from what a training run reports: its mean loss per token in nats (as
    cross-entropy losses are), how many tokens that mean is over, and the UTF-8 bytes of their text:
    mean_loss_nats * tokens nats, / ln 2 bits, / bytes."""
    mean_loss_nats = check_number(mean_loss_nats, "mean_loss_nats", low=0)
    tokens = check_int(tokens, "tokens", low=1)
    n_bytes = check_int(n_bytes, "n_bytes", low=1)
    return mean_loss_nats * tokens / math.log(2) / n_bytes


class NgramModel:
    """An interpolated Witten-Bell n-gram model over the ids 0..vocab_size-1 (see the module)."""

    def __init__(self, vocab_size: int, order: int, levels: list[_Level]) -> None:
        self.vocab_size, self.order, self.levels = vocab_size, order, levels

    def __repr__(self) -> str:
        return f"NgramModel(vocab_size={self.vocab_size}, order={self.order})"

    @classmethod
    def train(cls, documents: Sequence[Sequence[int]], vocab_size: int,
              order: int = 3) -> NgramModel:
        """Count the 1-, 2-, ... order-grams of `documents` (each a list of ids), each document
        starting from the start state."""
        vocab_size = check_int(vocab_size, "vocab_size", low=1, high=MAX_VOCAB_SIZE)
        order = check_choice(check_int(order, "order"), "order", ORDERS)
        ids, histories, _ = _positions(documents, "documents", vocab_size, order)
        if not ids.size:
            raise ValueError("documents must hold at least one token to train on, got none")
        return cls(vocab_size, order, [_count(h, ids, vocab_size) for h in histories])

    def evaluate(self, documents: Sequence[Sequence[int]], doc_bytes: Sequence[int]
                 ) -> Evaluation:
        """Score `documents` (lists of ids); `doc_bytes[i]` is the UTF-8 size of document i's text.

        A document with tokens must have bytes, and there must be some tokens: bits per token and
        per byte divide by both.
        """
        ids, histories, lengths = _positions(documents, "documents", self.vocab_size, self.order)
        doc_bytes = _check_bytes(doc_bytes, lengths)
        probs, seen = self._probs(histories, ids)
        # math.log2 one value at a time: an array log may round a value differently depending on
        # where it sits in the array (vector lanes vs the tail), and the sum must not depend on it.
        nll = np.fromiter((-math.log2(p) for p in probs.tolist()), np.float64, len(probs))
        nll.flags.writeable = False  # an Evaluation caches its total: its values must not change
        return Evaluation(len(lengths), int(ids.size), sum(doc_bytes), seen, nll)

    def _probs(self, histories: list[np.ndarray], ids: np.ndarray
               ) -> tuple[np.ndarray, tuple[int, ...]]:
        """P(ids[i] | histories[.][i]) from the uniform up through each order, and how many ids
        had their k-gram seen at each order k."""
        v = self.vocab_size
        probs = np.full(ids.shape, 1.0 / v)
        seen = []
        for level, history in zip(self.levels, histories):
            c_hw, found = _lookup(level.events, level.event_counts, history * v + ids)
            c_h, _ = _lookup(level.histories, level.history_counts, history)
            t_h, _ = _lookup(level.histories, level.history_types, history)
            # Witten-Bell: (c(h w) + T(h) P_lower(w)) / (c(h) + T(h)); an unseen h keeps P_lower.
            known = c_h > 0
            mixed = (c_hw + t_h * probs) / np.where(known, c_h + t_h, 1)
            probs = np.where(known, mixed, probs)
            seen.append(int(found.sum()))
        return probs, tuple(seen)


# --- documents as positions ----------------------------------------------------------------------


def _positions(documents: object, name: str, vocab_size: int, order: int
               ) -> tuple[np.ndarray, list[np.ndarray], list[int]]:
    """Every token of `documents` in one array; for k = 0..order-1 the key of each token's history
    of k ids (the start state V before a document's first token); and the documents' lengths."""
    docs = check_sequence(documents, name, "a list of documents (lists of ids)")
    rows = [check_int_rows(doc, f"{name}[{i}]", low=0, high=vocab_size - 1, ndim=(1,))
            for i, doc in enumerate(docs)]
    ids = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    lengths = [len(row) for row in rows]
    # Where each token sits in its document: the ids before position 0 are the start state.
    starts = np.cumsum(lengths, dtype=np.int64) - lengths
    where = np.arange(ids.size) - np.repeat(starts, lengths)
    histories = [np.zeros(ids.size, np.int64)]  # k = 0: the empty history, one key for all
    for k in range(1, order):
        back = np.concatenate([np.full(k, vocab_size), ids])[:ids.size]  # the id k places back
        back = np.where(where >= k, back, vocab_size)
        # the oldest id is the most significant digit, in base V + 1 (ids and the start state)
        histories.append(back * (vocab_size + 1) ** (k - 1) + histories[-1])
    return ids, histories, lengths


def _count(histories: np.ndarray, ids: np.ndarray, vocab_size: int) -> _Level:
    """c(h w), c(h) and T(h) for one order, from the history key of every training token."""
    events, event_counts = np.unique(histories * vocab_size + ids, return_counts=True)
    # events are sorted by history first, so each history's events are one run of the array
    owners = events // vocab_size
    hists, first, types = np.unique(owners, return_index=True, return_counts=True)
    return _Level(events, event_counts, hists, np.add.reduceat(event_counts, first), types)


def _lookup(keys: np.ndarray, values: np.ndarray, queries: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray]:
    """values[keys == q] for each query (0 where absent), and whether it was present."""
    at = np.minimum(np.searchsorted(keys, queries), keys.size - 1)
    found = keys[at] == queries
    return np.where(found, values[at], 0), found


def _check_bytes(doc_bytes: object, lengths: list[int]) -> list[int]:
    doc_bytes = check_int_list(doc_bytes, "doc_bytes", low=0)
    check_same_length(documents=lengths, doc_bytes=doc_bytes)
    for i, (n, size) in enumerate(zip(lengths, doc_bytes)):
        if n and not size:
            raise ValueError(f"doc_bytes[{i}] must be >= 1 for a document with {n} tokens, got 0")
    if not sum(lengths):  # then, by the check above, there are bytes to divide by too
        raise ValueError("documents must hold at least one token to evaluate, got none")
    return doc_bytes


# --- any tokenizer the course knows ---------------------------------------------------------------


def encode_documents(segmenter: Segmenter, texts: Sequence[str]
                     ) -> tuple[list[list[int]], list[int]]:
    """(ids of each text, UTF-8 bytes of each text) with `segmenter`: the input of `evaluate`."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter (compare.from_tiktoken, ...)")
    texts = check_str_list(texts, "texts")
    ids = [list(segmenter.encode(text)) for text in texts]
    return ids, [len(text.encode("utf-8")) for text in texts]


def evaluate_tokenizer(segmenter: Segmenter, train_texts: Sequence[str],
                       eval_texts: Sequence[str], order: int = 3) -> Evaluation:
    """Train an n-gram model of `order` on `train_texts` tokenized by `segmenter`, score
    `eval_texts`: each text is one document, the vocabulary is the segmenter's whole one."""
    train_ids, _ = encode_documents(segmenter, train_texts)
    eval_ids, eval_bytes = encode_documents(segmenter, eval_texts)
    model = NgramModel.train(train_ids, segmenter.vocab_size, order)
    return model.evaluate(eval_ids, eval_bytes)
