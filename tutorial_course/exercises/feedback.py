"""What `check` returns: a verdict, its Chinese message, and for graders the exercise and the
failing case, with the JSON a grader stores and a class report reads back."""

from __future__ import annotations

import html
from dataclasses import dataclass

from tutorial_lib.show import palette

# How each verdict looks: (icon, text, background, border), its colours from the palette. The
# icons are dingbats that common fonts carry (an emoji font is not everywhere).
ICONS = {"通过": "✔", "未通过": "✘", "超时": "⚠", "未完成": "✎", "评分出错": "⚙"}
VERDICT_LOOK = {verdict: (icon, *palette.VERDICTS[verdict]) for verdict, icon in ICONS.items()}


@dataclass(frozen=True)
class Feedback:
    """What `check` returns: a verdict and its Chinese message, shown with the verdict's icon (plain
    text) or in the verdict's colours (HTML), so 通过 and 未通过 differ at a glance."""

    verdict: str  # 通过, 未完成, 未通过 or 超时 (评分出错: a class's grading did not answer)
    message: str  # starts with the verdict word; the icon is only added where it is shown
    key: str = ""  # the exercise checked
    case: str | None = None  # show() of the failing (or timed-out) case's args; None if none

    @property
    def passed(self) -> bool:
        return self.verdict == "通过"

    def to_json(self) -> dict:
        """verdict, message, key and case: what a grader stores and a class report reads."""
        return {"verdict": self.verdict, "message": self.message, "key": self.key,
                "case": self.case}

    @classmethod
    def from_json(cls, d: dict) -> Feedback:
        if not isinstance(d, dict):
            raise TypeError(f"d must be a dict from Feedback.to_json, not {type(d).__name__}")
        if d.get("verdict") not in ICONS:
            raise ValueError(f"d['verdict'] must be one of {sorted(ICONS)}, "
                             f"not {d.get('verdict')!r}")
        for name in ("message", "key"):
            if not isinstance(d.get(name), str):
                raise TypeError(f"d[{name!r}] must be a str")
        if d.get("case") is not None and not isinstance(d["case"], str):
            raise TypeError("d['case'] must be a str or None")
        return cls(d["verdict"], d["message"], d["key"], d.get("case"))

    def __repr__(self) -> str:
        return f"{VERDICT_LOOK[self.verdict][0]} {self.message}"

    def _repr_html_(self) -> str:
        icon, ink, background, border = VERDICT_LOOK[self.verdict]
        head, _, rest = self.message.partition("\n")
        word, sep, title = head.partition("：") if head.startswith(self.verdict) else ("", "", head)
        first = (f"<b>{html.escape(word)}</b>{html.escape(sep + title)}" if word
                 else html.escape(head))
        body = f'<div style="margin-top:4px">{html.escape(rest)}</div>' if rest else ""
        return (f'<div style="color:{ink};background:{background};border-left:5px solid {border};'
                'padding:6px 10px;border-radius:3px;white-space:pre-wrap;line-height:1.5">'
                f"{icon} {first}{body}</div>")
