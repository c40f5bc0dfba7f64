"""The pipeline's build on a Dask cluster (a LocalCluster of 2 worker processes, started once for the module):
the same .bin and .idx as `local.build`, the same manifest but for its shard list, and nothing left behind
by a failed task or a Ctrl-C in the client."""

import json
import logging
import multiprocessing.resource_tracker
import os
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from tutorial_lib import data
from tutorial_pipeline import cli, distributed, local
from tutorial_pipeline import dataset_manifest
from tutorial_pipeline.dataset import verify_dataset
from tutorial_lib.contract import manifest as tokenizer_manifest

dask_distributed = pytest.importorskip("distributed")  # in the test extra: `make test` runs this module

EOT = data.ENDOFTEXT
TINYSTORIES = data.corpus_path("tinystories")
LINE_CORPORA = [data.DATA_DIR / name for name in ("timemachine.txt", "zh_tatoeba_cmn_sentences.txt",
                                                  "zh_luxun_nahan_panghuang_gushixinbian.txt",
                                                  "parallel/hin_Deva.txt", "parallel/tha_Thai.txt")]
# Every shard task computes the digest of the tokenizer it got (twice: its own check and the engine's),
# about half a second for GPT-2's 50,257 entries. The tests where the tokenizer is not what is tested
# (cuts, failures, Ctrl-C, the command line, a killed client) use `trained`, a byte-level BPE of 600 entries with
# <|endoftext|> as a special token: the same code paths, each shard a few milliseconds.



@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A client of 2 worker processes of one thread each; afterwards no process of it may be left."""
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    # The scheduler's HTTP server on any free port: two runs side by side would both ask for 8787
    # (the second warns and takes another)
    cluster = dask_distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
        silence_logs=logging.ERROR, local_directory=tmp_path_factory.mktemp("dask"),
        scheduler_kwargs={"dashboard_address": ":0"})
    with dask_distributed.Client(cluster) as client:
        yield client
    cluster.close()
    # multiprocessing's resource tracker stays: one per process that ever started workers (the
    # pipeline's pool starts it too), it ends with this process
    before.add(multiprocessing.resource_tracker._resource_tracker._pid)
    deadline = time.monotonic() + 30
    while (left := [p for p in psutil.Process().children(recursive=True)
                    if p.pid not in before and p.is_running() and p.status() != psutil.STATUS_ZOMBIE]) \
            and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == [], f"processes the cluster left running: {[p.cmdline() for p in left]}"


def manifest(prefix):
    return json.loads(dataset_manifest.manifest_path(prefix).read_text(encoding="utf-8"))


def assert_same_dataset(cluster_prefix, one_prefix):
    """Byte for byte the same .bin and .idx; the same manifest but for the shards the cluster's lists."""
    for suffix in (".bin", ".idx"):
        assert Path(f"{cluster_prefix}{suffix}").read_bytes() == Path(f"{one_prefix}{suffix}").read_bytes()
    merged = manifest(cluster_prefix)
    shards = merged.pop("shards")
    assert merged == manifest(one_prefix)
    assert sum(s["documents"] for s in shards) == merged["documents"]
    assert sum(s["tokens"] for s in shards) == merged["tokens"]
    verify_dataset(cluster_prefix)
    return shards


