"""Training samples from an indexed dataset: Megatron's concat-and-cut, and best-fit packing beside
it.

Megatron's GPTDataset never pads. It lays the documents end to end in a shuffled order, once per
epoch, and cuts that stream into samples of `seq_len + 1` tokens (inputs the first `seq_len`, labels
the last `seq_len`), each starting where the inputs of the one before end. Three arrays, computed
before any token is read, say all of this: `document_index` (the documents in stream order, each
once per epoch, shuffled by numpy's RandomState), `sample_index` (where each sample starts: position
in document_index, token offset in that document) and `shuffle_index` (the order samples are
served in). `PackedSamples` is the alternative from `strategies`: whole documents, paid for in
padding. Both read through the dataset's `get(idx, offset, length)`: only the sample at hand leaves
the memory map.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_bool, check_dtype, check_has, check_int_rows
from tutorial_lib._checks import check_int, check_type
from tutorial_lib._memory import check_bytes
from tutorial_lib.packing.batch import next_token_labels
from tutorial_lib.packing.masks import PAD_DOC, document_mask, loss_mask, position_ids, runs
from tutorial_lib.packing.strategies import PackResult, bfd

SEPARATE_FINAL_EPOCH_BELOW = 0.80  # Megatron shuffles a last epoch alone if less of it is used


@dataclass(frozen=True, eq=False)  # numpy fields: compare by field, not with ==
class Rows:
    """What a training step gets for one sample: every field has `seq_len` entries."""
    tokens: np.ndarray  # the inputs
    labels: np.ndarray  # the targets: tokens shifted by one (IGNORE_INDEX: PackedSamples has none)
    loss_mask: np.ndarray  # bool: True where the target counts in the loss (Megatron: 1.0 / 0.0)
    position_ids: np.ndarray
    segment_ids: np.ndarray  # what the attention mask keeps apart: attention stays inside a segment
    document_ids: np.ndarray  # the dataset document each input token comes from (PAD_DOC: padding)

    @cached_property
    def attention_mask(self) -> np.ndarray:
        """(L, L), True = may attend (Megatron's True means masked out); built on first use."""
        return document_mask(self.segment_ids)

    def runs(self) -> list[Run]:
        """The sample one document run at a time (padding is a run of PAD_DOC)."""
        found = runs(self.document_ids, "document_ids")
        counted = np.add.reduceat(self.loss_mask.astype(np.int64), found.start) \
            if found.start.size else []  # the loss-mask entries of each run, summed
        return [Run(int(d), int(s), int(e), int(c))
                for d, s, e, c in zip(found.id, found.start, found.end, counted)]


class Run(NamedTuple):
    """Inputs start..end - 1 of a sample, all from one dataset document (PAD_DOC: padding)."""
    document: int
    start: int
    end: int
    targets: int  # of these inputs, the ones whose target counts in the loss

    @property
    def length(self) -> int:
        return self.end - self.start


class Cost(NamedTuple):
    """What a way of cutting the dataset into rows of `seq_len + 1` tokens keeps and loses."""
    rows: int
    tokens: int  # tokens on offer: the dataset's, times the epochs read
    kept: int  # of them, the tokens that appear in some row
    padding: int  # row cells that hold no token
    cuts: int  # rows holding the rest of a document begun in an earlier row
    cut_tokens: int  # tokens of such a row's continued document: its start is out of their sight


# --- Megatron's three indices -----------------------------------------------------------------
def num_epochs(tokens_per_epoch: int, seq_len: int, num_samples: int | None) -> int:
    """How many passes over the documents it takes to cut `num_samples` samples (1 for None)."""
    tokens_per_epoch = check_int(tokens_per_epoch, "tokens_per_epoch", low=1)
    seq_len = check_int(seq_len, "seq_len", low=1)
    if num_samples is None:
        return 1
    needed = check_int(num_samples, "num_samples", low=0) * seq_len + 1  # + 1: the last target
    return max(1, -(-needed // tokens_per_epoch))


def separate_final_epoch(tokens_per_epoch: int, seq_len: int, num_samples: int | None,
                         epochs: int) -> bool:
    """Whether the last epoch is shuffled on its own, as Megatron does when less than 80% of it is
    used: then every full epoch is read whole before it."""
    if check_int(epochs, "epochs", low=1) == 1 or num_samples is None:
        return False
    from_final = check_int(num_samples, "num_samples", low=0) - samples_before_final_epoch(
        tokens_per_epoch, seq_len, epochs)  # which checks tokens_per_epoch and seq_len
    return from_final < int(SEPARATE_FINAL_EPOCH_BELOW * ((tokens_per_epoch - 1) // seq_len))


def samples_before_final_epoch(tokens_per_epoch: int, seq_len: int, epochs: int) -> int:
    """The samples that end before the last epoch starts; none with one epoch."""
    tokens_per_epoch = check_int(tokens_per_epoch, "tokens_per_epoch", low=1)
    seq_len = check_int(seq_len, "seq_len", low=1)
    epochs = check_int(epochs, "epochs", low=1)
    return max(0, ((epochs - 1) * tokens_per_epoch - 1) // seq_len)


def build_document_index(n_documents: int, epochs: int, rng: np.random.RandomState | int,
                         separate_final: bool = False) -> np.ndarray:
    """Every document once per epoch, shuffled with Megatron's draws from `rng` (or an int seed);
    with `separate_final` the last epoch is shuffled alone and put last."""
    n_documents = check_int(n_documents, "n_documents", low=0)
    epochs = check_int(epochs, "epochs", low=1)
    rng = _random_state(rng)
    if check_bool(separate_final, "separate_final") and epochs > 1:
        return np.concatenate([build_document_index(n_documents, epochs - 1, rng),
                               build_document_index(n_documents, 1, rng)])
    index = np.tile(np.arange(n_documents, dtype=np.int32), epochs)
    rng.shuffle(index)
    return index


def build_sample_index(sizes: np.ndarray, document_index: np.ndarray, seq_len: int) -> np.ndarray:
    """(n_samples + 1, 2): where each sample starts, as (position in document_index, offset in that
    document): Megatron's `build_sample_idx`, by a cumulative sum and a binary search."""
    seq_len = check_int(seq_len, "seq_len", low=1)
    check_dtype(document_index, "document_index", "iu", "an array of int")
    sizes = check_int_rows(check_dtype(sizes, "sizes", "iu", "an array of int"), "sizes", low=0,
                           ndim=(1,))
    check_int_rows(document_index, "document_index", low=0, high=len(sizes) - 1, ndim=(1,))
    lengths = sizes[document_index]  # the documents in stream order, one entry per epoch read
    ends = np.cumsum(lengths)  # where each document ends in the stream
    total = int(ends[-1]) if len(ends) else 0
    if total < 2:
        raise ValueError(f"the documents must hold at least 2 tokens to make a sample, got {total}")
    # sample k starts at token k * seq_len; every start < total: each sample's last target exists
    starts = np.arange((total - 1) // seq_len + 1, dtype=np.int64) * seq_len
    # the document a start falls in: the first ending past it (a start on a boundary: the next)
    position = np.searchsorted(ends, starts, side="right")
    position[0] = 0  # the first sample starts at the first document, even an empty one
    offset = starts - (ends - lengths)[position]  # tokens into that document
    return np.stack([position, offset], axis=1)


def samples_of_document(sample_index: np.ndarray, position: int) -> np.ndarray:
    """The samples that read the document at `position` of the document index: sample j reads
    rows j through j + 1 of the sample index, both included (its last target begins sample j + 1).
    """
    index = check_dtype(sample_index, "sample_index", "iu", "an array of int")
    if index.ndim != 2 or index.shape[1] != 2:
        raise ValueError(f"sample_index must have shape (n_samples + 1, 2), got {index.shape}")
    position = check_int(position, "position", low=0)
    return np.flatnonzero((index[:-1, 0] <= position) & (position <= index[1:, 0]))


def build_shuffle_index(num_samples: int, total: int, rng: np.random.RandomState) -> np.ndarray:
    """A permutation of range(total) in which the first `num_samples` and the rest are shuffled
    separately (shuffling an empty rest draws nothing from `rng`, as in Megatron)."""
    total = check_int(total, "total", low=0)
    num_samples = check_int(num_samples, "num_samples", low=0, high=total)
    rng = _random_state(rng)
    dtype = np.uint32 if total < np.iinfo(np.uint32).max - 1 else np.int64
    first, last = np.arange(num_samples, dtype=dtype), np.arange(num_samples, total, dtype=dtype)
    rng.shuffle(first)
    rng.shuffle(last)
    return np.concatenate([first, last])


def _random_state(rng: object) -> np.random.RandomState:  # Megatron's; an int is its seed
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.RandomState(check_int(rng, "rng", low=0, high=2**32 - 1))
    return check_type(rng, "rng", np.random.RandomState,
                      "a np.random.RandomState (Megatron's draws) or an int seed")


def _check_index_memory(n_documents: int, tokens_per_epoch: int, seq_len: int,
                        epochs: int) -> None:
    samples = (epochs * tokens_per_epoch - 1) // seq_len
    # the peak: 48 bytes a sample (starts, positions, offsets, the index) and 20 a document read
    check_bytes(48 * samples + 20 * n_documents * epochs,
                f"num_samples takes {epochs:,} epochs, {samples:,} samples in all, whose indices "
                "would need about", "; ask for fewer samples")


def _check_dataset(dataset: object) -> np.ndarray:
    check_has(dataset, "dataset", ("sequence_lengths", "get"), "an IndexedDataset")
    return np.asarray(dataset.sequence_lengths, dtype=np.int64)


# --- Megatron's samples -----------------------------------------------------------------------
class GPTSamples:
    """Megatron's GPTDataset over an IndexedDataset: the same indices, the same samples, in numpy.

    `num_samples=None` reads one epoch. `seed` is Megatron's `random_seed` (`--seed` 1234). The
    three switches work as Megatron's `_get_ltor_masks_and_position_ids` on the input tokens and
    need `eod_id`: positions restart after every EOD (`reset_position_ids`), no position attends
    across one (`reset_attention_mask`), no loss where the input is EOD (`eod_mask_loss`).
    """

    def __init__(self, dataset: object, seq_len: int, *, num_samples: int | None = None,
                 seed: int = 1234, eod_id: int | None = None, reset_position_ids: bool = False,
                 reset_attention_mask: bool = False, eod_mask_loss: bool = False) -> None:
        self.sizes = _check_dataset(dataset)
        self.dataset = dataset
        self.seq_len = check_int(seq_len, "seq_len", low=1)
        self.reset_position_ids = check_bool(reset_position_ids, "reset_position_ids")
        self.reset_attention_mask = check_bool(reset_attention_mask, "reset_attention_mask")
        self.eod_mask_loss = check_bool(eod_mask_loss, "eod_mask_loss")
        if eod_id is None and (reset_position_ids or reset_attention_mask or eod_mask_loss):
            raise ValueError("eod_id must be given (an int >= 0) when reset_position_ids, "
                             "reset_attention_mask or eod_mask_loss is on: they look for EOD")
        self.eod_id = None if eod_id is None else check_int(eod_id, "eod_id", low=0)
        self.tokens_per_epoch = int(self.sizes.sum())
        if self.tokens_per_epoch < 2:
            raise ValueError(f"dataset must hold at least 2 tokens to make a sample, got "
                             f"{self.tokens_per_epoch}")
        self.num_epochs = num_epochs(self.tokens_per_epoch, self.seq_len, num_samples)
        _check_index_memory(len(self.sizes), self.tokens_per_epoch, self.seq_len, self.num_epochs)
        separate = separate_final_epoch(self.tokens_per_epoch, self.seq_len, num_samples,
                                        self.num_epochs)
        rng = np.random.RandomState(check_int(seed, "seed", low=0, high=2**32 - 1))
        self.document_index = build_document_index(len(self.sizes), self.num_epochs, rng, separate)
        self.sample_index = build_sample_index(self.sizes, self.document_index, self.seq_len)
        n = len(self.sample_index) - 1
        first = samples_before_final_epoch(self.tokens_per_epoch, self.seq_len, self.num_epochs) \
            if separate else n
        self.shuffle_index = build_shuffle_index(first, n, rng)

    def __len__(self) -> int:
        return len(self.sample_index) - 1  # the last row only ends the last sample

    def text(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The `seq_len + 1` tokens of the i-th sample served, and the document of each, read part
        by part from the memory map as Megatron's `_query_document_sample_shuffle_indices`."""
        k = int(self.shuffle_index[check_int(i, "i", low=0, high=len(self) - 1)])
        (first, first_offset), (last, last_offset) = self.sample_index[k], self.sample_index[k + 1]
        parts, docs = [], []
        for position in range(first, last + 1):  # every document the sample reads, in order
            doc = int(self.document_index[position])
            offset = int(first_offset) if position == first else 0
            length = int(last_offset) + 1 - offset if position == last else None
            parts.append(self.dataset.get(doc, offset, length))
            docs.append(np.full(len(parts[-1]), doc, dtype=np.int64))
        return np.concatenate(parts).astype(np.int64), np.concatenate(docs)

    def sample(self, i: int) -> Rows:
        """The i-th sample served, with the masks and position ids of Megatron's `__getitem__`."""
        text, docs = self.text(i)
        tokens, n = text[:-1], self.seq_len
        is_eod = tokens == self.eod_id if self.eod_id is not None else np.zeros(n, dtype=bool)
        after_eod = np.cumsum(is_eod) - is_eod  # EODs before each position: segments end on EOD
        return Rows(tokens=tokens, labels=text[1:],
                    loss_mask=~is_eod if self.eod_mask_loss else np.ones(n, dtype=bool),
                    position_ids=position_ids(after_eod) if self.reset_position_ids
                    else np.arange(n),
                    segment_ids=after_eod if self.reset_attention_mask
                    else np.zeros(n, dtype=np.int64),
                    document_ids=docs[:-1])

    def cost(self) -> Cost:
        """Megatron's cost: no padding, one stream cut every `seq_len` tokens, the tail dropped."""
        n = len(self)
        position, offset = self.sample_index[:-1].T
        continued = offset > 0
        left = self.sizes[self.document_index[position[continued]]] - offset[continued]
        tokens = self.num_epochs * self.tokens_per_epoch
        return Cost(rows=n, tokens=tokens, kept=n * self.seq_len + 1 if n else 0, padding=0,
                    cuts=int(continued.sum()),
                    cut_tokens=int(np.minimum(left, self.seq_len + 1).sum()))


# --- the packed alternative -------------------------------------------------------------------
class PackedSamples:
    """The same documents packed by best-fit decreasing into rows of `seq_len + 1` tokens, one
    epoch, each document on its own (block-diagonal mask, restarting positions, no label for its
    last token). `packing` is over the non-empty documents; `documents` maps them back."""

    def __init__(self, dataset: object, seq_len: int, *, long_docs: str = "split") -> None:
        sizes = _check_dataset(dataset)
        self.dataset = dataset
        self.seq_len = check_int(seq_len, "seq_len", low=1)
        self.documents = np.flatnonzero(sizes > 0)
        long = np.flatnonzero(sizes > self.seq_len + 1)
        if long_docs == "error" and long.size:  # bfd sees only the non-empty ones: name it here
            raise ValueError(f"dataset sequence {long[0]} has {sizes[long[0]]} tokens, more than a "
                             f"row of {self.seq_len + 1}; choose long_docs='split' or 'truncate'")
        self.packing: PackResult = bfd(sizes[self.documents], self.seq_len, long_docs=long_docs,
                                       next_token=True)

    def __len__(self) -> int:
        return self.packing.n_rows

    def text(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The `seq_len + 1` cells of row i (0 in padding), and the document of each (PAD_DOC)."""
        row = np.zeros(self.packing.width, dtype=np.int64)
        docs = np.full(self.packing.width, PAD_DOC, dtype=np.int64)
        start = 0
        for doc, offset, length in self.packing.segments(i):
            doc = int(self.documents[doc])
            row[start:start + length] = self.dataset.get(doc, offset, length)
            docs[start:start + length] = doc
            start += length
        return row, docs

    def sample(self, i: int) -> Rows:
        """Row i split into inputs and labels, each document on its own."""
        row, docs = self.text(i)
        return Rows(tokens=row[:-1], labels=next_token_labels(row, docs)[:-1],
                    loss_mask=loss_mask(docs)[:-1], position_ids=position_ids(docs[:-1]),
                    segment_ids=docs[:-1], document_ids=docs[:-1])

    def cost(self) -> Cost:
        p = self.packing
        continued = p.seg_offset > 0
        return Cost(rows=p.n_rows, tokens=p.n_tokens, kept=p.placed, padding=p.padding,
                    cuts=len(np.unique(p.seg_row[continued])),  # rows, not pieces: one row
                    cut_tokens=int(p.seg_length[continued].sum()))  # may hold two rests
