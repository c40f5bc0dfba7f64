"""The process that runs a learner's answer cells and knows no answer: `python -m
tutorial_course.exercises.runner < job.pickle`.

The classroom's grading worker builds the cases, keeps their expected values, and starts this
runner as a new interpreter (`command`, never a fork of the worker). The job on stdin, pickled by
the trusted worker, holds the notebook's own import lines (from the instructor's copy), the
learner's answer cells as text, the name of the function to grade, the cases' arguments in running
order (one batch per seed), the time limit and the library twins to block. The import lines run
here first; each batch then runs as `check` runs it, under `sandbox.run_each` with the twins (and
what builds cases, `CASE_BUILDERS`) blocked, each case through `exercises.call_case`. The answer,
one JSON line on the original stdout, is the list of results per batch: what `call_case` said (the
returned value as `wire` encodes it) or how the case ended. The worker decodes and judges it with
`exercises.judge`: here there is nothing to find in a frame or in `gc.get_objects()`, and no
comparison to patch.

The answer cells run only inside the sandbox's child, at the first case it runs, after the twins
are blocked, so a copy of a twin they make is refused too (`blocking`). Each cell is compiled under
its own name, so an error says the learner's cell and line; each top-level statement runs on its
own, so a broken line does not hide a `def` below it. While the cases run, file descriptor 1
points at stderr, so what the cells print (relayed by the sandbox) cannot be taken for the answer.
"""

from __future__ import annotations

import ast
import json
import os
import pickle
import sys
from typing import Any, Callable

from tutorial_course import exercises
from tutorial_course.exercises import blocking, sandbox

# what a NameError in a graded function adds: grading runs the answer cells, not the notebook
ONLY_ANSWER_CELLS = ("（评分时只运行各答案单元格和笔记本自带的 import 语句："
                     "函数用到的辅助函数和常量要写在答案单元格里）")


def command() -> list[str]:
    """The runner as a new interpreter, without the user's site-packages."""
    return [sys.executable, "-s", "-m", "tutorial_course.exercises.runner"]


def job(prelude: str, cells: list[tuple[str, str]], function_name: str,
        batches: list[list[tuple]], seconds: float, twins: tuple[str, ...]) -> bytes:
    """What the worker writes to the runner's stdin: `cells` are (name, source) pairs."""
    return pickle.dumps({"prelude": prelude, "cells": cells, "function_name": function_name,
                         "batches": batches, "seconds": seconds, "twins": tuple(twins)})


def run_cells(cells: list[tuple[str, str]], namespace: dict[str, Any]) -> list[str]:
    """Run each cell's top-level statements in `namespace`, one by one; the errors, as text."""
    errors = []
    for name, source in cells:
        try:
            tree = ast.parse(source, name)
        except SyntaxError as err:
            errors.append(f"{name} 第 {err.lineno} 行语法错误：{err.msg}")
            continue
        for node in tree.body:
            try:
                exec(compile(ast.Module([node], []), name, "exec"), namespace)  # noqa: S102
            except BaseException as err:  # the learner's top level: reported, never raised
                if blocking.HITS:
                    raise blocking.LibraryBlocked(blocking.HITS[0]) from None
                errors.append(f"{name} 第 {node.lineno} 行：{type(err).__name__}: {err}")
    return errors


def defined_in_child(prelude: dict[str, Any], cells: list[tuple[str, str]],
                     function_name: str) -> Callable:
    """A function that runs the answer cells on its first call (in the sandbox's forked child)
    and then calls the learner's `function_name` from them."""
    box: list[Callable] = []

    def learner_function(*args: Any) -> Any:
        if not box:
            namespace = dict(prelude)
            errors = run_cells(cells, namespace)
            if not callable(namespace.get(function_name)):
                said = f"：{errors[0]}" if errors else ""
                raise NameError(f"答案单元格里没有定义函数 {function_name}{said}")
            box.append(namespace[function_name])
        try:
            return box[0](*args)
        except NameError as err:
            err.args = (f"{err.args[0] if err.args else ''}{ONLY_ANSWER_CELLS}",)
            raise

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


def run(work: dict[str, Any]) -> list[list[Any]]:
    """Every batch's results: the notebook's import lines run here, the answer cells in the child,
    the twins and the case builders blocked there."""
    prelude: dict[str, Any] = {"__name__": "__main__"}
    run_cells([("笔记本的 import 语句", work["prelude"])], prelude)  # the instructor's lines
    fn = defined_in_child(prelude, work["cells"], work["function_name"])
    block = blocking.prepare(tuple(work["twins"]) + CASE_BUILDERS)
    answers = []
    for arguments in work["batches"]:
        results = sandbox.run_each(lambda k: exercises.call_case(fn, arguments[k]),
                                   len(arguments), work["seconds"], block)
        answers.append([to_json(result) for result in results])
    return answers


def main() -> int:
    work = pickle.loads(sys.stdin.buffer.read())  # written by the grading worker, not the learner
    answer_fd = os.dup(1)
    sys.stdout.flush()
    os.dup2(2, 1)
    answers = run(work)
    sys.stdout.flush()
    with os.fdopen(answer_fd, "w", encoding="utf-8") as out:
        out.write(json.dumps(answers) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
