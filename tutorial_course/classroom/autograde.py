"""`autograde COURSE_DIR ASSIGNMENT [--jobs N] [--force]`: grade every submission in parallel, in
the sandbox, then let nbgrader's own `autograde` record the points.

nbgrader's autograde runs each notebook in a kernel (nbgrader's `Execute` preprocessor): minutes
per submission, one after the other, with the student's code running as the instructor. The
course's `nbgrader_config.py` replaces `Execute` by `FillGradedCells`, which runs nothing of the
notebook: it writes into each graded cell the verdicts `grade.py` got from the sandbox, as the
cell's outputs (an error output for anything but 通过, so nbgrader's own rule gives the points or
0), and the rest of nbgrader's autograde (SaveAutoGrades, late penalties, the gradebook) goes on as
before. So plain `nbgrader autograde ASSIGNMENT` grades correctly too, one submission after the
other.

This command first grades every submission's answer cells at once, `--jobs` sandboxes side by
side, and keeps each verdict in `COURSE/verdicts/<assignment>/<student>/<notebook>.json` with the
digest of what it was graded from (`grade.digest`: the answer cells, the seed and the grading
code); `FillGradedCells` uses a kept verdict only if the digest still matches, and grades again
otherwise. After a fix of an exercise or of the library the digests change and everything is
graded again; `--force` also redoes nbgrader's part for submissions it has already autograded.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import nbformat
from nbgrader.preprocessors import NbGraderPreprocessor

from tutorial_course.classroom import FEEDBACK_MIME, grade, isolation
from tutorial_course.classroom.cell_ids import key_of
from tutorial_course.classroom.release import course_seed
from tutorial_course.exercises import Feedback
from tutorial_lib.data import write_atomically

LABELS = ("公开用例", "隐藏用例（只在评分时运行）")


def verdict_file(root: Path, assignment: str, student: str, notebook: str) -> Path:
    return root / "verdicts" / assignment / student / f"{notebook}.json"


def prepared(root: Path, assignment: str, student: str, notebook: str,
             submission: nbformat.NotebookNode) -> tuple[bytes, str, dict | None]:
    """One submitted notebook's job for the sandbox (`grade.job`), its digest, and the verdicts
    kept from a grading of exactly this job, or None when it must be graded."""
    source = nbformat.read(root / "source" / assignment / f"{notebook}.ipynb", as_version=4)
    work = grade.job(submission, source, course_seed(root))
    digest = grade.digest(work)
    kept = verdict_file(root, assignment, student, notebook)
    if kept.is_file():
        saved = json.loads(kept.read_text("utf-8"))
        if saved.get("digest") == digest:
            return work, digest, saved["verdicts"]
    return work, digest, None


def graded(root: Path, assignment: str, student: str, notebook: str, work: bytes, digest: str
           ) -> dict[str, list[dict[str, Any]]]:
    """The verdicts of `work`, graded now in the sandbox, and kept under their digest."""
    verdicts = grade.run_job(work)
    kept = verdict_file(root, assignment, student, notebook)
    kept.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(kept, json.dumps({"digest": digest, "isolated": isolation.isolated(),
                                       "verdicts": verdicts}, ensure_ascii=False) + "\n")
    return verdicts


def verdicts_for(root: Path, assignment: str, student: str, notebook: str,
                 submission: nbformat.NotebookNode) -> dict[str, list[dict[str, Any]]]:
    """The verdicts of one submitted notebook: the kept ones if they were graded from exactly
    this (`grade.digest`), else graded now in the sandbox and kept."""
    work, digest, kept = prepared(root, assignment, student, notebook, submission)
    return kept if kept is not None else graded(root, assignment, student, notebook, work, digest)


def graded_outputs(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A graded cell's outputs: each verdict as `check` shows it (and as JSON for the report),
    then, unless all passed, an error output, which nbgrader scores 0."""
    outputs = []
    for label, answer in zip(LABELS, answers):
        feedback = Feedback.from_json(answer)
        outputs.append(nbformat.v4.new_output("display_data", data={
            "text/html": f'<div style="font-size:90%;margin:4px 0 2px">{label}</div>'
                         f"{feedback._repr_html_()}",
            "text/plain": f"{label}\n{feedback!r}",
            FEEDBACK_MIME: {"cases": label, **answer}}))
    failed = next((a for a in answers if a.get("verdict") != "通过"), None)
    if failed is not None:
        first_line = str(failed.get("message", "")).splitlines()[0] if failed.get("message") else ""
        outputs.append(nbformat.v4.new_output("error", ename=str(failed.get("verdict")),
                                              evalue=first_line, traceback=[first_line]))
    return outputs


class FillGradedCells(NbGraderPreprocessor):
    """nbgrader's autograde step in place of `Execute`: the graded cells' outputs from the
    sandbox's verdicts; no cell of the notebook runs."""

    def preprocess(self, nb: nbformat.NotebookNode, resources: dict) -> tuple:
        info = resources["nbgrader"]
        root = Path(os.getcwd())  # nbgrader runs in the course directory
        verdicts = verdicts_for(root, info["assignment"], info["student"], info["notebook"], nb)
        for cell in nb.cells:
            key = key_of(cell.metadata.get("nbgrader", {}).get("grade_id", ""))
            if cell.cell_type == "code":
                cell.outputs, cell.execution_count = [], None
                if key in verdicts:
                    cell.outputs = graded_outputs(verdicts[key])
        return nb, resources


def submissions(root: Path, assignment: str) -> list[tuple[str, str, Path]]:
    """(student, notebook, path) of every submitted notebook of the assignment."""
    found = []
    for path in sorted((root / "submitted").glob(f"*/{assignment}/*.ipynb")):
        found.append((path.parent.parent.name, path.stem, path))
    return found


def grade_all(root: Path, assignment: str, jobs: int) -> dict[str, int]:
    """Grade every submission, `jobs` at a time; how many were graded and how many failed to
    grade (评分出错). A submission that is not a notebook counts as failed."""
    from tqdm.auto import tqdm

    counts = {"graded": 0, "broken": 0}
    # The jobs are made here, one after another; only the sandboxes run in threads. Making a job
    # parses Python (`grade.prelude`), and CPython 3.11's ast.parse can fail in two threads at
    # once with "SystemError: AST constructor recursion depth mismatch" (python/cpython#106905).
    todo = []
    for student, notebook, path in submissions(root, assignment):
        try:
            nb = nbformat.read(path, as_version=4)
        except Exception:  # not a notebook: nbgrader's autograde will say so too
            counts["broken"] += 1
            continue
        todo.append((student, notebook, *prepared(root, assignment, student, notebook, nb)))

    def one(item: tuple[str, str, bytes, str, dict | None]) -> bool:
        student, notebook, work, digest, kept = item
        verdicts = kept if kept is not None else graded(root, assignment, student, notebook,
                                                        work, digest)
        return not any(a.get("verdict") == grade.BROKEN for v in verdicts.values() for a in v)

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = [pool.submit(one, item) for item in todo]
        for future in tqdm(as_completed(futures), total=len(futures), desc="评分", unit="份"):
            counts["graded" if future.result() else "broken"] += 1
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        isolation.stop_all()  # after Ctrl-C or an error: no sandbox outlives this
    return counts
