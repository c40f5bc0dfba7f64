import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tutorial_lib import data


def test_every_corpus_loads_and_matches_provenance():
    provenance = (data.DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    for corpus in data.list_corpora():
        assert corpus.sha256 in provenance, corpus.name
        assert data.corpus_path(corpus.name) == corpus.path
        assert hashlib.sha256(corpus.path.read_bytes()).hexdigest() == corpus.sha256


def test_gpt2_files_are_registered_and_checked():
    provenance = (data.DATA_DIR / "PROVENANCE.md").read_text(encoding="utf-8")
    paths = data.gpt2_files()
    assert [path.name for path in paths] == ["encoder.json", "vocab.bpe"]
    for path, digest in zip(paths, data.GPT2_FILES.values()):
        assert digest in provenance
        assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_tinystories_splits_into_its_stories():
    docs = data.tinystories_documents()
    assert len(docs) == 1727  # PROVENANCE.md: 1,727 complete stories
    assert all(data.ENDOFTEXT not in d and d == d.strip("\n") and d for d in docs)
    assert docs[0].startswith("Once upon a time there was a little boy named Ben.")


def test_split_documents_drops_empty_pieces_and_trims_newlines():
    text = "\na\n<|endoftext|>\nb c\n<|endoftext|>\n<|endoftext|>\n"
    assert data.split_documents(text) == ["a", "b c"]
    assert data.split_documents("x##y", separator="##") == ["x", "y"]
    with pytest.raises(ValueError, match="separator"):
        data.split_documents("x", separator="")
    with pytest.raises(TypeError, match="separator must be a non-empty str, got NoneType"):
        data.split_documents("x", separator=None)
    with pytest.raises(TypeError, match="text"):
        data.split_documents(b"x")


def test_split_documents_keeps_indentation_and_spaces_inside_a_document():
    # Chinese paragraphs are indented with U+3000; only the newlines around the separator are trimmed.
    text = "\u3000\u3000第一章\n<|endoftext|>\n  code block  \n\n<|endoftext|>\n\t\n<|endoftext|>\n"
    assert data.split_documents(text) == ["\u3000\u3000第一章", "  code block  "]


def test_parallel_corpora_are_line_aligned():
    assert {len(data.load_parallel(lang)) for lang in ("eng_Latn", "zho_Hans", "tha_Thai")} == {1012}


def test_unknown_name_is_rejected_with_the_allowed_names():
    with pytest.raises(ValueError, match="timemachine"):
        data.corpus_path("time_machine")
    with pytest.raises(TypeError, match=r"name must be a str, got \w*Path"):
        data.load_text(data.DATA_DIR / "timemachine.txt")


@pytest.fixture
def data_copy(tmp_path, monkeypatch):
    copy = tmp_path / "data"
    shutil.copytree(data.DATA_DIR, copy)
    monkeypatch.setattr(data, "DATA_DIR", copy)
    return copy


def test_missing_file_is_named(data_copy):
    (data_copy / "timemachine.txt").unlink()
    with pytest.raises(FileNotFoundError, match="timemachine.txt"):
        data.load_text("timemachine")


def test_altered_file_is_named(data_copy):
    with open(data_copy / "zh_luxun_nahan_panghuang_gushixinbian.txt", "a", encoding="utf-8") as f:
        f.write("。")
    with pytest.raises(ValueError, match="'luxun'.*not the file this course was written against"):
        data.load_text("luxun")


def test_every_bundled_flores_language_has_a_chinese_name():
    bundled = {c.name.split("/")[1] for c in data.list_corpora() if c.name.startswith("flores/")}
    assert set(data.LANGUAGE_NAMES) == bundled


def test_altered_gpt2_file_is_named(data_copy):
    with open(data_copy / "gpt2" / "vocab.bpe", "ab") as f:
        f.write(b"a b\n")
    with pytest.raises(ValueError, match="GPT-2 file 'gpt2/vocab.bpe'.*not the file this course was written against"):
        data.gpt2_files()


def test_load_text_returns_the_bytes_it_checked(data_copy, monkeypatch):
    """A file replaced right after it was hashed must not be decoded unchecked."""
    path = data_copy / "timemachine.txt"
    original = path.read_text(encoding="utf-8")
    read_bytes = Path.read_bytes

    def read_then_swap(self):
        content = read_bytes(self)
        if self == path:
            path.write_text("swapped in by someone else", encoding="utf-8")
        return content

    monkeypatch.setattr(Path, "read_bytes", read_then_swap)
    assert data.load_text("timemachine") == original
    with pytest.raises(ValueError, match="not the file this course was written against"):
        data.load_text("timemachine")


def test_a_clone_that_converts_line_endings_still_loads_every_corpus(tmp_path):
    """Git for Windows defaults to core.autocrlf=true, which writes LF files out as CRLF; the
    repository's .gitattributes must keep every file as committed, so every sha256 still matches.

    The clone is of the committed HEAD, so this checks what a learner would get.
    """
    root = Path(__file__).resolve().parents[2]
    if shutil.which("git") is None or not (root / ".git").exists():
        pytest.skip("needs git and a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "-c", "core.autocrlf=true", "clone", "-q", str(root), str(clone)],
                   check=True)
    changed = []
    for path in subprocess.run(["git", "-C", str(clone), "ls-files", "-z"], check=True,
                               capture_output=True).stdout.decode().split("\0"):
        if path:
            committed = subprocess.run(["git", "-C", str(clone), "cat-file", "blob",
                                        f"HEAD:{path}"], check=True, capture_output=True).stdout
            if (clone / path).read_bytes() != committed:
                changed.append(path)
    assert changed == []
    loads = ("from tutorial_lib import data\n"
             "for corpus in data.list_corpora(): data.load_text(corpus.name)\n"
             "data.gpt2_files()\n")
    subprocess.run([sys.executable, "-c", loads], check=True, cwd=clone,
                   env={**os.environ, "PYTHONPATH": str(clone)})


def test_the_data_directory_is_the_variable_then_the_clones_data(monkeypatch, tmp_path):
    monkeypatch.setenv("TUTORIAL_DATA_DIR", str(tmp_path))
    assert data.find_data_dir() == tmp_path
    monkeypatch.delenv("TUTORIAL_DATA_DIR")
    assert data.find_data_dir() == Path(data.__file__).resolve().parent.parent / "data"
    # An installed package finds <prefix>/share/tutorial-lib/data: tests/test_installed_package.py


def test_a_missing_file_names_the_variable_that_points_elsewhere(monkeypatch, tmp_path):
    monkeypatch.setattr(data, "DATA_DIR", tmp_path)
    with pytest.raises(FileNotFoundError, match="TUTORIAL_DATA_DIR"):
        data.gpt2_files()


# --- reading and writing the course's files ------------------------------------------------------------------


def test_read_utf8_joins_characters_cut_between_reads(tmp_path):
    path = tmp_path / "zh.txt"
    text = data.load_text("luxun")[:3000]
    path.write_text(text, encoding="utf-8")
    chunks = []
    pieces = list(data.read_utf8(path, 5, on_read=chunks.append))  # every 3-byte Han character is cut
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
        list(data.read_utf8(path, 4))


def test_read_utf8_checks_its_arguments(tmp_path):
    with pytest.raises(TypeError, match="path must be a path"):
        list(data.read_utf8(b"x.txt"))
    with pytest.raises(ValueError, match="chunk_bytes must be an int >= 1, got 0"):
        list(data.read_utf8(tmp_path / "x.txt", 0))


def test_write_atomically_writes_the_text_whole_as_utf8_with_its_line_ends_untouched(tmp_path):
    path = tmp_path / "out.txt"
    data.write_atomically(path, "一\n二\r\n")
    assert path.read_bytes() == "一\n二\r\n".encode() and os.listdir(tmp_path) == ["out.txt"]
    data.write_atomically(str(path), "new")  # over an existing file: the same rename
    assert path.read_text(encoding="utf-8") == "new" and os.listdir(tmp_path) == ["out.txt"]


@pytest.mark.parametrize("failing", ["write", "replace"])
def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path, monkeypatch, failing):
    path = tmp_path / "out.txt"
    path.write_text("old", encoding="utf-8")
    if failing == "replace":
        monkeypatch.setattr(os, "replace", lambda src, dst: (_ for _ in ()).throw(OSError("refused")))
        with pytest.raises(OSError, match="refused"):
            data.write_atomically(path, "new")
    else:
        with pytest.raises(UnicodeEncodeError):
            data.write_atomically(path, "half \ud800")  # a lone surrogate: not UTF-8
    assert path.read_text(encoding="utf-8") == "old" and os.listdir(tmp_path) == ["out.txt"]


