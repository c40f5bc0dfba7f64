"""Tables for notebooks. HTML keeps Chinese columns aligned, which fixed-width printing cannot."""

from __future__ import annotations

import html
from typing import Sequence

from IPython.display import HTML


def html_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A small HTML table; cells are escaped, so tokens like "<unk>" show up as text."""
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table style="margin-left:0"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> HTML:
    """Display rows as a table in a notebook cell (the cell's last line should be this call)."""
    return HTML(html_table(header, rows))
