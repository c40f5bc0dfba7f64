"""The course as an instructor runs it, end to end, with nbgrader's own commands.

Chapter 02 (four exercises, the notebook runs in seconds; chapter 00 has a single exercise, too
few for a class report to say anything) is released into a temporary course directory; six fake
students (fake_class.py) hand it in as `tutorial_course/workspace.py submit` packs a submission; then
`nbgrader zip_collect`, `autograde`, `export`, `generate_feedback` and our report run, and the
gradebook CSV and the report must show the expected points and verdicts: the students who
tampered with the checker or hard-coded the public answers get nothing for it.
"""

import csv
import html
import inspect
import re
from pathlib import Path

import nbformat
import pytest

from tutorial_course import chapters, exercises
from tutorial_course.classroom import answers, release
from tutorial_course.classroom.report import notebook_verdicts, write_report

import fake_class  # tests/course/classroom/conftest.py puts it on sys.path

POINTS = {key: exercise.points for key, exercise in exercises.REGISTRY.items()}

CHAPTER = "02"
ASSIGNMENT = "02_bpe_step_by_step"
KEYS = [key for key in POINTS if key.startswith(CHAPTER + ".")]
SEED = 90210
EXPECTED = {  # student -> verdict per exercise (in KEYS order)
    "right": ["通过"] * 4,
    "wrong": ["未通过"] * 4,
    "stub": ["未完成"] * 4,
    "loop": ["未完成", "超时", "未完成", "未完成"],
    "tamper": ["未完成"] * 4,
    "hardcode": ["未通过"] * 4,
}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> Path:
    """The course directory after the whole flow."""
    out = release.release(tmp_path_factory.mktemp("course") / "course", [CHAPTER], seed=SEED,
                          kit=False)
    released = out / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    instructor = out / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    archive = out / "downloaded" / ASSIGNMENT / "archive"  # where an LMS download is put
    for student in fake_class.STUDENTS:
        nb = fake_class.student_notebook(student, released, instructor)
        fake_class.submit(student, nb, released.name, ASSIGNMENT, archive)
    release.nbgrader(out, "zip_collect", ASSIGNMENT)
    release.nbgrader(out, "autograde", ASSIGNMENT)
    release.nbgrader(out, "export")
    release.nbgrader(out, "generate_feedback", ASSIGNMENT)
    write_report(out, ASSIGNMENT)
    return out


def cell_text(path: Path) -> str:
    """Every cell's source, as a student reads it (not JSON-escaped)."""
    return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)


def reference_lines(key: str) -> set[str]:
    """The lines of a reference solution worth searching for: no signature, comment or short line."""
    params = [p for p in inspect.signature(answers.reference(key)).parameters]
    text = inspect.getsource(answers.reference(key)) + "\n" + answers.solution_body(key, params)
    return {line.strip() for line in text.splitlines()
            if len(line.strip()) >= 16 and not line.strip().startswith(("def ", "#", '"""'))}


