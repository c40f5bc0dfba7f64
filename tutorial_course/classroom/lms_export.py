"""Grades shaped for a learning platform: `nbgrader export --exporter
tutorial_course.classroom.lms_export.WideCsv --to grades_lms.csv`.

nbgrader's own `export` writes one row per submission (assignment, student, score). A platform's
gradebook import (Moodle, Canvas, Blackboard, a spreadsheet) wants one row per student and one
column per assignment. This plugin writes that: the student id, name and e-mail nbgrader knows
(from the roster, `nbgrader db student import`), each assignment's score after late penalties
(empty where nothing was handed in, so the platform does not record a 0 it cannot tell from a real
one) and the total. The headers name each assignment with its maximum, "02_bpe_step_by_step (10)",
which is what the platforms' import screens ask you to match to a column.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.plugins import ExportPlugin

from tutorial_lib.data import write_atomically


class WideCsv(ExportPlugin):
    """One row per student, one column per assignment, and the total."""

    def export(self, gradebook: Gradebook) -> None:
        dest = Path(self.to or "grades_lms.csv")
        assignments = sorted(gradebook.assignments, key=lambda a: a.name)
        if self.assignment:
            assignments = [a for a in assignments if a.name in set(map(str, self.assignment))]
        students = sorted(gradebook.students, key=lambda s: s.id)
        if self.student:
            students = [s for s in students if s.id in set(map(str, self.student))]
        header = ["student_id", "last_name", "first_name", "email"]
        header += [f"{a.name} ({a.max_score:g})" for a in assignments] + ["total"]
        rows = [header]
        for student in students:
            scores = []
            for assignment in assignments:
                try:
                    scores.append(gradebook.find_submission(assignment.name, student.id).score)
                except MissingEntry:
                    scores.append(None)
            total = sum(score for score in scores if score is not None)
            rows.append([student.id, student.last_name or "", student.first_name or "",
                         student.email or ""]
                        + ["" if score is None else f"{score:g}" for score in scores]
                        + [f"{total:g}"])
        self.log.info("Writing one row per student to %s", dest)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows(rows)
        write_atomically(dest, "\ufeff" + out.getvalue())  # a BOM: Excel then reads UTF-8
