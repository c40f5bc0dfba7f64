"""Root cause 2: the .bin/.idx pair was not committed together and nothing locked a prefix, so a failed or
interleaved commit left a pair that opened and served one build's tokens under another's index. The manifest
joined the group: a failed, killed or manifest-less commit never leaves a manifest that describes another pair."""

import errno
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from tutorial_pipeline import files as _files
from tutorial_pipeline import dataset_files as pair
from tutorial_pipeline.dataset_manifest import manifest_path
from tutorial_lib.packing.megatron import bin_path, idx_path
from tutorial_pipeline.dataset import AtomicDatasetBuilder, CheckedDataset, write_dataset

DEADLINE = 60  # seconds: only bounds a failure
ROOT = Path(__file__).resolve().parents[3]
OLD, NEW = [[1, 2, 3], [4, 5]], [[6, 7, 8], [9, 10]]  # the same sizes: only the record tells them apart


def _files_of(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _fail_on_call(monkeypatch, n, error=None):
    """os.replace that raises on its n-th call (as a rename over an immutable .idx does), real otherwise."""
    real, calls = os.replace, []

    def replace(src, dst):
        calls.append(os.path.basename(dst))
        if len(calls) == n:
            raise error or PermissionError(errno.EPERM, "Operation not permitted", str(dst))
        return real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    return calls


def test_a_failed_idx_rename_leaves_the_old_pair_readable(tmp_path, monkeypatch):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    before = _files_of(tmp_path)
    calls = _fail_on_call(monkeypatch, 2)
    with pytest.raises(PermissionError):
        write_dataset(prefix, NEW)
    assert calls[:3] == ["d.bin", "d.idx", "d.bin"]  # .bin renamed, .idx refused, the old .bin put back
    assert _files_of(tmp_path) == before  # no temporary file, no lock, no backup link either
    assert [s.tolist() for s in CheckedDataset(prefix)] == OLD


def test_a_failed_manifest_rename_leaves_the_old_pair_and_its_manifest(tmp_path, monkeypatch):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    before = _files_of(tmp_path)
    calls = _fail_on_call(monkeypatch, 3)
    with pytest.raises(PermissionError):
        write_dataset(prefix, NEW)
    assert calls == ["d.bin", "d.idx", "d.manifest.json", "d.idx", "d.bin"]  # both undone, newest first
    assert _files_of(tmp_path) == before
    monkeypatch.undo()
    assert [s.tolist() for s in CheckedDataset(prefix, verify=True)] == OLD


def test_a_failed_idx_rename_of_a_first_build_leaves_nothing(tmp_path, monkeypatch):
    _fail_on_call(monkeypatch, 2)
    with pytest.raises(PermissionError):
        write_dataset(tmp_path / "d", NEW)
    assert os.listdir(tmp_path) == []


def test_the_real_immutable_idx(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", idx_path(prefix)],
                                                        capture_output=True).returncode:
        pytest.skip("chattr +i needs root and a file system that supports it")
    try:
        before = _files_of(tmp_path)
        with pytest.raises(PermissionError):
            write_dataset(prefix, NEW)
        assert _files_of(tmp_path) == before
        assert [s.tolist() for s in CheckedDataset(prefix)] == OLD
    finally:
        subprocess.run(["chattr", "-i", idx_path(prefix)], check=True)


def test_without_hard_links_a_torn_pair_is_refused_by_its_record(tmp_path, monkeypatch):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    monkeypatch.setattr(os, "link", lambda *a: (_ for _ in ()).throw(OSError(errno.EPERM, "no links here")))
    _fail_on_call(monkeypatch, 2)
    with pytest.raises(PermissionError):
        write_dataset(prefix, NEW)  # nothing to undo with: the new .bin stays beside the old .idx
    monkeypatch.undo()
    with pytest.raises(ValueError, match=r"d\.bin is not the file .*d\.pair\.json records: the pair is torn"):
        CheckedDataset(prefix)


def _pause_after_bin(monkeypatch, who):
    """os.replace that, in thread `who`, stops after renaming d.bin until released; logs every rename."""
    real, log = os.replace, []
    renamed, release = threading.Event(), threading.Event()

    def replace(src, dst):
        real(src, dst)
        log.append((threading.current_thread().name, os.path.basename(dst)))
        if threading.current_thread().name == who and os.path.basename(dst) == "d.bin":
            renamed.set()
            assert release.wait(DEADLINE)

    monkeypatch.setattr(os, "replace", replace)
    return log, renamed, release


def _builder(prefix, docs):
    builder = AtomicDatasetBuilder(prefix)
    for doc in docs:
        builder.add_document(doc)
    return builder


def _finalize_in_thread(builder, name):
    errors = []
    thread = threading.Thread(target=lambda: _record_error(builder.finalize, errors), name=name)
    thread.start()
    return thread, errors


def _record_error(fn, errors):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001 - handed to the test
        errors.append(e)


def test_interleaved_renames_without_the_lock_are_refused_by_the_record(tmp_path, monkeypatch):
    # what two builders that do not lock (another tool, or Windows) can do: A.bin, B.bin, B.idx, A.idx
    prefix = tmp_path / "d"
    a, b = _builder(prefix, OLD), _builder(prefix, NEW)
    monkeypatch.setattr(pair, "locked", lambda path: _files.contextlib.nullcontext())
    log, renamed, release = _pause_after_bin(monkeypatch, "A")
    thread, errors = _finalize_in_thread(a, "A")
    try:
        assert renamed.wait(DEADLINE)
        b.finalize()  # B, whole, between A's two renames
    finally:
        release.set()
        thread.join(DEADLINE)
    assert not errors
    assert [f"{who}.{name.split('.', 1)[1]}" for who, name in log] == [
        "A.bin", "MainThread.bin", "MainThread.idx", "MainThread.manifest.json", "MainThread.pair.json", "A.idx",
        "A.manifest.json", "A.pair.json"]
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx", "d.manifest.json", "d.pair.json"]  # opens, sizes fine...
    with pytest.raises(ValueError, match=r"d\.bin is not the file .* the pair is torn"):
        CheckedDataset(prefix)  # ...but B's tokens under A's index are refused


def test_the_lock_makes_a_second_builder_wait_for_the_first_ones_renames(tmp_path, monkeypatch):
    prefix = tmp_path / "d"
    a, b = _builder(prefix, OLD), _builder(prefix, NEW)
    log, renamed, release = _pause_after_bin(monkeypatch, "A")
    real_flock, b_waits = fcntl.flock, threading.Event()

    def flock(fd, op):
        if threading.current_thread().name == "B":
            b_waits.set()
        return real_flock(fd, op)

    monkeypatch.setattr(_files.fcntl, "flock", flock)
    thread_a, errors_a = _finalize_in_thread(a, "A")
    thread_b = None
    try:
        assert renamed.wait(DEADLINE)  # A is between its renames, holding the lock
        probe = os.open(pair.lock_path(prefix), os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                real_flock(probe, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(probe)
        thread_b, errors_b = _finalize_in_thread(b, "B")
        assert b_waits.wait(DEADLINE)  # B asks for the lock while A holds it
    finally:
        release.set()
        thread_a.join(DEADLINE)
        if thread_b is not None:
            thread_b.join(DEADLINE)
    assert not errors_a and not errors_b
    assert [who for who, _ in log] == ["A"] * 4 + ["B"] * 4  # one commit, then the other: never mixed
    assert [s.tolist() for s in CheckedDataset(prefix)] == NEW
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx", "d.manifest.json", "d.pair.json"]  # the lock went too


CRASH = """
import os, signal, sys
from tutorial_pipeline.dataset import write_dataset
real = os.replace
def replace(src, dst):
    if %r is None:
        os.kill(os.getpid(), signal.SIGKILL)  # a crash with all four files synced, before any rename
    real(src, dst)
    if os.path.basename(dst) == %r:
        os.kill(os.getpid(), signal.SIGKILL)  # a crash between two renames
os.replace = replace
write_dataset("d", %r)
"""


def _crash(tmp_path, after):
    child = subprocess.run([sys.executable, "-c", CRASH % (after, after, NEW)], cwd=tmp_path, timeout=DEADLINE,
                           env=os.environ | {"PYTHONPATH": str(ROOT)})
    assert child.returncode == -signal.SIGKILL


@pytest.mark.parametrize("after, renamed", [("d.bin", 1), ("d.manifest.json", 3)])
def test_a_build_killed_between_its_renames_is_refused_then_cleaned_up(tmp_path, monkeypatch, after, renamed):
    monkeypatch.chdir(tmp_path)
    write_dataset("d", OLD)
    _crash(tmp_path, after)
    left = sorted(os.listdir(tmp_path))  # the four files (new up to `after`, old after it), the lock, 4 links of
    assert left[-5:] == ["d.bin", "d.idx", "d.lock", "d.manifest.json", "d.pair.json"]  # the old files (the undo
    temporaries = 4 + 4 - renamed  # a crash never ran) and the new files not yet renamed
    assert len(left) == 5 + temporaries
    with pytest.raises(ValueError, match="the pair is torn"):
        CheckedDataset("d")  # the record, renamed last, is the old one
    with pytest.warns(UserWarning, match=f"removed {temporaries} temporary file"):
        write_dataset("d", NEW)
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx", "d.manifest.json", "d.pair.json"]
    assert [s.tolist() for s in CheckedDataset("d", verify=True)] == NEW


def test_a_first_build_killed_before_its_renames_leaves_no_manifest(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _crash(tmp_path, None)
    left = sorted(os.listdir(tmp_path))
    assert left[-1] == "d.lock" and len(left) == 5 and all(name.endswith(".tmp") for name in left[:-1])
    assert any(name.startswith(".d.manifest.json.") for name in left)  # written, synced, never renamed
    with pytest.raises(FileNotFoundError, match="no dataset at d"):
        CheckedDataset("d")
    with pytest.warns(UserWarning, match="removed 4 temporary file"):
        write_dataset("d", NEW)
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx", "d.manifest.json", "d.pair.json"]


def test_a_pair_committed_without_a_manifest_leaves_no_old_one(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    bin_file, idx_file = _files.AtomicFile(bin_path(prefix)), _files.AtomicFile(idx_path(prefix))
    bin_file.file.write(bin_path(prefix).read_bytes())
    idx_file.file.write(idx_path(prefix).read_bytes())
    bin_file.sync()
    idx_file.sync()
    pair.commit(prefix, bin_file, idx_file)  # as a tool that writes no manifest commits
    assert sorted(os.listdir(tmp_path)) == ["d.bin", "d.idx", "d.pair.json"]
    assert CheckedDataset(prefix).manifest is None


def test_a_manifest_the_record_does_not_name_is_refused(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    old_manifest = manifest_path(prefix).read_bytes()
    write_dataset(prefix.with_name("e"), NEW)
    shutil.copyfile(manifest_path(prefix.with_name("e")), manifest_path(prefix))  # another build's
    with pytest.raises(ValueError, match=r"d\.manifest\.json is not the manifest .*d\.pair\.json records \(it was "
                                         r"edited, or is another build's\)"):
        CheckedDataset(prefix)
    record = json.loads(pair.record_path(prefix).read_text())
    pair.record_path(prefix).write_text(json.dumps(record | {"manifest": None}))  # a commit without one, then a
    manifest_path(prefix).write_bytes(old_manifest)  # crash before the old manifest was removed
    with pytest.raises(ValueError, match=r"\(it records none: the manifest is left from an earlier build\); delete it"):
        CheckedDataset(prefix)
    manifest_path(prefix).unlink()
    assert CheckedDataset(prefix).manifest is None


def _rewrite_bin_in_place(prefix):
    with open(bin_path(prefix), "r+b") as f:
        f.write(np.array([9, 9, 9], np.uint16).tobytes())


def _flip_dtype_to_int16(prefix):
    raw = bytearray(idx_path(prefix).read_bytes())
    raw[17] = 3  # uint16 (8) -> int16 (3): same itemsize, every structural check passes
    idx_path(prefix).write_bytes(bytes(raw))


def _pair_of_another_build(prefix):
    other = prefix.with_name("other")
    write_dataset(other, [[6, 7], [8, 9, 10]])  # other lengths, the same total: structurally fine here
    for path in (bin_path, idx_path):
        shutil.copyfile(path(other), path(prefix))  # as megatron-core's builder would write over it


CASES = [
    ("the .bin rewritten in place, same size", _rewrite_bin_in_place, r"d\.bin is not the file"),
    ("the .idx dtype code changed to one of the same size", _flip_dtype_to_int16, r"d\.idx is not the file"),
    ("both replaced by another tool", _pair_of_another_build,
     r"d\.bin and .*d\.idx are not the files .*delete .*d\.pair\.json"),
    ("a record that is not JSON", lambda p: pair.record_path(p).write_text("{", encoding="utf-8"),
     r"d\.pair\.json is not a pair record of this library; delete it"),
    ("a record of another format", lambda p: pair.record_path(p).write_text('{"format": 2}', encoding="utf-8"),
     "not a pair record"),
]


@pytest.mark.parametrize("name, edit, message", CASES, ids=[c[0] for c in CASES])
def test_a_pair_that_is_not_the_recorded_one_is_refused(tmp_path, name, edit, message):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    edit(prefix)
    with pytest.raises(ValueError, match=message):
        CheckedDataset(prefix)


def test_a_pair_without_a_record_is_read_as_megatron_writes_it(tmp_path):
    prefix = tmp_path / "d"
    write_dataset(prefix, OLD)
    pair.record_path(prefix).unlink()
    _rewrite_bin_in_place(prefix)
    assert CheckedDataset(prefix)[0].tolist() == [9, 9, 9]  # structure alone cannot tell


def test_the_record_samples_large_files_and_hashes_small_ones_whole(tmp_path):
    small, large = tmp_path / "small", tmp_path / "large"
    small.write_bytes(bytes(64 * 1024))
    large.write_bytes(bytes(16 * 1024 * 1024))
    for path, offset, seen in ((small, 40_000, True), (large, 8 * 1024 * 1024 + 12_345, False),
                               (large, 16 * 1024 * 1024 - 1, True), (large, 0, True)):
        before = pair.fingerprint(path)
        with open(path, "r+b") as f:
            f.seek(offset)
            f.write(b"\x01")
        assert (pair.fingerprint(path) != before) == seen, (path.name, offset)
        with open(path, "r+b") as f:
            f.seek(offset)
            f.write(b"\x00")
