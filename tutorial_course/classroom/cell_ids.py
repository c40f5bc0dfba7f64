"""The ids of an exercise's cells in a released notebook, and the exercise a graded cell belongs to.

What a graded cell is worth is the exercise record's (`Exercise.points`, beside its cases and
hints); the release writes it into the cell's nbgrader metadata.
"""

from __future__ import annotations

from tutorial_course import exercises


def grade_id(key: str) -> str:
    """nbgrader's id of an exercise's graded cell: letters, digits and _ only ("02.train" ->
    "test_02_train"), unique within a notebook."""
    return "test_" + key.replace(".", "_")


def solution_id(key: str) -> str:
    return "answer_" + key.replace(".", "_")


def written_id(chapter: str) -> str:
    """nbgrader's id of a chapter's manually graded written answer."""
    return f"written_{chapter}"


def key_of(cell_id: str) -> str | None:
    """The exercise a graded cell id belongs to, or None for a cell that is not ours."""
    return next((key for key in exercises.REGISTRY if grade_id(key) == cell_id), None)