def test_the_student_version_holds_no_reference_line_and_no_teacher_note(graded):
    released = cell_text(graded / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    original = cell_text(chapters.NOTEBOOK_DIR / f"{ASSIGNMENT}.ipynb")
    for key in KEYS:
        leaked = {line for line in reference_lines(key) if line in released and line not in original}
        assert leaked == set(), key
    assert "教师注" not in released
    assert str(SEED) not in released
    assert str(SEED) in cell_text(graded / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")


def test_zip_collect_takes_every_submission(graded):
    for student in fake_class.STUDENTS:
        submitted = graded / "submitted" / student / ASSIGNMENT
        assert (submitted / f"{ASSIGNMENT}.ipynb").is_file()
        assert (submitted / "timestamp.txt").read_text().startswith("2026-12-01 12:00:00")


def test_the_gradebook_csv_gives_points_only_for_real_work(graded):
    with open(graded / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    full = sum(POINTS[key] for key in KEYS)
    assert set(rows) == set(fake_class.STUDENTS)
    assert {s: float(r["score"]) for s, r in rows.items()} == {
        s: (full if s == "right" else 0.0) for s in fake_class.STUDENTS}
    assert {float(r["max_score"]) for r in rows.values()} == {full}


def test_each_graded_cell_stored_the_verdict_the_checker_gave(graded):
    for student, expected in EXPECTED.items():
        path = graded / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        verdicts = notebook_verdicts(path)
        assert [verdicts[key][0] for key in KEYS] == expected, student
    wrong = notebook_verdicts(graded / "autograded" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    assert all(case for verdict, case in wrong.values())  # the smallest failing case, per exercise


def test_the_tamperer_got_its_graded_cells_back_and_failed_them(graded):
    nb = nbformat.read(graded / "autograded" / "tamper" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    graded_cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    assert len(graded_cells) == len(KEYS)  # the deleted one is back, the edited ones restored
    assert all('grade("02.' in c.source for c in graded_cells)
    assert all(any(o.get("ename") == "AssertionError" for o in c.outputs) for c in graded_cells)


def test_the_hard_coder_passes_the_public_cases_and_fails_the_hidden_ones(graded):
    nb = nbformat.read(graded / "autograded" / "hardcode" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", 4)
    for cell in (c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")):
        shown = [o["data"]["text/plain"] for o in cell.outputs if o.output_type == "display_data"]
        assert [text.split("\n")[0] for text in shown] == ["公开用例", "隐藏用例（只在评分时运行）"]
        public, hidden = (text.split("\n")[1] for text in shown)
        assert "通过" in public and "未通过" not in public and "未通过" in hidden


def test_feedback_pages_show_the_verdicts_but_not_the_hidden_seed(graded):
    for student in fake_class.STUDENTS:
        page = (graded / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text("utf-8")
        assert str(SEED) not in page
        assert "隐藏用例" in page
    page = (graded / "feedback" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text("utf-8")
    assert "未通过" in page and "提示" in page


def test_the_class_report_counts_verdicts_cases_and_points(graded):
    page = (graded / "reports" / f"{ASSIGNMENT}.html").read_text("utf-8")
    assert page.count("data:image/png;base64,") == 1
    rows = dict(re.findall(r"<tr><td><b>(\d\d\.\w+)</b>(.*?)</tr>", page))
    assert list(rows) == KEYS
    assert "17%（1）" in rows["02.count_pairs"]  # 1 of 6 passed (right): 17%
    merge = re.findall(r"<td>(\d+)%（(\d)）</td>", rows["02.merge_pair"])
    assert [int(n) for _, n in merge] == [1, 2, 1, 2]  # 通过, 未通过, 超时, 未完成
    wrong = notebook_verdicts(graded / "autograded" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    assert f"<code>{html.escape(wrong['02.train'][1])}</code> × 1" in rows["02.train"]
    for student in fake_class.STUDENTS:
        assert f'href="../feedback/{student}/{ASSIGNMENT}/{ASSIGNMENT}.html"' in page
    assert 'href="../grades.csv"' in page


@pytest.fixture(scope="module")
def whole_course(tmp_path_factory) -> Path:
    return release.release(tmp_path_factory.mktemp("whole") / "course", seed=SEED)


def test_the_whole_course_releases_without_running_a_notebook(whole_course):
    available = [c for c in chapters.CHAPTERS if c.available]
    for chapter in available:
        released = whole_course / "release" / chapter.stem / f"{chapter.stem}.ipynb"
        nb = nbformat.read(released, 4)
        assert all(c.get("outputs", []) == [] for c in nb.cells)
        text = cell_text(released)
        assert "教师注" not in text and str(SEED) not in text
        original = cell_text(chapters.NOTEBOOK_DIR / f"{chapter.stem}.ipynb")
        for key in (k for k in POINTS if k.startswith(chapter.number + ".")):
            assert {l for l in reference_lines(key) if l in text and l not in original} == set()
            assert f'grade("{key}",' in text
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{whole_course / 'gradebook.db'}") as gb:
        assert {a.name: a.max_score for a in gb.assignments} == {
            c.stem: sum(p for k, p in POINTS.items() if k.startswith(c.number + "."))
            for c in available}


def test_the_student_kit_is_the_course_without_solutions_tests_or_executed_notebooks(whole_course):
    kit = whole_course / "student_kit"
    expected = [n for n in release.KIT_FILES if (release.ROOT / n).exists()] + ["notebooks"]
    assert sorted(p.name for p in kit.iterdir()) == sorted(expected)
    assert not (kit / "solutions").exists() and not (kit / "tests").exists()
    assert (kit / "tutorial_course" / "workspace.py").is_file() and (kit / "tutorial_course" / "classroom").is_dir()
    assert not (kit / "tools").exists() and not (kit / "solutions").exists()
    assert sorted(p.name for p in (kit / "notebooks").iterdir()) == sorted(
        f"{c.stem}.ipynb" for c in chapters.CHAPTERS if c.available)
    for nb in (kit / "notebooks").iterdir():
        assert nb.read_bytes() == (whole_course / "release" / nb.stem / nb.name).read_bytes()
    assert release.KIT_PYTEST in (kit / "pyproject.toml").read_text("utf-8")
    assert (kit / "README.md").read_text("utf-8").startswith(release.KIT_NOTE)
    assert not list(kit.rglob("__pycache__"))
