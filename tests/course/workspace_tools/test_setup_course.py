"""tutorial_course/setup_course.py: the same set-up with and without make, on POSIX and on Windows."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
from tutorial_course import setup_course

SCRIPT = ROOT / "tutorial_course" / "setup_course.py"
WINDOWS_PY = r".venv\Scripts\python.exe"


def dry_run(*args: str, script: Path = SCRIPT) -> list[str]:
    done = subprocess.run([sys.executable, str(script), "--dry-run", *args], cwd=ROOT,
                          capture_output=True, text=True, encoding="utf-8")
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_the_venvs_python_is_scripts_python_exe_on_windows_and_bin_python_elsewhere():
    assert str(setup_course.venv_python("nt")) == WINDOWS_PY
    assert str(setup_course.venv_python("posix")) == ".venv/bin/python"


def test_install_creates_the_venv_then_installs_the_pins_editable():
    create, pip = setup_course.install_commands("dev", "nt", "py")
    assert create == ["py", "-m", "venv", ".venv"]
    assert pip[:3] == [WINDOWS_PY, "-m", "pip"]
    assert pip[-4:] == ["-c", "constraints.txt", "-e", ".[dev]"]
    (student,) = setup_course.install_commands("student", "posix", venv_exists=True)
    assert student[0] == ".venv/bin/python" and student[-2:] == ["-e", ".[bench]"]
    with pytest.raises(ValueError, match="kind"):
        setup_course.install_commands("teacher")


def test_dry_run_on_windows_prints_commands_for_cmd_and_powershell():
    lines = dry_run("kernel", "--os", "nt")
    assert lines[0] == "python -m venv .venv"
    assert lines[1].startswith(WINDOWS_PY + " -m pip install") and lines[1].endswith("-e .[dev]")
    assert lines[2] == (WINDOWS_PY + " -m ipykernel install --user --name tokenization-tutorial "
                        '--display-name "分词与序列打包 (.venv)"')
    lab = dry_run("lab", "--os", "nt", "--", "--port", "9000")
    assert lab[-2:] == ["python -m tutorial_course.workspace sync",
                        WINDOWS_PY + " -m jupyter lab --notebook-dir=workspace --port 9000"]


def test_dry_run_here_runs_nothing_and_quotes_for_the_shell(tmp_path):
    (tmp_path / "tutorial_course").mkdir()
    shutil.copy2(SCRIPT, tmp_path / "tutorial_course" / SCRIPT.name)
    for name in setup_course.INPUTS:
        (tmp_path / name).write_text("x")
    script = tmp_path / "tutorial_course" / SCRIPT.name
    lines = dry_run("install", "--student", "--os", "posix", script=script)
    assert lines[0].endswith(" -m venv .venv")
    assert lines[1:] == [".venv/bin/python -m pip install --disable-pip-version-check -q "
                     "-c constraints.txt -e '.[bench]'"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["constraints.txt", "pyproject.toml",
                                                          "tutorial_course"]


def test_lab_adds_allow_root_only_for_root_and_passes_extra_arguments():
    assert "--allow-root" in setup_course.lab_command("posix", as_root=True)
    command = setup_course.lab_command("posix", as_root=False, extra=["--no-browser"])
    assert command == [".venv/bin/python", "-m", "jupyter", "lab", "--notebook-dir=workspace",
                       "--no-browser"]


@pytest.mark.parametrize("argv", [["kernel", "--os", "nt" if os.name != "nt" else "posix"],
                                  ["install", "--", "--port", "1"], ["setup"], []])
def test_bad_arguments_exit_with_usage(argv, capsys):
    with pytest.raises(SystemExit) as stop:
        setup_course.parse(argv)
    assert stop.value.code == 2
    assert "usage" in capsys.readouterr().err


def test_install_is_skipped_only_when_a_stamp_is_newer_than_the_pins(tmp_path):
    for name in setup_course.INPUTS:
        (tmp_path / name).write_text("x")
    assert setup_course.installed(tmp_path) is None
    (tmp_path / ".venv").mkdir()
    stamp = tmp_path / ".venv" / ".installed-student"
    stamp.touch()
    os.utime(stamp, (2e9, 2e9))
    assert setup_course.installed(tmp_path) == "student"
    os.utime(tmp_path / "constraints.txt", (2e9 + 1, 2e9 + 1))  # the pins changed: install again
    assert setup_course.installed(tmp_path) is None


def test_make_runs_the_script_for_install_kernel_and_lab():
    if shutil.which("make") is None:
        pytest.skip("no make here")
    done = subprocess.run(["make", "-n", "-B", "install", "kernel", "lab", "LAB_ARGS=--no-browser"],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    commands = [line for line in done.stdout.splitlines() if "tutorial_course.setup_course" in line]
    assert [c.split("tutorial_course.setup_course ", 1)[1] for c in commands] == [
        "install", "kernel", "lab -- --no-browser"]


def test_the_kernel_command_registers_a_kernel_an_existing_jupyter_finds(tmp_path):
    """The real ipykernel install into a temporary JUPYTER_DATA_DIR, with this venv's Python in
    place of .venv's."""
    command = [sys.executable, *setup_course.kernel_command("posix")[1:]]
    env = {**os.environ, "JUPYTER_DATA_DIR": str(tmp_path)}
    subprocess.run(command, env=env, check=True, capture_output=True)
    spec = json.loads((tmp_path / "kernels" / "tokenization-tutorial" / "kernel.json").read_text())
    assert spec["display_name"] == "分词与序列打包 (.venv)"
    assert spec["argv"][0] == sys.executable
    listed = subprocess.run([sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"],
                            env=env, capture_output=True, text=True, check=True)
    assert "tokenization-tutorial" in json.loads(listed.stdout)["kernelspecs"]
