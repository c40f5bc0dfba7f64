"""Set the course up on any machine, with or without make: the Makefile calls this module, so
`make lab` and `python -m tutorial_course.setup_course lab` (run in the repository's root) run the
same commands on Linux, macOS and Windows.

    python -m tutorial_course.setup_course install [--student]  .venv, pip install of the pins
    python -m tutorial_course.setup_course kernel     register the kernel "分词与序列打包 (.venv)"
    python -m tutorial_course.setup_course workspace  copy the notebooks workspace/ lacks
    python -m tutorial_course.setup_course lab [-- LAB ARGS]  install, workspace, JupyterLab

Stdlib only, so the Python that creates .venv can run it (on Windows that is `py` or `python`; the
venv's own interpreter is then .venv\\Scripts\\python.exe). `--dry-run` prints the commands instead
of running them, and `--os nt` / `--os posix` with it shows another system's commands.

`--student` installs what the notebooks import (the package and the libraries they compare
against, the `bench` extra) without the test tools and nbgrader of `dev`; README says how much
smaller that is. `make test` needs the full `dev` install, which is what plain `install` does.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath

ROOT = Path(__file__).resolve().parent.parent
VENV = ".venv"
KERNEL_NAME = "tokenization-tutorial"
KERNEL_DISPLAY_NAME = "分词与序列打包 (.venv)"
# What each kind of install puts into .venv, and the stamp it leaves: the Makefile's $(STAMP) is
# the dev one, so a student install never makes `make test` skip installing pytest.
EXTRAS = {"dev": ".[dev]", "student": ".[bench]"}
STAMPS = {"dev": ".installed", "student": ".installed-student"}
INPUTS = ("pyproject.toml", "constraints.txt")  # a newer one means: install again


def venv_python(system: str = os.name) -> PurePath:
    """The venv's interpreter, relative to the repository, on `system` ("nt" or "posix")."""
    if system == "nt":
        return PureWindowsPath(VENV, "Scripts", "python.exe")
    return PurePosixPath(VENV, "bin", "python")


def install_commands(kind: str, system: str = os.name, python: str = sys.executable,
                     venv_exists: bool = False) -> list[list[str]]:
    """The commands of `install`: create .venv unless it exists, then one pinned pip install."""
    if kind not in EXTRAS:
        raise ValueError(f"kind must be one of {sorted(EXTRAS)}, got {kind!r}")
    vpy = str(venv_python(system))
    create = [] if venv_exists else [[python, "-m", "venv", VENV]]
    pip = [vpy, "-m", "pip", "install", "--disable-pip-version-check", "-q",
           "-c", "constraints.txt", "-e", EXTRAS[kind]]
    return [*create, pip]


def kernel_command(system: str = os.name) -> list[str]:
    """Register .venv's Python for the user's Jupyter (Anaconda's too): it reads the user's
    kernels directory, or $JUPYTER_DATA_DIR/kernels when that is set."""
    return [str(venv_python(system)), "-m", "ipykernel", "install", "--user",
            "--name", KERNEL_NAME, "--display-name", KERNEL_DISPLAY_NAME]


def workspace_command(python: str = sys.executable) -> list[str]:
    """`tutorial_course.workspace sync` (the Makefile's `workspace`), run by the set-up Python in
    the repository's root, where the package is found before anything is installed."""
    return [python, "-m", "tutorial_course.workspace", "sync"]


def lab_command(system: str = os.name, as_root: bool = False,
                extra: list[str] | None = None) -> list[str]:
    """JupyterLab on workspace/ (the learner's copies). Containers often run as root, where
    Jupyter refuses to start without --allow-root."""
    root_flag = ["--allow-root"] if as_root else []
    return [str(venv_python(system)), "-m", "jupyter", "lab", "--notebook-dir=workspace",
            *root_flag, *(extra or [])]


def is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def installed(root: Path = ROOT) -> str | None:
    """The kind of install .venv holds and that is newer than pyproject.toml and
    constraints.txt ("dev" first), or None when it must be (re)installed."""
    newest = max((root / name).stat().st_mtime for name in INPUTS)
    for kind, stamp in STAMPS.items():
        path = root / VENV / stamp
        if path.is_file() and path.stat().st_mtime >= newest:
            return kind
    return None


def show(command: list[str], system: str) -> str:
    """One command as a line the user could paste into their shell."""
    if system == "nt":
        return subprocess.list2cmdline(command)
    return shlex.join(command)


def run(commands: list[list[str]], dry_run: bool, system: str) -> None:
    for command in commands:
        print(show(command, system), flush=True)
        if not dry_run:
            subprocess.run(command, cwd=ROOT, check=True)


def plan(args: argparse.Namespace) -> tuple[list[list[str]], list[list[str]]]:
    """The commands `args` asks for: (install, the rest). Install is empty when `kernel` or `lab`
    finds .venv up to date; plain `install` always runs pip (it is quick when nothing changed)."""
    kind = "student" if args.student else "dev"
    here = args.system == os.name  # another system's dry run knows nothing of its .venv
    setup: list[list[str]] = []
    if args.command == "install" or (args.command in ("kernel", "lab") and not
                                     (here and installed())):
        venv_exists = here and (ROOT / venv_python()).is_file()
        python = sys.executable if here else "python"
        setup = install_commands(kind, args.system, python, venv_exists)
    rest: list[list[str]] = []
    if args.command == "kernel":
        rest.append(kernel_command(args.system))
    if args.command in ("workspace", "lab"):
        rest.append(workspace_command(sys.executable if here else "python"))
    if args.command == "lab":
        rest.append(lab_command(args.system, here and is_root(), args.lab_args))
    return setup, rest


def parse(argv: list[str]) -> argparse.Namespace:
    """The options before `--`; what follows `--` goes to jupyter lab unchanged."""
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description="Set the course up: .venv, kernel, lab.",
                                     epilog="lab -- ARGS passes ARGS to jupyter lab")
    parser.add_argument("command", choices=["install", "kernel", "workspace", "lab"])
    parser.add_argument("--student", action="store_true",
                        help="install what the notebooks need, without the test tools")
    parser.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    parser.add_argument("--os", dest="system", choices=["posix", "nt"], default=os.name,
                        help="with --dry-run: show the commands for this system")
    args = parser.parse_args(argv)
    args.lab_args = extra
    if args.system != os.name and not args.dry_run:
        parser.error(f"--os {args.system} only works with --dry-run (this system is {os.name})")
    if args.lab_args and args.command != "lab":
        parser.error(f"extra arguments {args.lab_args} are only for lab")
    return args


def main(argv: list[str]) -> int:
    args = parse(argv)
    setup, rest = plan(args)
    try:
        run(setup, args.dry_run, args.system)
        if setup and not args.dry_run:
            (ROOT / VENV / STAMPS["student" if args.student else "dev"]).touch()
        run(rest, args.dry_run, args.system)
    except subprocess.CalledProcessError as error:
        return error.returncode or 1
    except KeyboardInterrupt:  # Ctrl-C stops JupyterLab: a normal way to end `lab`
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
