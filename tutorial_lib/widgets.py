"""ipywidgets front ends over tutorial_lib. No logic of their own: each one calls a library function
and shows its result.

Results are written into an HTML widget (not printed into an Output widget), so the stored notebook
output is the same in JupyterLab, under `make notebooks` and under nbval.
"""

from __future__ import annotations

from typing import Callable

import ipywidgets as w

from tutorial_lib import text as text_lib
from tutorial_lib.display import html_table


def live(control: w.ValueWidget, render: Callable[[object], str]) -> w.VBox:
    """Show `render(control.value)` under `control` and redraw it whenever the value changes."""
    view = w.HTML(render(control.value))
    control.observe(lambda change: setattr(view, "value", render(change["new"])), names="value")
    return w.VBox([control, view])


def utf8_explorer(initial: str = "分词 token 🙂") -> w.VBox:
    """Type any text and see each character's code point and UTF-8 bytes (text.utf8_breakdown)."""
    box = w.Text(value=initial, description="文本", continuous_update=True)

    def render(value: str) -> str:
        rows = text_lib.utf8_breakdown(value)
        total = sum(len(hexes.split()) for _, _, hexes in rows)
        return (html_table(["字符", "码点", "UTF-8 字节"], rows)
                + f"<p>{len(rows)} 个字符，{total} 个字节</p>")

    return live(box, render)

# --- 01 字符、词与子词 ------------------------------------------------------------------------------------

# --- 02 BPE 逐步合并 -------------------------------------------------------------------------------------

# --- 03 中文语料 -----------------------------------------------------------------------------------------
