"""The shape of tutorial_lib: who imports whom (a table), module and function sizes, names, the wheel."""

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


# --- (a) who may import whom: the table, and the rules it must keep -----------------------------------------

# Every module of tutorial_lib (dotted, without "tutorial_lib.") and the library modules it imports. A new
# arrow, a dropped one or a new module fails test_imports_are_the_table until this table is edited on purpose;
# `python tests/test_layout.py` prints the table the code has now.
IMPORTS: dict[str, set[str]] = {
    '_checks': set(),
    '_files': {'_checks'},
    '_memory': set(),
    '_parallel': set(),
    'classroom': set(),
    'classroom.__main__': {'classroom.release', 'classroom.report'},
    'classroom.answers': {'exercises'},
    'classroom.feedback_page': set(),
    'classroom.grade': {'classroom', 'exercises'},
    'classroom.points': set(),
    'classroom.release': {'_files', 'classroom', 'classroom.source', 'course'},
    'classroom.report': {'_files', 'classroom', 'classroom.points', 'exercises', 'palette',
                         'plotting'},
    'classroom.source': {'classroom.answers', 'classroom.points', 'exercises'},
    'classroom.worker': {'classroom', 'exercises', 'exercises.runner', 'exercises.sandbox'},
    'corpus_files': {'_checks', '_files', 'data', 'packing.dataset_manifest'},
    'engines': {'_checks', 'tokenization.hf_json', 'tokenization.normalize', 'tokenization.tokenizer',
                'tutorial_lib'},
    'course': {'plotting'},
    'data': {'_checks'},
    'display': {'_checks', 'palette'},
    'distributed': {'_checks', '_files', '_parallel', 'corpus_files', 'data', 'engines',
                    'packing.dataset_manifest',
                    'packing.megatron', 'pipeline', 'tokenization.tokenizer'},
    'exercises': {'_checks', 'course', 'exercises.blocking', 'exercises.feedback',
                  'exercises.sandbox', 'exercises.wire'},
    'exercises.blocking': set(),
    'exercises.ch00': {'exercises'},
    'exercises.ch01': {'exercises', 'tokenization.d2l'},
    'exercises.ch02': {'exercises', 'tokenization.bpe_toy'},
    'exercises.ch03': {'exercises', 'tokenization.characters', 'tokenization.measure'},
    'exercises.ch04': {'data', 'exercises', 'tokenization.bpe_toy', 'tokenization.measure',
                       'tokenization.tokenizer', 'tokenization.vocab_size'},
    'exercises.ch05': {'data', 'exercises', 'tokenization.pretokenize', 'tokenization.tokenizer',
                       'tokenization.trainer'},
    'exercises.ch06': {'data', 'exercises', 'tokenization.trainer'},
    'exercises.ch07': {'data', 'exercises', 'packing.batch', 'packing.masks',
                       'tokenization.tokenizer'},
    'exercises.ch08': {'data', 'exercises', 'packing.strategies'},
    'exercises.ch09': {'data', 'exercises', 'packing.attention', 'packing.batch', 'packing.masks',
                       'packing.strategies'},
    'exercises.ch10': {'data', 'exercises', 'packing.gpt_samples', 'packing.megatron'},
    'exercises.ch11': {'data', 'exercises', 'tokenization.byte_fallback', 'tokenization.unigram',
                       'tokenization.unigram_train', 'tokenization.wordpiece',
                       'tokenization.wordpiece_train'},
    'exercises.ch12': {'data', 'exercises', 'tokenization.bits_per_byte', 'tokenization.compare',
                       'tokenization.course_tokenizer', 'tokenization.evaluate',
                       'tokenization.measure', 'tokenization.model_tokenizers'},
    'exercises.ch13': {'data', 'exercises', 'tokenization.course_tokenizer', 'tokenization.golden',
                       'tokenization.normalize', 'tokenization.offsets', 'tokenization.tokenizer'},
    'exercises.feedback': {'palette'},
    'exercises.runner': {'exercises', 'exercises.blocking', 'exercises.sandbox'},
    'exercises.sandbox': {'_memory'},
    'exercises.wire': set(),
    'packing': set(),
    'packing.attention': {'_checks', '_memory', 'packing.masks'},
    'packing.batch': {'_checks', '_memory', 'packing.masks'},
    'packing.fit_trees': set(),
    'packing.gpt_samples': {'_checks', '_memory', 'packing.batch', 'packing.masks',
                            'packing.strategies'},
    'packing.masks': {'_checks', '_memory'},
    'packing.bin_ids': {'_checks'},
    'packing.dataset_manifest': {'_checks', '_files'},
    'packing.megatron': {'_checks', '_files', 'packing.bin_ids', 'packing.dataset_manifest',
                         'packing.megatron_format', 'packing.pair'},
    'packing.megatron_format': {'_checks'},
    'packing.pair': {'_checks', '_files', 'packing.dataset_manifest'},
    'packing.mmap_demo': {'_checks', '_files', 'packing.dataset_manifest', 'packing.megatron',
                          'packing.pair'},
    'packing.strategies': {'_checks', '_memory', 'packing.batch', 'packing.fit_trees',
                           'packing.masks'},
    'palette': set(),
    'pipeline': {'_checks', '_parallel', 'corpus_files', 'data', 'distributed', 'engines',
                 'packing.dataset_manifest', 'packing.megatron', 'tokenization.tokenizer'},
    'plotting': {'_checks', 'palette'},
    'plotting.contract': {'_checks', 'palette'},
    'plotting.evaluation': {'_checks', 'palette'},
    'plotting.packing': {'_checks', 'packing.masks', 'packing.megatron', 'palette', 'plotting'},
    'plotting.tokenization': {'_checks', 'palette'},
    'tokenization': set(),
    'tokenization.bits_per_byte': {'_checks', 'tokenization.measure'},
    'tokenization.bpe_toy': {'_checks', 'tokenization.d2l', 'tokenization.trainer'},
    'tokenization.characters': {'_checks', 'tokenization.normalize', 'tokenization.pretokenize'},
    # chat builds training labels, so it takes IGNORE_INDEX from the packing half (never the reverse)
    'tokenization.chat': {'_checks', 'packing.batch'},
    'tokenization.compare': {'_checks', 'tokenization.d2l', 'tokenization.measure',
                             'tokenization.pretokenize'},
    'tokenization.corpus': {'_checks', '_files', '_parallel', 'tokenization.pretokenize'},
    'tokenization.course_tokenizer': {'data', 'tokenization.tokenizer'},
    'tokenization.d2l': {'_checks', 'data'},
    'tokenization.evaluate': {'_checks', 'data', 'tokenization.measure'},
    'tokenization.fast_encode': set(),
    'tokenization.formats': {'_checks', '_files', 'tokenization.fast_encode', 'tokenization.normalize',
                             'tokenization.pretokenize'},
    'tokenization.hf_json': {'_checks', '_files', 'tokenization.formats', 'tokenization.normalize',
                             'tokenization.onig_regex', 'tokenization.pretokenize'},
    'tokenization.measure': {'_checks', 'tokenization.characters'},
    'tokenization.mixes': {'_checks', 'data', 'tokenization.compare', 'tokenization.evaluate',
                           'tokenization.measure', 'tokenization.model_tokenizers',
                           'tokenization.tokenizer', 'tokenization.unigram_train'},
    'tokenization.model_imports': {'_checks', 'tokenization.formats', 'tokenization.hf_json',
                                   'tokenization.model_tokenizers', 'tokenization.tokenizer'},
    'tokenization.model_tokenizers': {'_checks', 'data', 'tokenization.characters',
                                      'tokenization.compare', 'tokenization.formats',
                                      'tokenization.measure', 'tokenization.tokenizer',
                                      'tokenization.vocab_size'},
    'tokenization.onig_regex': {'_checks'},
    'tokenization.pretokenize': {'_checks'},
    'tokenization.sp_settings': {'_checks', 'data'},
    'tokenization.superbpe': {'_checks', 'tokenization.corpus', 'tokenization.fast_encode',
                              'tokenization.formats', 'tokenization.pretokenize', 'tokenization.tokenizer',
                              'tokenization.trainer'},
    'tokenization.golden': {'_checks', '_files', 'data', 'tokenization.normalize', 'tokenization.offsets',
                            'tokenization.tokenizer'},
    'tokenization.stream_decode': {'_checks', 'tokenization.tokenizer'},
    'tokenization.tiktoken_export': {'_checks', 'tokenization.formats'},
    'tokenization.token_healing': {'_checks'},
    'tokenization.normalization_effect': {'_checks', 'tokenization.measure', 'tokenization.normalize',
                                          'tokenization.tokenizer'},
    'tokenization.normalize': {'_checks', 'tokenization.pretokenize'},
    'tokenization.offsets': {'_checks', 'tokenization.normalize', 'tokenization.pretokenize'},
    'tokenization.stream_encode': {'_checks', 'tokenization.normalize', 'tokenization.pretokenize'},
    'tokenization.tokenizer': {'_checks', 'tokenization.corpus', 'tokenization.fast_encode',
                               'tokenization.formats', 'tokenization.normalize', 'tokenization.pretokenize',
                               'tokenization.offsets', 'tokenization.stream_encode',
                               'tokenization.trainer', 'tokenization.hf_json',
                               'tokenization.tiktoken_export', 'tokenization.vocab_check'},
    'tokenization.trainer': {'_checks', 'tokenization.corpus', 'tokenization.pretokenize'},
    'tokenization.trainer_stages': {'_checks', 'tokenization.corpus', 'tokenization.pretokenize',
                                    'tokenization.trainer'},
    'tokenization.unigram': {'_checks'},
    'tokenization.wordpiece': {'_checks'},
    'tokenization.wordpiece_train': {'_checks', 'tokenization.trainer', 'tokenization.wordpiece'},
    'tokenization.byte_fallback': {'_checks', 'tokenization.unigram'},
    'tokenization.unigram_lattice': {'tokenization.unigram'},
    'tokenization.unigram_sample': {'_checks', 'tokenization.unigram'},
    'tokenization.unigram_train': {'_checks', 'tokenization.byte_fallback', 'tokenization.unigram',
                                   'tokenization.unigram_lattice'},
    'tokenization.unigram_compare': {'_checks', 'data', 'tokenization.sp_settings',
                                     'tokenization.unigram', 'tokenization.unigram_train'},
    'tokenization.vocab_check': {'_checks'},
    'tokenization.vocab_size': {'_checks', 'tokenization.corpus', 'tokenization.measure',
                                'tokenization.tokenizer', 'tokenization.trainer'},
    'tutorial_lib': set(),
    'widgets': set(),
    'widgets.contract': {'_checks', 'display', 'widgets'},
    'widgets.packing': {'_checks', 'display', 'packing.batch', 'packing.masks', 'packing.megatron',
                        'packing.strategies', 'palette', 'tokenization.tokenizer', 'widgets'},
    'widgets.tokenization': {'_checks', 'display', 'tokenization.bpe_toy', 'tokenization.characters',
                             'tokenization.compare', 'tokenization.d2l', 'tokenization.measure',
                             'tokenization.tokenizer', 'tokenization.trainer_stages',
                             'tokenization.unigram_train', 'tokenization.vocab_size', 'widgets'},
}

