"""A class of fake students for the end-to-end test: each one's notebook, made from the released
notebook the way that student would have filled it in, and packed as `tutorial_course.workspace
submit` packs it (one zip per student holding `<ID>__<UTC time>__<notebook>.ipynb`). And `graded`,
which grades answer cells as the classroom does, for the tests of grading itself."""

from __future__ import annotations

import functools
import inspect
import json
import zipfile
from pathlib import Path

import nbformat

from tutorial_course import chapters, exercises
from tutorial_course.classroom import answers, grade, isolation
from tutorial_course.classroom.cell_ids import key_of, solution_id
from tutorial_course.classroom.source import source_notebook

# honest ones, then the ones that try something; those who go for the instructor's files, the
# other students' or the processes only where grading is isolated (without the sandbox they would
# do it: the guide says so, and `autograde` warns)
NEEDS_SANDBOX = ("peek", "gradebook", "vandal", "killer")
STUDENTS = ("right", "half", "wrong", "stub", "loop", "crash", "chatty", "tamper", "hardcode",
            "reexec") + (NEEDS_SANDBOX if isolation.isolated() else ())

TAMPERING = '''\
# 把检查器换成永远说“通过”的版本
import tutorial_course.exercises as _ex


def check(key, fn, **options):
    return _ex.Feedback("通过", "通过：全部正确", key)


_ex.check = check'''


def graded(cells: dict[str, str], prelude: str = "", seeds=(None, 7)) -> dict[str, list[dict]]:
    """Grade answer cells (exercise key -> the cell's source, in notebook order) as a class is
    graded: key -> [the verdict of each seed, as `Feedback.to_json()`]."""
    work = json.dumps({"prelude": prelude, "cells": [[f"答案单元格（{k}）", s] for k, s in
                                                      cells.items()],
                       "exercises": [[k, i + 1] for i, k in enumerate(cells)],
                       "seeds": list(seeds)}, ensure_ascii=False).encode()
    return grade.run_job(work)


@functools.lru_cache(maxsize=None)
def _source(chapter: str) -> nbformat.NotebookNode:
    stem = next(c.stem for c in chapters.CHAPTERS if c.number == chapter)
    nb = nbformat.reads((chapters.NOTEBOOK_DIR / f"{stem}.ipynb").read_text("utf-8"), 4)
    return source_notebook(nb, chapter)


def reference_cell(key: str) -> str:
    """The answer cell of exercise `key` as the instructor's notebook holds it."""
    wanted = solution_id(key)
    return next(c.source for c in _source(key.split(".")[0]).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == wanted)


def _def_line(source: str) -> str:
    return next(line for line in source.splitlines() if line.startswith("def "))


def _params(released: str) -> list[str]:
    head = _def_line(released).split("(", 1)[1].rsplit(")", 1)[0]
    return [part.split(":")[0].split("=")[0].strip() for part in head.split(",") if part.strip()]


def _attack(student: str, course: Path, assignment: str) -> str:
    """Top-level code a student puts in an answer cell to get at what grading must keep apart."""
    if student == "peek":
        return (f"for _p in ['../../../source/{assignment}/{assignment}.ipynb',\n"
                f"           {str(course / 'source' / assignment / (assignment + '.ipynb'))!r},\n"
                f"           {str(answers.ROOT / 'solutions' / 'ch02.py')!r}]:\n"
                "    try:\n        exec(open(_p).read())\n    except Exception:\n        pass\n")
    if student == "gradebook":
        return ("import sqlite3\n"
                f"for _db in ['../../../gradebook.db', {str(course / 'gradebook.db')!r}]:\n"
                "    try:\n        _c = sqlite3.connect(_db)\n"
                "        _c.execute('UPDATE grade SET manual_score = 3')\n        _c.commit()\n"
                "    except Exception:\n        pass\n")
    if student == "vandal":
        return ("import glob, os\n"
                f"for _f in glob.glob({str(course / 'submitted' / '*' / '*' / '*')!r}):\n"
                "    try:\n        open(_f, 'w').write('{}')\n    except OSError:\n        pass\n"
                f"try:\n    open({str(course / 'planted.txt')!r}, 'w').write('x')\n"
                "except OSError:\n    pass\n")
    if student == "killer":
        return ("import os, signal\nfor _pid in os.listdir('/proc'):\n"
                "    if _pid.isdigit() and int(_pid) not in (os.getpid(), os.getpgrp()):\n"
                "        try:\n            os.kill(int(_pid), signal.SIGKILL)\n"
                "        except OSError:\n            pass\n")
    return ""


def answer_cell(student: str, key: str, released: str, instructor: str, course: Path,
                assignment: str) -> str:
    """What `student` wrote in the answer cell of exercise `key`."""
    name = exercises.REGISTRY[key].function_name
    first = key.endswith(".count_pairs")
    if student in ("right", "chatty") or (student == "half" and key[3:] in (
            "count_pairs", "merge_pair")) or (student == "crash" and first):
        return instructor + ("\nprint('x' * 10_000_000)\n" if student == "chatty" else "")
    if student == "crash" and key.endswith(".merge_pair"):
        return "import os\nos._exit(1)\n\n" + instructor
    if student == "wrong":
        module = answers.solutions_module(key)
        return (f"_ns = {{'__name__': 'typical_mistakes'}}\n"
                f"exec({inspect.getsource(module)!r}, _ns)\n"
                f"{name} = _ns['WRONG_ANSWERS'][{name!r}]")
    if student == "loop" and key.endswith(".merge_pair"):
        return f"{_def_line(released)}\n    while True:\n        pass"
    if student == "hardcode":
        table = {repr(case.args): case.expected for case in exercises.REGISTRY[key].make_cases()}
        return (f"_ANSWERS_{name} = {table!r}\n\n\n{_def_line(released)}\n"
                f"    return _ANSWERS_{name}[repr(({', '.join(_params(released))},))]")
    if student == "reexec":
        return ("import importlib.util\nfrom tutorial_lib.bpe import bpe_toy as _toy\n"
                "_spec = importlib.util.spec_from_file_location('my_toy', _toy.__file__)\n"
                "_mine = importlib.util.module_from_spec(_spec)\n_spec.loader.exec_module(_mine)\n"
                f"{name} = getattr(_mine, {name!r})\n")
    attack = _attack(student, course, assignment) if first else ""
    return attack + released


def student_notebook(student: str, released: Path, instructor: Path,
                     course: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(released, as_version=4)
    source = {c.metadata["nbgrader"]["grade_id"]: c.source
              for c in nbformat.read(instructor, as_version=4).cells if "nbgrader" in c.metadata}
    assignment = released.stem
    cells = []
    for cell in nb.cells:
        cell_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        key = next((k for k in exercises.REGISTRY if solution_id(k) == cell_id), None)
        if key:
            cell.source = answer_cell(student, key, cell.source, source[cell_id], course,
                                      assignment)
        if student == "tamper" and key_of(cell_id):
            if cell_id.endswith("train"):
                continue  # deletes a graded cell (nbgrader puts it back)
            cell.source = "feedback = None  # 这一格不检查了"  # edits the others
        cells.append(cell)
    if student == "tamper":
        cells.insert(1, nbformat.v4.new_code_cell(TAMPERING))
    nb.cells = cells
    return nb


def submit(student: str, nb: nbformat.NotebookNode, notebook_name: str, assignment: str,
           folder: Path, timestamp: str = "20261201T120000Z") -> Path:
    """submissions/<assignment>__<ID>.zip as `tutorial_course.workspace submit` writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{assignment}__{student}.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr(f"{student}__{timestamp}__{notebook_name}", nbformat.writes(nb))
    return target
