"""The process that runs a graded function and knows no answer: `python -m
tutorial_course.exercises.runner < job.pickle`.

The classroom's grading worker builds the cases, keeps their expected values, and starts this
runner as a new interpreter (`command`, never a fork of the worker). The job on stdin, pickled by
the trusted worker, holds only the learner's function (its cloudpickle, still unopened), the
cases' arguments in running order, one batch per seed, the time limit and the library twins to
block. Each batch runs as `check` runs it, under `sandbox.run_each` with the twins (and what
builds cases, `CASE_BUILDERS`) blocked, each
case through `exercises.call_case`; the answer, one JSON line on the original stdout, is the list
of results per batch: what `call_case` said (the returned value as `wire` encodes it) or how the
case ended. The worker decodes and judges it with `exercises.judge`: here there is nothing to find
in a frame or in `gc.get_objects()`, and no comparison to patch.

The function's pickle is opened only inside the sandbox's child, at the first case it runs, so what
unpickling a by-value function runs happens where the function itself runs. While the cases run,
file descriptor 1 points at stderr, so what the function prints (relayed by the sandbox) cannot be
taken for the answer.
"""

from __future__ import annotations

import json
import os
import pickle
import sys
from typing import Any, Callable

from tutorial_course import exercises
from tutorial_course.exercises import blocking, sandbox


def command() -> list[str]:
    """The runner as a new interpreter, without the user's site-packages."""
    return [sys.executable, "-s", "-m", "tutorial_course.exercises.runner"]


def job(function: bytes, batches: list[list[tuple]], seconds: float,
        twins: tuple[str, ...]) -> bytes:
    """What the worker writes to the runner's stdin."""
    return pickle.dumps({"function": function, "batches": batches, "seconds": seconds,
                         "twins": tuple(twins)})


def loaded_in_child(blob: bytes) -> Callable:
    """A function that unpickles the real one on its first call (in the sandbox's forked child)."""
    box: list[Callable] = []

    def learner_function(*args: Any) -> Any:
        if not box:
            box.append(pickle.loads(blob))
        return box[0](*args)

    return learner_function


def to_json(result: Any) -> Any:
    """A result of `run_each` as JSON: what call_case said, or {"ended": [...]}."""
    if isinstance(result, sandbox.Ended):
        return {"ended": [result.timed_out, result.exit_code, result.signal_name]}
    return list(result)


def from_json(data: Any) -> Any:
    """The result `to_json` made `data` of; a malformed one becomes an answer `judge` cannot read
    (so the case fails)."""
    if isinstance(data, dict):
        timed_out, exit_code, signal_name = data.get("ended", [False, None, None])
        return sandbox.Ended(timed_out is True, exit_code if type(exit_code) is int else None,
                             signal_name if type(signal_name) is str else None)
    return data if isinstance(data, list) else ["unreadable"]


# what builds the cases: blocked here with the twins, so the function cannot rebuild the cases
# (the public ones, or hidden ones of a seed it learnt) to look its answers up
CASE_BUILDERS = ("tutorial_course.exercises.Exercise.cases", "tutorial_course.exercises.draw")


def run(blob: bytes, batches: list[list[tuple]], seconds: float,
        twins: tuple[str, ...]) -> list[list[Any]]:
    """Every batch's results, the function loaded lazily and the twins and the case builders
    blocked in the child."""
    fn = loaded_in_child(blob)
    block = blocking.prepare(tuple(twins) + CASE_BUILDERS)
    answers = []
    for arguments in batches:
        results = sandbox.run_each(lambda k: exercises.call_case(fn, arguments[k]),
                                   len(arguments), seconds, block)
        answers.append([to_json(result) for result in results])
    return answers


def main() -> int:
    work = pickle.loads(sys.stdin.buffer.read())  # written by the grading worker, not the learner
    answer_fd = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    answers = run(work["function"], work["batches"], work["seconds"], work["twins"])
    sys.stdout.flush()
    with os.fdopen(answer_fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(answers) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
