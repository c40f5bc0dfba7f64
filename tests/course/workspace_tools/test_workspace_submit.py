"""`workspace.py submit`: what it packs is what the course's `nbgrader zip_collect` takes.

The course collects with nbgrader's FileNameCollectorPlugin and the file name pattern
`tutorial_course.classroom.NAMED_REGEXP`, written into the course's nbgrader_config.py by
`release.write_config`; the test below collects with exactly that configuration.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
from tutorial_course import workspace

from tutorial_course.classroom import NAMED_REGEXP, release  # noqa: E402

NAME = "02_bpe_step_by_step.ipynb"
ASSIGNMENT = "02_bpe_step_by_step"
WHEN = datetime(2026, 12, 1, 14, 30, 5, tzinfo=timezone.utc)


@pytest.fixture
def course(tmp_path):
    """notebooks/ with chapters 00 and 02; workspace/ with a copy of 02, one cell edited."""
    notebooks, space = tmp_path / "notebooks", tmp_path / "workspace"
    notebooks.mkdir()
    for name in ("00_intro.ipynb", NAME):
        shutil.copy(ROOT / "notebooks" / name, notebooks / name)
    workspace.sync(notebooks, space)
    (space / "00_intro.ipynb").unlink()
    nb = json.loads((space / NAME).read_text(encoding="utf-8"))
    nb["cells"][-1]["source"] = "我的小结。"
    (space / NAME).write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    return notebooks, space, tmp_path / "submissions"


def test_submit_writes_one_zip_per_chapter_holding_the_copy_as_it_is_on_disk(course):
    notebooks, space, out = course
    [line] = workspace.submit("s2024-017", ["02"], notebooks, space, out, now=WHEN)
    target = out / f"{ASSIGNMENT}__s2024-017.zip"
    assert [p.name for p in out.iterdir()] == [target.name]  # and no temporary file
    with zipfile.ZipFile(target) as archive:
        [member] = archive.namelist()
        assert member == f"s2024-017__20261201T143005Z__{NAME}"
        assert re.fullmatch(NAMED_REGEXP, member)
        assert archive.read(member) == (space / NAME).read_bytes()
    assert target.name in line and f"workspace/{NAME}" in line and "KB" in line
    assert "改动了 1 个单元" in line and "Ctrl+S" not in line


def test_an_unchanged_copy_is_packed_with_a_warning(course):
    notebooks, space, out = course
    workspace.sync(notebooks, space)  # 00 back, as shipped
    [line] = workspace.submit("s1", ["00"], notebooks, space, out, now=WHEN)
    assert (out / "00_intro__s1.zip").exists() and "改动了 0 个单元" in line and "Ctrl+S" in line


@pytest.mark.parametrize("student", ["", "张三", "s_1", "s 1", "s1/..", "s1\n"])
def test_a_bad_student_id_is_refused(course, student):
    notebooks, space, out = course
    with pytest.raises(ValueError, match="--student"):
        workspace.submit(student, ["02"], notebooks, space, out)
    assert not out.exists()


def test_an_unknown_or_missing_chapter_is_refused_before_anything_is_written(course):
    notebooks, space, out = course
    with pytest.raises(ValueError, match="no notebook called '99'"):
        workspace.submit("s1", ["02", "99"], notebooks, space, out)
    with pytest.raises(ValueError, match="workspace/00_intro.ipynb 不存在"):
        workspace.submit("s1", ["02", "00"], notebooks, space, out)
    assert not out.exists()


def test_a_notebook_name_the_collector_would_skip_is_refused(course):
    notebooks, space, out = course
    for folder in (notebooks, space):
        shutil.copy(notebooks / NAME, folder / "11_a-b.ipynb")
    with pytest.raises(ValueError, match="only letters, digits and _"):
        workspace.submit("s1", ["11"], notebooks, space, out)
    assert not re.fullmatch(NAMED_REGEXP, "s1__20261201T143005Z__11_a-b.ipynb")


@pytest.mark.parametrize("args, message", [
    (["submit", "--student", "s_1", "02"], "学号只能由英文字母、数字和 - 组成"),
    (["submit", "--student", "s1", "99"], "no notebook called '99'"),
])
def test_the_command_line_refuses_with_exit_status_2(args, message):
    run = subprocess.run([sys.executable, "tutorial_course/workspace.py", *args], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and message in run.stderr and run.stdout == ""


def test_submissions_are_committed_and_workspace_is_not():
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")

    def ignored(path: str) -> bool:
        return subprocess.run(["git", "check-ignore", "-q", "--no-index", path], cwd=ROOT,
                              timeout=60).returncode == 0

    assert not ignored(f"submissions/{ASSIGNMENT}__s1.zip")
    assert ignored(f"workspace/{NAME}")


def nbgrader(course_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Run an nbgrader command; its gradebook runs the `alembic` command, so the venv's bin/ goes
    on PATH (`make test` runs .venv/bin/python without activating the venv)."""
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                  os.environ.get("PATH", "")])}
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course_dir, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


def test_nbgrader_zip_collect_takes_the_submissions(course, tmp_path):
    """Two students hand in chapter 02; an nbgrader course with the contract's collector settings
    collects both, by name (strict: the notebook must be the released one), with their times."""
    notebooks, space, out = course
    workspace.submit("s1", ["02"], notebooks, space, out, now=WHEN)
    workspace.submit("s-2", ["02"], notebooks, space, out, now=WHEN.replace(minute=59))
    root = tmp_path / "course"
    (root / "release" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(notebooks / NAME, root / "release" / ASSIGNMENT / NAME)
    (root / "nbgrader_config.py").write_bytes(release.course_files([])["nbgrader_config.py"])
    # no `nbgrader db assignment add` first: zip_collect does not open the gradebook (run without
    # it, it collects the same and creates no gradebook.db), and each nbgrader command costs seconds
    archive = root / "downloaded" / ASSIGNMENT / "archive"
    archive.mkdir(parents=True)
    for zip_file in out.iterdir():
        shutil.copy(zip_file, archive / zip_file.name)
    run = nbgrader(root, "zip_collect", ASSIGNMENT)
    log = run.stdout + run.stderr
    assert "2 files collected" in log and "skipped" not in log.lower(), log
    for student, stamp in (("s1", "2026-12-01 14:30:05"), ("s-2", "2026-12-01 14:59:05")):
        collected = root / "submitted" / student / ASSIGNMENT
        assert (collected / NAME).read_bytes() == (space / NAME).read_bytes()
        assert (collected / "timestamp.txt").read_text().startswith(stamp)
    assert not (root / "gradebook.db").exists()


def test_submit_takes_the_student_ids_the_course_collects():
    # tutorial_course/workspace.py runs before the venv exists, so it keeps its own copy of the id pattern
    assert f"(?P<student_id>{workspace.STUDENT_ID.pattern})" in NAMED_REGEXP
