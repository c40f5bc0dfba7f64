"""Megatron's sample index and sample masks against plain ports of Megatron's own loops, and the packed
alternative against the tokens it was given."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing import gpt_samples as G
from tutorial_lib.packing.batch import IGNORE_INDEX, next_token_labels
from tutorial_lib.packing.masks import PAD_DOC, position_ids
from tutorial_lib.packing.gpt_samples import GPTSamples, PackedSamples
from tutorial_lib.packing.megatron import write_dataset
from tutorial_lib.packing.strategies import bfd

EOD = 0


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    """A function that writes documents to a fresh .bin/.idx pair and opens it (session-scoped, so hypothesis
    can call it once per example)."""
    folder, count = tmp_path_factory.mktemp("gpt_samples"), iter(range(10**9))

    def write(documents):
        return write_dataset(folder / f"corpus{next(count)}", documents)
    return write


def distinct_documents(lengths):
    """Documents of the given lengths whose tokens are all distinct (1, 2, 3, ...), so order shows."""
    ends = np.cumsum(lengths, dtype=np.int64)
    return [np.arange(end - n, end) + 1 for n, end in zip(lengths, ends)]


# --- plain ports of Megatron's code, the references ---------------------------------------------------------


def reference_sample_idx(sizes, document_idx, seq_length, num_epochs, tokens_per_epoch):
    """helpers.cpp build_sample_idx (drop_last_partial_sequence=True, add_extra_token_to_sequence=1), line by line."""
    extra = 1
    num_samples = (num_epochs * tokens_per_epoch - extra) // seq_length
    sample_idx = [(0, 0)]
    document_idx_index, doc_offset = 0, 0
    while len(sample_idx) <= num_samples:
        remaining = seq_length + extra
        while remaining != 0:
            document_length = sizes[document_idx[document_idx_index]] - doc_offset
            remaining -= document_length
            if remaining <= 0:
                doc_offset += remaining + document_length - extra
                remaining = 0
            else:
                assert document_idx_index != len(document_idx) - 1
                document_idx_index += 1
                doc_offset = 0
        sample_idx.append((document_idx_index, doc_offset))
    return np.array(sample_idx, dtype=np.int64)


def reference_document_index(documents, num_epochs, rng, separate_final_epoch):
    """gpt_dataset.py _build_document_index."""
    if not separate_final_epoch or num_epochs == 1:
        document_index = np.mgrid[0:num_epochs, 0:len(documents)][1]
        document_index[:] = documents
        document_index = document_index.reshape(-1).astype(np.int32)
        rng.shuffle(document_index)
        return document_index
    first = reference_document_index(documents, num_epochs - 1, rng, False)
    return np.concatenate((first, reference_document_index(documents, 1, rng, False)))


def reference_num_epochs(tokens_per_epoch, seq_length, num_samples):
    """gpt_dataset.py _get_num_epochs."""
    num_epochs, num_tokens = 1, tokens_per_epoch
    while num_tokens < num_samples * seq_length + 1:
        num_epochs += 1
        num_tokens += tokens_per_epoch
    return num_epochs


def reference_ltor(data, eod_token, reset_position_ids, reset_attention_mask, eod_mask_loss):
    """gpt_dataset.py _get_ltor_masks_and_position_ids with numpy for torch; the mask is returned as
    True = may attend (Megatron's final `< 0.5` turns it into True = masked)."""
    seq_length = data.size
    attention_mask = np.tril(np.ones((seq_length, seq_length)))
    loss_mask = np.ones(seq_length)
    if eod_mask_loss:
        loss_mask[data == eod_token] = 0.0
    position_ids = np.arange(seq_length)
    if reset_position_ids or reset_attention_mask:
        eod_index = position_ids[data == eod_token].copy()
        prev_index = 0
        for i in eod_index:
            if reset_attention_mask:
                attention_mask[(i + 1):, :(i + 1)] = 0
            if reset_position_ids:
                position_ids[(i + 1):] -= i + 1 - prev_index
                prev_index = i + 1
    return attention_mask >= 0.5, loss_mask, position_ids


# --- the index ----------------------------------------------------------------------------------------------

sizes_lists = st.lists(st.integers(0, 30), min_size=1, max_size=25).filter(lambda s: sum(s) >= 2)


@settings(max_examples=300, deadline=None)
@given(sizes_lists, st.integers(1, 40), st.integers(1, 3), st.integers(0, 2**32 - 1))
def test_sample_index_is_megatrons(sizes, seq_len, epochs, seed):
    sizes = np.array(sizes, dtype=np.int32)
    document_index = G.build_document_index(len(sizes), epochs, np.random.RandomState(seed))
    expected = reference_sample_idx(sizes, document_index, seq_len, epochs, int(sizes.sum()))
    np.testing.assert_array_equal(G.build_sample_index(sizes, document_index, seq_len), expected)


def test_sample_index_hand_made():
    # documents of 3, 0 and 5 tokens, seq_len 2: samples start at stream tokens 0, 2, 4, 6
    index = G.build_sample_index(np.array([3, 0, 5]), np.array([0, 1, 2]), 2)
    assert index.tolist() == [[0, 0], [0, 2], [2, 1], [2, 3]]


def test_sample_index_starts_at_an_empty_first_document_as_megatron_does():
    index = G.build_sample_index(np.array([0, 4]), np.array([0, 1]), 2)
    assert index.tolist() == [[0, 0], [1, 2]]


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 20), st.integers(1, 4), st.booleans(), st.integers(0, 10**6))
def test_document_index_is_megatrons(n_documents, epochs, separate, seed):
    ours = G.build_document_index(n_documents, epochs, np.random.RandomState(seed), separate)
    theirs = reference_document_index(np.arange(n_documents, dtype=np.int32), epochs,
                                      np.random.RandomState(seed), separate)
    assert ours.dtype == np.int32
    np.testing.assert_array_equal(ours, theirs)


