"""Grading one submission from its answer cells, in the sandbox, never in a notebook kernel.

nbgrader's own autograde runs the whole notebook in a kernel and reads the graded cells' outputs:
every cell the student wrote runs there first, as the instructor, beside the course directory,
and can change what the graded cells do, read `source/` or write the gradebook. Here nothing of
the notebook runs on the instructor's side. The submission is read as data: its answer cells (the
cells nbgrader marks as solutions, `answer_<key>`) are the only code of the student's that runs,
together with the import lines of the instructor's copy of the notebook (`prelude`; display
modules left out), in `worker.py` inside the sandbox of `isolation.py`. Demonstration cells do not
run: they cost minutes and grade nothing. A function that uses a helper or a constant defined
outside the answer cells hears so in its verdict (`runner.ONLY_ANSWER_CELLS`).

Exercise k is graded with the answer cells up to its own: a later cell that crashes or never
ends does not take an earlier exercise's points. Each exercise is graded on the public cases and on
the hidden cases of the course's seed (`course.py`); both must pass.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import nbformat

from tutorial_course import exercises
from tutorial_course.classroom import GRADING_TIMEOUT
from tutorial_course.classroom import isolation
from tutorial_course.classroom.cell_ids import key_of, solution_id

# modules a graded function never needs: left out of the prelude, they cost seconds per process
DISPLAY_ONLY = ("tutorial_lib.show", "IPython", "ipywidgets", "matplotlib")
# the verdict of an exercise whose grading process did not answer
BROKEN = "评分出错"


def keys_of(nb: nbformat.NotebookNode) -> list[str]:
    """The exercises a notebook grades, in the order of their graded cells."""
    ids = [cell.metadata.get("nbgrader", {}).get("grade_id", "") for cell in nb.cells]
    return [key for key in map(key_of, ids) if key is not None]


def prelude(source: nbformat.NotebookNode) -> str:
    """The import lines of the instructor's notebook (not of its answer or graded cells), the
    display modules left out: what every answer cell may take for granted."""
    lines = []
    for cell in source.cells:
        if cell.cell_type != "code" or "nbgrader" in cell.metadata:
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            if not any(n == m or n.startswith(m + ".") for n in names for m in DISPLAY_ONLY):
                lines.append(ast.get_source_segment(cell.source, node) or "")
    return "\n".join(dict.fromkeys(lines))


def answer_cells(nb: nbformat.NotebookNode, keys: list[str]) -> tuple[list[list[str]], list]:
    """([name, source] of each answer cell in notebook order, [key, how many of them it may
    use] for each of `keys`); an exercise whose answer cell is gone uses none (so it is 未完成)."""
    wanted = {solution_id(key): key for key in keys}
    cells, upto, seen = [], {}, set()
    for cell in nb.cells:
        cell_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        if cell.cell_type != "code" or cell_id not in wanted or cell_id in seen:
            continue  # nbgrader too keeps only the first cell of an id
        seen.add(cell_id)
        cells.append([f"{exercises.ANSWER_CELL}（{wanted[cell_id]}）", cell.source])
        upto[wanted[cell_id]] = len(cells)
    return cells, [[key, upto.get(key, 0)] for key in keys]


def job(submission: nbformat.NotebookNode, source: nbformat.NotebookNode, seed: int) -> bytes:
    """What the worker reads: the prelude, the answer cells, the exercises and the seeds."""
    cells, keys = answer_cells(submission, keys_of(source))
    return json.dumps({"prelude": prelude(source), "cells": cells, "exercises": keys,
                       "seeds": [None, seed]}, ensure_ascii=False, sort_keys=True).encode()


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The SHA-256 of the code a verdict depends on: the library (the expected values) and the
    exercises (the cases, the judging)."""
    import tutorial_lib

    roots = [Path(tutorial_lib.__file__).parent, Path(exercises.__file__).parent]
    total = hashlib.sha256()
    for path in sorted(p for root in roots for p in root.rglob("*.py")):
        total.update(path.name.encode() + b"\0" + path.read_bytes())
    return total.hexdigest()


def digest(work: bytes) -> str:
    """What a kept verdict was graded from: the job and the code (`code_digest`): a verdict kept
    from before a fix of either is graded again."""
    return hashlib.sha256(work + code_digest().encode()).hexdigest()


def _broken(key: str, message: str) -> dict[str, Any]:
    return {"verdict": BROKEN, "message": f"{BROKEN}：{message}", "key": key, "case": None}


def run_job(work: bytes) -> dict[str, list[dict[str, Any]]]:
    """key -> [public verdict, hidden verdict] (`Feedback.to_json()`), from the worker in the
    sandbox; each exercise 评分出错, with what went wrong, if the worker did not answer."""
    parsed = json.loads(work)
    keys = [key for key, _ in parsed["exercises"]]
    seeds = parsed["seeds"]
    limit = GRADING_TIMEOUT * max(1, len(keys)) + 60
    command = [sys.executable, "-s", "-m", "tutorial_course.classroom.worker"]
    try:
        done = isolation.run(command, work, limit)
    except Exception as err:  # TimeoutExpired, or the sandbox could not start
        message = f"评分进程没有正常结束（{type(err).__name__}）。"
        return {key: [_broken(key, message)] * len(seeds) for key in keys}
    try:
        answers = json.loads(done.stdout.decode("utf-8").strip().splitlines()[-1])
        if done.returncode == 0 and sorted(answers) == sorted(keys):
            return answers
    except (ValueError, IndexError, UnicodeDecodeError):
        pass
    tail = done.stderr.decode("utf-8", "replace")[-400:]
    message = f"评分进程出错了（退出码 {done.returncode}）：{tail}"
    return {key: [_broken(key, message)] * len(seeds) for key in keys}


