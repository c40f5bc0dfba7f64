"""A non-editable install, as on a JupyterHub image: `pip install .` of the wheel into a fresh venv,
then notebook 00 and chapter 01 run from a directory outside the repository.

No network: the wheel is built with the installed setuptools, installed with --no-deps, and the
venv sees this environment's packages (the pinned dependencies) through a .pth file. Only
plain paths in that .pth are followed, so this repository's editable install is not: the probe
cell checks that the kernel imports tutorial_lib from the wheel and reads data from its copy.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ("00_intro.ipynb", "01_char_word_subword.ipynb")
PROBE = ("import json, sys, tutorial_lib\nfrom tutorial_lib import data\n"
         "print(json.dumps([sys.prefix, tutorial_lib.__file__, str(data.DATA_DIR)]))")
# Runs in the new venv: each notebook with a probe cell in front, in the directory it lies in.
RUNNER = """
import json, sys
import nbformat
from nbclient import NotebookClient
results = {}
for path in sys.argv[2:]:
    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(sys.argv[1]))
    NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    outputs = [json.dumps(cell.get("outputs", []), ensure_ascii=False) for cell in nb.cells]
    results[path] = {"probe": nb.cells[0].outputs[0]["text"], "outputs": outputs}
print(json.dumps(results))
"""


def build_wheel(tmp: Path) -> Path:
    project, dist = tmp / "project", tmp / "dist"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, project / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("tutorial_lib", "tutorial_course", "tutorial_pipeline", "data"):
        shutil.copytree(ROOT / name, project / name, ignore=ignore)
    build = ("import sys; from setuptools import build_meta; "
             "print(build_meta.build_wheel(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-c", build, str(dist)], cwd=project,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return dist / done.stdout.strip().splitlines()[-1]


def fresh_venv(tmp: Path) -> Path:
    """A venv without pip whose site-packages ends with this environment's (a .pth line)."""
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "outer_env.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """(venv python, its prefix, results of running the notebooks there)."""
    tmp = tmp_path_factory.mktemp("hub")
    wheel, python = build_wheel(tmp), fresh_venv(tmp)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TUTORIAL_DATA_DIR")}
    env.update(PYTHONHASHSEED="0", JUPYTER_DATA_DIR=str(tmp / "jupyter"))  # no user kernels
    subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                    "--no-deps", "--no-index", str(wheel)], check=True, env=env)
    classroom = tmp / "class"  # what nbgitpuller would check out: the notebooks only
    classroom.mkdir()
    for name in NOTEBOOKS:
        shutil.copy2(ROOT / "notebooks" / name, classroom / name)
    done = subprocess.run([str(python), "-c", RUNNER, PROBE, *NOTEBOOKS], cwd=classroom,
                          env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-4000:]
    return python, tmp / "venv", json.loads(done.stdout.strip().splitlines()[-1])


def test_the_wheel_carries_every_data_file(hub):
    _, prefix, _ = hub
    installed = prefix / "share" / "tutorial-lib" / "data"
    expected = {p.relative_to(ROOT / "data").as_posix()
                for p in (ROOT / "data").rglob("*") if p.is_file()}
    assert {p.relative_to(installed).as_posix() for p in installed.rglob("*") if p.is_file()} \
        == expected


def test_both_notebooks_run_on_the_installed_package_and_its_data(hub):
    _, prefix, results = hub
    for name in NOTEBOOKS:
        sys_prefix, package, data_dir = json.loads(results[name]["probe"])
        assert Path(sys_prefix) == prefix
        assert Path(package).is_relative_to(prefix) and not Path(package).is_relative_to(ROOT)
        assert Path(data_dir) == prefix / "share" / "tutorial-lib" / "data"


def test_notebook_00s_course_map_lists_every_chapter_without_the_repository(hub):
    from tutorial_course import chapters

    _, _, results = hub
    shown = next(out for out in results["00_intro.ipynb"]["outputs"] if "10_megatron_mmap" in out)
    assert all(f"{c.stem}.ipynb" in shown for c in chapters.CHAPTERS)
    assert "规划中" not in shown
