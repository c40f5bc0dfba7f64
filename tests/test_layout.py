"""The shape of tutorial_lib: packing/ stands on its own, no name shadows another module, the wheel is whole."""

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIB = ROOT / "tutorial_lib"


def library_files(under: Path = LIB) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


# --- (a) packing/ imports nothing from tokenization/ ---------------------------------------------------------


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Every module an import statement in `path` names, relative imports resolved to absolute dotted names.

    `from .. import tokenization` gives both "tutorial_lib" and "tutorial_lib.tokenization": the imported name
    may be a module, and which one it is does not matter here.
    """
    package = list(path.relative_to(root).parts[:-1])  # what `from . import x` is relative to, __init__ or not
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            anchor = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join(anchor + ([node.module] if node.module else []))
            names.add(base)
            names.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
    return names


def imports_tokenization(path: Path, root: Path = ROOT) -> list[str]:
    return sorted(name for name in imported_modules(path, root)
                  if name == "tutorial_lib.tokenization" or name.startswith("tutorial_lib.tokenization."))


@pytest.mark.parametrize("path", library_files(LIB / "packing"), ids=lambda p: p.name)
def test_packing_imports_nothing_from_tokenization(path):
    assert imports_tokenization(path) == [], f"{path.relative_to(ROOT)} works on ids and must not need a tokenizer"


@pytest.mark.parametrize("source, flagged", [
    ("from ..tokenization import d2l", True),
    ("from ..tokenization.bpe_toy import EOW", True),
    ("from .. import tokenization", True),
    ("from .. import _checks", False),
    ("import tutorial_lib.tokenization.d2l as d2l", True),
    ("from tutorial_lib import tokenization", True),
    ("from tutorial_lib.tokenization import bpe_toy", True),
    ("def f():\n    from tutorial_lib.tokenization import d2l", True),
    ("from tutorial_lib._checks import check_int", False),
    ("from . import batch", False),
    ("from .batch import pad", False),
    ("import tutorial_lib.tokenizations", False),
])
def test_the_import_reader_resolves_relative_and_absolute_imports(tmp_path, source, flagged):
    module = tmp_path / "tutorial_lib" / "packing" / "strategies.py"
    module.parent.mkdir(parents=True)
    module.write_text(source, encoding="utf-8")
    assert bool(imports_tokenization(module, tmp_path)) == flagged


# --- (b) no module or package name shadows another ---------------------------------------------------------

# `text` is the parameter name of half the library's functions: a module of that name would be shadowed by
# it inside every such function (the module that became `d2l` was once called `text`).
FORBIDDEN = {"text"}


def module_names() -> list[str]:
    files = [p.stem for p in library_files() if p.stem != "__init__"]
    packages = [p.parent.name for p in library_files() if p.name == "__init__.py"]
    return sorted(set(files + packages))


def test_no_module_or_package_shadows_the_standard_library_or_a_parameter():
    names = module_names()
    assert {"tutorial_lib", "packing", "tokenization", "exercises", "batch", "bpe_toy"} <= set(names)
    assert [name for name in names if name in sys.stdlib_module_names or name in FORBIDDEN] == []


# --- (c) the wheel holds every module ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """A wheel built from a copy of the project with the installed setuptools: no network, no build/ left here."""
    tmp = tmp_path_factory.mktemp("wheel")
    project, dist = tmp / "project", tmp / "dist"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    shutil.copytree(LIB, project / "tutorial_lib", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    build = "import sys; from setuptools import build_meta; print(build_meta.build_wheel(sys.argv[1]))"
    done = subprocess.run([sys.executable, "-c", build, str(dist)], cwd=project, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return zipfile.ZipFile(dist / done.stdout.strip().splitlines()[-1])


def test_the_wheel_holds_every_module_of_tutorial_lib(wheel):
    expected = {p.relative_to(ROOT).as_posix() for p in library_files()}
    packed = {name for name in wheel.namelist() if name.endswith(".py")}
    assert expected - packed == set()
    assert {"tutorial_lib/packing/batch.py", "tutorial_lib/exercises/ch03.py"} <= packed
