"""Parallel pre-tokenization started from a script: the script runs again in every worker (spawn)."""

import subprocess
import sys

import pytest

TRAIN = 'vocab, merges = train_bpe(["hello world " * 20000, "more text here"], 270, workers=2)  # a batch larger than a pipe'
SCRIPTS = {
    "unguarded": f"{TRAIN}\nprint(len(merges))\n",
    "guarded": f'if __name__ == "__main__":\n    {TRAIN}\n    print(len(merges))\n',
}


@pytest.mark.parametrize("kind", sorted(SCRIPTS))
def test_a_script_without_the_main_guard_fails_fast_and_says_what_to_add(kind, tmp_path):
    script = tmp_path / "train.py"
    script.write_text("from tutorial_lib.tokenization.trainer import train_bpe\n" + SCRIPTS[kind], encoding="utf-8")
    # Before the fix the workers were restarted forever; the timeout only keeps such a bug from hanging the suite.
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    if kind == "guarded":
        assert (run.returncode, run.stdout) == (0, "14\n"), run.stderr
    else:
        assert run.returncode == 1 and run.stdout == ""
        last_line = run.stderr.strip().splitlines()[-1]
        assert last_line.startswith("RuntimeError: a worker process of pre-tokenization died")
        assert 'put that call under `if __name__ == "__main__":`' in last_line and "workers=1" in last_line