def wait_until_idle(client):
    """The cluster runs no task of ours any more (the stopped ones end at their next batch). The
    workers are asked, not the scheduler: it forgets the tasks of a client that was killed while
    the workers still run them."""
    def running():
        return any(client.run(lambda dask_worker: len(dask_worker.state.executing)).values())

    deadline = time.monotonic() + 30
    while (any(client.processing().values()) or running()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(client.processing().values()) and not running()


def test_the_cluster_builds_what_one_process_builds(gpt2, trained, client, tmp_path):
    # GPT-2 itself (its pickle sent to every worker) on 10 shards of TinyStories; the line corpora in
    # 18 shards of 150 kB (every file cut at least once) with `trained`, whose digest is cheap
    for name, paths, split, shard_bytes, tokenizer in [
            ("stories", TINYSTORIES, EOT, 150_000, gpt2),
            ("lines", LINE_CORPORA, "line", 150_000, trained)]:
        summary = distributed.build(paths, tokenizer, tmp_path / name, client=client, split=split,
                                    shard_bytes=shard_bytes, progress=False)
        one = local.build(paths, tokenizer, tmp_path / f"{name}-one", split=split, progress=False)
        shards = assert_same_dataset(tmp_path / name, tmp_path / f"{name}-one")
        plan = distributed.plan(paths, split, shard_bytes)
        assert [s["name"] for s in shards] == [shard.name for shard in plan] and len(plan) > 5
        assert (summary.documents, summary.tokens, summary.text_bytes) == \
            (one.documents, one.tokens, one.text_bytes)
        assert summary.shards == len(plan) and summary.workers == 2
        assert f"{len(plan)} shards on 2 Dask worker threads at tcp://" in str(summary)
    assert sorted(p.name for p in tmp_path.iterdir() if ".shards-" in p.name) == []  # merged, removed


def test_tiny_shards_of_a_file_with_every_hard_cut(trained, client, tmp_path):
    corpus = tmp_path / "hard.txt"  # a BOM, CRLF and lone CR, 3-byte characters, U+FEFF inside
    corpus.write_bytes(("\ufeff" + "中文\r\n\r\n\r\nB\ufeffC\r\n\n\rx\n\n" * 6).encode())
    for split in ("blank", "line", "\n\n\n"):
        distributed.build(corpus, trained, tmp_path / "cluster", client=client, split=split, shard_bytes=9,
                          progress=False)
        local.build(corpus, trained, tmp_path / "one", split=split, progress=False)
        assert_same_dataset(tmp_path / "cluster", tmp_path / "one")


def leftovers(directory, keep):
    return sorted(p.name for p in directory.iterdir() if p.name not in keep)


def test_a_task_that_raises_leaves_the_old_dataset_and_no_shards(trained, client, tmp_path):
    local.build(TINYSTORIES, trained, tmp_path / "out", split=EOT, progress=False)
    old = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    # split on lines, TinyStories' "<|endoftext|>" lines are documents that hold a special token
    with pytest.raises(ValueError, match=r"bytes [\d,]+ to [\d,]+\), the document at index \d+: it contains "
                                         r"the special token '<\|endoftext\|>'"):
        distributed.build(TINYSTORIES, trained, tmp_path / "out", client=client, split="line",
                          shard_bytes=100_000, progress=False)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == old
    wait_until_idle(client)


def test_ctrl_c_in_the_client_stops_the_shards_and_leaves_nothing(trained, client, tmp_path, monkeypatch):
    def interrupted(*args):
        time.sleep(0.3)  # the shards are running by now
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "_checksums", interrupted)  # the client's step while workers tokenize
    with pytest.raises(KeyboardInterrupt):
        distributed.build(TINYSTORIES, trained, tmp_path / "out", client=client, split=EOT, shard_bytes=50_000,
                          progress=False)
    assert leftovers(tmp_path, keep=set()) == []
    assert not any(client.processing().values())  # build waited for the stopped shards


def test_a_worker_checks_the_digest_of_the_tokenizer_it_got(gpt2, tmp_path):
    shard = distributed.plan(TINYSTORIES, EOT, 1 << 30)[0]
    fields = local.tokenizer_fields(gpt2) | {"digest": "0" * 64}
    with pytest.raises(ValueError, match="the worker got a tokenizer with digest"):
        distributed._build_shard(shard, str(tmp_path / "shard"), gpt2, fields, gpt2_dtype(gpt2), EOT,
                                 str(tmp_path / "STOP"), "ours")
    assert leftovers(tmp_path, keep=set()) == []


def gpt2_dtype(tokenizer):
    return local.token_dtype("auto", tokenizer)


def test_a_range_that_changed_after_planning_fails_the_build(trained, client, tmp_path, monkeypatch):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("one\ntwo\nthree\n" * 100, encoding="utf-8")
    checksums = distributed._checksums

    def edited(paths, shards):  # the workers read the file before this edit, the client after it
        deadline = time.monotonic() + 30
        while len(list(tmp_path.glob("out.shards-*/*.manifest.json"))) < len(shards) < 99:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        corpus.write_text("one\ntwo\nthrEE\n" * 100, encoding="utf-8")
        return checksums(paths, shards)

    monkeypatch.setattr(distributed, "_checksums", edited)
    with pytest.raises(ValueError, match="were not the same on the worker that tokenized them"):
        distributed.build(corpus, trained, tmp_path / "out", client=client, shard_bytes=200, progress=False)
    assert leftovers(tmp_path, keep={"corpus.txt"}) == []


