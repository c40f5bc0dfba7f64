"""Self-study progress: which exercises a learner has passed, failed or not yet tried.

Every `check` of the public cases run in the learner's workspace/ appends one line to
workspace/.progress.jsonl: the exercise, the verdict and the time. The file lives in the learner's
git-ignored copies, never in the repository, and nothing is written when the reference notebooks in
notebooks/ run (nbval, `make notebooks`), when tests check an answer, or when a class is graded
(hidden cases). Appending a short line is one write on an O_APPEND file, so two kernels that check
at once both keep their line; the last line of an exercise is its current verdict.

    python -m tutorial_course.exercises      the table, per chapter (make progress)

and chapter 00 shows the same table with `progress.table(REGISTRY)`. The exercises are handed in
(`exercises.REGISTRY`), since `check` itself records here.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable
from pathlib import Path

from tutorial_course import chapters
from tutorial_course.exercises.feedback import ICONS
from tutorial_course.workspace import WORKSPACE

LOG_NAME = ".progress.jsonl"
NOT_TRIED = "未尝试"
# the marks the checker's verdicts carry (评分出错 is a class's grading, never self-study's)
LOOK = {**{v: icon for v, icon in ICONS.items() if v != "评分出错"}, NOT_TRIED: "·"}


def record(key: str, verdict: str) -> bool:
    """Append the verdict of `key` to the log, if the kernel runs in the learner's workspace (its
    current directory); say whether a line was written. A log that cannot be written costs the
    learner nothing: the check's answer is what matters."""
    folder = Path.cwd()
    try:
        if folder.resolve() != WORKSPACE.resolve():
            return False
        line = json.dumps({"key": key, "verdict": verdict, "time": int(time.time())},
                          ensure_ascii=False) + "\n"
        fd = os.open(folder / LOG_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line.encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        return False
    return True


def verdicts(folder: Path | None = None) -> dict[str, str]:
    """The last verdict of each exercise in the log of `folder` (the workspace when None); a line
    that is not a record (a log cut short by a crash) is skipped."""
    latest: dict[str, str] = {}
    try:
        lines = ((folder or WORKSPACE) / LOG_NAME).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return latest
    for line in lines:
        try:
            entry = json.loads(line)
            latest[str(entry["key"])] = str(entry["verdict"])
        except (ValueError, KeyError, TypeError):
            continue
    return latest


def rows(exercises: Iterable[str], folder: Path | None = None) -> list[tuple[str, str, str, str]]:
    """(chapter, passed of all, each exercise with its mark, the next one to try) per chapter with
    exercises, in the course's order; `exercises` are the keys, in the order the notebooks ask
    them (the order in which `exercises.REGISTRY` holds them)."""
    exercises = list(exercises)
    latest = verdicts(folder)
    table = []
    for chapter in chapters.CHAPTERS:
        keys = [key for key in exercises if key.split(".", 1)[0] == chapter.number]
        if not keys:
            continue
        marks = [latest.get(key, NOT_TRIED) for key in keys]
        passed = sum(mark == "通过" for mark in marks)
        shown = "  ".join(f"{LOOK.get(mark, '?')} {key.split('.', 1)[1]}"
                          for key, mark in zip(keys, marks))
        todo = next((key for key, mark in zip(keys, marks) if mark != "通过"), "")
        table.append((f"{chapter.number} {chapter.title}", f"{passed}/{len(keys)}", shown, todo))
    return table


LEGEND = "  ".join(f"{icon} {name}" for name, icon in LOOK.items())


def table(exercises: Iterable[str], folder: Path | None = None):
    """The progress table as HTML for a notebook: the log of `folder`, by default the notebook's
    own directory (workspace/ for the learner; the reference in notebooks/ has no log)."""
    from IPython.display import HTML

    from tutorial_lib.show.display import html_table

    return HTML(html_table(["章", "通过", "练习", "下一个"], rows(exercises, folder or Path.cwd()))
                + f"<p>{LEGEND}</p>")
