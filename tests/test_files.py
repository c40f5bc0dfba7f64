"""The strict streaming UTF-8 reader that the trainer's corpus and the pipeline read files with, and the
group renames and the lock that a dataset's files are committed with."""

import os
import re

import pytest

from tutorial_lib import data
from tutorial_pipeline.files import AtomicFile, locked, read_utf8, replace_together


def test_read_utf8_joins_characters_cut_between_reads(tmp_path):
    path = tmp_path / "zh.txt"
    text = data.load_text("luxun")[:3000]
    path.write_text(text, encoding="utf-8")
    chunks = []
    pieces = list(read_utf8(path, 5, on_read=chunks.append))  # every 3-byte Han character is cut
    assert "".join(pieces) == text and len(pieces) > 100
    assert b"".join(chunks) == path.read_bytes() and max(map(len, chunks)) == 5  # what a bar or a checksum sees


@pytest.mark.parametrize("content, where", [(b"ok\n\xff\n", "byte 3 (b'\\xff') is invalid start byte"),
                                            ("中文".encode() + b"\xe4\xb8\xe4", "byte 6 (b'\\xe4') is invalid "
                                                                              "continuation byte"),
                                            ("中".encode()[:2], "it ends inside a character")])
def test_read_utf8_names_the_first_byte_that_is_not_utf8(tmp_path, content, where):
    path = tmp_path / "latin1.txt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(f"latin1.txt is not UTF-8 text: {where}")):
        list(read_utf8(path, 4))


def test_read_utf8_checks_its_arguments(tmp_path):
    with pytest.raises(TypeError, match="path must be a path"):
        list(read_utf8(b"x.txt"))
    with pytest.raises(ValueError, match="chunk_bytes must be an int >= 1, got 0"):
        list(read_utf8(tmp_path / "x.txt", 0))


# --- groups of files and the lock (the dataset pair's use of them: tests/faults/test_pair.py) ----------------


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
