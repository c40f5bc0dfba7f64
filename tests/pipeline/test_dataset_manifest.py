"""The manifest beside a .bin/.idx: what it records, that it is checked at every open (dtype, vocabulary, counts,
sizes) and verified on request (the sha256 of every byte), and that a merge refuses shards of two tokenizers and
lists its shards wherever they were built."""

import hashlib
import json
import shutil
import struct

import numpy as np
import pytest

from tutorial_lib import data
from tutorial_pipeline import local
from tutorial_pipeline import dataset_manifest, dataset_files as pair
from tutorial_pipeline.dataset_manifest import check_holds, largest_id, manifest_path
from tutorial_lib.packing.megatron import bin_path, idx_path
from tutorial_pipeline.dataset import (AtomicDatasetBuilder, CheckedDataset, merge_datasets, verify_dataset,
                                       write_dataset)
from tutorial_lib.bpe import course_tokenizer, formats
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest as tokenizer_manifest

EOT = data.ENDOFTEXT
DTYPE_BYTE = 17  # the .idx header's dtype code


@pytest.fixture(scope="module")
def course():
    return course_tokenizer.load()



@pytest.fixture(scope="module")
def one_merge_less(course):
    """The course tokenizer without its last merge (and the token that merge made): a different contract."""
    left, right = course.merges[-1]
    vocab = {i: token for i, token in course.vocab.items() if token != left + right}
    return Tokenizer(vocab, course.merges[:-1], list(course.special_tokens), course.pattern)


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def corpus_file(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def shard(tmp_path, tokenizer, name, text):
    """A dataset built by the pipeline from one small file, one document per line."""
    local.build(corpus_file(tmp_path, f"{name}.txt", text), tokenizer, tmp_path / name, progress=False)
    return tmp_path / name


def without_record(prefix):
    pair.record_path(prefix).unlink()
    return prefix


def patch(path, offset, raw):
    data_ = bytearray(path.read_bytes())
    data_[offset:offset + len(raw)] = raw
    path.write_bytes(bytes(data_))


# --- what can hold a vocabulary ------------------------------------------------------------------------------


def test_the_largest_id_of_each_dtype_and_the_vocabularies_it_holds():
    assert [largest_id(d) for d in ("uint8", "int16", "uint16", "int32", "float32")] == [
        255, 32767, 65535, 2**31 - 1, 2**24]
    check_holds(np.uint16, 65536, "dtype")  # ids 0..65535: every one fits
    with pytest.raises(ValueError, match=r"dtype: uint16 holds ids up to 65,535, but the tokenizer has 65,537 ids "
                                         r"\(0\.\.65,536\); use a wider dtype"):
        check_holds(np.uint16, 65537, "dtype")
    with pytest.raises(ValueError, match="int16 holds ids up to 32,767"):
        check_holds(np.int16, 50257, "dtype")


# --- what a dataset written from ids records -------------------------------------------------------------------


def test_a_dataset_written_from_ids_records_no_tokenizer_and_checksums_of_its_bytes(tmp_path):
    prefix = tmp_path / "d"
    ds = write_dataset(prefix, [[1, 2, 3], [4, 5]], np.int32)
    manifest = json.loads(manifest_path(prefix).read_text())
    assert manifest == ds.manifest == {
        "format": "tutorial_lib dataset manifest", "version": 1, "dtype": "int32", "tokenizer": None, "corpus": [],
        "sequences": 2, "documents": 2, "tokens": 5,
        "bin": {"bytes": 20, "sha256": sha256(bin_path(prefix))},
        "idx": {"bytes": idx_path(prefix).stat().st_size, "sha256": sha256(idx_path(prefix))}}
    assert manifest_path(prefix).read_text() == dataset_manifest.dumps(manifest)  # sorted keys, one form
    assert list(json.loads(manifest_path(prefix).read_text())) == sorted(manifest)


def test_the_same_build_writes_the_same_manifest_bytes(tmp_path):
    for name in ("a", "b"):
        write_dataset(tmp_path / name, [[7] * 10, [8]])
    assert manifest_path(tmp_path / "a").read_bytes() == manifest_path(tmp_path / "b").read_bytes()


def test_the_builder_refuses_a_tokenizer_its_dtype_cannot_hold_and_bad_fields(tmp_path, course):
    fields = local.tokenizer_fields(course)
    with pytest.raises(ValueError, match="dtype: uint8 holds ids up to 255, but the tokenizer has 4,096 ids"):
        AtomicDatasetBuilder(tmp_path / "d", np.uint8, fields)
    with pytest.raises(ValueError, match=r"tokenizer\['digest'\] must be a str"):
        AtomicDatasetBuilder(tmp_path / "d", np.uint16, fields | {"digest": 1})
    with pytest.raises(TypeError, match="tokenizer must be"):
        AtomicDatasetBuilder(tmp_path / "d", np.uint16, course)  # the fields, not the Tokenizer
    builder = AtomicDatasetBuilder(tmp_path / "d", np.uint16, fields)
    builder.add_document([1, 2])
    builder.corpus.append({"path": "x.txt", "bytes": 3})  # no sha256
    with pytest.raises(ValueError, match=r"corpus\[0\]\['sha256'\] must be a str"):
        builder.finalize()
    assert list(tmp_path.iterdir()) == []


# --- checked at every open ------------------------------------------------------------------------------------


def _flip_dtype_to_int16(prefix):
    patch(idx_path(prefix), DTYPE_BYTE, bytes([3]))  # uint16 (8) -> int16 (3): the same itemsize


def _rewrite_record(prefix):
    """A record that matches the files as they are now (what a tool that rewrote the pair and its record does)."""
    pair.record_path(prefix).write_text(pair.record_text(bin_path(prefix), idx_path(prefix),
                                                         manifest_path(prefix).read_text()))


@pytest.mark.parametrize("record", ["removed", "rewritten"])
def test_an_idx_dtype_code_edited_to_one_of_the_same_size_is_refused_by_the_manifest(tmp_path, record):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2, 3], [4, 5]])
    _flip_dtype_to_int16(prefix)
    without_record(prefix) if record == "removed" else _rewrite_record(prefix)
    with pytest.raises(ValueError, match=r"d\.idx holds int16, but .*d\.manifest\.json says uint16: the \.idx "
                                         r"\(its dtype code\) was changed"):
        CheckedDataset(prefix)
    manifest_path(prefix).unlink()
    if record == "rewritten":
        pair.record_path(prefix).unlink()
    assert CheckedDataset(prefix).dtype == np.int16  # without the manifest, no structural check can tell


