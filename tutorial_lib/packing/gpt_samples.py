"""Training samples from an indexed dataset: Megatron's concat-and-cut, and best-fit packing beside
it.

Megatron's GPTDataset never pads. It lays the dataset's documents end to end in a shuffled order,
once per epoch, and cuts that stream into samples of `seq_len + 1` tokens: inputs are the first
`seq_len`, labels the last `seq_len`. Sample k+1 starts where the inputs of sample k end, so the two
share one token (the last label of one is the first input of the next) and every token of the stream
is an input exactly once. Three arrays say all of this, computed once, before any token is read:

- `document_index`: the documents in stream order, each once per epoch, shuffled by numpy's
  RandomState;
- `sample_index`: (n_samples + 1, 2) rows of (position in document_index, token offset in that
  document), one per sample start; sample k runs from row k to row k + 1, plus the one extra token;
- `shuffle_index`: the order the samples are served in, drawn from the same RandomState.

A document boundary can fall anywhere in a sample. Megatron marks it only with the EOD token the
data carries, and three switches decide what the model sees of it: `reset_position_ids`,
`reset_attention_mask` and `eod_mask_loss`. `PackedSamples` is the alternative from `strategies`:
best-fit decreasing puts whole documents into rows (splitting only those longer than a row) and pays
for it in padding.

Both read tokens through the dataset's `get(idx, offset, length)`, so nothing but the sample at hand
leaves the memory map. A "document" here is one sequence of the dataset, as in Megatron's GPT
datasets.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from tutorial_lib._check_data import check_bool, check_dtype, check_has, check_int_rows
from tutorial_lib._checks import check_int, check_type
from tutorial_lib._memory import check_bytes
from tutorial_lib.packing import masks
from tutorial_lib.packing.batch import next_token_labels
from tutorial_lib.packing.masks import PAD, document_mask, position_ids
from tutorial_lib.packing.strategies import PackResult, bfd

SEPARATE_FINAL_EPOCH_BELOW = 0.80  # Megatron shuffles a last epoch alone if less of it is used


@dataclass(frozen=True, eq=False)  # numpy fields: compare by field, not with ==
class Rows:
    """What a training step gets for one sample: every field has `seq_len` entries, the mask L x L.
    """

    tokens: np.ndarray  # the inputs
    labels: np.ndarray  # the targets: tokens shifted by one (IGNORE_INDEX: PackedSamples has none)
    loss_mask: np.ndarray  # bool: True where the target counts in the loss (Megatron: 1.0 / 0.0)
    position_ids: np.ndarray
    segment_ids: np.ndarray  # what the attention mask keeps apart: attention stays inside a segment
    document_ids: np.ndarray  # the dataset document each input token comes from, PAD for padding

    @cached_property
    def attention_mask(self) -> np.ndarray:
        """(L, L), True where query i may attend to key j (Megatron's own mask is the opposite: True
        there means masked out). Built on first use, as it alone grows with L squared."""
        return document_mask(self.segment_ids)

    def runs(self) -> list[Run]:
        """The sample one document run at a time (padding is a run of PAD), with how many of the
        run's inputs have a target that counts in the loss."""
        found = masks.runs(self.document_ids, "document_ids")
        counted = np.add.reduceat(self.loss_mask.astype(np.int64), found.start) \
            if found.start.size else []  # the loss-mask entries of each run, summed
        return [Run(int(d), int(s), int(e), int(c))
                for d, s, e, c in zip(found.id, found.start, found.end, counted)]


