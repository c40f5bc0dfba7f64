"""The learner's workspace: cleared copies, never overwritten, reset on request, and invisible to `make test`.

(`update` and `submit` have their own files: test_workspace_update.py, test_workspace_submit.py.)"""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
from tutorial_course import workspace


@pytest.fixture
def dirs(tmp_path):
    notebooks = tmp_path / "notebooks"
    shutil.copytree(ROOT / "notebooks", notebooks)
    return notebooks, tmp_path / "workspace"


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def test_sync_copies_every_notebook_without_outputs_or_widget_state(dirs):
    notebooks, space = dirs
    copied = workspace.sync(notebooks, space)
    assert copied == sorted(p.name for p in notebooks.glob("*.ipynb"))
    for name in copied:
        reference, copy = load(notebooks / name), load(space / name)
        assert any(c.get("outputs") for c in reference["cells"])  # the reference keeps its outputs ...
        code = [c for c in copy["cells"] if c["cell_type"] == "code"]
        assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)  # ... the copy has none
        assert "widgets" not in copy["metadata"]
        assert [c["source"] for c in copy["cells"]] == [c["source"] for c in reference["cells"]]


def test_sync_never_overwrites_the_learners_copy(dirs):
    notebooks, space = dirs
    workspace.sync(notebooks, space)
    mine = space / "02_bpe_step_by_step.ipynb"
    mine.write_text('{"my": "work"}', encoding="utf-8")
    (space / "00_intro.ipynb").unlink()
    assert workspace.sync(notebooks, space) == ["00_intro.ipynb"]  # only the missing one comes back
    assert mine.read_text(encoding="utf-8") == '{"my": "work"}'


def test_reset_asks_first(dirs, capsys):
    notebooks, space = dirs
    workspace.sync(notebooks, space)
    mine = space / "02_bpe_step_by_step.ipynb"
    mine.write_text('{"my": "work"}', encoding="utf-8")
    assert not workspace.reset("02", notebooks, space, ask=lambda _: "n")
    assert mine.read_text(encoding="utf-8") == '{"my": "work"}'
    assert workspace.reset("02", notebooks, space, ask=lambda _: "y")
    assert load(mine) == workspace.fresh_copy(notebooks / mine.name)
    assert load(mine)["cells"] == workspace.cleared(load(notebooks / mine.name))["cells"]
    with pytest.raises(ValueError, match="no notebook called '99'"):
        workspace.reset("99", notebooks, space)


def test_an_edited_workspace_notebook_is_not_part_of_make_test(tmp_path):
    """Copy the project, give its workspace a notebook that fails and has stale outputs, and list what
    `make test` (pytest with the project's settings and no arguments) would run: none of it is in workspace/.

    The copy leaves out the test modules of tests/ (test_*.py): what pytest collects where is decided
    by its settings (pyproject.toml), its plugins and the conftest.py files, which are all copied; a
    test module cannot make pytest look in another directory. Importing the ~150 modules to list their
    4,000 tests took most of this test's time."""
    project = tmp_path / "project"
    ignore_everywhere = shutil.ignore_patterns(".venv", ".git", "workspace", "*.egg-info", "__pycache__",
                                               ".hypothesis", "build")

    def ignore(directory, names):
        ignored = set(ignore_everywhere(directory, names))
        if Path(directory).resolve().is_relative_to(ROOT / "tests"):
            ignored |= {name for name in names if name.startswith("test_") and name.endswith(".py")}
        return ignored

    shutil.copytree(ROOT, project, ignore=ignore)
    assert (project / "tests" / "conftest.py").exists() and not list((project / "tests").rglob("test_*.py"))
    space = project / "workspace"
    workspace.sync(project / "notebooks", space)
    edited = space / "01_char_word_subword.ipynb"
    nb = load(edited)
    cell = next(c for c in nb["cells"] if c["cell_type"] == "code")
    cell["source"] = ["raise RuntimeError('a learner is halfway through this exercise')\n"]
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["something else\n"]}]
    edited.write_text(json.dumps(nb), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q"], cwd=project,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    collected = [line for line in run.stdout.splitlines() if "::" in line]
    assert any(line.startswith("notebooks/01_char_word_subword.ipynb") for line in collected)
    assert not any(line.startswith("workspace/") for line in collected)
