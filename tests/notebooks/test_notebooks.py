"""Notebook-level checks that nbval itself does not make: clean top-to-bottom execution, kernel,
markers that nbval honours, stable widget ids."""

import json
import re
from pathlib import Path

import pytest

from tutorial_lib import course

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def code_cells(nb: dict) -> list[dict]:
    return [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]


def test_there_are_notebooks():
    assert NOTEBOOKS, "notebooks/ is empty"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_executed_top_to_bottom_without_errors(path):
    nb = load(path)
    cells = code_cells(nb)
    assert [c["execution_count"] for c in cells] == list(range(1, len(cells) + 1)), \
        f"{path.name}: run `make notebooks` (execution counts must be 1..n in order)"
    errors = [o for c in cells for o in c["outputs"] if o["output_type"] == "error"]
    assert not errors, f"{path.name} stores an error output"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_stray_warnings_or_tracebacks_in_outputs(path):
    for cell in code_cells(load(path)):
        for out in cell["outputs"]:
            if out["output_type"] == "stream" and out["name"] == "stderr":
                text = "".join(out["text"])
                assert "Warning" not in text and "Traceback" not in text, f"{path.name}: {text[:200]}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_ignore_markers_are_exact_and_explained(path):
    """nbval honours only a comment that is exactly `# NBVAL_IGNORE_OUTPUT`; the next line says why."""
    for cell in code_cells(load(path)):
        lines = "".join(cell["source"]).splitlines()
        for k, line in enumerate(lines):
            if "NBVAL_" in line:
                assert line.strip() in ("# NBVAL_IGNORE_OUTPUT", "# NBVAL_SKIP"), f"{path.name}: {line!r}"
                assert k + 1 < len(lines) and lines[k + 1].startswith("# reason: "), \
                    f"{path.name}: put '# reason: ...' on the line after {line.strip()}"


def test_every_notebook_is_a_chapter():
    stems = {p.stem for p in NOTEBOOKS}
    assert stems <= {c.stem for c in course.CHAPTERS}, "add the new notebook to course.CHAPTERS"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_widget_ids_are_stable(path):
    """`make notebooks` renames widget models 1, 2, 3, ... so re-running it leaves the file unchanged."""
    ids = re.findall(r'"model_id": "([0-9a-f]{32})"', path.read_text(encoding="utf-8"))
    assert all(int(i, 16) < 10**6 for i in ids), f"{path.name}: run `make notebooks` (random widget ids)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_files_a_notebook_names_exist(path):
    """A notebook that sends the learner to `tests/...py` or `tutorial_lib/...py` names a file that is there."""
    text = path.read_text(encoding="utf-8")  # (tools/ is left out: Megatron-LM has a tools/ of its own)
    named = set(re.findall(r"\b((?:tests|tutorial_lib|benchmarks|solutions)/[\w/]+\.py)\b", text))
    assert sorted(p for p in named if not (ROOT / p).is_file()) == []
