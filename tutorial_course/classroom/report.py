"""`report COURSE_DIR ASSIGNMENT`: the class report, one HTML page, from what autograde left.

Points come from nbgrader's gradebook (`nbgrader.api.Gradebook`); verdicts and the smallest
failing cases from the graded cells' outputs in `autograded/<student>/<assignment>/`, where each
graded cell stored its checks' answers as JSON (`FEEDBACK_MIME`). A graded cell with no such
answer (the student's function was missing, so the cell failed before grading) counts as 未完成.
Per student the page links to nbgrader's feedback page (`generate_feedback`), which shows the
same verdicts the notebook showed. The page is written to `COURSE_DIR/reports/<assignment>.html`.
"""

from __future__ import annotations

import base64
import html
import io
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import nbformat

from tutorial_course import exercises
from tutorial_course.classroom import FEEDBACK_MIME
from tutorial_course.classroom.cell_ids import key_of
from tutorial_lib.show import palette
from tutorial_lib.data import write_atomically

VERDICTS = ("通过", "未通过", "超时", "未完成", "评分出错")
TOP_CASES = 3  # the most common smallest failing cases shown per exercise


@dataclass(frozen=True)
class Result:
    """One student's outcome on one exercise."""

    student: str
    key: str
    verdict: str
    case: str | None
    score: float
    max_score: float
    public_passed: bool = False  # the public cases passed (the verdict may still fail the hidden)


def cell_answers(cell: dict) -> list[dict]:
    """The answers (`Feedback.to_json()` and the cases they were for) a graded cell stored."""
    return [out["data"][FEEDBACK_MIME] for out in cell.get("outputs", [])
            if out.get("output_type") == "display_data" and FEEDBACK_MIME in out.get("data", {})]


def cell_verdict(cell: dict) -> tuple[str, str | None]:
    """(verdict, smallest failing case) of a graded cell: its first answer that did not pass."""
    answers = cell_answers(cell)
    if not answers:
        return "未完成", None
    failed = next((a for a in answers if a.get("verdict") != "通过"), answers[-1])
    return failed.get("verdict", "未完成"), failed.get("case")


def notebook_verdicts(path: Path) -> dict[str, tuple[str, str | None, bool]]:
    """Exercise key -> (verdict, case, whether the public cases passed) for every graded cell of
    an autograded notebook."""
    nb = nbformat.read(path, as_version=4)
    found = {}
    for cell in nb.cells:
        key = key_of(cell.get("metadata", {}).get("nbgrader", {}).get("grade_id", ""))
        if key:
            answers = cell_answers(cell)
            public = bool(answers) and answers[0].get("verdict") == "通过"
            found[key] = (*cell_verdict(cell), public)
    return found


def collect(course: Path, assignment: str) -> tuple[list[str], list[Result]]:
    """The assignment's exercise keys (in notebook order) and every student's results."""
    from nbgrader.api import Gradebook

    keys: list[str] = []
    results: list[Result] = []
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gb:
        for notebook in gb.find_assignment(assignment).notebooks:
            keys += [k for k in (key_of(c.name) for c in notebook.grade_cells) if k]
        for submission in gb.assignment_submissions(assignment):
            student = submission.student.id
            for nb in submission.notebooks:
                path = course / "autograded" / student / assignment / f"{nb.name}.ipynb"
                verdicts = notebook_verdicts(path) if path.exists() else {}
                for grade in nb.grades:
                    key = key_of(grade.name)
                    if key:
                        verdict, case, public = verdicts.get(key, ("未完成", None, False))
                        results.append(Result(student, key, verdict, case, float(grade.score),
                                              float(grade.max_score), public))
    source = course / "source" / assignment / f"{assignment}.ipynb"
    order = list(notebook_verdicts(source))  # the graded cells in notebook order
    return sorted(keys, key=order.index), results