def test_write_atomically_writes_bytes_as_they_are_and_refuses_anything_else(tmp_path):
    path = tmp_path / "out.bin"
    data.write_atomically(path, b"\xff\x00\r\n")
    assert path.read_bytes() == b"\xff\x00\r\n"
    with pytest.raises(TypeError, match="content must be the text or bytes to write"):
        data.write_atomically(path, ["x"])
    assert path.read_bytes() == b"\xff\x00\r\n" and os.listdir(tmp_path) == ["out.bin"]


def test_write_atomically_checks_its_path(tmp_path):
    with pytest.raises(TypeError, match="path must be a path"):
        data.write_atomically(None, "x")
    with pytest.raises(IsADirectoryError):
        data.write_atomically(tmp_path, "x")
    assert os.listdir(tmp_path) == []


def test_file_sha256_is_the_digest_of_the_bytes_read_in_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "CHUNK_BYTES", 7)  # many reads
    path = data.corpus_path("timemachine")
    assert data.file_sha256(path) == hashlib.sha256(path.read_bytes()).hexdigest()
    assert data.file_sha256(str(path)) == data.CORPORA["timemachine"].sha256
    (tmp_path / "empty").write_bytes(b"")
    assert data.file_sha256(tmp_path / "empty") == hashlib.sha256(b"").hexdigest()
    with pytest.raises(ValueError, match="path must be a regular file, but .* is a directory"):
        data.file_sha256(tmp_path)
    with pytest.raises(FileNotFoundError, match="path: no such file"):
        data.file_sha256(tmp_path / "missing")
