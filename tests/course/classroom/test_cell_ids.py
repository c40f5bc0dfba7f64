"""Cell ids nbgrader takes, and the points each exercise record carries."""

import re

import nbformat

from tutorial_course import chapters, exercises
from tutorial_course.classroom.cell_ids import grade_id, key_of, solution_id
from tutorial_course.classroom.report import notebook_verdicts
from tutorial_course.classroom.source import source_notebook


def test_every_exercise_is_worth_one_to_three_whole_points():
    assert all(type(e.points) is int and 1 <= e.points <= 3 for e in exercises.REGISTRY.values())


def test_the_class_report_lists_a_chapters_exercises_in_notebook_order(tmp_path):
    # chapter 11's exercises are registered in another order than its notebook asks for them
    original = nbformat.read(chapters.NOTEBOOK_DIR / "11_unigram_wordpiece.ipynb", as_version=4)
    asked = list(dict.fromkeys(re.findall(r'check\("(11\.\w+)"',
                                          "\n".join(cell.source for cell in original.cells))))
    assert asked != [key for key in exercises.REGISTRY if key.startswith("11.")]
    nbformat.write(source_notebook(original, "11"), tmp_path / "source.ipynb")
    assert list(notebook_verdicts(tmp_path / "source.ipynb")) == asked


def test_cell_ids_are_what_nbgrader_accepts_and_lead_back_to_the_exercise():
    for key in exercises.REGISTRY:
        assert re.fullmatch(r"[A-Za-z0-9_]+", grade_id(key)) and grade_id(key) != solution_id(key)
        assert key_of(grade_id(key)) == key
    assert key_of("answer_02_train") is None and key_of("") is None
