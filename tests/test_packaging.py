"""The install story: pyproject.toml is the one list of dependencies, and the other files agree with it."""

import re
import sys
from pathlib import Path

import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def name_of(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_only_brings_python_and_pip_then_installs_the_project():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    conda_deps = [d for d in env["dependencies"] if isinstance(d, str)]
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    assert sorted(name_of(d) for d in conda_deps) == ["pip", "python"]
    assert pip_sections == [['-e ".[dev]"']] or pip_sections == [["-e .[dev]"]]


def test_environment_yml_python_satisfies_requires_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    python = next(d for d in env["dependencies"] if isinstance(d, str) and d.startswith("python"))
    major, minor = map(int, re.search(r"(\d+)\.(\d+)", python).groups())
    low_major, low_minor = map(int, re.search(r">=\s*(\d+)\.(\d+)", PYPROJECT["project"]["requires-python"]).groups())
    assert (major, minor) >= (low_major, low_minor)


def test_dev_extra_contains_test_and_the_comparison_libraries():
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert {name_of(r) for r in extras["test"]} >= {"pytest", "nbval", "hypothesis"}
    assert {name_of(r) for r in extras["bench"]} >= {"tokenizers", "tiktoken", "sentencepiece"}
    assert extras["dev"] == ["tutorial-lib[test,bench,classroom]"]
    assert {name_of(r) for r in extras["classroom"]} >= {"nbgrader", "cloudpickle"}


def test_constraints_pin_every_declared_dependency():
    pinned = {name_of(line) for line in (ROOT / "constraints.txt").read_text().splitlines()
              if line and not line.startswith("#")}
    extras = PYPROJECT["project"]["optional-dependencies"]
    declared = PYPROJECT["project"]["dependencies"] + extras["test"] + extras["bench"] + extras["classroom"]
    this_python = [r for r in declared if "python_version" not in r]  # tomli is for 3.10 only
    assert {name_of(r) for r in this_python} <= pinned


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    command = re.search(r"测试命令[^`]*`([^`]+)`", readme).group(1)
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))]
    assert ci == [command]


def test_makefile_has_the_four_targets():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("lab", "test", "notebooks", "bench"):
        assert re.search(rf"^{target}:", makefile, re.M), target