PRESENTATION = ("display", "palette", "plotting", "widgets", "exercises", "course", "classroom")


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root / "tutorial_lib").with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts) or "tutorial_lib"


def library_modules(root: Path = ROOT) -> set[str]:
    return {module_name(p, root) for p in library_files(root / "tutorial_lib")}


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """The tutorial_lib modules an import statement in `path` names (relative imports resolved).

    `from tutorial_lib.tokenization import d2l` imports the module d2l; `from tutorial_lib.packing.batch import
    pad` imports the module batch.
    """
    package = list(path.relative_to(root).parts[:-1])  # what `from . import x` is relative to
    known = {f"tutorial_lib.{m}" if m != "tutorial_lib" else m for m in library_modules(root)}
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            anchor = package[: len(package) - node.level + 1] if node.level else []
            base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                names.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {n.removeprefix("tutorial_lib.") for n in names if n in known}


def current_table(root: Path = ROOT) -> dict[str, set[str]]:
    return {module_name(p, root): imported_modules(p, root) - {module_name(p, root)}
            for p in library_files(root / "tutorial_lib")}


def test_imports_are_the_table():
    table = current_table()
    assert set(table) == set(IMPORTS), "add the new module to IMPORTS (or drop the removed one)"
    wrong = {m: (sorted(table[m] - IMPORTS[m]), sorted(IMPORTS[m] - table[m])) for m in table
             if table[m] != IMPORTS[m]}
    assert wrong == {}, "module: (new arrows, arrows no longer there); edit IMPORTS on purpose"


