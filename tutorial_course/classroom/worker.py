"""The grading process of one submission: `python -m tutorial_course.classroom.worker < job.json`.

Started by `grade.py`, inside the isolation `isolation.py` gives it (it sees the installed library
and the data, never the course directory). The job on stdin is JSON: the notebook's own import
lines (`prelude`, from the instructor's copy), the student's answer cells (`cells`, a list of
[name, source]), the exercises to grade (`exercises`, a list of [key, how many cells it may
use]: its own answer cell and those above it) and the seeds (None: the public cases; an int: the
hidden ones). The answer, one JSON line on stdout: key -> the list of `Feedback.to_json()`, one per
seed.

Each exercise is graded in two processes, so that the student's code never runs where an expected
value is. This worker builds the cases and keeps them; the cells go with the cases' arguments only
to a new interpreter, `exercises.runner`, which runs them in its sandbox with the library twins
blocked and sends back what the function returned, encoded as plain values (`exercises.wire`). The
worker decodes and judges those answers with `exercises.judge`, the code `check` uses. On Linux
this process also makes its memory unreadable to the runner (`keep_memory_private`), which runs as
the same user. While the grading runs, file descriptor 1 points at stderr, so nothing the runner
lets through can be taken for the answer; the answer goes to the original stdout afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from tutorial_course import exercises
from tutorial_course.classroom import GRADING_TIMEOUT
from tutorial_course.exercises import runner, sandbox


def keep_memory_private() -> bool:
    """Make this process's memory unreadable to other processes of the same user (Linux's
    PR_SET_DUMPABLE 0: no /proc/PID/mem, no ptrace), since the student's code, running as that
    user, could otherwise read the expected values out of it. Whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        return False


def run_elsewhere(work: bytes, batches: int) -> list[list]:
    """The runner's results for each batch (`runner.from_json` of each); an empty list for a batch
    the runner did not answer (the judge fails its first case), a time-out for each if the runner
    ran out of the grading's time."""
    try:
        done = subprocess.run(runner.command(), input=work, stdout=subprocess.PIPE,
                              timeout=GRADING_TIMEOUT)
    except subprocess.TimeoutExpired:
        return [[sandbox.Ended(timed_out=True)] for _ in range(batches)]
    try:
        answers = json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError, UnicodeDecodeError):
        answers = []
    if done.returncode != 0 or not isinstance(answers, list) or len(answers) != batches:
        return [[] for _ in range(batches)]
    return [[runner.from_json(item) for item in batch] if isinstance(batch, list) else []
            for batch in answers]


def grade_exercise(key: str, prelude: str, cells: list[tuple[str, str]],
                   seeds: list[int | None]) -> list[dict[str, Any]]:
    """`Feedback.to_json()` of exercise `key` for each seed, the cells run by the runner."""
    exercise = exercises.exercise_of(key)
    batches = [exercises.cases_in_order(exercise, seed) for seed in seeds]
    seconds = exercises.TIME_LIMIT
    work = runner.job(prelude, cells, exercise.function_name,
                      [[case.args for case in cases] for cases in batches], seconds,
                      exercise.library_twins)
    results = run_elsewhere(work, len(batches))
    return [exercises.judge(exercise, cases, answer, seconds).to_json()
            for cases, answer in zip(batches, results)]


def read_job(text: str) -> dict[str, Any]:
    """The job, checked: it comes from `grade.py`, but a malformed one should say so."""
    job = json.loads(text)
    seeds, cells, keys = job["seeds"], job["cells"], job["exercises"]
    if not isinstance(seeds, list) or not all(s is None or type(s) is int for s in seeds):
        raise ValueError("seeds must be a list of null and integers")
    if not all(isinstance(c, list) and len(c) == 2 and all(isinstance(x, str) for x in c)
               for c in cells):
        raise ValueError("cells must be a list of [name, source]")
    if not all(isinstance(k, list) and k[0] in exercises.REGISTRY and type(k[1]) is int
               for k in keys):
        raise ValueError("exercises must be a list of [key, number of cells]")
    return job


def main() -> int:
    job = read_job(sys.stdin.read())
    keep_memory_private()  # before any expected value exists here
    answer_fd = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    cells = [(name, source) for name, source in job["cells"]]
    answers = {key: grade_exercise(key, job["prelude"], cells[:upto], job["seeds"])
               for key, upto in job["exercises"]}
    sys.stdout.flush()
    with os.fdopen(answer_fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(answers, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
