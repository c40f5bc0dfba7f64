"""`python -m tutorial_pipeline.golden`: writes the bundled golden file byte for byte, checks a
tokenizer against it, and lists what fails."""

import subprocess
import sys

from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.contract import manifest

COURSE = course_tokenizer.load()


def run(*args):
    return subprocess.run([sys.executable, "-m", "tutorial_pipeline.golden", *args],
                          capture_output=True, text=True, timeout=120)


def test_the_command_writes_and_checks(tmp_path):
    path = tmp_path / "g.jsonl"
    result = run("write", "--tokenizer", "course", str(path))
    assert result.returncode == 0 and data.COURSE_GOLDEN[1] in result.stdout
    assert path.read_bytes() == data.course_golden_path().read_bytes()
    result = run("check", "--tokenizer", "course", str(path))
    assert result.returncode == 0 and "0 of 52 golden vectors fail" in result.stdout


def test_the_command_lists_the_failing_vectors(tmp_path):
    gpt4_split = Tokenizer(COURSE.vocab, COURSE.merges, list(COURSE.special_tokens), pattern="gpt4",
                           metadata=COURSE.metadata, normalization=COURSE.normalization)
    changed = manifest.save(gpt4_split, tmp_path / "gpt4.json")
    result = run("check", "--tokenizer", str(changed), str(data.course_golden_path()))
    assert result.returncode == 1
    assert "FAIL digits '一英里大约是1600米。'" in result.stdout and "    ids: expected" in result.stdout
    assert "the file was written for tokenizer" in result.stdout
    result = run("check", "--tokenizer", "course", str(tmp_path / "missing.jsonl"))
    assert result.returncode == 1 and "error" in result.stderr
