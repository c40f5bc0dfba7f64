"""The course as an instructor runs it, end to end, with nbgrader's own commands and ours.

Chapters 00 and 02 are released into a temporary course directory; a class of fake
students (fake_class.py: honest, half done, wrong, a loop, a crash, a flood of output, and ones
who tamper with the checker, hard-code the public answers, run the library's own code again, read
the instructor's files, write the gradebook, write into other students' submissions, or kill the
grading) hand it in as `tutorial_course.workspace submit` packs a submission; then `nbgrader
zip_collect`, our `autograde` (parallel, in the sandbox; nbgrader's autograde records the points),
`export`, `generate_feedback` and our report run. Every honest score must be right, every cheat
scored as what it really did, no file of another student or of the instructor touched.
"""

import csv
import hashlib
import html
import inspect
import re
import sqlite3
from pathlib import Path

import nbformat
import pytest

from tutorial_course import chapters, exercises
from tutorial_course.classroom import answers, isolation, release
from tutorial_course.classroom.__main__ import main
from tutorial_course.classroom.report import notebook_verdicts, write_report

import fake_class  # tests/course/classroom/conftest.py puts it on sys.path

POINTS = {key: exercise.points for key, exercise in exercises.REGISTRY.items()}

CHAPTER = "02"
ASSIGNMENT = "02_bpe_step_by_step"
KEYS = [key for key in POINTS if key.startswith(CHAPTER + ".")]
SEED = 90210
FULL = ["通过"] * 4
EXPECTED = {  # student -> verdict per exercise (in KEYS order)
    "right": FULL, "chatty": FULL,
    "half": ["通过", "通过", "未完成", "未完成"],
    "wrong": ["未通过"] * 4,
    "stub": ["未完成"] * 4,
    "loop": ["未完成", "超时", "未完成", "未完成"],
    "crash": ["通过", "未通过", "未通过", "未通过"],  # the cell that ends the process, and after
    "tamper": ["未完成"] * 4,
    "hardcode": ["未通过"] * 4,
    "reexec": ["未通过"] * 4,
    "peek": ["未完成"] * 4, "gradebook": ["未完成"] * 4, "vandal": ["未完成"] * 4,
    "killer": ["评分出错"] * 4,
}


