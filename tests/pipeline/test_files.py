"""The pipeline's armour for files: the group renames and the lock that a dataset's files are committed
with. (The plain helpers it imports from the lesson, `read_utf8` and `write_atomically`: tests/lesson/test_data.py;
a killed writer's leftovers: tests/pipeline/faults/test_cleanup.py.)"""

import os

import pytest

from tutorial_pipeline import files
from tutorial_pipeline.files import AtomicFile, locked, replace_together


def test_the_plain_helpers_are_the_lessons_not_a_second_copy():
    from tutorial_lib import data
    assert (files.read_utf8, files.write_atomically, files.file_sha256, files.CHUNK_BYTES) == (
        data.read_utf8, data.write_atomically, data.file_sha256, data.CHUNK_BYTES)


# --- groups of files and the lock (the dataset pair's use of them: tests/pipeline/faults/test_pair.py) ----------------


def _staged(tmp_path, names, text):
    files = []
    for name in names:
        f = AtomicFile(tmp_path / name, "w", encoding="utf-8")
        f.file.write(text)
        f.sync()
        files.append(f)
    return files


def test_replace_together_undoes_the_renames_before_a_failing_one(tmp_path, monkeypatch):
    (tmp_path / "a").write_text("old a", encoding="utf-8")  # b has no old file, c is made to fail
    files = _staged(tmp_path, "abc", "new")
    real = os.replace
    monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError("refused"))
                        if os.path.basename(dst) == "c" else real(src, dst))
    with pytest.raises(OSError, match="refused"):
        replace_together(files)
    monkeypatch.undo()
    for f in files:
        f.discard()
    assert {p.name: p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == {"a": "old a"}


def test_locked_excludes_a_second_holder_and_removes_its_file(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    path = tmp_path / "x.lock"
    with locked(path):
        other = os.open(path, os.O_RDWR)
        try:
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        finally:
            os.close(other)
    assert not path.exists()
    with locked(path):  # and it can be taken again
        assert path.exists()
