"""The points table: one entry per registered exercise, positive whole points, ids nbgrader takes."""

import re

from tutorial_course import exercises
from tutorial_course.classroom.points import POINTS, grade_id, key_of, solution_id


def test_every_registered_exercise_has_points_and_nothing_else_does():
    assert set(POINTS) == set(exercises.REGISTRY)
    assert all(type(p) is int and p > 0 for p in POINTS.values())


def test_the_table_lists_each_chapter_in_notebook_order():
    assert list(POINTS) == sorted(POINTS, key=lambda key: (key[:2], list(POINTS).index(key)))


def test_cell_ids_are_what_nbgrader_accepts_and_lead_back_to_the_exercise():
    for key in POINTS:
        assert re.fullmatch(r"[A-Za-z0-9_]+", grade_id(key)) and grade_id(key) != solution_id(key)
        assert key_of(grade_id(key)) == key
    assert key_of("answer_02_train") is None and key_of("") is None
