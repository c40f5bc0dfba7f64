"""`release OUT`: the nbgrader course directory, its student version, and the student kit.

    OUT/nbgrader_config.py        course id, zip_collect's file names, the stub text, grading
    OUT/classroom.json            the seed of the hidden cases and the digest of every file written
    OUT/templates/feedback_zh/    nbgrader's feedback page with a Chinese frame (feedback_page.py)
    OUT/source/<stem>/<stem>.ipynb  the instructor's version (source.py), reference solutions in
    OUT/release/<stem>/<stem>.ipynb what students get: written by nbgrader's generate_assignment
    OUT/gradebook.db              nbgrader's gradebook, the assignments and their graded cells
    OUT/student_kit/              the course as students get it: KIT_FILES, and in notebooks/
                                  every chapter released into OUT so far

The seed is drawn at the first release (or given) and kept in `classroom.json`, never in a
notebook; a later release keeps it unless `--seed` says otherwise, so re-releasing a chapter does
not change the hidden cases of work already handed in. A release writes a file only where it is new
or is exactly what the last release wrote there (its digest in `classroom.json`): a file someone
has edited since (a source notebook, the config, a file of the kit) is left alone and the release
stops before writing anything, naming it, unless `force`. It never deletes a file.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import nbformat

from tutorial_course import chapters
from tutorial_course.classroom import CODE_STUB, COURSE_ID, NAMED_REGEXP, feedback_page
from tutorial_course.classroom.source import source_notebook
from tutorial_course.workspace import write_atomically

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
            "`python -m tutorial_course.workspace submit --student 学号 NN` 交作业；"
            "评分只运行答案单元格，见 [给学生](docs/students.md)。\n\n")
# what the kit leaves out of docs/ and of the README: the teachers' guide
TEACHERS_ONLY = "docs/teachers.md"
STATE = "classroom.json"

CONFIG = '''\
# nbgrader's configuration of this course, written by `python -m tutorial_course.classroom release`.
c = get_config()  # noqa: F821 (nbgrader provides it)
c.CourseDirectory.course_id = {course_id!r}
# zip_collect: the files `python -m tutorial_course.workspace submit` writes. nbgrader matches
# the expression against the whole path of an extracted file, so it may start anywhere.
c.FileNameCollectorPlugin.named_regexp = r".*?" + {regexp!r}
c.FileNameCollectorPlugin.valid_ext = [".ipynb"]
c.ZipCollectApp.strict = True
# what the student version shows in place of a reference solution, and of a written answer
c.ClearSolutions.code_stub = {{"python": {stub!r}}}
c.ClearSolutions.text_stub = "（在这里写你的回答）"
# autograde: a graded cell the student deleted is put back from the gradebook (and graded)
c.OverwriteCells.add_missing_cells = True
# autograde: no cell of a submission runs; the graded cells get the verdicts of the sandbox
# (python -m tutorial_course.classroom autograde grades every submission there, in parallel)
# feedback: nbgrader's page with a Chinese frame (feedback_page.py wrote templates/feedback_zh/)
import os  # noqa: E402

c.HTMLExporter.template_name = "feedback_zh"
c.HTMLExporter.extra_template_basedirs = [
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")]
c.Autograde.autograde_preprocessors = [
    "tutorial_course.classroom.autograde.FillGradedCells",
    "nbconvert.preprocessors.ClearMetadataPreprocessor",
    "nbgrader.preprocessors.LimitOutput",
    "nbgrader.preprocessors.SaveAutoGrades",
    "nbgrader.preprocessors.AssignLatePenalties",
    "nbgrader.preprocessors.CheckCellMetadata",
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


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def load_state(out: Path) -> dict:
    """classroom.json: {"seed": int, "written": {path: sha256}}; empty before the first release."""
    path = out / STATE
    return json.loads(path.read_text("utf-8")) if path.is_file() else {"seed": None, "written": {}}


def course_seed(root: Path) -> int:
    """The seed of the hidden cases of the course directory `root`."""
    seed = load_state(Path(root)).get("seed")
    if type(seed) is not int:
        raise ValueError(f"{Path(root) / STATE} has no seed: is {root} a course directory "
                         "written by `python -m tutorial_course.classroom release`?")
    return seed


def write_files(out: Path, files: dict[str, bytes], state: dict, force: bool) -> None:
    """Write `files` (path under OUT -> bytes), but first refuse, writing nothing, if one of them
    exists with content the last release did not write there."""
    changed = []
    for rel, data in files.items():
        path = out / rel
        if path.is_file() and not force:
            now = _sha256(path.read_bytes())
            if now != _sha256(data) and now != state["written"].get(rel):
                changed.append(rel)
    if changed:
        listed = "\n  ".join(changed)
        raise ValueError(f"这些文件在上次发布之后被改过，发布没有覆盖它们（这一步什么也没写）："
                         f"\n  {listed}\n要改笔记本或答案，请改仓库里的 notebooks/ 和 "
                         "solutions/ 再发布；确定要覆盖这些改动，就加 --force。")
    for rel, data in files.items():
        write_atomically(out / rel, data)
        state["written"][rel] = _sha256(data)
    write_atomically(out / STATE, (json.dumps(state, indent=1, sort_keys=True) + "\n").encode())


def course_files(selected: list[chapters.Chapter]) -> dict[str, bytes]:
    """The config, the Chinese feedback template and the source notebooks."""
    files = {"nbgrader_config.py": CONFIG.format(course_id=COURSE_ID, regexp=NAMED_REGEXP,
                                                 stub=CODE_STUB).encode(),
             **feedback_page.chinese_template()}
    for chapter in selected:
        nb = nbformat.reads((chapters.NOTEBOOK_DIR / f"{chapter.stem}.ipynb").read_text("utf-8"),
                            as_version=4)
        rel = f"source/{assignment_name(chapter)}/{chapter.stem}.ipynb"
        files[rel] = (nbformat.writes(source_notebook(nb, chapter.number)) + "\n").encode()
    return files


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


def _student_readme(text: str) -> str:
    """The repository's README for students: the note on top, no line about the teachers' guide."""
    kept = [line for line in text.splitlines(keepends=True) if TEACHERS_ONLY not in line]
    return KIT_NOTE + "".join(kept).replace(
        f" · [给老师]({TEACHERS_ONLY})", "")


def kit_files(out: Path) -> dict[str, bytes]:
    """student_kit/: the repository's KIT_FILES (no teachers' guide, the README for students,
    pytest running the notebooks) and every chapter released into OUT so far."""
    files: dict[str, bytes] = {}
    for name in KIT_FILES:
        source = ROOT / name
        paths = [source] if source.is_file() else sorted(p for p in source.rglob("*")
                                                         if p.is_file()) if source.is_dir() else []
        for path in paths:
            rel = path.relative_to(ROOT).as_posix()
            if rel == TEACHERS_ONLY or "__pycache__" in rel or rel.endswith(".pyc") \
                    or ".egg-info" in rel:
                continue
            files[rel] = path.read_bytes()
    files["README.md"] = _student_readme(files["README.md"].decode("utf-8")).encode()
    text = files["pyproject.toml"].decode("utf-8")
    start = text.index("[tool.pytest.ini_options]")
    end = text.index("\n[", start + 1)
    files["pyproject.toml"] = (text[:start] + "[tool.pytest.ini_options]\n" + KIT_PYTEST + "\n"
                               + text[end:]).encode()
    for released in sorted((out / "release").glob("*/*.ipynb")):
        files[f"notebooks/{released.name}"] = released.read_bytes()
    return {f"student_kit/{rel}": data for rel, data in files.items()}


def release(out: str | Path, chapters: list[str] | None = None, *, seed: int | None = None,
            kit: bool = True, force: bool = False) -> tuple[Path, int]:
    """Write the course directory OUT (see the module docstring); (OUT, the seed it uses)."""
    out = Path(out).resolve()
    if seed is not None and (type(seed) is not int or seed < 0):
        raise ValueError(f"seed must be a non-negative int, not {seed!r}")
    picked = chosen_chapters(chapters)
    state = load_state(out)
    seed = seed if seed is not None else state.get("seed")
    state["seed"] = seed if seed is not None else secrets.randbelow(10**9)
    out.mkdir(parents=True, exist_ok=True)
    write_files(out, course_files(picked), state, force)
    # one nbgrader process for the whole course ("*": every assignment in source/), else one each
    names = (["*"] if picked == chosen_chapters(None)
             else [assignment_name(chapter) for chapter in picked])
    for name in names:
        nbgrader(out, "generate_assignment", name, "--force")
    if kit:
        write_files(out, kit_files(out), state, force)
    return out, state["seed"]
