"""Fuzzing the .bin/.idx reader (root causes 2 and 8): every truncation of either file is refused with a clear
ValueError, never a numpy error or garbage; a changed .idx byte is refused unless the index it leaves is still
structurally valid, and then only the pair record (a digest) or the manifest can catch it: the manifest's cheap
check catches a dtype code of the same size, its checksums (verify=True) every change."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tutorial_pipeline import dataset_files as pair
from tutorial_pipeline.dataset_manifest import manifest_path
from tutorial_lib.packing.megatron import DTYPES, bin_path, idx_path
from tutorial_pipeline.dataset import AtomicDatasetBuilder, CheckedDataset

DOCUMENTS = [[[1, 2], [3]], [[4, 5, 6]], [[7], [8, 9], [10]], [[11, 12]]]  # documents of sentences
S = sum(map(len, DOCUMENTS))  # sequences
HEADER, DTYPE_BYTE = 34, 17
DOC_INDICES = HEADER + 12 * S  # where the document indices start


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("fuzz") / "d"
    with AtomicDatasetBuilder(prefix, np.uint16) as builder:
        for document in DOCUMENTS:
            for sentence in document:
                builder.add_item(sentence)
            builder.end_document()
    return {path: path(prefix).read_bytes() for path in (bin_path, idx_path, manifest_path, pair.record_path)}


def _write(directory, original, changed, record, manifest=False):
    """The dataset with `changed` bytes, with its record (which implies its manifest), its manifest alone, or as
    megatron-core writes it (neither)."""
    prefix = directory / "d"
    for path, raw in original.items():
        path(prefix).write_bytes(changed.get(path, raw))
    if not record:
        pair.record_path(prefix).unlink()
        if not manifest:
            manifest_path(prefix).unlink()
    return prefix


@pytest.mark.parametrize("record", [False, True], ids=["as megatron writes it", "with its record"])
@pytest.mark.parametrize("which", [idx_path, bin_path], ids=["idx", "bin"])
@settings(max_examples=40, deadline=None)
@given(cut=st.floats(0, 1, exclude_max=True))
def test_every_truncation_is_refused(tmp_path_factory, original, which, record, cut):
    raw = original[which]
    prefix = _write(tmp_path_factory.mktemp("cut"), original, {which: raw[:int(cut * len(raw))]}, record)
    with pytest.raises(ValueError, match="truncated|not a Megatron|not a whole number|does not belong|"
                                         "needs exactly|not the file"):
        CheckedDataset(prefix)


def _same_itemsize(code, new):
    return new in DTYPES and DTYPES[new].itemsize == DTYPES[code].itemsize


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_a_changed_idx_byte_is_refused_unless_the_index_stays_valid(tmp_path_factory, original, data):
    raw = bytearray(original[idx_path])
    # any byte, with extra weight on the few places where a change can leave a valid index
    at = data.draw(st.one_of(st.integers(0, len(raw) - 1), st.just(DTYPE_BYTE),
                             st.integers(DOC_INDICES, len(raw) - 1)), label="offset")
    old = raw[at]
    near = st.integers(max(0, old - 3), min(255, old + 3))  # a document boundary moved by a little
    value = data.draw(st.one_of(st.integers(0, 255), near).filter(lambda v: v != old), label="new byte")
    raw[at] = value
    directory = tmp_path_factory.mktemp("flip")
    prefix = _write(directory, original, {idx_path: bytes(raw)}, record=False)
    try:
        dataset = CheckedDataset(prefix)
    except ValueError:
        pass  # the structural checks caught it
    else:
        # what is left valid: a dtype code of the same size, or document boundaries that still rise
        assert (at == DTYPE_BYTE and _same_itemsize(old, value)) or DOC_INDICES + 8 <= at < len(raw) - 8, at
        docs = dataset.document_indices
        assert docs[0] == 0 and docs[-1] == S and (np.diff(docs) >= 0).all()
        prefix = _write(directory, original, {idx_path: bytes(raw)}, record=False, manifest=True)
        if at == DTYPE_BYTE:
            with pytest.raises(ValueError, match="but .*d.manifest.json says uint16"):
                CheckedDataset(prefix)  # the manifest's cheap check: the dtype
        else:
            CheckedDataset(prefix)  # document boundaries that still rise: only the checksum tells
        with pytest.raises(ValueError, match=r"d\.idx: sha256|says uint16"):  # the cheap checks come first
            CheckedDataset(prefix, verify=True)
    prefix = _write(directory, original, {idx_path: bytes(raw)}, record=True)
    with pytest.raises(ValueError):
        CheckedDataset(prefix)  # the record covers all of a small file: every change is refused


@settings(max_examples=100, deadline=None)
@given(data=st.data())
def test_a_changed_bin_byte_is_caught_only_by_the_record_or_the_checksum(tmp_path_factory, original, data):
    raw = bytearray(original[bin_path])
    at = data.draw(st.integers(0, len(raw) - 1), label="offset")
    raw[at] = data.draw(st.integers(0, 255).filter(lambda v: v != raw[at]), label="new byte")
    directory = tmp_path_factory.mktemp("flip")
    assert len(CheckedDataset(_write(directory, original, {bin_path: bytes(raw)}, record=False))) == S
    with pytest.raises(ValueError, match=r"d\.bin: sha256"):
        CheckedDataset(_write(directory, original, {bin_path: bytes(raw)}, record=False, manifest=True), verify=True)
    with pytest.raises(ValueError, match=r"d\.bin is not the file"):
        CheckedDataset(_write(directory, original, {bin_path: bytes(raw)}, record=True))