@pytest.mark.parametrize("kwargs, error, message", [
    ({"client": "tcp://127.0.0.1:8786"}, TypeError, "client must be a dask.distributed Client"),
    ({"shard_bytes": 0}, ValueError, "shard_bytes"),
    ({"eod": "<|nope|>"}, ValueError, "eod must be a special token"),
])
def test_arguments_are_checked_before_anything_runs(gpt2, client, tmp_path, kwargs, error, message):
    with pytest.raises(error, match=message):
        distributed.build(TINYSTORIES, gpt2, tmp_path / "out", **({"client": client} | kwargs))
    assert leftovers(tmp_path, keep=set()) == []


def test_the_command_line_takes_a_scheduler(trained, client, tmp_path, capsys):
    address = client.scheduler.address
    tokenizer_manifest.save(trained, tmp_path / "tok.json")  # a saved tokenizer: quicker to load than GPT-2
    args = ["build", "--tokenizer", str(tmp_path / "tok.json"), "--split", EOT, "--quiet", str(TINYSTORIES)]
    assert cli.main([*args[:1], "--scheduler", address, "--output", str(tmp_path / "cluster"), *args[1:]]) == 0
    assert "1 shard on 2 Dask worker threads" in capsys.readouterr().out  # 64 MiB shards by default
    assert cli.main([*args[:1], "--output", str(tmp_path / "one"), *args[1:]]) == 0
    assert_same_dataset(tmp_path / "cluster", tmp_path / "one")
    assert cli.main([*args[:1], "--scheduler", address, "--workers", "2", "--output",
                          str(tmp_path / "two"), *args[1:]]) == 1
    assert "with --scheduler the cluster's workers encode" in capsys.readouterr().err


# A client killed in the middle of a build (SIGKILL: nothing of it runs any more), while its shards run.
KILLED_CLIENT = r"""
import sys, time
from pathlib import Path
from distributed import Client
from tutorial_lib import data
from tutorial_pipeline import distributed
from tutorial_lib.contract import manifest

def wait_for_the_kill(paths, shards):
    Path("started").write_text("")
    while True:
        time.sleep(0.05)

distributed._checksums = wait_for_the_kill
tok = manifest.load("tok.json")  # `trained`, saved by the test
with Client(sys.argv[1]) as client:
    distributed.build(data.corpus_path("tinystories"), tok, "out", client=client, split=data.ENDOFTEXT,
                      shard_bytes=100_000, progress=False)
"""


def test_the_shards_of_a_killed_client_are_removed_by_the_next_build(trained, client, tmp_path):
    script = tmp_path / "killed_client.py"
    script.write_text(KILLED_CLIENT, encoding="utf-8")
    tokenizer_manifest.save(trained, tmp_path / "tok.json")
    root = Path(distributed.__file__).parent.parent
    process = subprocess.Popen([sys.executable, str(script), client.scheduler.address], cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(root)})
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert process.poll() is None and time.monotonic() < deadline, "the client did not start its build"
        time.sleep(0.05)
    process.kill()
    process.wait()
    left = [p.name for p in tmp_path.iterdir() if ".shards-" in p.name]
    assert len(left) == 1 and f"-{process.pid}-" in left[0]  # what a killed client cannot remove
    assert not [p for p in tmp_path.glob("out.*") if ".shards-" not in p.name]  # the merge never ran
    wait_until_idle(client)  # the scheduler drops a lost client's tasks; running ones end
    with pytest.warns(UserWarning, match=r"removed 1 shard directory of .* left by builds that were killed"):
        distributed.build(TINYSTORIES, trained, tmp_path / "out", client=client, split=EOT, shard_bytes=100_000,
                          progress=False)
    local.build(TINYSTORIES, trained, tmp_path / "one", split=EOT, progress=False)
    assert_same_dataset(tmp_path / "out", tmp_path / "one")
    assert [p.name for p in tmp_path.iterdir() if ".shards-" in p.name] == []
