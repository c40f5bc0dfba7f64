"""The shape of the three packages: the layer rules, sizes, names and the wheel.

Rules, not a table: a new module or import needs no edit here unless it breaks one of them.

- the lesson (`tutorial_lib`) imports nothing from the course machinery (`tutorial_course`) or the
  production path (`tutorial_pipeline`); those two may import the lesson, never each other;
- presentation (`tutorial_lib.show`) computes nothing: no other lesson module imports it;
- `tutorial_lib.packing` works on ids: it imports nothing from the tokenization families;
- no module imports another module's `_private` name;
- no import circle anywhere (a package's `__init__` counts as the module it is).
"""

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tutorial_lib", "tutorial_course", "tutorial_pipeline")
LESSON, COURSE, PIPELINE = PACKAGES
TOKENIZATION = tuple(f"{LESSON}.{family}" for family in
                     ("text", "bpe", "unigram", "wordpiece", "evaluation", "contract"))
# The argument checks (values and sequences, files, data) and the one memory bound: every package
# checks its arguments through them.
SHARED_PRIVATE_MODULES = {f"{LESSON}.{name}" for name in
                          ("_checks", "_check_files", "_check_data", "_memory")}


def package_files(root: Path = ROOT) -> list[Path]:
    return sorted(p for package in PACKAGES for p in (root / package).rglob("*.py")
                  if "__pycache__" not in p.parts)


def module_name(path: Path, root: Path = ROOT) -> str:
    return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")


def all_modules(root: Path = ROOT) -> set[str]:
    return {module_name(p, root) for p in package_files(root)}


