"""The graded cell's side, in the student's kernel: hand the function to a fresh process, show its
verdict, tell nbgrader.

The kernel that nbgrader's `autograde` runs is the student's: every cell they wrote runs before the
graded cell does, so nothing in it can be trusted. The graded cell (its source is restored from the
instructor's copy by autograde, so deleting or editing it gains nothing) first drops every
`tutorial_lib` and `tutorial_course` module from `sys.modules`, so a patched library is imported
afresh, then calls `grade`. `grade` serializes the function by value with cloudpickle (its code, and
the notebook globals it uses, such as the student's own helper functions) and runs `python -m
tutorial_course.classroom.worker` on it: a new interpreter that imports the packages from their
files, not a fork of the kernel, with an environment built here (no PYTHONPATH, no sitecustomize
from the kernel's variables) and the library's root as its working directory (so a `tutorial_lib/`
the student wrote beside the notebook is not imported). There the function is graded as
`exercises.check` grades it, on the public cases (seed None) and the hidden ones (the instructor's
seed), with the library's own answers blocked. A student who redefined `check`, patched
`tutorial_lib` or edited the displayed verdict gets the same verdict as one who did not.

What no in-kernel grader can rule out: code that runs in the kernel before the graded cell can
change what the graded cell's own code does. It can rewrite builtins (`__import__`, `print`),
install an import hook in `sys.meta_path` that serves a fake `tutorial_course.classroom.grade`,
replace `subprocess.run` or `sys.executable`, or patch IPython's display. The graded cell is Python
run by that same interpreter, so it cannot check the interpreter it runs on; only a grader outside
the notebook (reading the function's source into a process of its own) can.

The graded function itself is kept from the answers: the worker builds the cases and runs the
function in a third interpreter (`exercises.runner`) that gets only the cases' arguments, never
their expected values; what the function returned comes back as a literal of exact builtin and
numpy types (`exercises.wire`) and the worker compares it on plain values. So a function written
against the checker gains nothing: one that returns an object whose `__eq__` says True is judged
on a description of it (wrong type), one that reads `case.expected` from its callers' frames or
`gc.get_objects()` finds no expected value in its process, and one that patches the comparison in
`sys.modules` patches a process where nothing is compared; rebuilding the cases there
(`Exercise.cases`, `draw`) is blocked like the library twins, and on Linux the worker's memory is
closed to other processes of the user. What the function can still do where it runs: compute the
answer with the library by a way other than the blocked call (re-importing a twin's module or
copying its source: `exercises.blocking` says how little blocking stops; the hidden seed is no
secret from the kernel, the graded cell's source holds it), behave differently when it sees it is
graded, or spend the time limit. What this design stops is every way of gaining from
the kernel (a redefined `check`, a deleted or edited graded cell, a patched library, a faked
verdict) and every way for the function to reach the verdict or the hidden cases' expected values
(the public ones are in the library for anyone to compute).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import cloudpickle

from tutorial_course.classroom import FEEDBACK_MIME, GRADING_TIMEOUT
from tutorial_course.exercises import Feedback

LIBRARY_ROOT = Path(__file__).resolve().parents[2]  # the directory that holds tutorial_lib/
# the variables the grading process keeps from the kernel's environment
KEPT_VARIABLES = ("PATH", "HOME", "SYSTEMROOT", "TMPDIR", "TEMP", "TMP", "LANG", "LC_ALL",
                  "TUTORIAL_DATA_DIR")


def grading_command(key: str, seeds: list[int | None]) -> list[str]:
    return [sys.executable, "-s", "-m", "tutorial_course.classroom.worker", key, json.dumps(seeds)]


def grading_environment() -> dict[str, str]:
    """A fresh environment: only what finding programs, files and the data needs, and the hash
    seed the notebooks run with."""
    env = {name: os.environ[name] for name in KEPT_VARIABLES if name in os.environ}
    env["PYTHONHASHSEED"] = "0"
    return env


def _failure(key: str, verdict: str, message: str) -> dict[str, Any]:
    return {"verdict": verdict, "message": f"{verdict}：{message}", "key": key, "case": None}


def run_grading(key: str, fn: Callable, seeds: list[int | None]) -> list[dict[str, Any]]:
    """The verdicts (Feedback.to_json()) of `fn` for each seed, from a fresh grading process."""
    try:
        blob = cloudpickle.dumps(fn)
    except Exception as err:  # a function that holds an open file, a lock, a generator ...
        message = (f"评分程序无法把你的函数传给评分进程（{type(err).__name__}）："
                   "函数不要引用打开的文件、生成器这样的对象。")
        return [_failure(key, "未通过", message)] * len(seeds)
    try:
        done = subprocess.run(grading_command(key, seeds), input=blob, capture_output=True,
                              cwd=LIBRARY_ROOT, env=grading_environment(),
                              timeout=GRADING_TIMEOUT)
    except subprocess.TimeoutExpired:
        return [_failure(key, "超时", f"评分进程 {GRADING_TIMEOUT} 秒还没有结束。")] * len(seeds)
    try:
        answers = json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
        if done.returncode == 0 and len(answers) == len(seeds):
            return answers
    except (ValueError, IndexError):
        pass
    tail = done.stderr.decode("utf-8", "replace")[-500:]
    message = f"评分进程出错了（退出码 {done.returncode}）：{tail}"
    return [_failure(key, "未通过", message)] * len(seeds)


def show(feedback: Feedback, label: str, answer: dict[str, Any]) -> None:
    """The verdict as the notebook's own `check` shows it, plus the same answer as JSON (under
    FEEDBACK_MIME) for the class report."""
    from IPython.display import display

    html = f'<div style="font-size:90%;margin:4px 0 2px">{label}</div>{feedback._repr_html_()}'
    display({"text/html": html, "text/plain": f"{label}\n{feedback!r}",
             FEEDBACK_MIME: {"cases": label, **answer}}, raw=True)


def grade(key: str, fn: Callable, seeds: list[int | None]) -> Feedback:
    """Check `fn` on exercise `key` out of this kernel, once per seed (None: the public cases);
    show each verdict and return the first that is not 通过 (or the last)."""
    if not isinstance(key, str):
        raise TypeError(f"key must be an exercise key such as '02.train', not {type(key).__name__}")
    if not isinstance(seeds, list) or not seeds:
        raise ValueError("seeds must be a non-empty list of None (public cases) or int seeds")
    answers = run_grading(key, fn, seeds)
    verdicts = [Feedback.from_json(answer) for answer in answers]
    for seed, feedback, answer in zip(seeds, verdicts, answers):
        show(feedback, "公开用例" if seed is None else "隐藏用例（只在评分时运行）", answer)
    return next((feedback for feedback in verdicts if not feedback.passed), verdicts[-1])
