"""`workspace.py update`: a newer notebook reaches the learner's copy, and what they edited stays.

The notebooks here are small stand-ins built in the test (a chapter's shape: text, a library cell,
an exercise stub and its check), so that the cases do not move when the course's notebooks do.
"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
from tutorial_course import notebook_merge
from tutorial_course import workspace

NAME = "02_bpe_step_by_step.ipynb"
STUB = "def count_pairs(corpus):\n    # 在这里写你的实现\n    raise NotImplementedError\n"


def cell(cell_id: str, kind: str, source: str, outputs: list | None = None) -> dict:
    c = {"id": cell_id, "cell_type": kind, "metadata": {}, "source": source}
    if kind == "code":
        c.update(execution_count=1 if outputs else None, outputs=outputs or [])
    return c


def notebook(*cells: dict) -> dict:
    return {"nbformat": 4, "nbformat_minor": 5, "cells": list(cells),
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}}}


OUT = [{"output_type": "stream", "name": "stdout", "text": "9\n"}]
V1 = notebook(
    cell("a", "markdown", "# 02 BPE\n\n旧的引言。"),
    cell("b", "code", "from tutorial_lib.bpe import bpe_toy", OUT),
    cell("c", "markdown", "## 1. 训练循环"),
    cell("d", "code", "print(9)", OUT),
    cell("e", "markdown", "### 练习 1"),
    cell("f", "code", STUB),
    cell("g", "code", 'check("02.count_pairs", count_pairs)'),
    cell("h", "markdown", "## 小结"),
)


def write(path: Path, nb: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def ids(nb: dict) -> list[str]:
    return [c["id"] for c in nb["cells"]]


def by_id(nb: dict, cell_id: str) -> dict:
    return next(c for c in nb["cells"] if c["id"] == cell_id)


@pytest.fixture
def course(tmp_path):
    """notebooks/ with V1, and the learner's copy of it in workspace/ (made by sync)."""
    notebooks, space = tmp_path / "notebooks", tmp_path / "workspace"
    write(notebooks / NAME, V1)
    assert workspace.sync(notebooks, space) == [NAME]
    return notebooks, space


def learner_edits(space: Path) -> dict:
    """Solve the exercise, add a note after the library cell, delete section 1's heading, run d."""
    nb = load(space / NAME)
    by_id(nb, "f")["source"] = "def count_pairs(corpus):\n    return {}\n"
    by_id(nb, "d")["outputs"], by_id(nb, "d")["execution_count"] = OUT, 3
    nb["cells"].insert(2, cell("1b2c-note", "markdown", "我的笔记：bpe_toy 是玩具版。"))
    nb["cells"] = [c for c in nb["cells"] if c["id"] != "c"]
    write(space / NAME, nb)
    return nb


def newer(notebooks: Path, exercise_changed: bool = True) -> dict:
    """V2: the intro rewritten, a cell added after d, the summary removed, maybe the stub changed.
    """
    v2 = json.loads(json.dumps(V1))
    by_id(v2, "a")["source"] = "# 02 BPE 逐步合并\n\n新的引言。"
    v2["cells"].insert(4, cell("d2", "markdown", "新加的一段说明。"))
    v2["cells"] = [c for c in v2["cells"] if c["id"] != "h"]
    if exercise_changed:
        by_id(v2, "f")["source"] = STUB.replace("corpus", "corpus: dict")
    write(notebooks / NAME, v2)
    return v2


def test_sync_records_each_cells_shipped_digest(course):
    _, space = course
    copy = load(space / NAME)
    assert notebook_merge.recorded(copy) == {c["id"]: notebook_merge.digest(c) for c in V1["cells"]}
    assert notebook_merge.edited_cells(copy) == 0


