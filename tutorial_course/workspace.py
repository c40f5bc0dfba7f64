"""The learner's own copies of the notebooks: read notebooks/, work in workspace/, hand in
submissions/.

notebooks/ is the reference: executed, with every output stored, for reading and for nbval. A
learner who ran and edited those would break `make test` and would see every "先猜一猜" answer
under its question. So `make lab` works in workspace/ (git-ignored), where each notebook arrives
with its outputs and widget state cleared, and is never overwritten once it is there.

    python -m tutorial_course.workspace sync      every notebook workspace/ lacks (make workspace)
    python -m tutorial_course.workspace reset 02  notebook 02 afresh, after asking (make reset)
    python -m tutorial_course.workspace update    newer notebooks in, the learner's edits kept
    python -m tutorial_course.workspace submit --student ID 02 [03 ...]
                                         workspace copies packed into submissions/ (`make submit`)

Each copy records a digest of every cell's source as shipped, so that `update` can tell the cells
the learner edited from the ones they did not (`notebook_merge`). `submit` writes what the
course's `nbgrader zip_collect` takes: submissions/<assignment>__<ID>.zip holding one file
`<ID>__<UTC time YYYYMMDDTHHMMSSZ>__<notebook file name>`. submissions/ is not git-ignored, so a
commit and push hands the work in too.

Only the standard library, so that `make workspace` runs before the course's venv exists; files
are written as tutorial_pipeline/files.py writes them (a synced temporary file beside the target,
renamed). Bad input (an unknown chapter, a bad student id) is a ValueError; the command line
prints it and exits 2.
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import zipfile
from datetime import datetime, timezone
from pathlib import Path

from tutorial_course.notebook_merge import edited_cells, merge, record_shipped
from tutorial_lib import data as lesson_data

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
WORKSPACE = ROOT / "workspace"
SUBMISSIONS = ROOT / "submissions"
STUDENT_ID = re.compile(r"[A-Za-z0-9-]+")  # what the course's zip_collect regexp takes
FILE_ID = re.compile(r"[A-Za-z0-9_]+\.ipynb")  # likewise for the notebook's file name


def cleared(nb: dict) -> dict:
    """The notebook as a learner first sees it: no outputs, execution counts or widget state."""
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
    nb.get("metadata", {}).pop("widgets", None)
    return nb


def fresh_copy(source: Path) -> dict:
    """A learner's first copy of `source`: cleared, with the digests of its cells as shipped."""
    return record_shipped(cleared(load(source)))


def load(path: Path) -> dict:
    """A notebook's JSON; a file that is not one is a ValueError naming it."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path} 不是有效的 notebook（JSON 读不出来：{e}）") from None


def write_atomically(target: Path, data: bytes) -> None:
    """Write `data` to `target`, old file or new, never half of one (`tutorial_lib.data`'s
    `write_atomically`), in its directory made first if need be (a first workspace/ or
    submissions/)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lesson_data.write_atomically(target, data)


