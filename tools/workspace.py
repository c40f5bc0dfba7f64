"""The learner's own copies of the notebooks: read notebooks/, work in workspace/.

notebooks/ is the reference: executed, with every output stored, for reading and for nbval. A learner who
ran and edited those would break `make test` and would see every "先猜一猜" answer under its question. So
`make lab` works in workspace/ (git-ignored), where each notebook arrives with its outputs and widget state
cleared, and is never overwritten once it is there.

    python tools/workspace.py sync         copy every notebook missing from workspace/ (what `make workspace` runs)
    python tools/workspace.py reset 02     put a fresh copy of notebook 02 back, after asking (`make reset NB=02`)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
WORKSPACE = ROOT / "workspace"


def cleared(nb: dict) -> dict:
    """The notebook as a learner should first see it: no outputs, no execution counts, no widget state."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
    nb.get("metadata", {}).pop("widgets", None)
    return nb


def write_cleared(source: Path, target: Path) -> None:
    """Write a cleared copy of `source` to `target` through a temporary file, so it is never half-written."""
    nb = cleared(json.loads(source.read_text(encoding="utf-8")))
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(nb, ensure_ascii=False, indent=1) + "\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sync(notebooks: Path = NOTEBOOKS, workspace: Path = WORKSPACE) -> list[str]:
    """Copy each notebook that workspace/ lacks; a notebook already there is the learner's and stays as it is."""
    copied = []
    for source in sorted(notebooks.glob("*.ipynb")):
        target = workspace / source.name
        if not target.exists():
            write_cleared(source, target)
            copied.append(source.name)
    return copied


def find_notebook(name: str, notebooks: Path = NOTEBOOKS) -> Path:
    """The notebook called `name`: "02", "02_bpe_step_by_step" or "02_bpe_step_by_step.ipynb"."""
    matches = sorted(p for p in notebooks.glob("*.ipynb") if name in (p.name, p.stem, p.name[:2]))
    if len(matches) != 1:
        known = ", ".join(p.name[:2] for p in sorted(notebooks.glob("*.ipynb")))
        raise SystemExit(f"no notebook called {name!r}; give its number, one of: {known}")
    return matches[0]


def reset(name: str, notebooks: Path = NOTEBOOKS, workspace: Path = WORKSPACE, ask=input) -> bool:
    """Replace the learner's copy of one notebook by a fresh one, if they confirm. True if it was replaced."""
    source = find_notebook(name, notebooks)
    target = workspace / source.name
    if target.exists():
        answer = ask(f"workspace/{target.name} 里你的修改和输出都会丢失，确定恢复成初始版本吗？(y/N) ")
        if answer.strip().lower() not in ("y", "yes", "是"):
            print("没有改动。")
            return False
    write_cleared(source, target)
    print(f"已恢复 workspace/{target.name}")
    return True


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="Keep the learner's notebooks in workspace/.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync", help="copy the notebooks workspace/ lacks, outputs cleared")
    one = commands.add_parser("reset", help="restore one notebook in workspace/ (asks first)")
    one.add_argument("notebook", help='its number ("02") or file name')
    args = parser.parse_args(argv)
    if args.command == "sync":
        for name in sync():
            print(f"workspace/{name}：已从 notebooks/ 复制（输出已清空）")
    else:
        reset(args.notebook)


if __name__ == "__main__":
    main(sys.argv[1:])
