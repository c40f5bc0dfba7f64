"""`python -m tutorial_course.classroom release OUT [--chapters 00 02 ...] [--seed N]` and
`python -m tutorial_course.classroom report COURSE_DIR ASSIGNMENT`."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tutorial_course.classroom")
    commands = parser.add_subparsers(dest="command", required=True)
    rel = commands.add_parser("release", help="write the nbgrader course directory OUT")
    rel.add_argument("out")
    rel.add_argument("--chapters", nargs="+", metavar="NN", help="only these chapters")
    rel.add_argument("--seed", type=int, help="the hidden cases' seed (default: drawn at random)")
    rel.add_argument("--no-kit", action="store_true", help="skip OUT/student_kit")
    rep = commands.add_parser("report", help="write the class report of an autograded assignment")
    rep.add_argument("course_dir")
    rep.add_argument("assignment")
    args = parser.parse_args(argv)
    if args.command == "release":
        from tutorial_course.classroom.release import release

        out = release(args.out, args.chapters, seed=args.seed, kit=not args.no_kit)
        print(f"课程目录：{out}（学生版在 release/，学生包在 student_kit/）")
    else:
        from tutorial_course.classroom.report import write_report

        page = write_report(args.course_dir, args.assignment)
        print(f"班级报告：{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