def write_notebook(nb: dict, target: Path) -> None:
    write_atomically(target, (json.dumps(nb, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def sync(notebooks: Path = NOTEBOOKS, workspace: Path = WORKSPACE) -> list[str]:
    """Copy each notebook that workspace/ lacks; one already there is the learner's and stays."""
    copied = []
    for source in sorted(notebooks.glob("*.ipynb")):
        target = workspace / source.name
        if not target.exists():
            write_notebook(fresh_copy(source), target)
            copied.append(source.name)
    return copied


def find_notebook(name: str, notebooks: Path = NOTEBOOKS) -> Path:
    """The notebook called `name`: "02", "02_bpe_step_by_step" or "02_bpe_step_by_step.ipynb"."""
    matches = sorted(p for p in notebooks.glob("*.ipynb") if name in (p.name, p.stem, p.name[:2]))
    if len(matches) != 1:
        known = ", ".join(p.name[:2] for p in sorted(notebooks.glob("*.ipynb")))
        raise ValueError(f"no notebook called {name!r}; give its number, one of: {known}")
    return matches[0]


def reset(name: str, notebooks: Path = NOTEBOOKS, workspace: Path = WORKSPACE, ask=input) -> bool:
    """Replace the learner's copy of one notebook by a fresh one, if they confirm. True if it was
    replaced."""
    source = find_notebook(name, notebooks)
    target = workspace / source.name
    if target.exists():
        answer = ask(f"workspace/{target.name} 里你的修改和输出都会丢失，"
                     "确定恢复成初始版本吗？(y/N) ")
        if answer.strip().lower() not in ("y", "yes", "是"):
            print("没有改动。")
            return False
    write_notebook(fresh_copy(source), target)
    print(f"已恢复 workspace/{target.name}")
    return True


def update(names: list[str], notebooks: Path = NOTEBOOKS, workspace: Path = WORKSPACE) -> list[str]:
    """Bring the notebooks `names` (all when empty) of notebooks/ into workspace/, keeping the
    learner's edits (`notebook_merge`); return a line per notebook saying what happened."""
    sources = ([find_notebook(n, notebooks) for n in names] if names
               else sorted(notebooks.glob("*.ipynb")))
    return [update_one(source, workspace) for source in sources]


def update_one(source: Path, workspace: Path) -> str:
    target = workspace / source.name
    new = fresh_copy(source)
    if not target.exists():
        write_notebook(new, target)
        return f"workspace/{target.name}：已从 notebooks/ 复制（输出已清空）"
    read = target.read_bytes()
    try:
        mine = load(target)
    except ValueError as e:
        return f"{e}；没有改动它（修好它，或 `make reset NB={source.name[:2]}` 重来）"
    result = merge(mine, new)
    if result.notebook != mine:
        if target.read_bytes() != read:  # saved from JupyterLab while we merged: theirs wins
            return (f"workspace/{target.name}：更新的时候它被保存过，没有改动它；"
                    f"再运行一次 update（保存过的内容都在）")
        write_notebook(result.notebook, target)
    done = [f"{what} {len(ids)} 个单元" for what, ids in (
        ("更新了", result.updated), ("新增了", result.added), ("删去了", result.removed)) if ids]
    line = f"workspace/{target.name}：" + ("，".join(done) if done else "没有要更新的单元")
    if not result.conflicts:
        return line
    beside = beside_path(target, source, new)
    write_notebook(new, beside)
    why = ("这份副本是旧版 workspace.py 复制的，分不出哪些单元你改过，所以全部保留原样"
           if result.legacy else
           f"{len(result.conflicts)} 个你改过的单元在新版里也改了，保留了你的版本")
    return f"{line}；{why}，完整的新版在 workspace/{beside.name}（对照着手动合并）"


def beside_path(target: Path, source: Path, new: dict) -> Path:
    """Where the whole new version goes: NN_name.new.ipynb, unless that file holds something else
    (a merge the learner is working on), which is never replaced: then .new-2, .new-3, ..."""
    data = (json.dumps(new, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
    for n in range(1, 1000):
        beside = target.with_name(f"{source.stem}.new{'' if n == 1 else f'-{n}'}.ipynb")
        if not beside.exists() or beside.read_bytes() == data:
            return beside
    raise ValueError(f"workspace/ 里已有太多 {source.stem}.new-*.ipynb：先整理掉一些")


def submit(student: str, names: list[str], notebooks: Path = NOTEBOOKS,
           workspace: Path = WORKSPACE, submissions: Path = SUBMISSIONS,
           now: datetime | None = None) -> list[str]:
    """Pack the workspace copy of each chapter in `names` into
    submissions/<assignment>__<student>.zip; return a line per zip saying what was packed.
    Everything is checked before anything is written: a bad request leaves no zip behind."""
    if not isinstance(student, str) or not STUDENT_ID.fullmatch(student):
        raise ValueError(f"--student {student!r}：学号只能由英文字母、数字和 - 组成"
                         "（例如 s2024-017）")
    if not names:
        raise ValueError("give the chapters to hand in, e.g. `submit --student ID 02`")
    copies = []
    for name in names:
        copy = workspace / find_notebook(name, notebooks).name
        if not FILE_ID.fullmatch(copy.name):  # the course's collector would skip it unseen
            raise ValueError(f"{copy.name}: nbgrader's collector takes only letters, digits and _")
        if not copy.is_file():
            raise ValueError(f"workspace/{copy.name} 不存在：先 `make workspace`（或 `python -m "
                             f"tutorial_course.workspace sync`），在 workspace/ 里做完再交")
        copies.append((copy, load(copy)))
    stamp = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return [pack(copy, nb, student, stamp, submissions) for copy, nb in copies]


def pack(copy: Path, nb: dict, student: str, stamp: datetime, submissions: Path) -> str:
    """Write one submission zip; say what went into it, and warn when the copy looks unchanged."""
    data = copy.read_bytes()
    member = zipfile.ZipInfo(f"{student}__{stamp:%Y%m%dT%H%M%SZ}__{copy.name}",
                             date_time=stamp.timetuple()[:6])
    member.compress_type = zipfile.ZIP_DEFLATED
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(member, data)
    target = submissions / f"{copy.stem}__{student}.zip"
    write_atomically(target, buffer.getvalue())
    saved = datetime.fromtimestamp(copy.stat().st_mtime, timezone.utc)
    minutes = max(0, round((stamp - saved).total_seconds() / 60))
    line = (f"{target.relative_to(submissions.parent)}：打包了 workspace/{copy.name}"
            f"（{len(data) / 1024:.1f} KB，最后保存于 {saved:%Y-%m-%d %H:%M} UTC，{minutes} 分钟前")
    edited = edited_cells(nb)
    if edited is not None:
        line += f"，改动了 {edited} 个单元"
    line += "）"
    if edited == 0:
        line += "\n  注意：和发下来时一模一样。JupyterLab 里改了却没保存？先按 Ctrl+S 再交。"
    return line


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description="Keep the learner's notebooks in workspace/.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("sync", help="copy the notebooks workspace/ lacks, outputs cleared")
    one = commands.add_parser("reset", help="restore one notebook in workspace/ (asks first)")
    one.add_argument("notebook", help='its number ("02") or file name')
    up = commands.add_parser("update", help="bring newer notebooks in, keeping your edits")
    up.add_argument("notebooks", nargs="*", help="their numbers (all when none is given)")
    hand_in = commands.add_parser("submit", help="pack workspace copies into submissions/")
    hand_in.add_argument("--student", required=True, help="your student id: letters, digits and -")
    hand_in.add_argument("notebooks", nargs="+", help='chapter numbers, e.g. "02"')
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # a console that cannot show Chinese gets escapes
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    try:
        if args.command == "sync":
            lines = [f"workspace/{name}：已从 notebooks/ 复制（输出已清空）" for name in sync()]
        elif args.command == "reset":
            reset(args.notebook)  # it prints what it did
            lines = []
        elif args.command == "update":
            lines = update(args.notebooks)
        else:
            lines = submit(args.student, args.notebooks)
            lines.append("交作业：把上面的 zip 上传到课程平台，或 "
                         "`git add submissions && git commit && git push`。")
    except ValueError as e:
        print(f"错误：{e}", file=sys.stderr)
        return 2
    for line in lines:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
