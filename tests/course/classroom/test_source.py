"""The instructor's source notebook: 教师注 removed, each exercise split into an answer cell holding
the reference solution and a locked graded cell; every transplanted reference passes its checker."""

import functools

import nbformat
import pytest

from tutorial_course import chapters, exercises
from tutorial_course.classroom import answers
from tutorial_course.classroom.cell_ids import grade_id, key_of, solution_id
from tutorial_course.classroom.source import source_notebook, split_exercise, without_teacher_notes

POINTS = {key: exercise.points for key, exercise in exercises.REGISTRY.items()}

SEED = 4242


@functools.cache
def sources() -> dict[str, nbformat.NotebookNode]:
    return {c.number: source_notebook(nbformat.read(chapters.NOTEBOOK_DIR / f"{c.stem}.ipynb", 4),
                                      SEED) for c in chapters.CHAPTERS if c.available}


def answer_cell(key: str) -> str:
    nb = sources()[key[:2]]
    return next(c.source for c in nb.cells
                if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == solution_id(key))


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
    answer, test = split_exercise(cell, seed=17)
    assert answer.metadata["nbgrader"] == {"grade": False, "grade_id": solution_id("00.utf8_length"),
                                           "locked": False, "schema_version": 3,
                                           "solution": True, "task": False}
    assert answer.source.endswith("    ### BEGIN SOLUTION\n    return len(text.encode(\"utf-8\"))\n"
                                  "    ### END SOLUTION")
    meta = test["metadata"]["nbgrader"]
    assert (meta["grade"], meta["locked"], meta["points"]) == (True, True, POINTS["00.utf8_length"])
    assert meta["grade_id"] == grade_id("00.utf8_length")
    assert test["metadata"]["tags"] == ["raises-exception"]
    hidden = test["source"].split("### BEGIN HIDDEN TESTS\n")[1].split("### END HIDDEN TESTS")[0]
    assert "17" in hidden and "17" not in test["source"].replace(hidden, "")
    assert 'grade("00.utf8_length", utf8_length, seeds)' in test["source"]


def test_an_exercise_cell_that_goes_on_after_its_check_is_refused():
    cell = nbformat.v4.new_code_cell("def utf8_length(text):\n    raise NotImplementedError\n\n\n"
                                     'check("00.utf8_length", utf8_length)\nprint(1)')
    with pytest.raises(ValueError, match="goes on after its check"):
        split_exercise(cell, seed=1)


def test_every_exercise_gets_one_answer_cell_and_one_graded_cell():
    for number, nb in sources().items():
        ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
        keys = [k for k in map(key_of, ids) if k]  # in notebook order
        assert sorted(keys) == sorted(k for k in POINTS if k.startswith(number + "."))
        assert ids == [i for k in keys for i in (solution_id(k), grade_id(k))]


@pytest.mark.parametrize("key", sorted(POINTS))
def test_the_reference_in_the_answer_cell_passes_public_and_hidden_cases(key):
    """The answer cell alone (with the chapter's earlier exercises defined, as in the notebook)
    makes the reference; the function it defines passes with the library's answers blocked."""
    module = answers.solutions_module(key)
    namespace = {e.function_name: getattr(module, e.function_name)
                 for k, e in exercises.REGISTRY.items() if k[:2] == key[:2] and k != key}
    exec("from __future__ import annotations\n" + answer_cell(key), namespace)
    fn = namespace[exercises.REGISTRY[key].function_name]
    for seed in (None, SEED):
        feedback = exercises.check(key, fn, seed=seed, block_library=True)
        assert feedback.passed, feedback.message
