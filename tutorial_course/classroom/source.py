"""An nbgrader source notebook made from a course notebook: the instructor's version.

From notebooks/NN_name.ipynb: outputs cleared; every
`<details><summary>教师注</summary>...</details>` block removed (a cell left empty goes too),
and a remark pointing at one; each exercise cell (a stub `def` and a line `check("NN.name", name)`)
split in two:

- an answer cell (nbgrader `solution`): the stub with the reference solution between
  `### BEGIN SOLUTION` / `### END SOLUTION`, which generate_assignment replaces by the stub text
  (`CODE_STUB`, the notebook's own), so the student version looks as the notebook does;
- a graded test cell (nbgrader `grade`, locked, worth the exercise's `points`): in the student's
  notebook it runs `check` on the public cases, as the notebook did; when grading, it never runs:
  `autograde.FillGradedCells` writes the verdicts of the sandbox (`grade.py`) into it. It is
  tagged `raises-exception`, so JupyterLab's Run All goes on past an exercise not yet done. No
  notebook holds the seed of the hidden cases: the course directory's `classroom.json` does.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import nbformat

from tutorial_course import exercises
from tutorial_course.classroom import answers
from tutorial_course.classroom.cell_ids import grade_id, solution_id, written_id

TEACHER_NOTE = re.compile(r"\n*<details>\s*<summary>\s*教师注\s*</summary>.*?</details>[ \t]*",
                          re.DOTALL)
CHECK_LINE = re.compile(r'^(?:(?P<name>\w+) = )?check\("(?P<key>[0-9]{2}\.\w+)", (?P<fn>\w+)\)$')
# a remark in the prose that points at a removed note: "（本节末尾的教师注量了这一点）"
POINTER = re.compile(r"（[^（）\n]*教师注[^（）\n]*）")
STUB_COMMENT = "# 在这里写你的实现"

TEST_CELL = '''\
# 评分单元格（只读）：用公开用例检查你的 {fn}，和笔记本里的 check 一样。
# 评分时只运行各答案单元格（和本章自带的 import 语句），再加上隐藏用例：
# {fn} 用到的辅助函数和常量，要写在答案单元格里。
from tutorial_course.exercises import check

{name} = check("{key}", {fn})'''


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


def split_exercise(cell: dict) -> list[dict]:
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
    test = {"cell_type": "code", "id": f"{cell['id']}-graded", "execution_count": None,
            "outputs": [],
            "metadata": {"deletable": False, "editable": False, "tags": ["raises-exception"],
                         "nbgrader": nbgrader_metadata(grade_id(key), solution=False,
                                                       points=exercises.REGISTRY[key].points)},
            "source": TEST_CELL.format(fn=match["fn"], key=key, name=name)}
    return [answer, test]


WRITTEN_PROMPT = ("**写一写（人工评分，1 分）**：上面这个猜测，你猜了多少、为什么这样猜？"
                  "看到实测值以后，你的推理哪一步对了、哪一步错了？两三句话写在下面这一格里。")
WRITTEN_KEY = ("评分参考：说清猜测的依据，并对照实测值指出推理里对的或错的一步，得 1 分；"
               "只写一个数、或只复述答案，不得分。")


def written_answer(after: dict, chapter: str) -> list[dict]:
    """The chapter's one manually graded answer, after its first guess's reveal: a prompt and a
    markdown answer cell (nbgrader grades it in formgrader; the student version holds the stub)."""
    prompt = {"cell_type": "markdown", "id": f"{after['id']}-why", "metadata": {},
              "source": WRITTEN_PROMPT}
    answer = {"cell_type": "markdown", "id": f"{after['id']}-why-answer",
              "metadata": {"nbgrader": {**nbgrader_metadata(written_id(chapter), solution=True,
                                                            points=1)}},
              "source": f"### BEGIN SOLUTION\n{WRITTEN_KEY}\n### END SOLUTION"}
    return [prompt, answer]


def source_notebook(nb: dict, chapter: str) -> nbformat.NotebookNode:
    """The nbgrader source version of course notebook `chapter` ("02"; a new dict, `nb` is left
    as it was)."""
    nb = copy.deepcopy(nb)
    cells, first_guess = [], True
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
        cell.get("metadata", {}).pop("execution", None)
        if cell["cell_type"] == "markdown" and "教师注" in cell["source"]:
            cell["source"] = without_teacher_notes(cell["source"])
            if not cell["source"].strip():
                continue
        cells.extend(split_exercise(cell))
        if first_guess and cell["cell_type"] == "code" and "display.guess(" in cell["source"]:
            cells.extend(written_answer(cell, chapter))  # after the first guess's reveal only
            first_guess = False
    nb["cells"] = cells
    nb.get("metadata", {}).pop("widgets", None)
    # the course notebook's cell ids stay (the answer cell keeps the exercise cell's, the graded
    # cell gets it plus "-graded"): `workspace update` matches a student's cells to a new release
    # by them
    nb["nbformat"], nb["nbformat_minor"] = 4, 5
    return nbformat.from_dict(nb)