def _digests(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def graded(tmp_path_factory) -> tuple[Path, dict]:
    """The course directory after the whole flow, and what the sandbox must have left alone."""
    out, seed = release.release(tmp_path_factory.mktemp("course") / "course", ["00", CHAPTER],
                                seed=SEED, kit=False)
    assert seed == SEED
    released = out / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    instructor = out / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    archive = out / "downloaded" / ASSIGNMENT / "archive"  # where an LMS download is put
    for student in fake_class.STUDENTS:
        nb = fake_class.student_notebook(student, released, instructor, out)
        fake_class.submit(student, nb, released.name, ASSIGNMENT, archive)
    release.nbgrader(out, "zip_collect", ASSIGNMENT)
    (out / "roster.csv").write_text("id,last_name,first_name,email\nright,李,雷,li@example.edu\n",
                                    "utf-8")
    release.nbgrader(out, "db", "student", "import", "roster.csv")
    kept = {"submitted": _digests(out / "submitted"), "source": _digests(out / "source"),
            "root": sorted(p.name for p in out.iterdir())}
    main(["autograde", str(out), ASSIGNMENT, "--jobs", "2"])
    kept["after"] = {"submitted": _digests(out / "submitted"), "source": _digests(out / "source"),
                     "root": sorted(p.name for p in out.iterdir())}
    release.nbgrader(out, "export")
    release.nbgrader(out, "export", "--exporter=tutorial_course.classroom.lms_export.WideCsv",
                     "--to=grades_lms.csv")
    release.nbgrader(out, "generate_feedback", ASSIGNMENT)
    write_report(out, ASSIGNMENT)
    return out, kept


def autograded(course: Path, student: str) -> Path:
    return course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def cell_text(path: Path) -> str:
    """Every cell's source, as a student reads it (not JSON-escaped)."""
    return "\n".join(cell.source for cell in nbformat.read(path, as_version=4).cells)


def reference_lines(key: str) -> set[str]:
    """The lines of a reference solution worth searching for: no signature, comment or short line."""
    params = [p for p in inspect.signature(answers.reference(key)).parameters]
    text = inspect.getsource(answers.reference(key)) + "\n" + answers.solution_body(key, params)
    return {line.strip() for line in text.splitlines()
            if len(line.strip()) >= 16 and not line.strip().startswith(("def ", "#", '"""'))}


def test_the_student_version_holds_no_reference_line_no_teacher_note_and_no_seed(graded):
    course, _ = graded
    released = cell_text(course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    original = cell_text(chapters.NOTEBOOK_DIR / f"{ASSIGNMENT}.ipynb")
    for key in KEYS:
        leaked = {line for line in reference_lines(key) if line in released and line not in original}
        assert leaked == set(), key
    assert "教师注" not in released
    for path in course.rglob("*.ipynb"):
        assert str(SEED) not in path.read_text("utf-8")
    assert release.course_seed(course) == SEED


def test_each_graded_cell_holds_the_verdict_of_the_sandbox(graded):
    course, _ = graded
    for student in fake_class.STUDENTS:
        verdicts = notebook_verdicts(autograded(course, student))
        assert [verdicts[key][0] for key in KEYS] == EXPECTED[student], student
    wrong = notebook_verdicts(autograded(course, "wrong"))
    assert all(case for verdict, case, public in wrong.values())  # the smallest failing case


def test_the_gradebook_gives_points_only_for_real_work(graded):
    course, _ = graded
    with open(course / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
    assert set(rows) == set(fake_class.STUDENTS)
    expected = {s: float(sum(POINTS[k] for k, v in zip(KEYS, EXPECTED[s]) if v == "通过"))
                for s in fake_class.STUDENTS}
    assert rows == expected
    with sqlite3.connect(course / "gradebook.db") as db:
        assert db.execute("SELECT COUNT(*) FROM grade WHERE manual_score IS NOT NULL").fetchone() \
            == (0,)


def test_the_lms_csv_has_a_row_per_student_a_column_per_assignment_and_the_roster_names(graded):
    course, _ = graded
    with open(course / "grades_lms.csv", newline="", encoding="utf-8-sig") as f:
        rows = list(csv.reader(f))
    full = sum(POINTS[k] for k in KEYS) + 1  # the written answer, graded by hand
    intro = POINTS["00.utf8_length"] + 1
    assert rows[0] == ["student_id", "last_name", "first_name", "email",
                       f"00_intro ({intro})", f"{ASSIGNMENT} ({full})", "total"]
    by_id = {row[0]: row for row in rows[1:]}
    assert set(by_id) == set(fake_class.STUDENTS)
    # nobody handed in chapter 00: an empty cell, not a 0 the platform would take for a grade
    assert by_id["right"] == ["right", "李", "雷", "li@example.edu", "", str(full - 1),
                              str(full - 1)]
    assert by_id["stub"][4:] == ["", "0", "0"]


@pytest.mark.skipif(not isolation.isolated(), reason="no bubblewrap here: grading is not isolated")
def test_no_student_touched_another_ones_files_or_the_instructors(graded):
    _, kept = graded
    assert kept["after"]["submitted"] == kept["submitted"]
    assert kept["after"]["source"] == kept["source"]
    assert set(kept["after"]["root"]) - set(kept["root"]) == {"verdicts", "autograded"}


def test_a_flood_of_output_is_not_kept(graded):
    course, _ = graded
    assert autograded(course, "chatty").stat().st_size < 200_000
    page = course / "feedback" / "chatty" / ASSIGNMENT / f"{ASSIGNMENT}.html"
    assert page.stat().st_size < 2_000_000


def test_the_tamperer_got_its_graded_cells_back_and_none_of_its_cells_ran(graded):
    course, _ = graded
    nb = nbformat.read(autograded(course, "tamper"), 4)
    graded_cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")
                    and c.cell_type == "code"]
    assert len(graded_cells) == len(KEYS)  # the deleted one is back, the edited ones restored
    assert all('check("02.' in c.source for c in graded_cells)


def test_feedback_pages_show_the_verdicts_and_the_hidden_cases_outcome(graded):
    course, _ = graded
    for student in fake_class.STUDENTS:
        page = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text("utf-8")
        assert str(SEED) not in page and "隐藏用例" in page
        assert "得分：" in page and "(Score:" not in page and "Test cell" not in page
    page = (course / "feedback" / "wrong" / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text("utf-8")
    assert "未通过" in page and "提示" in page


def test_the_class_report_counts_verdicts_cases_points_and_flags_what_needs_a_look(graded):
    course, _ = graded
    page = (course / "reports" / f"{ASSIGNMENT}.html").read_text("utf-8")
    assert page.count("data:image/png;base64,") == 1
    rows = dict(re.findall(r"<tr><td><b>(\d\d\.\w+)</b>(.*?)</tr>", page))
    assert list(rows) == KEYS
    n = len(fake_class.STUDENTS)
    passed = sum(EXPECTED[s][0] == "通过" for s in fake_class.STUDENTS)
    assert f"{passed / n:.0%}（{passed}）" in rows["02.count_pairs"]
    wrong = notebook_verdicts(autograded(course, "wrong"))
    assert f"<code>{html.escape(wrong['02.train'][1])}</code>" in rows["02.train"]
    flags = page.split("<h2>需要你看一眼</h2>")[1].split("<img")[0]
    assert "<b>hardcode</b>：公开用例通过、隐藏用例没有通过" in flags
    if "killer" in fake_class.STUDENTS:
        assert "<b>killer</b>：4 个练习评分出错" in flags
    assert "<b>right</b>" not in flags and "<b>crash</b>" not in flags
    for student in fake_class.STUDENTS:
        assert f'href="../feedback/{student}/{ASSIGNMENT}/{ASSIGNMENT}.html"' in page


@pytest.fixture(scope="module")
def whole_course(tmp_path_factory) -> Path:
    out, _ = release.release(tmp_path_factory.mktemp("whole") / "course", seed=SEED)
    return out


def test_the_whole_course_releases_without_running_a_notebook(whole_course):
    available = [c for c in chapters.CHAPTERS if c.available]
    for chapter in available:
        released = whole_course / "release" / chapter.stem / f"{chapter.stem}.ipynb"
        nb = nbformat.read(released, 4)
        assert all(c.get("outputs", []) == [] for c in nb.cells)
        assert all(c.get("id") for c in nb.cells)  # `workspace update` matches cells by them
        text = cell_text(released)
        assert "教师注" not in text and str(SEED) not in text
        original = cell_text(chapters.NOTEBOOK_DIR / f"{chapter.stem}.ipynb")
        for key in (k for k in POINTS if k.startswith(chapter.number + ".")):
            assert {l for l in reference_lines(key) if l in text and l not in original} == set()
            assert f'check("{key}",' in text
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{whole_course / 'gradebook.db'}") as gb:
        assert {a.name: a.max_score for a in gb.assignments} == {  # + 1: the written answer
            c.stem: 1 + sum(p for k, p in POINTS.items() if k.startswith(c.number + "."))
            for c in available}


def test_the_student_kit_is_the_course_for_students(whole_course):
    kit = whole_course / "student_kit"
    expected = [n for n in release.KIT_FILES if (release.ROOT / n).exists()] + ["notebooks"]
    assert sorted(p.name for p in kit.iterdir()) == sorted(expected)
    assert not (kit / "solutions").exists() and not (kit / "tests").exists()
    assert not (kit / release.TEACHERS_ONLY).exists()
    assert (kit / "tutorial_course" / "workspace.py").is_file()
    assert sorted(p.name for p in (kit / "notebooks").iterdir()) == sorted(
        f"{c.stem}.ipynb" for c in chapters.CHAPTERS if c.available)
    for nb in (kit / "notebooks").iterdir():
        assert nb.read_bytes() == (whole_course / "release" / nb.stem / nb.name).read_bytes()
    assert release.KIT_PYTEST in (kit / "pyproject.toml").read_text("utf-8")
    readme = (kit / "README.md").read_text("utf-8")
    assert readme.startswith(release.KIT_NOTE) and "teachers.md" not in readme
    assert not list(kit.rglob("__pycache__"))


def test_a_release_into_the_course_keeps_the_seed_every_chapter_and_every_edit(whole_course):
    """Again with one chapter, no seed given: the seed stays, the kit keeps every chapter; an
    edited source notebook stops the release (nothing written) unless forced."""
    before = _digests(whole_course / "student_kit")
    out, seed = release.release(whole_course, ["02"])
    assert seed == SEED and _digests(whole_course / "student_kit") == before
    source = whole_course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    edited = source.read_text("utf-8").replace("BPE", "BPE（老师改过）", 1)
    source.write_text(edited, "utf-8")
    (whole_course / "nbgrader_config.py").write_text("# mine\n", "utf-8")
    with pytest.raises(ValueError, match="nbgrader_config.py") as refused:
        release.release(whole_course, ["02"])
    assert f"source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb" in str(refused.value)
    assert source.read_text("utf-8") == edited
    assert (whole_course / "nbgrader_config.py").read_text("utf-8") == "# mine\n"
    release.release(whole_course, ["02"], force=True)
    assert source.read_text("utf-8") != edited


def test_a_re_release_reaches_a_learners_copy_and_keeps_every_edited_cell(tmp_path, monkeypatch):
    """Chapter 00 released; a learner's workspace copy with a solved exercise and a note of their
    own; the chapter changed in four ways and released again into the same course (the same seed,
    kept): `workspace update` brings all four in, keeps both edits, and `submit` counts them."""
    from tutorial_course import workspace

    out, seed = release.release(tmp_path / "course", ["00"])
    stem = "00_intro"
    kit, space = out / "student_kit" / "notebooks", tmp_path / "workspace"
    workspace.sync(kit, space)
    mine = nbformat.read(space / f"{stem}.ipynb", 4)
    answer = next(c for c in mine.cells if c.cell_type == "code"
                  and c.metadata.get("nbgrader", {}).get("solution"))
    answer.source = answer.source.replace("raise NotImplementedError", "return len(text.encode())")
    mine.cells.insert(1, nbformat.v4.new_markdown_cell("我的笔记"))
    nbformat.write(mine, space / f"{stem}.ipynb")
    assert workspace.edited_cells(nbformat.read(space / f"{stem}.ipynb", 4)) == 2

    changed = tmp_path / "notebooks"
    changed.mkdir()
    nb = nbformat.read(chapters.NOTEBOOK_DIR / f"{stem}.ipynb", 4)
    markdown = [c for c in nb.cells if c.cell_type == "markdown" and "教师注" not in c.source]
    code = [c for c in nb.cells if c.cell_type == "code" and "check(" not in c.source]
    markdown[1].source += "\n\n（第二版加的一句。）"
    code[0].source += "\n# 第二版"
    removed = markdown[-1].id
    nb.cells = [c for c in nb.cells if c.id != removed]
    added = nbformat.v4.new_markdown_cell("第二版新加的一格。")
    nb.cells.insert(3, added)
    nbformat.write(nb, changed / f"{stem}.ipynb")
    monkeypatch.setattr(chapters, "NOTEBOOK_DIR", changed)
    assert release.release(out, ["00"]) == (out, seed)

    [line] = workspace.update(["00"], kit, space)
    merged = nbformat.read(space / f"{stem}.ipynb", 4)
    texts = [c.source for c in merged.cells]
    assert markdown[1].source in texts and code[0].source in texts and added.source in texts
    assert removed not in [c.id for c in merged.cells]
    assert "我的笔记" in texts and any("return len(text.encode())" in t for t in texts)
    assert "更新了 2 个单元" in line and "新增了 1 个单元" in line and "删去了 1 个单元" in line
    assert "new.ipynb" not in line
