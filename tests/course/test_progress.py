"""Self-study progress: `check` in workspace/ leaves a line per verdict there, nowhere else."""

import json

import pytest

from solutions import ch00
from tutorial_course import progress
from tutorial_course.exercises import REGISTRY, check
from tutorial_course.exercises.__main__ import main


@pytest.fixture
def workspace(tmp_path, monkeypatch):
    """A stand-in workspace/ as the current directory, the way a learner's kernel runs."""
    folder = tmp_path / "workspace"
    folder.mkdir()
    monkeypatch.setattr(progress, "WORKSPACE", folder)
    monkeypatch.chdir(folder)
    return folder


def test_a_check_in_the_workspace_is_remembered_and_the_last_verdict_counts(workspace):
    def stub(text):
        raise NotImplementedError

    check("00.utf8_length", stub)
    assert progress.verdicts(workspace) == {"00.utf8_length": "未完成"}
    check("00.utf8_length", len)  # characters, not bytes
    assert progress.verdicts(workspace) == {"00.utf8_length": "未通过"}
    check("00.utf8_length", ch00.utf8_length)
    assert progress.verdicts(workspace) == {"00.utf8_length": "通过"}
    lines = (workspace / progress.LOG_NAME).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["verdict"] for line in lines] == ["未完成", "未通过", "通过"]


def test_hidden_cases_and_other_folders_leave_nothing(workspace, tmp_path, monkeypatch):
    check("00.utf8_length", ch00.utf8_length, seed=3)  # grading's hidden cases
    assert not (workspace / progress.LOG_NAME).exists()
    elsewhere = tmp_path / "notebooks"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the reference notebooks under nbval
    check("00.utf8_length", ch00.utf8_length)
    assert not list(tmp_path.rglob(progress.LOG_NAME))


def test_the_table_marks_each_exercise_and_names_the_next_one(workspace):
    assert progress.record("02.count_pairs", "通过")
    assert progress.record("02.merge_pair", "未通过")
    (workspace / progress.LOG_NAME).open("a", encoding="utf-8").write('{"key": "02.tr')  # cut short
    rows = {row[0].split()[0]: row for row in progress.rows(REGISTRY, workspace)}
    chapter, passed, shown, todo = rows["02"]
    assert passed.startswith("1/")
    assert "✔ count_pairs" in shown and "✘ merge_pair" in shown and "· train" in shown
    assert todo == "02.merge_pair"
    assert rows["00"][1] == "0/1"
    assert "通过" in progress.table(REGISTRY, workspace).data


def test_a_log_that_cannot_be_written_costs_the_check_nothing(workspace):
    (workspace / progress.LOG_NAME).mkdir()  # fails as a read-only kit does, even for root
    assert not progress.record("00.utf8_length", "通过")
    assert check("00.utf8_length", ch00.utf8_length).passed


def test_the_command_prints_a_line_per_chapter(workspace, capsys):
    progress.record("00.utf8_length", "通过")
    assert main([]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("00 ") and "1/1" in lines[0] and "✔ utf8_length" in lines[0]
    assert len(lines) == 15 and lines[-1] == progress.LEGEND  # 14 chapters, then the marks
    assert main(["x"]) == 2
