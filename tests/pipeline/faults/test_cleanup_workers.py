"""Root cause 1, workers: a stopped or killed build must leave no worker, no resource tracker and no
temporary file behind, whatever signal stopped it and even when nothing in the main process runs.

Each case runs the real command line in a new process group, made to wait after its first batch
(`RUNNER` patches the builder), so that the signal always arrives in the middle of the build, with
the workers started: no test depends on how fast the machine is. The processes are then polled until
a generous deadline that only bounds a failure.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tutorial_pipeline import workers as _parallel
from tutorial_lib import data
from tutorial_lib.contract import manifest as tokenizer_manifest

DEADLINE = 60  # seconds; reached only when something is left behind
EOT = data.ENDOFTEXT

# The command line as a user runs it, but waiting after its first batch for the test's signal.
RUNNER = r"""
import json, multiprocessing, os, signal, sys, time
from pathlib import Path
from tutorial_pipeline import cli, local
from tutorial_pipeline.dataset import AtomicDatasetBuilder

# A shell starts a background job with Ctrl-C ignored, and a command keeps it ignored (as it should):
# the test plays a terminal's foreground job, where Ctrl-C is on.
signal.signal(signal.SIGINT, signal.SIG_DFL)
local.WORKERS_FROM_BYTES = dict.fromkeys(local.WORKERS_FROM_BYTES, 0)  # workers even for a small corpus
local.BATCH_CHARS = 20_000  # many batches: the pool is busy when the signal comes
add_documents = AtomicDatasetBuilder.add_documents  # the pipeline writes a batch at a time


def add_then_wait(self, ids, lengths):
    add_documents(self, ids, lengths)
    if not Path("started.json").exists():
        pids = {"workers": [p.pid for p in multiprocessing.active_children()]}
        tracker = multiprocessing.resource_tracker._resource_tracker._pid
        Path("started.json.tmp").write_text(json.dumps(pids | {"tracker": tracker}))
        os.replace("started.json.tmp", "started.json")
        while True:  # the build waits here, in the middle, for the test's signal
            time.sleep(0.05)


if __name__ == "__main__":  # a worker imports this script too
    AtomicDatasetBuilder.add_documents = add_then_wait
    sys.exit(cli.main(sys.argv[1:]))
"""


def alive(pid):
    """Whether `pid` is a running process (a zombie left for a parent that does not reap is not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return sys.platform == "darwin"  # no /proc: os.kill said it is there


def wait_until(condition, what):
    deadline = time.monotonic() + DEADLINE
    while not condition():
        assert time.monotonic() < deadline, f"still {what} after {DEADLINE} s"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def tokenizer_file(trained, tmp_path_factory):
    """`trained` (600 entries, <|endoftext|> special) saved: the CLI loads it, and the workers get
    its pickle, in a fraction of GPT-2's time; what stops and cleans up is the same."""
    return tokenizer_manifest.save(trained, tmp_path_factory.mktemp("tokenizer") / "tok.json")


def start_build(tmp_path, tokenizer_file):
    """The CLI building from TinyStories with 2 workers, stopped after its first batch; returns
    the process, the pids it reported (workers, resource tracker) and its TMPDIR."""
    (tmp_path / "run.py").write_text(RUNNER, encoding="utf-8")
    (tmp_path / "tmp").mkdir()
    environment = os.environ | {"TMPDIR": str(tmp_path / "tmp")}
    command = [sys.executable, "run.py", "build", "--tokenizer", str(tokenizer_file), "--output", "out",
               "--split", EOT,
               "--workers", "2", str(data.corpus_path("tinystories"))]
    run = subprocess.Popen(command, cwd=tmp_path, env=environment, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_until(lambda: (tmp_path / "started.json").exists() or run.poll() is not None, "not started")
        assert run.poll() is None, run.communicate()
        pids = json.loads((tmp_path / "started.json").read_text())
        assert len(pids["workers"]) == 2 and all(map(alive, pids["workers"] + [pids["tracker"]]))
        assert any((tmp_path / "tmp").iterdir())  # the pool's set-up directory, while it runs
    except BaseException:
        stop(run)
        raise
    return run, pids


def stop(run):
    """Kill what is left of the build's process group and reap the build."""
    try:
        os.killpg(run.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    run.communicate(timeout=DEADLINE)


def leftovers(tmp_path):
    return sorted(p.name for p in tmp_path.iterdir() if p.name not in ("run.py", "started.json", "tmp"))


@pytest.mark.parametrize("signum, to_group, message", [
    (signal.SIGINT, True, "interrupted"),  # Ctrl-C in a terminal reaches the whole job
    (signal.SIGTERM, False, "stopped by SIGTERM"),  # kill PID, a service manager
    (signal.SIGHUP, True, "stopped by SIGHUP"),  # the terminal closed
])
def test_a_stopped_cli_build_cleans_up_like_ctrl_c(tmp_path, tokenizer_file, signum, to_group, message):
    run, pids = start_build(tmp_path, tokenizer_file)
    try:
        (os.killpg if to_group else os.kill)(run.pid, signum)
        stdout, stderr = run.communicate(timeout=DEADLINE)
        assert (run.returncode, stdout) == (128 + signum, "")
        assert stderr.strip().splitlines()[-1] == f"tutorial-megatron: {message}; nothing was written"
        assert "Traceback" not in stderr
        wait_until(lambda: not any(map(alive, pids["workers"] + [pids["tracker"]])), "running")
        assert leftovers(tmp_path) == [] and list((tmp_path / "tmp").iterdir()) == []
    finally:
        stop(run)


def test_workers_and_the_tracker_end_when_the_build_is_killed(tmp_path, tokenizer_file):
    run, pids = start_build(tmp_path, tokenizer_file)
    try:
        os.kill(run.pid, signal.SIGKILL)  # nothing of the main process runs any more
        run.communicate(timeout=DEADLINE)
        wait_until(lambda: not any(map(alive, pids["workers"])), "workers running")
        wait_until(lambda: not alive(pids["tracker"]), "resource tracker running")
        # The tokenizer's pickle went with the workers. (The dataset's own temporary file, which no
        # process of a SIGKILLed build can remove, is for the next build of that prefix to remove.)
        assert list((tmp_path / "tmp").iterdir()) == []
    finally:
        stop(run)


def test_a_later_pool_removes_the_directory_of_a_pool_whose_process_is_gone(tmp_path, monkeypatch):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    stale = tmp_path / f"tutorial_lib-pool-{int(gone.stdout)}-abc123"
    stale.mkdir()
    (stale / "setup.pickle").write_bytes(b"left by a killed build")
    mine = tmp_path / f"tutorial_lib-pool-{os.getpid()}-def456"  # this process is alive: kept
    mine.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert list(_parallel.map_in_workers(abs, [-1, -2], 2, job="a test", caller="abs")) == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == [mine.name]


def test_the_pool_leaves_no_directory_after_an_error_or_a_normal_end(tmp_path, monkeypatch):
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    assert list(_parallel.map_in_workers(abs, [-3], 2, job="a test", caller="abs")) == [3]
    with pytest.raises(TypeError):
        list(_parallel.map_in_workers(abs, ["not a number"], 2, job="a test", caller="abs"))
    assert list(tmp_path.iterdir()) == []