def test_update_keeps_the_learners_edits_and_brings_the_rest(course):
    notebooks, space = course
    mine = learner_edits(space)
    v2 = newer(notebooks)
    [line] = workspace.update([], notebooks, space)
    merged = load(space / NAME)
    # the intro, untouched by the learner, takes the new text; h, removed upstream, is gone;
    # d2 arrives after d; the note stays after b; c, deleted by the learner, stays deleted
    assert ids(merged) == ["a", "b", "1b2c-note", "d", "d2", "e", "f", "g"]
    assert by_id(merged, "a")["source"] == by_id(v2, "a")["source"]
    assert by_id(merged, "1b2c-note") == by_id(mine, "1b2c-note")
    assert by_id(merged, "d")["outputs"] == OUT  # unchanged on both sides: the run stays
    # the exercise: solved by the learner and changed upstream; the solution stays, the new
    # version is written beside, cleared, and the learner is told
    assert by_id(merged, "f")["source"] == "def count_pairs(corpus):\n    return {}\n"
    beside = space / "02_bpe_step_by_step.new.ipynb"
    assert load(beside) == workspace.fresh_copy(notebooks / NAME)
    assert "1 个你改过的单元在新版里也改了" in line and beside.name in line
    assert "更新了 1 个单元" in line and "新增了 1 个单元" in line and "删去了 1 个单元" in line
    # the record is now the new version's: a second update finds nothing to do
    assert notebook_merge.recorded(merged) == notebook_merge.shipped_digests(v2)
    beside.unlink()
    [again] = workspace.update(["02"], notebooks, space)
    assert load(space / NAME) == merged and not beside.exists()
    assert again == f"workspace/{NAME}：没有要更新的单元"


def test_no_conflict_means_nothing_written_beside(course):
    notebooks, space = course
    learner_edits(space)
    newer(notebooks, exercise_changed=False)
    [line] = workspace.update([], notebooks, space)
    assert by_id(load(space / NAME), "f")["source"] == "def count_pairs(corpus):\n    return {}\n"
    assert not (space / "02_bpe_step_by_step.new.ipynb").exists() and "new.ipynb" not in line
    assert [p.name for p in space.iterdir()] == [NAME]  # no temporary file left either


def test_an_untouched_code_cell_takes_the_new_source_with_outputs_cleared(course):
    notebooks, space = course
    nb = load(space / NAME)
    by_id(nb, "b")["outputs"] = OUT  # run, not edited
    write(space / NAME, nb)
    v2 = json.loads(json.dumps(V1))
    by_id(v2, "b")["source"] = "from tutorial_lib.bpe import bpe_toy, trainer"
    by_id(v2, "b")["outputs"] = OUT  # the reference is executed; the copy gets no outputs
    write(notebooks / NAME, v2)
    workspace.update([], notebooks, space)
    b = by_id(load(space / NAME), "b")
    assert b["source"] == by_id(v2, "b")["source"] and b["outputs"] == []


def test_a_deleted_cell_that_changed_upstream_stays_deleted_and_is_reported(course):
    notebooks, space = course
    learner_edits(space)  # deletes c
    v2 = json.loads(json.dumps(V1))
    by_id(v2, "c")["source"] = "## 1. 训练循环：数对、挑最多的、合并"
    write(notebooks / NAME, v2)
    [line] = workspace.update([], notebooks, space)
    assert "c" not in ids(load(space / NAME))
    assert (space / "02_bpe_step_by_step.new.ipynb").exists() and "new.ipynb" in line


def test_a_copy_without_digests_is_kept_whole_and_the_new_version_written_beside(tmp_path):
    """A copy made by the old sync (no record): every cell counts as edited."""
    notebooks, space = tmp_path / "notebooks", tmp_path / "workspace"
    old_copy = workspace.cleared(json.loads(json.dumps(V1)))
    by_id(old_copy, "f")["source"] = "def count_pairs(corpus):\n    return {}\n"
    write(space / NAME, old_copy)
    before = (space / NAME).read_bytes()
    newer(notebooks)
    [line] = workspace.update([], notebooks, space)
    merged = load(space / NAME)
    assert merged["cells"] == old_copy["cells"]  # not one cell changed ...
    assert (space / "02_bpe_step_by_step.new.ipynb").exists()  # ... the new version is beside
    assert "旧版" in line  # ... and it says so
    assert before != (space / NAME).read_bytes()  # only the record was added


def test_a_copy_without_digests_equal_to_the_new_version_just_gains_the_record(tmp_path):
    notebooks, space = tmp_path / "notebooks", tmp_path / "workspace"
    write(notebooks / NAME, V1)
    write(space / NAME, workspace.cleared(json.loads(json.dumps(V1))))
    [line] = workspace.update([], notebooks, space)
    assert notebook_merge.recorded(load(space / NAME)) == notebook_merge.shipped_digests(V1)
    assert not (space / "02_bpe_step_by_step.new.ipynb").exists() and "new.ipynb" not in line


