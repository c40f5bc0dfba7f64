"""`python -m tutorial_course.classroom release OUT [--chapters 00 02 ...] [--seed N] [--force]`,
`python -m tutorial_course.classroom autograde COURSE_DIR ASSIGNMENT [--jobs N] [--force]` and
`python -m tutorial_course.classroom report COURSE_DIR ASSIGNMENT`."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path


def _release(args: argparse.Namespace) -> None:
    from tutorial_course.classroom.release import STATE, release

    out, seed = release(args.out, args.chapters, seed=args.seed, kit=not args.no_kit,
                        force=args.force)
    print(f"课程目录：{out}（学生版在 release/，学生包在 student_kit/）")
    print(f"隐藏用例的种子：{seed}（记在 {out / STATE}，以后发布到这个目录时沿用）")


def _autograde(args: argparse.Namespace) -> int:
    from tutorial_course.classroom import isolation
    from tutorial_course.classroom.autograde import grade_all
    from tutorial_course.classroom.release import nbgrader

    root = Path(args.course_dir).resolve()
    if not isolation.isolated():
        print(isolation.UNPROTECTED, file=sys.stderr)
    began = time.perf_counter()
    counts = grade_all(root, args.assignment, args.jobs)
    seconds = time.perf_counter() - began
    print(f"沙箱评分：{counts['graded']} 份，{seconds:.1f} 秒（{args.jobs} 个并行）；"
          f"评分出错 {counts['broken']} 份（班级报告里会标出）。")
    try:
        nbgrader(root, "autograde", args.assignment, *(["--force"] if args.force else []))
    except RuntimeError as err:  # a submission nbgrader cannot read; the others are recorded
        print(f"nbgrader autograde 报告了错误（其余作业的分数已经记下）：\n{err}", file=sys.stderr)
        return 1
    print("成绩已记进 gradebook.db（nbgrader export 导出）。")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tutorial_course.classroom")
    commands = parser.add_subparsers(dest="command", required=True)
    rel = commands.add_parser("release", help="write the nbgrader course directory OUT")
    rel.add_argument("out")
    rel.add_argument("--chapters", nargs="+", metavar="NN", help="only these chapters")
    rel.add_argument("--seed", type=int,
                     help="the hidden cases' seed (default: the one OUT already uses, else random)")
    rel.add_argument("--no-kit", action="store_true", help="skip OUT/student_kit")
    rel.add_argument("--force", action="store_true",
                     help="overwrite files edited since the last release")
    auto = commands.add_parser("autograde", help="grade every submission, in parallel, sandboxed")
    auto.add_argument("course_dir")
    auto.add_argument("assignment")
    auto.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                      help="submissions graded at once (default: the number of CPUs)")
    auto.add_argument("--force", action="store_true",
                      help="let nbgrader record again submissions it has already autograded")
    rep = commands.add_parser("report", help="write the class report of an autograded assignment")
    rep.add_argument("course_dir")
    rep.add_argument("assignment")
    args = parser.parse_args(argv)
    if args.command == "autograde" and args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.command == "release":
        _release(args)
    elif args.command == "autograde":
        return _autograde(args)
    else:
        from tutorial_course.classroom.report import write_report

        print(f"班级报告：{write_report(args.course_dir, args.assignment)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
