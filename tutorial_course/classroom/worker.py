"""The grading process:
`python -m tutorial_course.classroom.worker KEY SEEDS_JSON < function.pickle`.

A clean interpreter (started by `grade.py`, never a fork of the student's kernel) that imports
the library from its files and grades the function as `exercises.check(key, fn, seed=seed,
block_library=True)` would, for each seed, answering one JSON line on stdout: the list of
`Feedback.to_json()`.

It does so in two processes, so that the function never runs where an expected value is. This
worker builds the cases and keeps them; the function, still an unopened pickle, goes with the
cases' arguments only to a new interpreter, `exercises.runner`, which runs it in its sandbox with
the library twins blocked and sends back what it returned, encoded as plain values
(`exercises.wire`). The worker decodes and judges those answers with `exercises.judge`, the code
`check` uses. The function never runs in this process, so nothing it does (patching the
comparison, reading frames or the garbage collector, returning an object whose `==` lies) reaches
the cases or the judging; on Linux this process also makes its memory unreadable to the function
(`keep_memory_private`), which runs as the same user.
While the grading runs, file descriptor 1 points at stderr, so nothing the runner lets through
can be taken for the answer; the answer goes to the original stdout afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tutorial_course import exercises
from tutorial_course.classroom import GRADING_TIMEOUT
from tutorial_course.exercises import runner, sandbox


def keep_memory_private() -> bool:
    """Make this process's memory unreadable to other processes of the same user (Linux's
    PR_SET_DUMPABLE 0: no /proc/PID/mem, no ptrace), since the function, running as that user,
    could otherwise read the expected values out of it. Whether it was done."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        return False


def run_elsewhere(blob: bytes, batches: list[list[tuple]], seconds: float,
                  twins: tuple[str, ...]) -> list[list]:
    """The runner's results for each batch of arguments (`runner.from_json` of each); an empty
    list for a batch the runner did not answer (the judge fails its first case), a time-out for
    each if the runner ran out of the grading's time."""
    try:
        done = subprocess.run(runner.command(), input=runner.job(blob, batches, seconds, twins),
                              stdout=subprocess.PIPE, timeout=GRADING_TIMEOUT - 10)
    except subprocess.TimeoutExpired:  # before grade.py gives up on this worker
        return [[sandbox.Ended(timed_out=True)] for _ in batches]
    try:
        answers = json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError, UnicodeDecodeError):
        answers = []
    if done.returncode != 0 or not isinstance(answers, list) or len(answers) != len(batches):
        return [[] for _ in batches]
    return [[runner.from_json(item) for item in batch] if isinstance(batch, list) else []
            for batch in answers]


def main(argv: list[str] | None = None) -> int:
    key, seeds_text = argv if argv is not None else sys.argv[1:]
    seeds = json.loads(seeds_text)
    if not isinstance(seeds, list) or not all(s is None or type(s) is int for s in seeds):
        raise ValueError("SEEDS_JSON must be a JSON list of null and integers")
    blob = sys.stdin.buffer.read()
    keep_memory_private()  # before any expected value exists here
    answer_fd = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    exercise = exercises.exercise_of(key)
    batches = [exercises.cases_in_order(exercise, seed) for seed in seeds]
    seconds = exercises.TIME_LIMIT
    results = run_elsewhere(blob, [[case.args for case in cases] for cases in batches], seconds,
                            exercise.library_twins)
    answers = [exercises.judge(exercise, cases, answer, seconds).to_json()
               for cases, answer in zip(batches, results)]
    sys.stdout.flush()
    with os.fdopen(answer_fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(answers, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
