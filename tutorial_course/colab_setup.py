"""Set the course up inside a running Colab notebook (or any hosted Jupyter whose packages are not
ours to change), from a clone of the repository:

    !git clone -q --depth 1 REPO_URL /content/course || git -C /content/course pull -q
    %run /content/course/tutorial_course/colab_setup.py

Colab's runtime already ships numpy, matplotlib, ipykernel, ipywidgets, transformers and the
rest, at its own versions, and its front end depends on them. constraints.txt would downgrade
or upgrade them, so here only the requirements that are *missing* are installed (at the pinned
version, with pip's default of leaving satisfied dependencies alone), then the package itself
without dependencies and without .venv. A requirement present at a version older than
pyproject.toml asks for is reported, not changed. jupyterlab is skipped: Colab has its own front
end. `%run` executes this in the notebook's own kernel, so the package is importable in the next
cell; a restart is asked for only if pip changed a package the kernel had already imported.

Outputs can differ from the reference notebooks where the runtime's versions differ from the pins.
Stdlib only (tomllib: Python >= 3.11, which Colab has).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP = {"jupyterlab"}  # the hosted front end is not ours to replace


def name_of(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def requirements(root: Path = ROOT) -> list[str]:
    """What the notebooks import: the dependencies and the `bench` extra (the libraries the
    notebooks compare against), as pyproject.toml lists them."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["bench"]]


def pins(root: Path = ROOT) -> dict[str, str]:
    """constraints.txt as name -> version, for this Python (its only markers are
    `python_version >= "3.11"` and `< "3.11"`)."""
    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    pin = re.compile(r'([A-Za-z0-9_.-]+)==(\S+?)(?:;\s*python_version\s*([<>=]+)\s*"([\d.]+)")?$')
    result = {}
    for line in (root / "constraints.txt").read_text(encoding="utf-8").splitlines():
        match = pin.match(line.strip())
        if match:
            name, version, op, bound = match.groups()
            if op is None or _compare(here, op, bound):
                result[name.lower().replace("_", "-")] = version
    return result


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def _compare(have: str, op: str, bound: str) -> bool:
    a, b = _version(have), _version(bound)
    return {">=": a >= b, "<": a < b, ">": a > b, "<=": a <= b, "==": a == b}[op]


def survey(reqs: list[str]) -> tuple[list[str], list[str]]:
    """(names of missing requirements, "name have < wanted" for the ones too old)."""
    missing, old = [], []
    for requirement in reqs:
        name = name_of(requirement)
        if name in SKIP:
            continue
        try:
            have = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(name)
            continue
        bound = re.search(r">=\s*([\w.]+)", requirement)
        if bound and not _compare(have, ">=", bound.group(1)):
            old.append(f"{name} {have} < {bound.group(1)}")
    return missing, old


def install_commands(missing: list[str], pinned: dict[str, str],
                     root: Path = ROOT) -> list[list[str]]:
    """pip for the missing requirements (pinned where constraints.txt pins them), then the package
    itself, non-editable (so the kernel that is running can import it) and without dependencies."""
    pip = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    wanted = [f"{name}=={pinned[name]}" if name in pinned else name for name in missing]
    return ([[*pip, *wanted]] if wanted else []) + [[*pip, "--no-deps", str(root)]]


def installed_versions() -> dict[str, str]:
    dists = importlib.metadata.distributions()
    return {(d.metadata["Name"] or "").lower(): d.version for d in dists}


def main() -> bool:
    """Set up; True when the runtime must be restarted before the course's cells run."""
    missing, old = survey(requirements())
    before = installed_versions()
    for command in install_commands(missing, pins()):
        print("$", " ".join(command[2:]), flush=True)
        subprocess.run(command, check=True)
    importlib.invalidate_caches()
    # The clone's data/ is certain; the copy the wheel installs depends on the runtime's prefix.
    os.environ["TUTORIAL_DATA_DIR"] = str(ROOT / "data")
    changed = {name for name, version in installed_versions().items()
               if name in before and before[name] != version}
    imported = sorted(name for name in changed if name.replace("-", "_") in sys.modules)
    for line in old:
        print(f"注意：运行时自带的 {line}，与课程的要求不符；输出可能与参考笔记本不同")
    if imported:
        print(f"pip 改动了已经导入的 {', '.join(imported)}：请重启运行时"
              "（代码执行程序 → 重启会话），再运行这一格")
    else:
        print(f"课程已就绪（新装：{', '.join(missing) or '无'}；tutorial_lib 来自 {ROOT}）")
    return bool(imported)


if __name__ == "__main__":
    main()