def pass_rate_chart(keys: list[str], rates: list[float]) -> str:
    """The bar chart of pass rate per exercise as a base64 PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from tutorial_lib.show import plotting

    plotting.setup_chinese()
    fig = plotting.bar_chart(keys, rates, title="每个练习的通过率", ylabel="通过率",
                             reference=1.0)
    fig.axes[0].set_ylim(0, 1.1)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _badge(verdict: str) -> str:
    ink, background, border = palette.VERDICTS[verdict]
    icon = exercises.ICONS[verdict]
    return (f'<span style="color:{ink};background:{background};border:1px solid {border};'
            f'padding:1px 6px;border-radius:3px;white-space:nowrap">{icon} {verdict}</span>')


def exercise_rows(keys: list[str], results: list[Result]) -> list[str]:
    """One table row per exercise: pass rate, share of each other verdict, points, cases."""
    rows = []
    for key in keys:
        mine = [r for r in results if r.key == key]
        count = Counter(r.verdict for r in mine)
        n = max(len(mine), 1)
        shares = "".join(f"<td>{count[v] / n:.0%}（{count[v]}）</td>" for v in VERDICTS)
        points = sum(r.score for r in mine) / n
        top = Counter(r.case for r in mine if r.case is not None).most_common(TOP_CASES)
        cases = "<br>".join(f"<code>{html.escape(case)}</code> × {hits}" for case, hits in top)
        max_score = mine[0].max_score if mine else 0
        title = html.escape(exercises.REGISTRY[key].title)
        rows.append(f"<tr><td><b>{html.escape(key)}</b><br>{title}</td>{shares}"
                    f"<td>{points:.2f} / {max_score:g}</td><td>{cases or '—'}</td></tr>")
    return rows


def student_rows(course: Path, assignment: str, keys: list[str], results: list[Result],
                 page_dir: Path) -> list[str]:
    """One row per student: total points, a verdict per exercise, the link to their feedback."""
    rows = []
    for student in sorted({r.student for r in results}):
        mine = {r.key: r for r in results if r.student == student}
        total = sum(r.score for r in mine.values())
        possible = sum(r.max_score for r in mine.values())
        cells = "".join(f"<td>{_badge(mine[k].verdict) if k in mine else '—'}</td>" for k in keys)
        pages = sorted((course / "feedback" / student / assignment).glob("*.html"))
        links = " ".join(f'<a href="{Path(os.path.relpath(p, page_dir)).as_posix()}">'
                         f"{html.escape(p.stem)}</a>" for p in pages)
        rows.append(f"<tr><td>{html.escape(student)}</td><td>{total:g} / {possible:g}</td>"
                    f"{cells}<td>{links or '（还没有 generate_feedback）'}</td></tr>")
    return rows


def flags(results: list[Result]) -> list[str]:
    """What an instructor should look at, one line per student and kind: a grading that did not
    answer, public cases passed but hidden ones failed (answers written for the public cases?),
    and points that the verdicts do not back (a score entered by hand, or a gradebook changed)."""
    lines = []
    for student in sorted({r.student for r in results}):
        mine = [r for r in results if r.student == student]
        name = html.escape(student)
        broken = [r.key for r in mine if r.verdict == "评分出错"]
        if broken:
            lines.append(f"<b>{name}</b>：{len(broken)} 个练习评分出错（{', '.join(broken)}）。"
                         "评分进程没有给出结论：学生的代码可能结束了它。读他的答案单元格；"
                         "修好原因后重新运行 <code>classroom autograde</code>。")
        hidden = [r.key for r in mine if r.public_passed and r.verdict != "通过"]
        if hidden:
            lines.append(f"<b>{name}</b>：公开用例通过、隐藏用例没有通过（{', '.join(hidden)}）："
                         "答案可能只对公开用例写死了。")
        unbacked = [f"{r.key} 得 {r.score:g} 分但结论是{r.verdict}" for r in mine
                    if r.score > 0 and r.verdict != "通过"]
        if unbacked:
            lines.append(f"<b>{name}</b>：分数和检查结论不一致（{'；'.join(unbacked)}）："
                         "成绩库里手工改过分数，或者被改动过。")
    return lines


STYLE = """body{font-family:sans-serif;margin:24px;max-width:1200px}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:4px 8px;
vertical-align:top;text-align:left}th{background:#f3f3f3}code{font-size:90%}"""


def page(course: Path, assignment: str, page_dir: Path) -> str:
    """The report's HTML."""
    keys, results = collect(course, assignment)
    if not results:
        raise ValueError(f"assignment: no autograded submission of {assignment!r} in {course} "
                         "(run nbgrader autograde first)")
    students = sorted({r.student for r in results})
    rates = [sum(r.verdict == "通过" for r in results if r.key == k) / len(students) for k in keys]
    chart = pass_rate_chart(keys, rates)
    head = "".join(f"<th>{v}</th>" for v in VERDICTS)
    csv = course / "grades.csv"
    csv_link = (f'<p>成绩表（<code>nbgrader export</code>）：<a href="'
                f'{Path(os.path.relpath(csv, page_dir)).as_posix()}">grades.csv</a></p>'
                if csv.exists()
                else "<p>成绩表：在课程目录里运行 <code>nbgrader export</code>。</p>")
    return f"""<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>班级报告：{html.escape(assignment)}</title>
<style>{STYLE}</style></head><body>
<h1>班级报告：{html.escape(assignment)}</h1>
<p>{len(students)} 份作业，{len(keys)} 个练习。每个练习都用公开用例和隐藏用例检查；
一个练习只有两者都通过才算通过。“最常见的失败用例”是检查器给出的输入最短的失败用例。</p>
<h2>需要你看一眼</h2>
{"".join(f"<p>{line}</p>" for line in flags(results)) or "<p>没有。</p>"}
<img alt="每个练习的通过率" src="data:image/png;base64,{chart}">
<h2>每个练习</h2>
<table><tr><th>练习</th>{head}<th>平均得分</th><th>最常见的失败用例（人数）</th></tr>
{"".join(exercise_rows(keys, results))}</table>
<h2>每个学生</h2>
<table><tr><th>学生</th><th>得分</th>{"".join(f"<th>{html.escape(k)}</th>" for k in keys)}
<th>反馈页</th></tr>
{"".join(student_rows(course, assignment, keys, results, page_dir))}</table>
{csv_link}
</body></html>
"""


def write_report(course_dir: str | Path, assignment: str) -> Path:
    """Write COURSE_DIR/reports/<assignment>.html and return its path."""
    course = Path(course_dir).resolve()
    if not (course / "gradebook.db").is_file():
        raise ValueError(f"course_dir: {course} has no gradebook.db (not an nbgrader course)")
    target = course / "reports" / f"{assignment}.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, page(course, assignment, target.parent))
    return target