def test_counts_and_sizes_that_are_not_the_manifests_are_refused(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2, 3], [4, 5]])
    without_record(prefix)
    manifest = json.loads(manifest_path(prefix).read_text())
    for edit, message in [({"tokens": 6}, r"has 5 tokens, but .* says 6"),
                          ({"documents": 1}, r"has 2 documents, but .* says 1"),
                          ({"bin": manifest["bin"] | {"bytes": 12}}, r"d\.bin has 10 bytes, but .* says 12")]:
        manifest_path(prefix).write_text(dataset_manifest.dumps(manifest | edit))
        with pytest.raises(ValueError, match=message):
            CheckedDataset(prefix)


def test_a_manifest_whose_dtype_cannot_hold_the_vocabulary_is_refused_at_open(tmp_path, course):
    prefix = tmp_path / "d"
    local.build(corpus_file(tmp_path, "c.txt", "one story\nanother\n"), course, prefix, progress=False)
    manifest = json.loads(manifest_path(prefix).read_text())
    manifest["tokenizer"]["vocab_size"] = 70_000  # as if a tokenizer of 70,000 ids had made it
    manifest_path(prefix).write_text(dataset_manifest.dumps(manifest))
    with pytest.raises(ValueError, match=r"d\.manifest\.json is not the manifest .*d\.pair\.json records"):
        CheckedDataset(prefix)  # the record holds the manifest's sha256
    without_record(prefix)
    with pytest.raises(ValueError, match=r"d\.manifest\.json: uint16 holds ids up to 65,535, but the tokenizer has "
                                         r"70,000 ids"):
        CheckedDataset(prefix)


@pytest.mark.parametrize("text, message", [
    ("{", "is not a dataset manifest of this library"),
    ('{"format": "tutorial_lib dataset manifest", "version": 2}', "version 2; this library reads version 1"),
    ('{"format": "something else"}', "its format is not"),
])
def test_a_file_that_is_not_a_manifest_is_refused(tmp_path, text, message):
    prefix = without_record(write_dataset(tmp_path / "d", [[1]]).prefix)
    manifest_path(prefix).write_text(text)
    with pytest.raises(ValueError, match=message):
        CheckedDataset(prefix)


# --- verified on request ----------------------------------------------------------------------------------------


