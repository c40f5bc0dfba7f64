"""How long a chapter's core path takes a learner: reading, code, guesses, widgets and exercises.

The course promises one sitting (at most `SITTING` minutes) per chapter for its core path. What
is beyond the core sits in a part whose heading says 选读 (it runs with the rest, but a learner
may skip it) or inside a folded `<details>` block (the English original of a quotation summarized in
Chinese); neither counts here.

The rates are those of the target learner, a Chinese-speaking engineer reading closely and working
every exercise: they reproduce, within 11%, the times two reviewers measured by working
through chapters 04, 05, 08 and 10 as learners (about 100, 120, 120 and 120 minutes).

    python -m tutorial_course.chapter_time      the estimate of every chapter
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tutorial_course import chapters

SITTING = 90  # minutes
HAN_PER_MINUTE = 250  # Chinese characters (and full-width punctuation) of technical prose
WORDS_PER_MINUTE = 80  # English words, a second language
CODE_LINES_PER_MINUTE = 12  # code lines read and run, comments and blank lines not counted
GUESS_MINUTES, WIDGET_MINUTES = 1, 3
EXERCISE_MINUTES = {1: 4, 2: 8, 3: 15}  # by the exercise's points: a line, a step, the algorithm

_HAN = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
_WORD = re.compile(r"[A-Za-z]+")
_FOLDED = re.compile(r"<details>.*?</details>", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$", re.M)
_CHECK = re.compile(r'\bcheck\("(\d\d\.\w+)"')
_WIDGET = "application/vnd.jupyter.widget-view+json"


@dataclass(frozen=True)
class Estimate:
    reading: float  # minutes of prose
    code: float
    exercises: float
    guesses_and_widgets: float
    optional_cells: int  # cells in 选读 parts, not counted
    optional_exercises: tuple[str, ...]  # the exercises those parts hold (graded all the same)

    @property
    def minutes(self) -> float:
        return self.reading + self.code + self.exercises + self.guesses_and_widgets


def core_cells(nb: dict) -> tuple[list[dict], list[dict]]:
    """The cells of the core path, and the cells of the 选读 parts."""
    core, skipped, optional_level = [], [], None
    for cell in nb["cells"]:
        source = "".join(cell["source"])
        heading = _HEADING.search(source) if cell["cell_type"] == "markdown" else None
        if heading and optional_level and len(heading.group(1)) <= optional_level:
            optional_level = None  # a heading as high as the 选读 one ends that part
        if heading and optional_level is None and "选读" in heading.group(2):
            optional_level = len(heading.group(1))
        if optional_level:
            skipped.append(cell)
        else:
            core.append(cell)
    return core, skipped


def estimate(path: Path, points: dict[str, int]) -> Estimate:
    """The core path's minutes of the notebook at `path`; `points` maps exercise keys to points."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells, skipped = core_cells(nb)
    reading = code = exercises = other = 0.0
    for cell in cells:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown":
            shown = _FOLDED.sub("", source)
            reading += (len(_HAN.findall(shown)) / HAN_PER_MINUTE
                        + len(_WORD.findall(shown)) / WORDS_PER_MINUTE)
            continue
        keys = _CHECK.findall(source)
        if keys:
            exercises += sum(EXERCISE_MINUTES[points[key]] for key in keys if key in points)
        elif source.lstrip().startswith("my_guess"):
            other += GUESS_MINUTES
        else:
            lines = [line for line in source.splitlines()
                     if line.strip() and not line.lstrip().startswith("#")]
            code += len(lines) / CODE_LINES_PER_MINUTE
        if any(_WIDGET in output.get("data", {}) for output in cell.get("outputs", [])):
            other += WIDGET_MINUTES
    optional = tuple(key for cell in skipped if cell["cell_type"] == "code"
                     for key in _CHECK.findall("".join(cell["source"])))
    return Estimate(reading, code, exercises, other, len(skipped), optional)


def estimates() -> dict[str, Estimate]:
    """Every available chapter's estimate, by chapter number."""
    from tutorial_course.exercises import REGISTRY

    points = {key: exercise.points for key, exercise in REGISTRY.items()}
    return {chapter.number: estimate(chapters.NOTEBOOK_DIR / f"{chapter.stem}.ipynb", points)
            for chapter in chapters.CHAPTERS if chapter.available}


def main(argv: list[str]) -> int:
    if argv:
        print("usage: python -m tutorial_course.chapter_time", file=sys.stderr)
        return 2
    print("章  合计  阅读  代码  练习  猜测/控件  选读单元  选读里的练习")
    for number, e in estimates().items():
        flag = "" if e.minutes <= SITTING else f"  超出 {e.minutes - SITTING:.0f} 分钟"
        print(f"{number}  {e.minutes:4.0f}  {e.reading:4.0f}  {e.code:4.0f}  {e.exercises:4.0f}"
              f"  {e.guesses_and_widgets:9.0f}  {e.optional_cells:8d}  "
              f"{' '.join(e.optional_exercises) or '—'}{flag}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
