"""Root cause 8 (and 7's inputs), special files: a corpus or a tokenizer file that is a directory, a FIFO,
a device or a symlink loop is refused before anything opens it, with a message that says what it is,
instead of blocking forever, reading without end or claiming that the file does not exist."""

import os
import subprocess
import sys

import pytest

from tutorial_lib import data
from tutorial_pipeline.local import build
from tutorial_lib.bpe import formats
from tutorial_lib.contract import manifest

EOT = data.ENDOFTEXT
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero are POSIX")



def make(tmp_path, kind):
    """A path of the given kind in tmp_path (a FIFO nobody writes to: opening it would block)."""
    path = tmp_path / kind
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink loop":
        os.symlink(tmp_path / "symlink loop", path)
    elif kind == "device":
        return "/dev/zero"
    return str(path)


WHAT = {"directory": "is a directory", "fifo": r"is a FIFO \(named pipe\)", "device": "is a character device",
        "symlink loop": "cannot be looked up: Too many levels of symbolic links"}


@pytest.mark.parametrize("kind", list(WHAT))
def test_build_says_what_a_corpus_path_is(gpt2, tmp_path, kind):
    path = make(tmp_path, kind)
    with pytest.raises(ValueError, match=rf"paths must be a (readable )?regular file, but .* {WHAT[kind]}"):
        build(path, gpt2, tmp_path / "out", progress=False)
    with pytest.raises(ValueError, match=rf"paths\[1\] must be a (readable )?regular file, but .* {WHAT[kind]}"):
        build([data.corpus_path("luxun"), path], gpt2, tmp_path / "out", progress=False)
    assert not (tmp_path / "out.bin").exists()


@pytest.mark.parametrize("kind", list(WHAT))
def test_tokenizer_load_refuses_a_special_file_at_once(tmp_path, kind):
    with pytest.raises(ValueError, match=rf"path must be a (readable )?regular file, but .* {WHAT[kind]}"):
        manifest.load(make(tmp_path, kind))


def test_from_gpt2_files_refuses_a_fifo(tmp_path):
    vocab_json, merges_txt = data.gpt2_files()
    with pytest.raises(ValueError, match=r"merges_txt must be a regular file, but .* is a FIFO"):
        formats.from_gpt2_files(vocab_json, make(tmp_path, "fifo"))


@pytest.mark.parametrize("role", ["corpus", "--tokenizer"])
@pytest.mark.parametrize("kind", list(WHAT))
def test_the_cli_says_what_a_path_is_without_blocking_or_a_traceback(tmp_path, role, kind):
    (tmp_path / "c.txt").write_text("text\n", encoding="utf-8")
    path = make(tmp_path, kind)
    corpus, tokenizer = (path, "gpt2") if role == "corpus" else ("c.txt", path)
    run = subprocess.run([sys.executable, "-m", "tutorial_pipeline", "build", "--tokenizer", tokenizer,
                          "--output", "out", corpus], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    name = "paths[0]" if role == "corpus" else "--tokenizer"  # the CLI passes its FILES as a list
    assert run.stderr.startswith(f"tutorial-megatron: error: {name} must be a")
    assert WHAT[kind].replace("\\", "") in run.stderr
    assert not (tmp_path / "out.bin").exists()


def test_a_missing_corpus_or_tokenizer_is_still_bad_usage(tmp_path):
    (tmp_path / "c.txt").write_text("text\n", encoding="utf-8")
    for args, message in [(["--tokenizer", "gpt2", "missing.txt"], "no such corpus file: missing.txt"),
                          (["--tokenizer", "missing.json", "c.txt"], "--tokenizer: no such file: 'missing.json'")]:
        run = subprocess.run([sys.executable, "-m", "tutorial_pipeline", "build", "--output", "out", *args],
                             capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert run.returncode == 2 and message in run.stderr


@pytest.mark.parametrize("paths", [b"c.txt", bytearray(b"c.txt"), {"c.txt"}, {"c.txt": 1}])
def test_build_refuses_bytes_and_unordered_paths_instead_of_iterating_them(gpt2, tmp_path, paths):
    (tmp_path / "c.txt").write_text("text\n", encoding="utf-8")
    with pytest.raises(TypeError, match="paths must be a path"):
        build(paths, gpt2, tmp_path / "out", progress=False)
