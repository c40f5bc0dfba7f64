"""The course as an instructor runs it, on nbgrader: release, autograde, gradebook, class report.

    python -m tutorial_course.classroom release OUT [--chapters 00 02 ...] [--seed N] [--force]
    python -m tutorial_course.classroom autograde COURSE_DIR ASSIGNMENT [--jobs N] [--force]
    python -m tutorial_course.classroom report COURSE_DIR ASSIGNMENT

`release` (`release.py`) writes an nbgrader course directory: one assignment per chapter, named by
the notebook's stem, whose source notebook (`source.py`) holds the reference solution in each
exercise's answer cell and a locked, graded test cell after it; nbgrader's own
`generate_assignment` then makes the student version, and `release` packs it with the library and
data as a student kit. `autograde` (`autograde.py`) grades every submission's answer cells in a
sandbox (`grade.py`, `worker.py`, `isolation.py`), in parallel, and lets nbgrader's autograde
record the points without running a notebook. `report` (`report.py`) reads what autograde left and
writes one HTML page per assignment. Everything else is nbgrader: `zip_collect`, `export`,
`generate_feedback` (docs/teachers.md has the commands).
"""

from __future__ import annotations

COURSE_ID = "tokenization-packing"
# The file name of one submission (`tutorial_course.workspace submit` writes it, zip_collect
# reads it):
# <student id>__<UTC time YYYYMMDDTHHMMSSZ>__<notebook file name>.
NAMED_REGEXP = (r"(?P<student_id>[A-Za-z0-9-]+)__(?P<timestamp>[0-9]{8}T[0-9]{6}Z)__"
                r"(?P<file_id>[A-Za-z0-9_]+\.ipynb)")
# What the student sees in place of a reference solution.
CODE_STUB = "# 在这里写你的实现\nraise NotImplementedError"
# Seconds one exercise's runner may take: two checks (public and hidden cases) of up to a few
# dozen cases, each case stopped by the checker after its own limit.
GRADING_TIMEOUT = 240
# The MIME type of the verdict a graded cell stores for the class report.
FEEDBACK_MIME = "application/vnd.tutorial-lib.feedback+json"