def _resolve(name: str, known: set[str]) -> str | None:
    """The module that defines `name`: itself, or the longest module path it starts with."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def imports(path: Path, root: Path = ROOT) -> list[tuple[str, str]]:
    """(module imported, name imported) for each import in `path`, relative imports resolved.

    `from tutorial_lib.bpe import trainer` imports the module tutorial_lib.bpe.trainer (and runs the
    package tutorial_lib.bpe); `from tutorial_lib.bpe.trainer import train_bpe` imports the name
    train_bpe of that module.
    """
    known = all_modules(root)
    package = module_name(path, root) if path.name == "__init__.py" else \
        module_name(path, root).rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(m, "") for alias in node.names if (m := _resolve(alias.name, known))]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            if base not in known and _resolve(base, known) is None:
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in known:
                    found += [(base, ""), (full, "")]
                else:
                    found.append((_resolve(base, known), alias.name))
    return found


def graph(root: Path = ROOT) -> dict[str, set[str]]:
    return {module_name(p, root): {m for m, _ in imports(p, root)} - {module_name(p, root)}
            for p in package_files(root)}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def broken_rules(root: Path = ROOT) -> list[str]:
    """Every import that breaks a layer rule, as "importer -> imported: rule"."""
    broken = []
    for path in package_files(root):
        me = module_name(path, root)
        top = me.split(".")[0]
        for module, name in imports(path, root):
            there = module.split(".")[0]
            if module == me:
                continue
            if top == LESSON and there != LESSON:
                broken.append(f"{me} -> {module}: the lesson imports only the lesson")
            if {top, there} == {COURSE, PIPELINE}:
                broken.append(f"{me} -> {module}: course and production never import each other")
            if (top == LESSON and module.startswith(f"{LESSON}.show")
                    and not me.startswith(f"{LESSON}.show")):
                broken.append(f"{me} -> {module}: presentation computes nothing for the lesson")
            if me.startswith(f"{LESSON}.packing") and module.startswith(TOKENIZATION):
                broken.append(f"{me} -> {module}: packing works on ids only")
            if name.startswith("_") and not name.startswith("__"):
                broken.append(f"{me} -> {module}.{name}: another module's private name")
            if (module.rpartition(".")[2].startswith("_") and not module.endswith("__main__")
                    and module not in SHARED_PRIVATE_MODULES):
                broken.append(f"{me} -> {module}: another package's private module")
    return sorted(set(broken))


def test_the_three_packages_keep_their_layers():
    assert broken_rules() == []


def test_there_is_no_import_circle():
    assert circles(graph()) == []


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


BASE = {f"{p}/__init__.py": "" for p in PACKAGES} | {
    "tutorial_lib/_checks.py": "", "tutorial_lib/bpe/__init__.py": "",
    "tutorial_lib/bpe/trainer.py": "", "tutorial_lib/packing/__init__.py": "",
    "tutorial_lib/packing/batch.py": "", "tutorial_lib/show/__init__.py": "",
    "tutorial_lib/show/display.py": "", "tutorial_pipeline/files.py": "def _lock(): pass\n",
    "tutorial_course/chapters.py": ""}


@pytest.mark.parametrize("module, source, rule", [
    ("tutorial_lib/bpe/tokenizer.py", "from tutorial_pipeline import files", "the lesson"),
    ("tutorial_lib/bpe/tokenizer.py", "import tutorial_course.chapters", "the lesson"),
    ("tutorial_course/x.py", "from tutorial_pipeline.files import write", "never import each other"),
    ("tutorial_pipeline/x.py", "def f():\n    from tutorial_course import chapters",
     "never import each other"),
    ("tutorial_lib/bpe/tokenizer.py", "from tutorial_lib.show import display", "presentation"),
    ("tutorial_lib/packing/masks.py", "from tutorial_lib.bpe import trainer", "ids only"),
    ("tutorial_lib/packing/masks.py", "from ..bpe.trainer import x", "ids only"),
    ("tutorial_pipeline/x.py", "from tutorial_pipeline.files import _lock", "private name"),
])
def test_each_rule_catches_its_breach(tmp_path, module, source, rule):
    write(tmp_path, BASE | {module: source})
    broken = broken_rules(tmp_path)
    assert broken and all(rule in line for line in broken), broken


@pytest.mark.parametrize("module, source", [
    ("tutorial_course/x.py", "from tutorial_lib.bpe import trainer"),
    ("tutorial_pipeline/x.py", "from tutorial_lib._checks import check_int"),
    ("tutorial_lib/show/widgets.py", "from tutorial_lib.show import display"),
    ("tutorial_lib/packing/masks.py", "from . import batch\nimport numpy"),
])
def test_what_the_rules_allow(tmp_path, module, source):
    write(tmp_path, BASE | {module: source})
    assert broken_rules(tmp_path) == []


def test_a_circle_is_found_through_a_package(tmp_path):
    write(tmp_path, BASE | {"tutorial_pipeline/__init__.py": "from tutorial_pipeline.a import f",
                            "tutorial_pipeline/a.py": "from tutorial_pipeline import b",
                            "tutorial_pipeline/b.py": "import os"})
    assert circles(graph(tmp_path)) == [["tutorial_pipeline", "tutorial_pipeline.a"]]


# --- no module or package name shadows the standard library or a parameter -------------------------

# `text` is the parameter name of half the library's functions: a module of that name would be
# shadowed by it inside every such function, so the family is a package (`tutorial_lib.text`) whose
# modules are always imported by their own names.
FORBIDDEN = {"text"}


def test_no_module_shadows_the_standard_library_or_a_parameter():
    modules = [p.stem for p in package_files() if p.stem != "__init__"]
    assert {"batch", "bpe_toy", "tokenizer"} <= set(modules)
    assert [m for m in modules if m in sys.stdlib_module_names or m in FORBIDDEN] == []


# --- the wheel holds every module -------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the project with the installed setuptools: no network, no build/
    left here."""
    tmp = tmp_path_factory.mktemp("wheel")
    project, dist = tmp / "project", tmp / "dist"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, project / package,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    build = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", build, str(dist)], cwd=project, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return zipfile.ZipFile(dist / done.stdout.strip().splitlines()[-1])


def test_the_wheel_holds_every_module(wheel):
    expected = {p.relative_to(ROOT).as_posix() for p in package_files()}
    packed = {name for name in wheel.namelist() if name.endswith(".py")}
    assert expected - packed == set()
    assert {"tutorial_lib/packing/batch.py", "tutorial_course/exercises/ch03.py",
            "tutorial_pipeline/cli.py"} <= packed


# --- short modules and functions --------------------------------------------------------------------

MAX_MODULE_LINES, MAX_FUNCTION_LINES = 400, 60


@pytest.mark.parametrize("path", package_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_modules_and_functions_stay_short(path):
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") <= MAX_MODULE_LINES, f"split {path.name}: one concept per module"
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


if __name__ == "__main__":
    for line in broken_rules() + [f"circle: {c}" for c in circles(graph())]:
        print(line)