def test_shuffle_index_shuffles_the_two_ranges_apart():
    index = G.build_shuffle_index(6, 10, np.random.RandomState(3))
    assert sorted(index[:6]) == list(range(6)) and sorted(index[6:]) == list(range(6, 10))
    rng = np.random.RandomState(3)
    first, last = np.arange(6, dtype=np.uint32), np.arange(6, 10, dtype=np.uint32)
    rng.shuffle(first)
    rng.shuffle(last)
    np.testing.assert_array_equal(index, np.concatenate([first, last]))


@given(st.integers(1, 500), st.integers(1, 50), st.integers(0, 200))
def test_num_epochs_is_megatrons(tokens_per_epoch, seq_len, num_samples):
    assert G.num_epochs(tokens_per_epoch, seq_len, num_samples) == reference_num_epochs(tokens_per_epoch, seq_len,
                                                                                        num_samples)
    assert G.num_epochs(tokens_per_epoch, seq_len, None) == 1


def test_final_epoch_is_separate_when_little_of_it_is_used():
    # 100 tokens per epoch, seq_len 10: 9 samples per epoch; the second epoch ends at sample 19
    assert G.separate_final_epoch(100, 10, 10, 2)  # 1 sample from the second epoch < int(0.8 * 9)
    assert G.separate_final_epoch(100, 10, 15, 2)  # 6 < 7
    assert not G.separate_final_epoch(100, 10, 16, 2)  # 7, the threshold itself
    assert not G.separate_final_epoch(100, 10, None, 1)


def reference_indices(sizes, seq_len, num_samples, seed):
    """gpt_dataset.py _build_document_sample_shuffle_indices, built from the ports above."""
    tokens_per_epoch = int(sum(sizes))
    epochs = reference_num_epochs(tokens_per_epoch, seq_len, num_samples)
    sans_final = ((epochs - 1) * tokens_per_epoch - 1) // seq_len
    per_epoch = (tokens_per_epoch - 1) // seq_len
    separate = epochs > 1 and num_samples - sans_final < int(0.80 * per_epoch)
    rng = np.random.RandomState(seed)
    document_index = reference_document_index(np.arange(len(sizes), dtype=np.int32), epochs, rng, separate)
    sample_index = reference_sample_idx(sizes, document_index, seq_len, epochs, tokens_per_epoch)
    n = len(sample_index) - 1
    first = np.arange(sans_final if separate else n, dtype=np.uint32)
    rng.shuffle(first)
    last = np.arange(len(first), n, dtype=np.uint32)
    if len(last):
        rng.shuffle(last)
    return document_index, sample_index, np.concatenate([first, last])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=20).filter(lambda s: sum(s) >= 2), st.integers(1, 25),
       st.integers(0, 60), st.integers(0, 1000))
