"""Notebook-level checks that nbval itself does not make: clean top-to-bottom execution, kernel,
markers that nbval honours, stable widget ids."""

import json
import re
from pathlib import Path

import pytest

from tutorial_course import chapters

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
    assert stems <= {c.stem for c in chapters.CHAPTERS}, "add the new notebook to chapters.CHAPTERS"


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


# A notebook quotes in full what it discusses; it never points at a source the learner cannot see.
# Each pattern names such a pointer and leaves the words the course itself uses alone (笔记本 is the
# notebook, 原文 the raw text of a corpus, 原材料 raw material, 这份说法 a claim quoted right there).
POINTERS = {
    r"(?<!本)教材": "a textbook",
    r"引文": "a quotation",
    r"笔记(?!本)": "notes",
    r"讲义": "lecture notes",
    r"有资料|资料(?:里|中|上|说|写)|[那这一]份资料": "a document",
    r"有材料|材料(?:里|中|上|说|写)|[那这一]份材料": "a material",
    r"那个例子|那篇文章|那份说法|那本书": "an example or text not shown",
    r"原文(?:说|写道|中说|里说)|原话": "what a source says",
    r"\b(?:the|a|one) textbook (?:says|shows|writes|claims)\b|\blecture notes?\b|\bhandout\b":
        "a textbook or notes (English; 'the textbook loop', the standard one, is fine)",
}
_POINTER = re.compile("|".join(f"(?:{p})" for p in POINTERS), re.IGNORECASE)


def pointers(text: str) -> list[str]:
    """Each pointer phrase in `text`, with a little context either side."""
    return [text[max(0, m.start() - 12):m.end() + 12].replace("\n", " ")
            for m in _POINTER.finditer(text)]


def test_the_pointer_check_refuses_pointers_and_keeps_the_course_words():
    for bad in ("有教材这样讲", "引文里那段统计代码", "一份实现笔记", "有资料写道", "笔记里",
                "那份材料", "和那个例子印出来的一样", "原文说", "as the textbook shows",
                "the lecture notes"):
        assert pointers(bad), bad
    for fine in ("这套笔记本", "原文里本来就是空白的行", "这正是字节级 BPE 要面对的原材料",
                 "这份说法配了三段代码", "本教材", "在原文上训练", "标准材料。",
                 "第 4 节开头那段统计代码", "the textbook loop"):
        assert not pointers(fine), fine


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_pointers_to_unseen_sources(path):
    """Markdown and code cells (outputs are what the code prints) point at no unseen material."""
    found = [(k, hit) for k, cell in enumerate(load(path)["cells"])
             for hit in pointers("".join(cell["source"]))]
    assert found == [], f"{path.name}: quote the claim on the page instead of pointing at it: {found}"


def test_no_pointers_to_unseen_sources_in_the_library():
    """Docstrings, comments and the messages a learner reads in tutorial_lib/ do not either."""
    found = [(str(path.relative_to(ROOT)), n, hit)
             for path in sorted((ROOT / "tutorial_lib").rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             for hit in pointers(line)]
    assert found == []