def test_update_copies_a_notebook_workspace_lacks(tmp_path):
    notebooks, space = tmp_path / "notebooks", tmp_path / "workspace"
    write(notebooks / NAME, V1)
    [line] = workspace.update([], notebooks, space)
    assert line == f"workspace/{NAME}：已从 notebooks/ 复制（输出已清空）"
    assert load(space / NAME) == workspace.fresh_copy(notebooks / NAME)


def test_update_of_an_unknown_chapter_exits_2_and_writes_nothing():
    run = subprocess.run([sys.executable, "tutorial_course/workspace.py", "update", "99"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "no notebook called '99'" in run.stderr


def test_the_course_metadata_of_a_cell_follows_the_new_version(course):
    """Grade ids and points are the course's: an edited cell keeps its source and takes them."""
    notebooks, space = course
    learner_edits(space)  # f solved
    nb = load(space / NAME)
    by_id(nb, "f")["metadata"]["collapsed"] = True  # the learner's own view setting
    write(space / NAME, nb)
    v2 = json.loads(json.dumps(V1))
    grading = {"grade": False, "solution": True, "grade_id": "count_pairs", "schema_version": 3}
    by_id(v2, "f")["metadata"]["nbgrader"] = grading
    v2["metadata"]["kernelspec"]["display_name"] = "分词与序列打包 (.venv)"
    write(notebooks / NAME, v2)
    [line] = workspace.update([], notebooks, space)
    merged = load(space / NAME)
    f = by_id(merged, "f")
    assert f["source"] == "def count_pairs(corpus):\n    return {}\n"
    assert f["metadata"] == {"collapsed": True, "nbgrader": grading}
    assert merged["metadata"]["kernelspec"]["display_name"] == "分词与序列打包 (.venv)"
    assert "new.ipynb" not in line


def test_update_leaves_a_copy_that_is_not_json_alone(course):
    notebooks, space = course
    (space / NAME).write_text('{"cells": [', encoding="utf-8")
    [line] = workspace.update([], notebooks, space)
    assert (space / NAME).read_text(encoding="utf-8") == '{"cells": ['
    assert "不是有效的 notebook" in line and "make reset NB=02" in line


def test_update_right_after_sync_changes_no_course_notebook(tmp_path):
    notebooks, space = tmp_path / "notebooks", tmp_path / "workspace"
    shutil.copytree(ROOT / "notebooks", notebooks)
    workspace.sync(notebooks, space)
    before = {p.name: p.read_bytes() for p in space.iterdir()}
    lines = workspace.update([], notebooks, space)
    assert lines == [f"workspace/{name}：没有要更新的单元" for name in sorted(before)]
    assert {p.name: p.read_bytes() for p in space.iterdir()} == before


def test_a_new_version_beside_that_the_learner_is_merging_is_never_replaced(course):
    notebooks, space = course
    learner_edits(space)
    newer(notebooks)
    workspace.update([], notebooks, space)
    beside = space / "02_bpe_step_by_step.new.ipynb"
    merging = load(beside)
    by_id(merging, "a")["source"] = "我正在对照着合并"
    write(beside, merging)
    v3 = load(notebooks / NAME)
    by_id(v3, "f")["source"] = STUB.replace("corpus", "word_counts")
    write(notebooks / NAME, v3)
    [line] = workspace.update([], notebooks, space)
    assert load(beside) == merging  # the learner's work in progress stays
    second = space / "02_bpe_step_by_step.new-2.ipynb"
    assert load(second) == workspace.fresh_copy(notebooks / NAME) and second.name in line


def test_a_save_that_lands_while_update_runs_is_kept(course, monkeypatch):
    notebooks, space = course
    newer(notebooks, exercise_changed=False)
    saved = load(space / NAME)
    by_id(saved, "f")["source"] = "def count_pairs(corpus):\n    return {'saved': 1}\n"

    def merge_while_jupyterlab_saves(mine, new):
        write(space / NAME, saved)  # JupyterLab's autosave, between our read and our write
        return notebook_merge.merge(mine, new)

    monkeypatch.setattr(workspace, "merge", merge_while_jupyterlab_saves)
    [line] = workspace.update([], notebooks, space)
    assert load(space / NAME) == saved and "被保存过" in line