def test_indices_follow_megatrons_draws(dataset, lengths, seq_len, num_samples, seed):
    samples = GPTSamples(dataset(distinct_documents(lengths)), seq_len, num_samples=num_samples, seed=seed)
    document_index, sample_index, shuffle_index = reference_indices(lengths, seq_len, num_samples, seed)
    np.testing.assert_array_equal(samples.document_index, document_index)
    np.testing.assert_array_equal(samples.sample_index, sample_index)
    np.testing.assert_array_equal(samples.shuffle_index, shuffle_index)


# --- the samples --------------------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=20).filter(lambda s: sum(s) >= 2), st.integers(1, 25),
       st.one_of(st.none(), st.integers(0, 40)), st.integers(0, 1000))
def test_samples_cut_the_shuffled_stream_in_order(dataset, lengths, seq_len, num_samples, seed):
    docs = distinct_documents(lengths)
    samples = GPTSamples(dataset(docs), seq_len, num_samples=num_samples, seed=seed)
    stream = np.concatenate([docs[d] for d in samples.document_index])
    assert len(samples) == (len(stream) - 1) // seq_len >= (num_samples or 0)
    assert sorted(samples.shuffle_index.tolist()) == list(range(len(samples)))
    for i, k in enumerate(samples.shuffle_index):
        text, documents = samples.text(i)
        np.testing.assert_array_equal(text, stream[k * seq_len:(k + 1) * seq_len + 1])
        np.testing.assert_array_equal(np.concatenate(docs)[text - 1], text)  # distinct ids: the document is right
        assert [int(np.searchsorted(np.cumsum(lengths), t - 1, side="right")) for t in text] == documents.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 12), min_size=1, max_size=8).filter(lambda s: sum(s) >= 2), st.integers(1, 9),
       st.integers(0, 30), st.booleans())
def test_runs_cover_a_sample_one_document_at_a_time(dataset, lengths, seq_len, num_samples, packed):
    data = dataset([[EOD] * n for n in lengths])  # every token an EOD: the loss mask has holes
    samples = PackedSamples(data, seq_len) if packed else GPTSamples(
        data, seq_len, num_samples=num_samples, eod_id=EOD, eod_mask_loss=True)
    for i in range(len(samples)):
        rows = samples.sample(i)
        runs = rows.runs()
        assert runs[0].start == 0 and runs[-1].end == seq_len
        assert all(a.end == b.start and a.document != b.document for a, b in zip(runs, runs[1:]))
        for run in runs:
            assert (rows.document_ids[run.start:run.end] == run.document).all()
            assert run.targets == rows.loss_mask[run.start:run.end].sum() and run.length == run.end - run.start


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=10).filter(lambda s: sum(s) >= 2), st.integers(1, 8),
       st.data())
def test_samples_of_a_document_are_those_whose_tokens_reach_it(dataset, lengths, seq_len, data):
    samples = GPTSamples(dataset(distinct_documents(lengths)), seq_len)
    position = data.draw(st.integers(0, len(lengths) - 1))
    document = int(samples.document_index[position])
    reading = [k for k in range(len(samples)) if document in samples.text(  # text(i) serves sample
        int(np.flatnonzero(samples.shuffle_index == k)[0]))[1]]  # shuffle_index[i]: find i for k
    found = G.samples_of_document(samples.sample_index, position).tolist()
    if lengths[document]:
        assert found == reading
    else:  # an empty document has no token to read: it counts as read by the samples that span it
        assert set(reading) <= set(found)
    with pytest.raises(ValueError, match="sample_index must have shape"):
        G.samples_of_document(samples.sample_index[:, 0], position)


def test_sample_reads_only_its_own_tokens(dataset, monkeypatch):
    data = dataset(distinct_documents([5, 7, 4]))
    samples = GPTSamples(data, 4, seed=0)
    reads = []
    get = data.get
    monkeypatch.setattr(data, "get", lambda *args: reads.append(get(*args)) or reads[-1])
    samples.sample(1)
    assert sum(len(r) for r in reads) == 5 and all(isinstance(r.base, np.memmap) for r in reads)


