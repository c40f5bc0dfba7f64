"""The grading process: `python -m tutorial_lib.classroom.worker KEY SEEDS_JSON < function.pickle`.

A clean interpreter (started by `grade.py`, never a fork of the student's kernel) that imports
the library from its files and runs `exercises.check(key, fn, seed=seed, block_library=True)` for
each seed, answering one JSON line on stdout: the list of `Feedback.to_json()`.

The pickle is loaded only inside the checker's sandboxed child, at the first case it runs: what
loading a by-value function runs (its module-level code, a hostile `__reduce__`) happens where the
function itself runs, never in this process before the checks (grade.py says what the function
can still do there).
While the checks run, file descriptor 1 points at stderr, so what the function prints (the checker
relays it) cannot be taken for the answer; the answer goes to the original stdout afterwards.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from typing import Any, Callable


def loaded_in_child(blob: bytes) -> Callable:
    """A function that unpickles the real one on its first call (in the checker's forked child)."""
    box: list[Callable] = []

    def learner_function(*args: Any) -> Any:
        if not box:
            box.append(pickle.loads(blob))
        return box[0](*args)

    return learner_function


def main(argv: list[str] | None = None) -> int:
    key, seeds_text = argv if argv is not None else sys.argv[1:]
    seeds = json.loads(seeds_text)
    if not isinstance(seeds, list) or not all(s is None or type(s) is int for s in seeds):
        raise ValueError("SEEDS_JSON must be a JSON list of null and integers")
    blob = sys.stdin.buffer.read()
    answer_fd = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    from tutorial_lib import exercises

    fn = loaded_in_child(blob)
    answers = [exercises.check(key, fn, seed=seed, block_library=True).to_json()
               for seed in seeds]
    sys.stdout.flush()
    with os.fdopen(answer_fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(answers, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
