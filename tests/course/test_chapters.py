"""The course map: chapters in order, held to their notebooks, README and the exercise modules."""

import ast
import functools
import importlib
import json
import re
from pathlib import Path

import pytest

from tutorial_course import chapters, exercises


@functools.cache
def lesson_graph() -> dict[str, set[str]]:
    from tests.test_layout import graph  # one reader of imports for both tests

    return graph()


def graph_modules() -> set[str]:
    return set(lesson_graph())

ROOT = Path(__file__).resolve().parents[2]
AVAILABLE = [c for c in chapters.CHAPTERS if c.available]
TOOLS = {"data"}  # what every notebook may use without a chapter teaching it (and show.*)


def notebook_imports(stem: str) -> tuple[set[str], set[str], set[str]]:
    """(lesson modules, widget functions, production modules) that a notebook's code cells import,
    read from its source; names relative to their package."""
    nb = json.loads((chapters.NOTEBOOK_DIR / f"{stem}.ipynb").read_text(encoding="utf-8"))
    modules, widgets, calls = set(), set(), set()
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse("".join(cell["source"]))):
            if isinstance(node, ast.Import):  # `import tutorial_lib.unigram.model as unigram`
                found = [(alias.name, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                found = []
                for alias in node.names:
                    name = f"{node.module}.{alias.name}"
                    try:
                        importlib.import_module(name)  # `from tutorial_lib.packing import batch`
                    except ImportError:
                        name = node.module  # `from tutorial_lib.packing.batch import pad`: a name
                    found.append((name, alias.name))
            else:
                continue
            for name, alias_name in found:
                package = name.split(".")[0]
                if package not in ("tutorial_lib", "tutorial_pipeline"):
                    continue
                name = name.removeprefix(package + ".")
                if package == "tutorial_pipeline":
                    calls.add(name)
                elif name.startswith("show.widgets."):
                    widgets.add(alias_name)
                elif not name.startswith("show") and name not in TOOLS:
                    modules.add(name)
    return modules, widgets, calls


def closure(modules: set[str]) -> set[str]:
    """The lesson modules that `modules` import, transitively (what a reader of them follows)."""
    edges, seen = lesson_graph(), set()
    todo = [f"tutorial_lib.{m}" for m in modules]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo += [m for m in edges.get(module, ()) if m.startswith("tutorial_lib.")]
    return {m.removeprefix("tutorial_lib.") for m in seen}


def test_chapters_are_numbered_in_order_and_name_their_notebooks():
    numbers = [c.number for c in chapters.CHAPTERS]
    assert numbers == [f"{i:02d}" for i in range(len(numbers))]
    assert all(c.stem.startswith(c.number + "_") for c in chapters.CHAPTERS)
    assert all(c.part in chapters.PARTS for c in chapters.CHAPTERS)
    assert [chapters.PARTS.index(c.part) for c in chapters.CHAPTERS] == sorted(chapters.PARTS.index(c.part)
                                                                           for c in chapters.CHAPTERS)
    assert chapters.CHAPTERS[0].available  # notebook 00 ships with the repo


@pytest.mark.parametrize("chapter", AVAILABLE, ids=lambda c: c.number)
def test_a_chapter_teaches_modules_its_notebook_imports_and_lists_exactly_its_widgets(chapter):
    modules, widgets, calls = notebook_imports(chapter.stem)
    for name in chapter.modules:
        importlib.import_module(f"tutorial_lib.{name}")
    assert set(chapter.modules) <= closure(modules | TOOLS), f"{chapter.stem} does not reach them"
    assert set(chapter.widgets) == widgets
    assert set(chapter.calls) == calls, "calls lists the production modules the notebook imports"


def test_every_module_a_notebook_imports_is_taught_by_one_chapter():
    taught = [name for c in chapters.CHAPTERS for name in c.modules]
    assert len(taught) == len(set(taught)), "a module is taught by one chapter"
    imported = set().union(*(notebook_imports(c.stem)[0] for c in AVAILABLE))
    assert imported <= set(taught), f"no chapter teaches {sorted(imported - set(taught))}"


def test_every_lesson_module_is_taught_by_a_chapter():
    """Each module of the lesson is listed by one chapter, whose notebook reaches it; only the
    package faces, the argument and memory checks and the presentation (`show`) are not."""
    lesson = {m.removeprefix("tutorial_lib.") for m in graph_modules() if m.startswith("tutorial_lib.")}
    infrastructure = {m for m in lesson if m.startswith("show") or m.rpartition(".")[2].startswith("_")}
    faces = {m for m in lesson if (ROOT / "tutorial_lib" / m.replace(".", "/") / "__init__.py").exists()}
    taught = {name for c in chapters.CHAPTERS for name in c.modules}
    assert sorted(lesson - infrastructure - faces - taught) == []


@pytest.mark.parametrize("chapter", AVAILABLE, ids=lambda c: c.number)
def test_a_notebook_checks_exactly_the_exercises_of_its_chapter(chapter):
    nb = (chapters.NOTEBOOK_DIR / f"{chapter.stem}.ipynb").read_text(encoding="utf-8")
    checked = set(re.findall(r'check\(\\"([^"\\]+)\\"', nb))
    registered = {key for key in exercises.REGISTRY if key.startswith(chapter.number + ".")}
    assert checked == registered and registered, chapter.stem
    module = importlib.import_module(chapter.exercise_module)
    assert {e.key for e in exercises.REGISTRY.values() if e.make_cases.__module__ == module.__name__} <= registered


def test_exercise_and_solution_modules_are_exactly_the_chapters():
    numbers = {c.number for c in chapters.CHAPTERS}
    for folder in (ROOT / "tutorial_course" / "exercises", ROOT / "solutions"):
        found = {p.stem.removeprefix("ch") for p in folder.glob("ch*.py")}
        assert found == numbers, folder


def test_readme_table_is_generated_from_the_map():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert chapters.readme_table() in readme, "run `python -m tutorial_course.chapters` and paste its table into README"


def test_environment_report_checks_font_and_widgets():
    rows = dict(chapters.environment_report())
    assert rows["中文字体"].endswith("（字形完整）")
    assert rows["ipywidgets 控件"] == "正常"
    assert all(rows[name] != "缺失" for name in chapters.PACKAGES)


def test_missing_package_is_reported_not_raised(monkeypatch):
    monkeypatch.setattr(chapters, "PACKAGES", ["numpy", "no-such-package-here"])
    assert chapters.package_versions()["no-such-package-here"] == "缺失"