def test_sample_fields(dataset):
    data = dataset([[5, 6, EOD, 7, 8, EOD, 9]])  # one document of 7 tokens: one sample of seq_len 6
    rows = GPTSamples(data, 6, eod_id=EOD, reset_position_ids=True, reset_attention_mask=True,
                      eod_mask_loss=True).sample(0)
    assert rows.tokens.tolist() == [5, 6, EOD, 7, 8, EOD]
    assert rows.labels.tolist() == [6, EOD, 7, 8, EOD, 9]
    assert rows.loss_mask.tolist() == [True, True, False, True, True, False]  # no loss on predicting after EOD
    assert rows.position_ids.tolist() == [0, 1, 2, 0, 1, 2]  # the EOD keeps its document's position
    assert rows.segment_ids.tolist() == [0, 0, 0, 1, 1, 1]
    assert rows.document_ids.tolist() == [0] * 6
    assert rows.attention_mask[3].tolist() == [False, False, False, True, False, False]


def test_switches_off_give_plain_causal_rows(dataset):
    rows = GPTSamples(dataset([[5, 6, EOD, 7, 8, EOD, 9]]), 6, eod_id=EOD).sample(0)
    assert rows.loss_mask.all() and rows.position_ids.tolist() == list(range(6))
    np.testing.assert_array_equal(rows.attention_mask, np.tril(np.ones((6, 6), dtype=bool)))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=3, max_size=24), st.booleans(), st.booleans(), st.booleans())
def test_masks_and_positions_are_megatrons(dataset, tokens, reset_position_ids, reset_attention_mask,
                                           eod_mask_loss):
    seq_len = len(tokens) - 1
    rows = GPTSamples(dataset([tokens]), seq_len, eod_id=EOD, reset_position_ids=reset_position_ids,
                      reset_attention_mask=reset_attention_mask, eod_mask_loss=eod_mask_loss).sample(0)
    attention, loss, positions = reference_ltor(np.array(tokens[:-1]), EOD, reset_position_ids,
                                                reset_attention_mask, eod_mask_loss)
    np.testing.assert_array_equal(rows.attention_mask, attention)
    np.testing.assert_array_equal(rows.loss_mask, loss.astype(bool))
    np.testing.assert_array_equal(rows.position_ids, positions)


def test_same_seed_same_samples_other_seed_other_order(dataset):
    docs = distinct_documents([9, 4, 12, 7, 3, 8])
    a, b, c = (GPTSamples(dataset(docs), 5, seed=s) for s in (7, 7, 8))
    np.testing.assert_array_equal(a.sample(2).tokens, b.sample(2).tokens)
    assert not np.array_equal(a.document_index, c.document_index)


def test_gpt_cost_counts_what_the_samples_hold(dataset):
    lengths = [9, 4, 12, 7, 3, 8, 1]
    samples = GPTSamples(dataset(distinct_documents(lengths)), 5, seed=1)
    cost = samples.cost()
    texts = [samples.text(i) for i in range(len(samples))]
    assert cost.rows == len(samples) and cost.padding == 0 and cost.tokens == sum(lengths)
    assert cost.kept == len(set(np.concatenate([t for t, _ in texts]).tolist()))
    starts = np.cumsum(lengths) - lengths
    first_tokens = set((starts + 1).tolist())  # distinct ids: token starts[d] + 1 opens document d
    continued = [(t, d) for t, d in texts if t[0] not in first_tokens]
    assert cost.cuts == len(continued)
    assert cost.cut_tokens == sum(int((d == d[0]).sum()) for _, d in continued)


def test_gpt_samples_refuse_bad_arguments(dataset):
    data = dataset([[1, 2, 3]])
    with pytest.raises(ValueError, match="eod_id"):
        GPTSamples(data, 2, eod_mask_loss=True)
    with pytest.raises(TypeError, match="dataset"):
        GPTSamples([[1, 2, 3]], 2)
    with pytest.raises(ValueError, match="seq_len"):
        GPTSamples(data, 0)
    with pytest.raises(ValueError, match="at least 2 tokens"):
        GPTSamples(dataset([[1], []]), 2)
    with pytest.raises(ValueError, match="i must be"):
        GPTSamples(data, 2).sample(1)