class Run(NamedTuple):
    """Inputs start..end - 1 of a sample, all from one dataset document (PAD: padding)."""

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
    cuts: int  # rows holding the rest of a document begun in an earlier row (in Megatron's
    # samples only the first document can be such a rest, so these are the samples whose
    # first token is mid-document; BFD places a split document's rest anywhere in a row)
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
    used.

    Shuffled together with the others, a last epoch cut short would leave some documents read once
    more than the rest anywhere in the run; shuffled apart, every full epoch is read whole before
    it."""
    if check_int(epochs, "epochs", low=1) == 1 or num_samples is None:
        return False
    from_final = check_int(num_samples, "num_samples", low=0) - samples_before_final_epoch(
        tokens_per_epoch, seq_len, epochs)  # which checks tokens_per_epoch and seq_len
    return from_final < int(SEPARATE_FINAL_EPOCH_BELOW * ((tokens_per_epoch - 1) // seq_len))


def samples_before_final_epoch(tokens_per_epoch: int, seq_len: int, epochs: int) -> int:
    """The samples that end before the last epoch starts (the - 1: a sample reads one token past
    its end); none with one epoch."""
    tokens_per_epoch = check_int(tokens_per_epoch, "tokens_per_epoch", low=1)
    seq_len = check_int(seq_len, "seq_len", low=1)
    epochs = check_int(epochs, "epochs", low=1)
    return max(0, ((epochs - 1) * tokens_per_epoch - 1) // seq_len)


def build_document_index(n_documents: int, epochs: int, rng: np.random.RandomState | int,
                         separate_final: bool = False) -> np.ndarray:
    """Every document once per epoch, all epochs shuffled together (int32, as Megatron keeps it).

    With `separate_final` the last epoch is shuffled alone and put last, so it is read only after
    the others. The draws from `rng` (a RandomState, or an int seed for a new one) are Megatron's,
    so the same seed gives the same order.
    """
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
    document).

    Sample k starts k * seq_len tokens into the stream and ends seq_len + 1 tokens later. A start
    that lands on a document boundary belongs to the document that begins there (empty documents are
    skipped), and the last incomplete sample is dropped. Same numbers as Megatron's
    `build_sample_idx` in helpers.cpp, which walks the documents one by one; here a cumulative sum
    and a binary search do it.
    """
    seq_len = check_int(seq_len, "seq_len", low=1)
    check_dtype(document_index, "document_index", "iu", "an array of int")
    sizes = check_int_rows(check_dtype(sizes, "sizes", "iu", "an array of int"), "sizes", low=0,
                           ndim=(1,))
    # a position of -1 would wrap to the last document, one past the end fail inside numpy
    check_int_rows(document_index, "document_index", low=0, high=len(sizes) - 1, ndim=(1,))
    lengths = sizes[document_index]  # the documents in stream order, one entry per epoch read
    ends = np.cumsum(lengths)  # where each document ends in the stream
    total = int(ends[-1]) if len(ends) else 0
    if total < 2:
        raise ValueError(f"the documents must hold at least 2 tokens to make a sample, got {total}")
    # sample k starts at token k * seq_len of the stream; every start is < total, so the token after
    # the last sample's seq_len inputs (its last target) still exists: the incomplete tail is
    # dropped
    starts = np.arange((total - 1) // seq_len + 1, dtype=np.int64) * seq_len
    # the document a start falls in: the first whose end lies past it (side="right" skips empty
    # documents and hands a start on a boundary to the document that begins there)
    position = np.searchsorted(ends, starts, side="right")
    position[0] = 0  # the first sample starts at the first document, even an empty one
    offset = starts - (ends - lengths)[position]  # tokens into that document
    return np.stack([position, offset], axis=1)


def samples_of_document(sample_index: np.ndarray, position: int) -> np.ndarray:
    """The samples that read the document at `position` of the document index, in order.

    Sample j reads from row j of the sample index through row j + 1, both ends included: its
    seq_len + 1 tokens end on the first token of sample j + 1. So it reads every document from
    position sample_index[j, 0] to sample_index[j + 1, 0], even one of which it only sees that last
    token (an empty document in between counts as read: it has no token to miss).
    """
    index = check_dtype(sample_index, "sample_index", "iu", "an array of int")
    if index.ndim != 2 or index.shape[1] != 2:
        raise ValueError(f"sample_index must have shape (n_samples + 1, 2), got {index.shape}")
    position = check_int(position, "position", low=0)
    return np.flatnonzero((index[:-1, 0] <= position) & (position <= index[1:, 0]))


def build_shuffle_index(num_samples: int, total: int, rng: np.random.RandomState) -> np.ndarray:
    """A permutation of range(total) in which the first `num_samples` and the rest are shuffled
    separately.

    (Shuffling an empty rest draws nothing from `rng`, so Megatron's early return for it changes no
    number.)
    """
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
    """Refuse indices larger than this machine's memory before numpy tries to allocate them."""
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

    `num_samples=None` reads one epoch; a number reads as many epochs as it takes (the index then
    holds every sample of those epochs, as Megatron's does). `seed` is Megatron's `random_seed` (its
    `--seed` defaults to 1234). `eod_id` is needed by the three switches, which work as in
    Megatron's `_get_ltor_masks_and_position_ids`, on the input tokens:

    - `reset_position_ids`: positions restart at 0 after every EOD input (the EOD keeps its
      document's);
    - `reset_attention_mask`: no position attends across an EOD input (the EOD ends its document);
    - `eod_mask_loss`: no loss where the input is EOD, i.e. on predicting the next document's first
      token.
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
                             "reset_attention_mask or eod_mask_loss is on: they all look for the "
                             "EOD token")
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
        return len(self.sample_index) - 1

    def text(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """The `seq_len + 1` tokens of the i-th sample served (through the shuffle index), and the
        document of each, read part by part from the memory map as Megatron's
        `_query_document_sample_shuffle_indices`."""
        k = int(self.shuffle_index[check_int(i, "i", low=0, high=len(self) - 1)])
        (first, first_offset), (last, last_offset) = self.sample_index[k], self.sample_index[k + 1]
        parts, docs = [], []
        for position in range(first, last + 1):
            doc = int(self.document_index[position])
            offset = int(first_offset) if position == first else 0
            length = int(last_offset) + 1 - offset if position == last else None
            parts.append(self.dataset.get(doc, offset, length))
            docs.append(np.full(len(parts[-1]), doc, dtype=np.int64))
        return np.concatenate(parts).astype(np.int64), np.concatenate(docs)

    def sample(self, i: int) -> Rows:
        """The i-th sample served, with the masks and position ids Megatron's `__getitem__` gives.
        """
        text, docs = self.text(i)
        tokens = text[:-1]
        none = np.zeros(self.seq_len, dtype=bool)
        is_eod = tokens == self.eod_id if self.eod_id is not None else none
        after_eod = np.cumsum(is_eod) - is_eod  # EODs before each position: segments end on EOD
        return Rows(
            tokens=tokens,
            labels=text[1:],
            loss_mask=~is_eod if self.eod_mask_loss else np.ones(self.seq_len, dtype=bool),
            position_ids=position_ids(after_eod) if self.reset_position_ids
            else np.arange(self.seq_len),
            segment_ids=after_eod if self.reset_attention_mask
            else np.zeros(self.seq_len, dtype=np.int64),
            document_ids=docs[:-1],
        )

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
    epoch.

    A row holds whole documents (a document longer than a row is split, or cut to one row with
    `long_docs="truncate"`) and padding at its end. Each document is on its own: the attention mask
    is block-diagonal, position ids restart at every document, and the label of a document's last
    token is IGNORE_INDEX instead of the next document's first. Empty documents take no place.
    `packing` is the `PackResult`, over the non-empty documents (`documents` maps its document
    numbers back to the dataset's).
    """

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
        """The `seq_len + 1` cells of row i read from the memory map (0 in padding), and the dataset
        document of each (PAD in padding)."""
        row = np.zeros(self.packing.width, dtype=np.int64)
        docs = np.full(self.packing.width, PAD, dtype=np.int64)
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
                    loss_mask=masks.loss_mask(docs)[:-1], position_ids=position_ids(docs[:-1]),
                    segment_ids=docs[:-1], document_ids=docs[:-1])

    def cost(self) -> Cost:
        p = self.packing
        continued = p.seg_offset > 0
        return Cost(rows=p.n_rows, tokens=p.n_tokens, kept=p.placed, padding=p.padding,
                    cuts=len(np.unique(p.seg_row[continued])),  # rows, not pieces: one row
                    cut_tokens=int(p.seg_length[continued].sum()))  # may hold two rests
