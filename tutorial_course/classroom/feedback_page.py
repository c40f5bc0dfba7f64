"""A preprocessor for nbgrader's `generate_feedback`: graded cells' errors without their traceback.

nbgrader shows a student the hidden tests in feedback by design (jupyter/nbgrader#917); the course's
config removes the hidden lines from the cell source with nbgrader's own ClearHiddenTests, but the
traceback of a failed graded cell quotes the lines around the failing one, the seed of the hidden
cases among them. This keeps only the traceback's last line ("AssertionError: 未通过：……"); the
verdicts the cell displayed, hidden cases' included, stay as they are.
"""

from __future__ import annotations

from nbconvert.preprocessors import Preprocessor
from traitlets import Bool


class ShortGradedTracebacks(Preprocessor):
    enabled = Bool(True)  # nbconvert's preprocessors are off unless told; nbgrader's are on

    def preprocess_cell(self, cell, resources, index):
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade"):
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error" and output.get("traceback"):
                    output["traceback"] = output["traceback"][-1:]
        return cell, resources