def _unsampled_offset(size):
    """A byte offset in the middle of the first gap between two blocks the pair record samples."""
    last = size - pair.BLOCK_BYTES
    starts = sorted({last * k // (pair.SAMPLE_BLOCKS - 1) for k in range(pair.SAMPLE_BLOCKS)})
    assert starts[1] > starts[0] + 2 * pair.BLOCK_BYTES, "the file is too small to have gaps"
    return (starts[0] + pair.BLOCK_BYTES + starts[1]) // 2


def test_a_flipped_bin_byte_the_record_misses_is_caught_by_the_checksum(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [np.arange(300_000) % 4096, np.arange(5)])  # a .bin of 600 KB: the record samples 64 KiB
    before = pair.fingerprint(bin_path(prefix))
    at = _unsampled_offset(bin_path(prefix).stat().st_size)
    patch(bin_path(prefix), at, bytes([bin_path(prefix).read_bytes()[at] ^ 0x01]))
    assert pair.fingerprint(bin_path(prefix)) == before  # the record cannot see it...
    assert CheckedDataset(prefix).num_tokens == 300_005  # ...nor can the cheap checks
    message = rf"d\.bin: sha256 {sha256(bin_path(prefix))}, but the manifest says [0-9a-f]{{64}}: the file changed"
    with pytest.raises(ValueError, match=message):
        CheckedDataset(prefix, verify=True)
    with pytest.raises(ValueError, match=message):
        verify_dataset(prefix)
    assert verify_dataset(prefix, checksums=False)["tokens"] == 300_005


def test_an_idx_byte_that_keeps_the_index_valid_is_caught_by_the_checksum(tmp_path):
    prefix = tmp_path / "d"
    with AtomicDatasetBuilder(prefix) as builder:
        for document in ([[1, 2], [3]], [[4]], [[5, 6]]):
            for sentence in document:
                builder.add_item(sentence)
            builder.end_document()
    assert CheckedDataset(prefix).document_indices.tolist() == [0, 2, 3, 4]
    patch(idx_path(prefix), 34 + 12 * 4 + 8, struct.pack("<q", 1))  # document 0 ends a sentence early: [0, 1, 3, 4]
    _rewrite_record(prefix)
    assert CheckedDataset(prefix).document_indices.tolist() == [0, 1, 3, 4]  # structure, record, counts: all fine
    with pytest.raises(ValueError, match=r"d\.idx: sha256 [0-9a-f]{64}, but the manifest says"):
        CheckedDataset(prefix, verify=True)


def test_verifying_a_dataset_without_a_manifest_is_refused():
    prefix = data.DATA_DIR / "megatron" / "tinystories_gpt2_text_document"  # megatron-core wrote it
    assert CheckedDataset(prefix).manifest is None
    for verify in (lambda: CheckedDataset(prefix, verify=True), lambda: verify_dataset(prefix, checksums=False)):
        with pytest.raises(ValueError, match="has no manifest .*: a dataset megatron-core wrote"):
            verify()


def test_verify_and_progress_must_be_bools(tmp_path):
    write_dataset(tmp_path / "d", [[1]])
    with pytest.raises(TypeError, match="verify must be True or False"):
        CheckedDataset(tmp_path / "d", verify="yes")


# --- merging ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("other", ["gpt2", "one_merge_less"])
def test_shards_of_two_tokenizers_are_refused_before_anything_is_written(tmp_path, course, other, request):
    theirs = request.getfixturevalue(other)
    a = shard(tmp_path, course, "a", "Once upon a time\n")
    b = shard(tmp_path, theirs, "b", "there was a cat\n")
    assert CheckedDataset(a).dtype == CheckedDataset(b).dtype == np.uint16  # the dtypes alone would merge
    message = (rf".*b was built with tokenizer {tokenizer_manifest.digest(theirs)}, but .*a with tokenizer {tokenizer_manifest.digest(course)}: the same id "
               "means a different token")
    with pytest.raises(ValueError, match=message):
        merge_datasets([a, b], tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("m")) == []


def test_a_shard_from_ids_and_a_shard_from_a_tokenizer_are_refused(tmp_path, course):
    a = shard(tmp_path, course, "a", "Once upon a time\n")
    write_dataset(tmp_path / "ids", [[1, 2]])
    with pytest.raises(ValueError, match=r"ids was built with no tokenizer \(ids written without one\), but"):
        merge_datasets([a, tmp_path / "ids"], tmp_path / "m")


def test_a_merged_manifest_is_a_single_builds_plus_its_shards(tmp_path, course):
    texts = {"a": "Once upon a time\nthere was a cat\n", "b": "它很小。\n\nThe end.\n"}
    shards = [shard(tmp_path, course, name, text) for name, text in texts.items()]
    merged = merge_datasets(shards, tmp_path / "m").manifest
    local.build([tmp_path / "a.txt", tmp_path / "b.txt"], course, tmp_path / "whole", progress=False)
    whole = json.loads(manifest_path(tmp_path / "whole").read_text())
    parts = [json.loads(manifest_path(p).read_text()) for p in shards]
    assert merged["shards"] == [{"name": p.name, "documents": m["documents"], "tokens": m["tokens"],
                                 "bin_sha256": m["bin"]["sha256"]} for p, m in zip(shards, parts)]
    assert {k: v for k, v in merged.items() if k != "shards"} == whole  # counts summed, corpus concatenated, checksums
    assert merged["documents"] == 4 and [c["path"] for c in merged["corpus"]] == [str(tmp_path / "a.txt"),
                                                                                 str(tmp_path / "b.txt")]


def test_a_merge_lists_the_corpus_it_is_given_instead_of_the_shards_own(tmp_path, course):
    """What the Dask build does: its shards are byte ranges, its manifest lists the whole files."""
    shards = [shard(tmp_path, course, name, text) for name, text in {"a": "one\n", "b": "two\n"}.items()]
    whole = [{"path": "corpus.txt", "bytes": 8, "sha256": "0" * 64}]
    merged = merge_datasets(shards, tmp_path / "m", corpus=whole).manifest
    assert merged["corpus"] == whole and [s["name"] for s in merged["shards"]] == ["a", "b"]
    with pytest.raises(TypeError, match="corpus must be a list of corpus files"):
        merge_datasets(shards, tmp_path / "m", corpus="corpus.txt")


def test_a_merged_manifest_does_not_depend_on_where_the_shards_were_built(tmp_path, course):
    corpus = [corpus_file(tmp_path, f"{n}.txt", f"document {n}\n") for n in "ab"]
    for place in ("here", "node1", "node2"):
        (tmp_path / place).mkdir()
    for path, place in zip(corpus, ("node1", "node2")):  # each shard on its own machine...
        local.build(path, course, tmp_path / place / f"shard_{path.stem}", progress=False)
    for path in corpus:  # ...or both here
        local.build(path, course, tmp_path / "here" / f"shard_{path.stem}", progress=False)
    merge_datasets([tmp_path / "node1" / "shard_a", tmp_path / "node2" / "shard_b"], tmp_path / "spread")
    merge_datasets([tmp_path / "here" / "shard_a", tmp_path / "here" / "shard_b"], tmp_path / "local")
    for path in (manifest_path, bin_path, idx_path):
        assert path(tmp_path / "spread").read_bytes() == path(tmp_path / "local").read_bytes()


def test_a_shard_without_a_manifest_is_refused_unless_the_caller_says_so(tmp_path, gpt2):
    megatron_core = data.DATA_DIR / "megatron" / "tinystories_gpt2_text_document"
    ours = shard(tmp_path, gpt2, "ours", "Once upon a time\n")
    with pytest.raises(ValueError, match=r"tinystories_gpt2_text_document has no manifest .* so nothing says which "
                                         "tokenizer made its ids; .*allow_missing_manifest=True"):
        merge_datasets([ours, megatron_core], tmp_path / "m")
    assert not manifest_path(tmp_path / "m").exists()
    merged = merge_datasets([ours, megatron_core], tmp_path / "m", allow_missing_manifest=True)
    assert merged.manifest["tokenizer"] is None and merged.manifest["corpus"] is None  # it vouches for nothing unknown
    assert [s["name"] for s in merged.manifest["shards"]] == ["ours", "tinystories_gpt2_text_document"]
    assert merged.manifest["shards"][1]["bin_sha256"] == sha256(bin_path(megatron_core))
    assert verify_dataset(tmp_path / "m")["documents"] == 1 + 40


def test_a_shard_changed_since_it_was_built_is_refused_by_the_merge_that_reads_it(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2, 3], [4, 5]])
    without_record(prefix)
    patch(bin_path(prefix), 0, b"\x09")
    with pytest.raises(ValueError, match=r"d\.bin: sha256 [0-9a-f]{64}, but the manifest says"):
        merge_datasets([prefix], tmp_path / "m")
    assert not bin_path(tmp_path / "m").exists()


def test_merge_checks_its_flag(tmp_path):
    write_dataset(tmp_path / "a", [[1]])
    with pytest.raises(TypeError, match="allow_missing_manifest must be True or False"):
        merge_datasets([tmp_path / "a"], tmp_path / "m", allow_missing_manifest="yes")


def test_a_copied_dataset_needs_its_manifest_or_neither_file(tmp_path):
    write_dataset(tmp_path / "d", [[1, 2]])
    (tmp_path / "copy").mkdir()
    for suffix in (".bin", ".idx", ".pair.json"):  # copied without the manifest
        shutil.copy(tmp_path / f"d{suffix}", tmp_path / "copy" / f"d{suffix}")
    with pytest.raises(ValueError, match=r"d\.pair\.json records a manifest, but there is no .*d\.manifest\.json"):
        CheckedDataset(tmp_path / "copy" / "d")
