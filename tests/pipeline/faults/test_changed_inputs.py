"""Facts fixed at planning time: a Dask build plans its shards (byte ranges cut at document boundaries)
from the corpus files as they are then, and its tasks read them later. A file rewritten in between, even
with the same size, must fail the build naming the file, never give documents cut in two under a manifest
that vouches for them; and a local build reports the bytes it read, not the sizes it saw before reading."""

import json
import logging
import random
import re

import pytest

from tutorial_pipeline import dataset_manifest, distributed, local

dask_distributed = pytest.importorskip("distributed")  # in the test extra: `make test` runs this module


@pytest.fixture(scope="module")
def client():
    """Two worker threads in this process: the tasks are what is tested, not the processes."""
    with dask_distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=logging.ERROR) as cluster, \
            dask_distributed.Client(cluster) as client:
        yield client


def lines(seed, count=3000):
    """`count` lines of 5 to 40 letters: where they end depends on the seed."""
    rng = random.Random(seed)
    return "".join("x" * rng.randint(5, 40) + "\n" for _ in range(count))


def rewritten_after_planning(monkeypatch, corpus, edit):
    """`distributed.plan` as it is, then the corpus rewritten by `edit(bytes) -> bytes` before any task runs."""
    plan = distributed.plan

    def plan_then_rewrite(*args, **kwargs):
        shards = plan(*args, **kwargs)
        corpus.write_bytes(edit(corpus.read_bytes(), shards))
        return shards

    monkeypatch.setattr(distributed, "plan", plan_then_rewrite)


def assert_fails_and_leaves_nothing(client, tokenizer, corpus, split, shard_bytes, message):
    with pytest.raises(ValueError, match=rf"^{re.escape(str(corpus))} changed after its shards were planned: "
                                         rf"{message}; nothing was written"):
        distributed.build(corpus, tokenizer, corpus.parent / "out", client=client, split=split,
                          shard_bytes=shard_bytes, progress=False)
    assert sorted(p.name for p in corpus.parent.iterdir()) == [corpus.name]  # no dataset, no shard directory


def test_a_file_rewritten_with_the_same_size_after_planning_fails_the_build(trained, client, tmp_path,
                                                                            monkeypatch):
    corpus = tmp_path / "c.txt"
    old, new = lines(1), lines(2)
    new = new[:len(old) - 1] + "\n" if len(new) >= len(old) else new[:-1] + "y" * (len(old) - len(new)) + "\n"
    assert len(new) == len(old) and old.count("\n") == 3000 and new != old
    corpus.write_text(old, encoding="utf-8")
    rewritten_after_planning(monkeypatch, corpus, lambda _, shards: new.encode())
    # before the fix: 3,004 documents (each of the 4 cuts inside a line made two of one), and the
    # manifest listed the new file's sha256
    assert_fails_and_leaves_nothing(client, trained, corpus, "line", 15_000,
                                    r"its bytes [\d,]+ to [\d,]+ no longer end where a document does "
                                    r"\(split='line'\)")


def cut_into(replacement, offset=0):
    """An edit that writes `replacement` over the bytes around the first cut: from `offset` before it."""
    def edit(raw, shards):
        cut = shards[0].end
        return raw[:cut - offset] + replacement + raw[cut - offset + len(replacement):]
    return edit


@pytest.mark.parametrize("split, text, edit, message", [
    # a 3-byte character over the line end before the cut and the two bytes after it
    ("line", "ab\n" * 200, cut_into("中".encode(), offset=1), r"byte 60, where a shard begins, is inside a character"),
    # the cut after a lone "\r" (a separator of its own) now between the "\r" and "\n" of a line end
    ("\r", "doc\r" * 200, cut_into(b"\n"), r"byte 60, where a shard begins, is inside a line end \(\\r\\n\)"),
    # cut short at a line end, or grown: the ranges no longer cover the file
    ("line", "ab\n" * 200, lambda raw, _: raw[:300], r"it ends at byte 300, not at byte 600"),
    ("line", "ab\n" * 200, lambda raw, _: raw + b"cd\n", r"it has more than the 600 bytes planned"),
], ids=["inside-a-character", "inside-crlf", "shorter", "longer"])
def test_a_cut_or_a_size_the_file_no_longer_has_fails_the_build(trained, client, tmp_path, monkeypatch, split,
                                                               text, edit, message):
    corpus = tmp_path / "c.txt"
    corpus.write_bytes(text.encode())
    rewritten_after_planning(monkeypatch, corpus, edit)
    assert_fails_and_leaves_nothing(client, trained, corpus, split, 60, message)


def test_a_file_rewritten_where_the_cuts_still_hold_gives_that_files_documents(trained, client, tmp_path,
                                                                              monkeypatch):
    corpus = tmp_path / "c.txt"  # the manifest names the bytes the shards read: local.build's of them
    corpus.write_text("ab\n" * 200, encoding="utf-8")
    rewritten_after_planning(monkeypatch, corpus, lambda raw, _: raw.replace(b"ab", b"cd"))
    summary = distributed.build(corpus, trained, tmp_path / "out", client=client, shard_bytes=60, progress=False)
    local.build(corpus, trained, tmp_path / "one", progress=False)
    merged = manifest(tmp_path / "out")
    assert merged.pop("shards") and merged == manifest(tmp_path / "one")
    assert (summary.documents, summary.text_bytes) == (200, 600)


def manifest(prefix):
    return json.loads(dataset_manifest.manifest_path(prefix).read_text(encoding="utf-8"))


def test_a_local_build_reports_the_bytes_it_read_not_the_size_before(trained, tmp_path, monkeypatch):
    corpus = tmp_path / "c.txt"
    corpus.write_text("one\ntwo\n", encoding="utf-8")
    read_documents = local.read_documents

    def rewritten_then_read(paths, *args):  # after build took the sizes, before it reads
        corpus.write_text("one\ntwo\nthree\n", encoding="utf-8")
        return read_documents(paths, *args)

    monkeypatch.setattr(local, "read_documents", rewritten_then_read)
    summary = local.build(corpus, trained, tmp_path / "out", progress=False)
    [listed] = manifest(tmp_path / "out")["corpus"]
    assert summary.documents == 3 and summary.text_bytes == listed["bytes"] == 14  # before the fix: 8
    assert "from 14 bytes of text" in str(summary)
