"""`release OUT`: the nbgrader course directory, its student version, and the student kit.

    OUT/nbgrader_config.py        course id, zip_collect's file names, time limits, the stub text
    OUT/source/<stem>/<stem>.ipynb  the instructor's version (source.py), reference solutions in
    OUT/release/<stem>/<stem>.ipynb what students get: written by nbgrader's generate_assignment
    OUT/gradebook.db              nbgrader's gradebook, the assignments and their graded cells
    OUT/student_kit/              the course as students get it (KIT_FILES, notebooks/ = release)

The instructor's seed for the hidden cases is drawn here (or given) and written into the source
notebooks only: the student version, the kit and this directory's config do not contain it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat

from tutorial_course import chapters
from tutorial_course.classroom import CODE_STUB, COURSE_ID, EXECUTE_TIMEOUT, NAMED_REGEXP
from tutorial_course.classroom.source import source_notebook
from tutorial_lib.data import write_atomically

ROOT = Path(__file__).resolve().parents[2]  # the repository: notebooks/, solutions/, data/ ...
# What the student kit copies from the repository: the three packages, their data, the
# docs and the two commands' files. Not solutions/, tests/, benchmarks/, interop/ or the executed
# notebooks/.
KIT_FILES = ("tutorial_lib", "tutorial_course", "tutorial_pipeline", "data", "docs",
             "Makefile", "pyproject.toml", "constraints.txt", "environment.yml", "README.md",
             ".gitignore", ".gitattributes")
# In the kit `make test` runs every released notebook top to bottom (nothing compared, graded
# cells may fail on an exercise not done yet): the check that the student's machine is set up.
KIT_PYTEST = ('testpaths = ["notebooks"]\n'
              'addopts = "-ra --nbval-lax --nbval-current-env -p no:cacheprovider"')

KIT_NOTE = ("> **学生版**（The student version）：这里没有参考答案（下文提到的 `solutions/`）"
            "和测试；`notebooks/` 是待完成的作业，每个练习后面有一个只读的评分单元格。做完用 "
            "`python -m tutorial_course.workspace submit --student 学号 NN` 交作业。\n\n")

CONFIG = '''\
# nbgrader's configuration of this course, written by `python -m tutorial_course.classroom release`.
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = {course_id!r}
# zip_collect: the files `python -m tutorial_course.workspace submit` writes. nbgrader matches
# the expression against the whole path of an extracted file, so it may start anywhere.
c.FileNameCollectorPlugin.named_regexp = r".*?" + {regexp!r}
c.FileNameCollectorPlugin.valid_ext = [".ipynb"]
c.ZipCollectApp.strict = True
# what the student version shows in place of a reference solution
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
# autograde: a graded cell the student deleted is put back from the gradebook (and graded)
c.OverwriteCells.add_missing_cells = True
# autograde: seconds per cell (a graded cell runs its checks in a grading process of its own)
c.Execute.timeout = {timeout}
# feedback keeps the verdicts of the hidden cases but not the lines that hold their seed (in the
# cell or quoted by its traceback)
c.GenerateFeedback.preprocessors = [
    "nbgrader.preprocessors.GetGrades",
    "nbgrader.preprocessors.ClearHiddenTests",
    "tutorial_course.classroom.feedback_page.ShortGradedTracebacks",
    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",
]
'''


def assignment_name(chapter: chapters.Chapter) -> str:
    return chapter.stem


def chosen_chapters(numbers: list[str] | None) -> list[chapters.Chapter]:
    available = [c for c in chapters.CHAPTERS if c.available]
    if not numbers:
        return available
    known = {c.number: c for c in available}
    unknown = [n for n in numbers if n not in known]
    if unknown:
        raise ValueError(f"chapters: {unknown} are not chapters of the course "
                         f"(available: {sorted(known)})")
    return [known[n] for n in numbers]


def write_config(out: Path) -> None:
    write_atomically(out / "nbgrader_config.py", CONFIG.format(
        course_id=COURSE_ID, regexp=NAMED_REGEXP, stub=CODE_STUB, timeout=EXECUTE_TIMEOUT))


def write_sources(out: Path, selected: list[chapters.Chapter], seed: int) -> None:
    for chapter in selected:
        nb = nbformat.reads((chapters.NOTEBOOK_DIR / f"{chapter.stem}.ipynb").read_text("utf-8"),
                            as_version=4)
        name = assignment_name(chapter)
        target = out / "source" / name / f"{chapter.stem}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(target, nbformat.writes(source_notebook(nb, seed)) + "\n")


def nbgrader_environment() -> dict[str, str]:
    """This environment with this Python's scripts first on PATH: nbgrader runs `alembic` by name
    to set up the gradebook, and a venv used without activating it lacks it."""
    scripts = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": scripts + os.pathsep + os.environ.get("PATH", "")}


def nbgrader(out: Path, *args: str) -> subprocess.CompletedProcess:
    """Run an nbgrader command in the course directory (where it reads nbgrader_config.py)."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=out,
                          capture_output=True, text=True, env=nbgrader_environment())
    if done.returncode != 0:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{done.stderr[-3000:]}")
    return done


def write_kit(out: Path, selected: list[chapters.Chapter]) -> Path:
    """OUT/student_kit: the repository's KIT_FILES with the released notebooks as notebooks/."""
    kit = out / "student_kit"
    if kit.exists():
        shutil.rmtree(kit)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in KIT_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, kit / name, ignore=ignore)
        elif source.is_file():
            (kit / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, kit / name)
    (kit / "notebooks").mkdir()
    for chapter in selected:
        name = assignment_name(chapter)
        shutil.copy2(out / "release" / name / f"{chapter.stem}.ipynb", kit / "notebooks")
    readme = kit / "README.md"
    if readme.is_file():
        readme.write_text(KIT_NOTE + readme.read_text("utf-8"), "utf-8")
    pyproject = kit / "pyproject.toml"
    text = pyproject.read_text("utf-8")
    start = text.index("[tool.pytest.ini_options]")
    end = text.index("\n[", start + 1)
    pyproject.write_text(text[:start] + "[tool.pytest.ini_options]\n" + KIT_PYTEST + "\n"
                         + text[end:], "utf-8")
    return kit


def release(out: str | Path, chapters: list[str] | None = None, *, seed: int | None = None,
            kit: bool = True) -> Path:
    """Write the course directory OUT (see the module docstring) and return it."""
    out = Path(out).resolve()
    if seed is None:
        seed = secrets.randbelow(10**9)
    if type(seed) is not int or seed < 0:
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    picked = chosen_chapters(chapters)
    out.mkdir(parents=True, exist_ok=True)
    write_config(out)
    write_sources(out, picked, seed)
    # one nbgrader process for the whole course ("*": every assignment in source/), else one each
    names = (["*"] if picked == chosen_chapters(None)
             else [assignment_name(chapter) for chapter in picked])
    for name in names:
        nbgrader(out, "generate_assignment", name, "--force")
    if kit:
        write_kit(out, picked)
    return out
