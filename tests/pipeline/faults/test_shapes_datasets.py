"""Root cause 5 (datasets and samples): shapes and values not checked against each other, so a wrong argument
failed inside numpy ("ids must be 1-D, got shape ()", an IndexError, a division by zero) or wrapped silently."""

import re

import numpy as np
import pytest

from tutorial_lib.packing import gpt_samples
from tutorial_lib.packing.gpt_samples import GPTSamples, PackedSamples
from tutorial_pipeline.dataset import AtomicDatasetBuilder, write_dataset  # a refusal leaves nothing behind


@pytest.fixture
def ds(tmp_path):
    return write_dataset(tmp_path / "ds", [[1, 2, 3], [], [4, 5, 6, 7, 8, 9, 10, 11], [12, 13]])


def _add(tmp_path, ids):
    with AtomicDatasetBuilder(tmp_path / "d") as builder:
        builder.add_item(ids)
        builder.end_document()


SIZES, DOCS = np.array([3, 2, 4]), np.array([0, 1, 2])

CASES = [
    ("ds[np.array([0, 1])]", lambda ds, p: ds[np.array([0, 1])], TypeError,
     r"a dataset is indexed by an int or a slice, got array\(\[0, 1\]\).*\[ds\[i\] for i in"),
    ("ds[[0, 1]]", lambda ds, p: ds[[0, 1]], TypeError, "indexed by an int or a slice"),
    ("write_dataset('d', 'abc')", lambda ds, p: write_dataset(p / "d", "abc"), TypeError,
     r"documents must be a list of documents \(each a list of ids\), got str 'abc'"),
    ("write_dataset('d', np.array([1, 2, 3]))", lambda ds, p: write_dataset(p / "d", np.array([1, 2, 3])),
     ValueError, r"got a 1-D array \(the ids of one document\?\): write one document as \[ids\]"),
    ("write_dataset('d', {1: [2]})", lambda ds, p: write_dataset(p / "d", {1: [2]}), TypeError, "got a dict"),
    ("add_item(x for x in ...)", lambda ds, p: _add(p, (x for x in [1, 2])), TypeError,
     r"ids must be a list or 1-D array of ints, got generator .*pass list\(\.\.\.\)"),
    ("add_item(b'...')", lambda ds, p: _add(p, b"\x01\x02"), TypeError,
     r"got bytes b'\\x01\\x02'; list\(data\) gives its byte values"),
    ("add_item('text')", lambda ds, p: _add(p, "text"), TypeError, "got str 'text'; encode text with a tokenizer"),
    ("add_item(5)", lambda ds, p: _add(p, 5), TypeError, r"got int 5; a single id is \[id\]"),
    ("add_item({1, 2})", lambda ds, p: _add(p, {1, 2}), TypeError, "got set"),
    ("add_item([[1], [2, 3]])", lambda ds, p: _add(p, [[1], [2, 3]]), ValueError,
     r"ids must be one flat sequence of ints, got rows of different lengths"),
    ("add_item([[1, 2]])", lambda ds, p: _add(p, [[1, 2]]), ValueError, r"one sequence \(1-D\), got an array of "
     r"shape \(1, 2\)"),
    ("build_sample_index: a negative size", lambda ds, p: gpt_samples.build_sample_index(
        np.array([3, -2, 4]), DOCS, 2), ValueError, r"sizes must hold ints >= 0, got -2"),
    ("build_sample_index: document -1", lambda ds, p: gpt_samples.build_sample_index(
        SIZES, np.array([0, -1]), 2), ValueError, r"document_index must hold ints in \[0, 2\], got -1"),
    ("build_sample_index: a document past the end", lambda ds, p: gpt_samples.build_sample_index(
        SIZES, np.array([0, 3]), 2), ValueError, r"document_index must hold ints in \[0, 2\], got 3"),
    ("build_sample_index: 2-D sizes", lambda ds, p: gpt_samples.build_sample_index(
        SIZES.reshape(3, 1), DOCS, 2), ValueError, "sizes must be 1-D"),
    ("samples_before_final_epoch(100, 4, 0)", lambda ds, p: gpt_samples.samples_before_final_epoch(100, 4, 0),
     ValueError, "epochs must be an int >= 1, got 0"),
    ("separate_final_epoch(100, 0, 5, 2)", lambda ds, p: gpt_samples.separate_final_epoch(100, 0, 5, 2),
     ValueError, "seq_len must be an int >= 1, got 0"),
    ("separate_final_epoch(0, 4, 5, 2)", lambda ds, p: gpt_samples.separate_final_epoch(0, 4, 5, 2),
     ValueError, "tokens_per_epoch must be an int >= 1, got 0"),
    ("separate_final_epoch(100, 4, -1, 2)", lambda ds, p: gpt_samples.separate_final_epoch(100, 4, -1, 2),
     ValueError, "num_samples must be an int >= 0, got -1"),
    ("build_document_index(3, 2, 'seed')", lambda ds, p: gpt_samples.build_document_index(3, 2, "seed"),
     TypeError, r"rng must be a np.random.RandomState \(Megatron's draws\) or an int seed, got str"),
    ("build_document_index(3, 2, -1)", lambda ds, p: gpt_samples.build_document_index(3, 2, -1), ValueError,
     r"rng must be an int in \[0, 4294967295\], got -1"),
    ("build_shuffle_index(2, 4, np.random.default_rng())", lambda ds, p: gpt_samples.build_shuffle_index(
        2, 4, np.random.default_rng(0)), TypeError, "rng must be a np.random.RandomState"),
    ("PackedSamples(long_docs='error') names the dataset's document", lambda ds, p: PackedSamples(
        ds, 4, long_docs="error"), ValueError, re.escape("dataset sequence 2 has 8 tokens, more than a row of 5")),
]


@pytest.mark.parametrize("name, call, error, message", CASES, ids=[c[0] for c in CASES])
def test_each_wrong_shape_or_value_says_what_was_wrong(ds, tmp_path, name, call, error, message):
    with pytest.raises(error, match=message):
        call(ds, tmp_path)
    assert not (tmp_path / "d.bin").exists()


def test_an_int_seed_draws_what_its_random_state_draws():
    by_seed = gpt_samples.build_document_index(5, 3, 42, separate_final=True)
    by_state = gpt_samples.build_document_index(5, 3, np.random.RandomState(42), separate_final=True)
    assert by_seed.tolist() == by_state.tolist()  # one RandomState for both shuffles, not a fresh one each
    assert gpt_samples.build_shuffle_index(3, 7, 1).tolist() == gpt_samples.build_shuffle_index(
        3, 7, np.random.RandomState(1)).tolist()


def test_one_epoch_has_no_samples_before_its_last(ds):
    assert gpt_samples.samples_before_final_epoch(100, 4, 1) == 0
    assert gpt_samples.samples_before_final_epoch(100, 4, 2) == 24  # (100 - 1) // 4
    assert len(GPTSamples(ds, 4)) == (ds.num_tokens - 1) // 4
