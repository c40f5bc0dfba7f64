"""Root cause 1 (files): cleanup that did not happen: a discard that stopped at a failing close, a dropped
builder, and the temporary files of a killed build that no later run removed."""

import errno
import gc
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tutorial_pipeline import files as _files
from tutorial_pipeline.files import AtomicFile, remove_stale_temporaries, write_atomically
from tutorial_pipeline.dataset import AtomicDatasetBuilder, CheckedDataset, write_dataset

DEADLINE = 60  # seconds: only bounds a failure
ROOT = Path(__file__).resolve().parents[3]  # the children import this checkout's tutorial_lib


def _fill_disk(file):
    """Point `file`'s descriptor at /dev/full: its next flush fails with ENOSPC, as on a full disk."""
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        os.dup2(full, file.fileno())
    finally:
        os.close(full)


needs_dev_full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")


@needs_dev_full
def test_discard_unlinks_when_close_fails_on_a_full_disk(tmp_path):
    out = AtomicFile(tmp_path / "t.txt")
    out.file.write(b"x" * 100)  # held in the buffer: close() must flush it
    _fill_disk(out.file)
    with pytest.raises(OSError) as e:
        out.file.flush()
    assert e.value.errno == errno.ENOSPC  # the fake disk is full
    out.discard()  # flushes again, fails again, and unlinks anyway
    assert os.listdir(tmp_path) == []


@needs_dev_full
def test_a_build_that_fills_the_disk_leaves_the_old_pair_and_no_temporary_file(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, [[1, 2]])
    before = sorted(os.listdir(tmp_path))
    builder = AtomicDatasetBuilder(prefix)
    builder.add_document([3, 4, 5])
    _fill_disk(builder._bin.file)
    with pytest.raises(OSError, match="No space left"):
        builder.finalize()
    assert sorted(os.listdir(tmp_path)) == before and CheckedDataset(prefix)[0].tolist() == [1, 2]


def test_a_dropped_builder_removes_its_temporary_file(tmp_path):
    builder = AtomicDatasetBuilder(tmp_path / "d")
    builder.add_document([1, 2, 3])  # a notebook cell that failed here, then `del builder`
    assert len(os.listdir(tmp_path)) == 1
    del builder
    gc.collect()
    assert os.listdir(tmp_path) == []


def test_a_committed_file_is_not_touched_by_its_finaliser(tmp_path):
    out = AtomicFile(tmp_path / "t.txt", "w", encoding="utf-8")
    out.file.write("kept\n")
    out.commit()
    del out
    gc.collect()
    assert (tmp_path / "t.txt").read_bytes() == b"kept\n"  # and "\n" stays "\n" (no CRLF on Windows)


def _child(tmp_path, code):
    """A Python process running `code` that prints "ready" when its files are on disk, then waits."""
    script = textwrap.dedent(code) + "\nprint('ready', flush=True)\nsys.stdin.read()\n"
    child = subprocess.Popen([sys.executable, "-c", "import sys\n" + script], cwd=tmp_path, text=True,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert child.stdout.readline() == "ready\n"
    return child


BUILD = """
from tutorial_pipeline.dataset import AtomicDatasetBuilder
builder = AtomicDatasetBuilder("d")
builder.add_document([1, 2, 3])
builder._bin.file.flush()
"""


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP], ids=lambda s: s.name)
def test_the_next_builder_removes_what_a_killed_build_left_and_says_so(tmp_path, monkeypatch, sig):
    monkeypatch.chdir(tmp_path)
    child = _child(tmp_path, BUILD)
    try:
        child.send_signal(sig)
        assert child.wait(DEADLINE) == -sig  # died of it: no handler ran
    finally:
        child.kill()
        child.wait()
    [left] = os.listdir(tmp_path)
    assert left.startswith(f".d.bin.{child.pid}-") and left.endswith(".tmp")
    with pytest.warns(UserWarning, match=rf"removed 1 temporary file\(s\) of 'd' left by builds that were killed: "
                                         rf"\.d\.bin\.{child.pid}-"):
        write_dataset("d", [[7]])
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx", "d.manifest.json", "d.pair.json"]


