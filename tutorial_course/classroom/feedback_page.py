"""The feedback page in Chinese: nbgrader's own feedback template with its English words replaced.

nbgrader's `generate_feedback` renders each autograded notebook with its template `feedback`
(scores, the table of contents, comments), whose frame is English while everything the course
wrote inside it is Chinese. `release` writes this translation of the installed template into the
course directory (`templates/feedback_zh/`) and points the config at it. Each English phrase must be
found in nbgrader's template: a newer nbgrader whose template changed makes the release fail here,
not a half-English page.
"""

from __future__ import annotations

from pathlib import Path

import nbgrader

NAME = "feedback_zh"
ORIGINAL = (Path(nbgrader.__file__).parent / "server_extensions" / "formgrader" / "templates"
            / "feedback")
_CELL_SCORE = ("{{ cell.metadata.nbgrader.score | float | round(2) }} / "
               "{{ cell.metadata.nbgrader.points | float | round(2) }}")
_TOTAL = ("{{ resources.nbgrader.score | float | round(2) }} / "
          "{{ resources.nbgrader.max_score | float | round(2) }}")
# (English in nbgrader 0.9's template, Chinese): longer phrases first, so that a shorter one
# inside them is not replaced on its own
TRANSLATIONS = (
    (f"(Score: {_TOTAL})", f"（得分：{_TOTAL}）"),
    ("Late submission penalty (Score: -{{ resources.nbgrader.late_penalty | float | round(2) }})",
     "迟交扣分（-{{ resources.nbgrader.late_penalty | float | round(2) }} 分）"),
    (f"Score: {_CELL_SCORE} <a href=\"#top\">(Top)</a>",
     f"得分：{_CELL_SCORE} <a href=\"#top\">（回到顶部）</a>"),
    (f"(Score: {_CELL_SCORE})", f"（得分：{_CELL_SCORE}）"),
    (">Test cell<", ">评分单元格<"),
    (">Coding free-response<", ">代码作答<"),
    (">Written response<", ">文字作答<"),
    (">Task<", ">任务<"),
    (">Comment<", ">评语<"),
    ("<b>Comments:</b>", "<b>评语：</b>"),
    ('<a href="#top">(Top)</a>', '<a href="#top">（回到顶部）</a>'),
    ("<html>", '<html lang="zh-CN">'),
)


def chinese_template() -> dict[str, bytes]:
    """The files of `templates/feedback_zh/` (path under the course directory -> bytes)."""
    text = (ORIGINAL / "index.html.j2").read_text("utf-8")
    for english, chinese in TRANSLATIONS:
        if english not in text:
            raise ValueError(f"nbgrader's feedback template ({ORIGINAL}) no longer says "
                             f"{english!r}: its translation needs updating")
        text = text.replace(english, chinese)
    return {f"templates/{NAME}/index.html.j2": text.encode(),
            f"templates/{NAME}/conf.json": (ORIGINAL / "conf.json").read_bytes()}
