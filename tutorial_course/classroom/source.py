"""An nbgrader source notebook made from a course notebook: the instructor's version.

From notebooks/NN_name.ipynb: outputs cleared; every
`<details><summary>教师注</summary>...</details>` block removed (a cell left empty goes too),
and a remark pointing at one; each exercise cell (a stub `def` and a line `check("NN.name", name)`)
split in two:

- an answer cell (nbgrader `solution`): the stub with the reference solution between
  `### BEGIN SOLUTION` / `### END SOLUTION`, which generate_assignment replaces by the stub text
  (`CODE_STUB`, the notebook's own), so the student version looks as the notebook does;
- a graded test cell (nbgrader `grade`, locked, worth the exercise's `points`): it grades the
  function out of the kernel (`grade.py`) on the public cases and, inside `### BEGIN HIDDEN TESTS` /
  `### END HIDDEN TESTS`, on hidden cases drawn with the instructor's seed, which only this
  source version contains. It is tagged `raises-exception`, so JupyterLab's Run All goes on past
  an exercise not yet done.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import nbformat

from tutorial_course import exercises
from tutorial_course.classroom import answers
from tutorial_course.classroom.cell_ids import grade_id, solution_id

TEACHER_NOTE = re.compile(r"\n*<details>\s*<summary>\s*教师注\s*</summary>.*?</details>[ \t]*",
                          re.DOTALL)
CHECK_LINE = re.compile(r'^(?:(?P<name>\w+) = )?check\("(?P<key>[0-9]{2}\.\w+)", (?P<fn>\w+)\)$')
# a remark in the prose that points at a removed note: "（本节末尾的教师注量了这一点）"
POINTER = re.compile(r"（[^（）\n]*教师注[^（）\n]*）")
STUB_COMMENT = "# 在这里写你的实现"

TEST_CELL = '''\
# 评分单元格（只读）：在一个新的 Python 进程里重新导入课程的包，检查你的 {fn}。
import sys

for _name in [n for n in sys.modules if n.split(".")[0] in ("tutorial_lib", "tutorial_course")]:
    del sys.modules[_name]
from tutorial_course.classroom.grade import grade

seeds = [None]  # None：公开用例，和笔记本里的 check 一样
### BEGIN HIDDEN TESTS
seeds = [None, {seed}]  # 再加上隐藏用例：只在评分时运行
### END HIDDEN TESTS
{name} = grade("{key}", {fn}, seeds)
assert {name}.passed, {name}.message.splitlines()[0]'''


def without_teacher_notes(text: str) -> str:
    return POINTER.sub("", TEACHER_NOTE.sub("", text)).strip("\n")


def nbgrader_metadata(cell_id: str, *, solution: bool, points: int | None) -> dict[str, Any]:
    meta: dict[str, Any] = {"grade": points is not None, "grade_id": cell_id,
                            "locked": not solution, "schema_version": 3, "solution": solution,
                            "task": False}
    if points is not None:
        meta["points"] = points
    return meta


def _answer_source(lines: list[str], key: str) -> str:
    """The cell's lines before the check, the stub's body replaced by the marked reference."""
    fn_name = exercises.REGISTRY[key].function_name
    start = next(i for i, line in enumerate(lines) if line.startswith(f"def {fn_name}("))
    head_end = next(i for i in range(start, len(lines)) if lines[i].rstrip().endswith(":"))
    params = re.findall(r"(\w+)\s*(?::[^,]*)?(?:,|\)\s*(?:->|:))",
                        " ".join(lines[start:head_end + 1]).split("(", 1)[1])
    body = [i for i in range(head_end + 1, len(lines)) if lines[i].startswith("    ")]
    if [lines[i].strip() for i in body][-1:] != ["raise NotImplementedError"]:
        raise ValueError(f"{key}: the stub's body must end with raise NotImplementedError")
    indent = "    "
    kept = []
    for i in body[:-1]:
        note = lines[i].strip().removeprefix(STUB_COMMENT).strip("（）() ")
        if note:
            kept.append(f"{indent}# {note.removeprefix('# ')}")
    solution = [indent + line if line else line
                for line in answers.solution_body(key, params).splitlines()]
    new = (lines[:head_end + 1] + kept + [f"{indent}### BEGIN SOLUTION"] + solution
           + [f"{indent}### END SOLUTION"] + lines[body[-1] + 1:])
    return "\n".join(new).rstrip()


def split_exercise(cell: dict, seed: int) -> list[dict]:
    """[answer cell, graded test cell] for an exercise cell; [cell] for any other cell."""
    lines = cell["source"].split("\n")
    found = [(i, CHECK_LINE.match(line)) for i, line in enumerate(lines)]
    found = [(i, m) for i, m in found if m]
    if cell["cell_type"] != "code" or not found:
        return [cell]
    (at, match), = found
    key = match["key"]
    name = match["name"] or "feedback"
    rest = [line for line in lines[at + 1:] if line.strip() and line.strip() != name]
    if rest:
        raise ValueError(f"{key}: the exercise cell goes on after its check: {rest[0]!r}")
    answer = copy.deepcopy(cell)
    answer["source"] = _answer_source(lines[:at], key)
    answer["metadata"]["nbgrader"] = nbgrader_metadata(solution_id(key), solution=True,
                                                       points=None)
    test = {"cell_type": "code", "execution_count": None, "outputs": [],
            "metadata": {"deletable": False, "editable": False, "tags": ["raises-exception"],
                         "nbgrader": nbgrader_metadata(grade_id(key), solution=False,
                                                       points=exercises.REGISTRY[key].points)},
            "source": TEST_CELL.format(fn=match["fn"], key=key, name=name, seed=seed)}
    return [answer, test]


def source_notebook(nb: dict, seed: int) -> nbformat.NotebookNode:
    """The nbgrader source version of a course notebook (a new dict; `nb` is left as it was)."""
    nb = copy.deepcopy(nb)
    cells = []
    for cell in nb["cells"]:
        cell.pop("id", None)  # nbgrader tells cells apart by grade_id; split cells need new ids
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cell.get("metadata", {}).pop("execution", None)
        if cell["cell_type"] == "markdown" and "教师注" in cell["source"]:
            cell["source"] = without_teacher_notes(cell["source"])
            if not cell["source"].strip():
                continue
        cells.extend(split_exercise(cell, seed))
    nb["cells"] = cells
    nb.get("metadata", {}).pop("widgets", None)
    nb["nbformat"], nb["nbformat_minor"] = 4, 4  # minor 4: no cell ids to keep unique
    return nbformat.from_dict(nb)