def test_a_live_builders_temporary_file_is_never_removed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    child = _child(tmp_path, BUILD)
    try:
        [theirs] = os.listdir(tmp_path)
        write_dataset("d", [[7]])  # another build of the same prefix, while the first still writes
        assert theirs in os.listdir(tmp_path)
        assert remove_stale_temporaries(tmp_path / "d.bin") == []
    finally:
        child.kill()
        child.wait()
    assert [p.name for p in remove_stale_temporaries(tmp_path / "d.bin")] == [theirs]  # now it is gone


def test_other_machines_and_other_names_are_left_alone_and_a_past_boot_is_stale(tmp_path):
    machine, boot = _files._machine_and_boot()
    other = "0" * 8 if machine != "0" * 8 else "1" * 8
    dead = 2**22 + 12345  # above Linux's default pid_max
    names = {
        f".d.bin.{dead}-{other}-{boot}.{'a' * 16}.tmp": True,  # another machine: kept
        f".d.bin.{'b' * 16}.tmp": True,  # the old form without a writer: kept
        f".d.bin.x.{dead}-{machine}-{boot}.{'c' * 16}.tmp": True,  # a temporary of d.bin.x
        f".d.bin.{os.getpid()}-{machine}-{boot}.{'d' * 16}.tmp": True,  # this very process
        f".d.bin.{dead}-{machine}-{boot}.{'e' * 16}.tmp": False,  # this machine, pid gone
        f".d.bin.{os.getpid()}-{machine}-{other}.{'f' * 16}.tmp": False,  # before this boot
    }
    for name in names:
        (tmp_path / name).write_bytes(b"")
    removed = {p.name for p in remove_stale_temporaries(tmp_path / "d.bin")}
    assert removed == {name for name, kept in names.items() if not kept}
    assert {p.name for p in tmp_path.iterdir()} == {name for name, kept in names.items() if kept}


def test_directories_are_not_synced_on_windows(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Access is denied")  # what os.open(directory) gives there

    monkeypatch.setattr(_files.os, "name", "nt")
    monkeypatch.setattr(_files.os, "open", refuse)
    _files.sync_directory(tmp_path)  # returns, where os.open would have been refused
    monkeypatch.undo()
    write_atomically(tmp_path / "t.txt", "a\nb\n")
    assert (tmp_path / "t.txt").read_bytes() == b"a\nb\n"


FORK = """
import os, sys
from tutorial_pipeline.dataset import AtomicDatasetBuilder
builder = AtomicDatasetBuilder("d")
builder.add_document([1, 2, 3])
child = os.fork()
if child == 0:
    sys.exit(0)  # a normal exit runs the finalisers (what a forked checker or worker does)
os.waitpid(child, 0)
print(sorted(os.listdir(".")))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_that_exits_leaves_its_parents_temporary_file(tmp_path):
    run = subprocess.run([sys.executable, "-c", FORK], cwd=tmp_path, capture_output=True, text=True,
                         timeout=DEADLINE, env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    [left] = eval(run.stdout)  # the parent, after its child exited
    assert left.startswith(".d.bin.")
    assert os.listdir(tmp_path) == []  # and the parent's own exit removed it


def test_the_command_line_says_in_one_line_what_it_removed(tmp_path, monkeypatch):
    """The CLI's builder removes a killed build's file too, and says so as a CLI message, not as a
    Python warning with a source line."""
    monkeypatch.chdir(tmp_path)
    child = _child(tmp_path, BUILD)
    try:
        child.kill()
        assert child.wait(DEADLINE) == -signal.SIGKILL
    finally:
        child.kill()
        child.wait()
    (tmp_path / "c.txt").write_text("hello\nworld\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "tutorial_pipeline", "build", "--quiet", "--tokenizer",
                          "gpt2", "--output", "d", "c.txt"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=DEADLINE, env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("tutorial-megatron: warning: removed 1 temporary file(s) of 'd' left by builds "
                                 f"that were killed: .d.bin.{child.pid}-")
    assert "UserWarning" not in run.stderr and len(run.stderr.splitlines()) == 1
    assert sorted(os.listdir(tmp_path)) == ["c.txt", "d.bin", "d.idx", "d.manifest.json", "d.pair.json"]
