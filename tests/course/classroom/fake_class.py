"""A class of fake students for the end-to-end test: each one's notebook, made from the released
notebook the way that student would have filled it in, and packed as `tutorial_course/workspace.py submit`
packs it (one zip per student holding `<ID>__<UTC time>__<notebook>.ipynb`)."""

from __future__ import annotations

import inspect
import zipfile
from pathlib import Path

import nbformat

from tutorial_course import exercises
from tutorial_course.classroom import answers
from tutorial_course.classroom.cell_ids import key_of, solution_id

STUDENTS = ("right", "wrong", "stub", "loop", "tamper", "hardcode")

TAMPERING = '''\
# 把检查器换成永远说“通过”的版本，连评分用的模块也改掉
import tutorial_course.exercises as _ex
import tutorial_course.classroom.grade as _grade


def check(key, fn, **options):
    return _ex.Feedback("通过", "通过：全部正确", key)


_ex.check = check
_grade.grade = lambda key, fn, seeds: check(key, fn)
_grade.run_grading = lambda key, fn, seeds: [{"verdict": "通过", "message": "通过", "key": key,
                                              "case": None}] * len(seeds)'''


def _def_line(source: str) -> str:
    return next(line for line in source.splitlines() if line.startswith("def "))


def answer_cell(student: str, key: str, released: str, instructor: str) -> str:
    """What `student` wrote in the answer cell of exercise `key`."""
    name = exercises.REGISTRY[key].function_name
    if student == "right":
        return instructor
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
    return released


def _params(released: str) -> list[str]:
    head = _def_line(released).split("(", 1)[1].rsplit(")", 1)[0]
    return [part.split(":")[0].split("=")[0].strip() for part in head.split(",") if part.strip()]


def student_notebook(student: str, released: Path, instructor: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(released, as_version=4)
    source = {c.metadata["nbgrader"]["grade_id"]: c.source
              for c in nbformat.read(instructor, as_version=4).cells if "nbgrader" in c.metadata}
    cells = []
    for cell in nb.cells:
        cell_id = cell.metadata.get("nbgrader", {}).get("grade_id", "")
        key = next((k for k in exercises.REGISTRY if solution_id(k) == cell_id), None)
        if key:
            cell.source = answer_cell(student, key, cell.source, source[cell_id])
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
    """submissions/<assignment>__<ID>.zip as `tutorial_course/workspace.py submit` writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / f"{assignment}__{student}.zip"
    with zipfile.ZipFile(target, "w") as archive:
        archive.writestr(f"{student}__{timestamp}__{notebook_name}", nbformat.writes(nb))
    return target