def test_the_table_keeps_the_layers():
    for module, imports in IMPORTS.items():
        if module.startswith("packing"):
            assert not any(m.startswith("tokenization") for m in imports), f"{module} works on ids only"
        if not module.startswith(PRESENTATION):
            assert not any(m.startswith(PRESENTATION) for m in imports), f"{module} computes; it shows nothing"


@pytest.mark.parametrize("source, expected", [
    ("from ..tokenization import d2l", {"tokenization.d2l"}),
    ("from ..tokenization.bpe_toy import EOW", {"tokenization.bpe_toy"}),
    ("from .. import tokenization", {"tokenization"}),
    ("from .. import _checks", {"_checks"}),
    ("import tutorial_lib.text.d2l as d2l", {"tokenization.d2l"}),
    ("from tutorial_lib import tokenization", {"tokenization"}),
    ("def f():\n    from tutorial_lib.tokenization import d2l", {"tokenization.d2l"}),
    ("from tutorial_lib._checks import check_int", {"_checks"}),
    ("from . import batch", {"packing.batch"}),
    ("from .batch import pad", {"packing.batch"}),
    ("import tutorial_lib.tokenizations", set()),
    ("import numpy", set()),
])
def test_the_import_reader_resolves_relative_and_absolute_imports(tmp_path, source, expected):
    for name in ("__init__", "_checks"):
        (tmp_path / "tutorial_lib").mkdir(exist_ok=True)
        (tmp_path / "tutorial_lib" / f"{name}.py").write_text("")
    for folder, files in {"packing": ("__init__", "batch", "strategies"), "tokenization": ("__init__", "d2l", "bpe_toy")}.items():
        (tmp_path / "tutorial_lib" / folder).mkdir()
        for name in files:
            (tmp_path / "tutorial_lib" / folder / f"{name}.py").write_text("")
    module = tmp_path / "tutorial_lib" / "packing" / "strategies.py"
    module.write_text(source, encoding="utf-8")
    assert imported_modules(module, tmp_path) == expected


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
    assert {"tutorial_lib/packing/batch.py", "tutorial_course/exercises/ch03.py"} <= packed


# --- (d) short modules and functions -------------------------------------------------------------------------

MAX_MODULE_LINES, MAX_FUNCTION_LINES = 400, 60


@pytest.mark.parametrize("path", library_files(), ids=lambda p: p.relative_to(LIB).as_posix())
def test_modules_and_functions_stay_short(path):
    text = path.read_text(encoding="utf-8")
    assert text.count("\n") <= MAX_MODULE_LINES, f"split {path.name}: one concept per module"
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


if __name__ == "__main__":
    for name, imports in sorted(current_table().items()):
        print(f"    {name!r}: {{{', '.join(repr(m) for m in sorted(imports))}}}," if imports else f"    {name!r}: set(),")