# --- the packed alternative ---------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=1, max_size=20), st.integers(1, 16),
       st.sampled_from(["split", "truncate"]))
def test_packed_rows_are_bfd_rows_read_from_the_dataset(dataset, lengths, seq_len, long_docs):
    docs = distinct_documents(lengths)
    packed = PackedSamples(dataset(docs), seq_len, long_docs=long_docs)
    kept = [d for d in docs if len(d)]
    reference = bfd(kept, seq_len, long_docs=long_docs, next_token=True)
    assert len(packed) == reference.n_rows
    placed = []
    for i in range(len(packed)):
        row, documents = packed.text(i)
        np.testing.assert_array_equal(row, reference.rows[i])
        rows = packed.sample(i)
        np.testing.assert_array_equal(rows.tokens, row[:-1])
        np.testing.assert_array_equal(rows.labels,
                                      next_token_labels(reference.rows[i], reference.doc_ids[i])[:-1])
        np.testing.assert_array_equal(rows.loss_mask, rows.labels != IGNORE_INDEX)
        np.testing.assert_array_equal(rows.position_ids, position_ids(reference.doc_ids[i, :-1]))
        placed += row[documents != PAD_DOC].tolist()
    cost = packed.cost()
    assert len(placed) == len(set(placed)) == cost.kept  # every kept token in exactly one cell
    assert cost.tokens == sum(lengths) and cost.padding == len(packed) * (seq_len + 1) - cost.kept
    if long_docs == "split":
        assert sorted(placed) == list(range(1, sum(lengths) + 1))


def test_packed_row_masks_and_positions(dataset):
    data = dataset([[1, 2, 3], [4, 5], [6, 7, 8, 9, 10, 11]])
    packed = PackedSamples(data, 5)  # rows of 6: [6..11], then [1, 2, 3, 4, 5] and one padding cell
    rows = packed.sample(1)
    assert rows.tokens.tolist() == [1, 2, 3, 4, 5]
    assert rows.labels.tolist() == [2, 3, -100, 5, -100]
    assert rows.position_ids.tolist() == [0, 1, 2, 0, 1]
    assert rows.document_ids.tolist() == [0, 0, 0, 1, 1]
    assert not rows.attention_mask[3, 2] and rows.attention_mask[4, 3]
    assert packed.cost() == G.Cost(rows=2, tokens=11, kept=11, padding=1, cuts=0, cut_tokens=0)
    assert rows.runs() == [G.Run(0, 0, 3, 2), G.Run(1, 3, 5, 1)]  # each document's last target is lost
    assert packed.sample(0).runs() == [G.Run(2, 0, 5, 5)]  # six tokens: five inputs, five targets


def test_packed_cost_counts_split_documents(dataset):
    packed = PackedSamples(dataset([list(range(1, 15))]), 5)  # 14 tokens in rows of 6: 6 + 6 + 2
    assert packed.cost() == G.Cost(rows=3, tokens=14, kept=14, padding=4, cuts=2, cut_tokens=8)
    truncated = PackedSamples(dataset([list(range(1, 15))]), 5, long_docs="truncate")
    assert truncated.cost() == G.Cost(rows=1, tokens=14, kept=6, padding=0, cuts=0, cut_tokens=0)


def test_index_builders_refuse_bad_arguments():
    rng = np.random.RandomState(0)
    with pytest.raises(TypeError, match="sizes"):
        G.build_sample_index(np.array([3.0, 4.0]), np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="at least 2 tokens"):
        G.build_sample_index(np.array([1, 0]), np.array([0, 1]), 2)
    with pytest.raises(ValueError, match="epochs"):
        G.build_document_index(3, 0, rng)
    with pytest.raises(ValueError, match="num_samples"):
        G.build_shuffle_index(5, 4, rng)
    with pytest.raises(ValueError, match="num_samples"):
        G.num_epochs(10, 2, -1)


def test_packed_cost_counts_rows_not_pieces(dataset):
    # two 8-token documents in rows of 6: 6, 6 and one row holding both 2-token rests
    packed = PackedSamples(dataset([list(range(1, 9)), list(range(11, 19))]), 5)
    assert packed.cost() == G.Cost(rows=3, tokens=16, kept=16, padding=2, cuts=1, cut_tokens=4)
