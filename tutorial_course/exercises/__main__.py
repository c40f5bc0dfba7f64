"""`python -m tutorial_course.exercises` (make progress): per chapter, which exercises the checks in
workspace/ passed, failed or did not try yet (`tutorial_course.progress`)."""

import sys

from tutorial_course import progress
from tutorial_course.exercises import REGISTRY


def main(argv: list[str]) -> int:
    if argv:
        print("usage: python -m tutorial_course.exercises", file=sys.stderr)
        return 2
    for chapter, passed, shown, todo in progress.rows(REGISTRY):
        print(f"{chapter}  {passed}  {shown}" + (f"  → 下一个：{todo}" if todo else ""))
    print(progress.LEGEND)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
