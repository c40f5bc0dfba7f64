"""How the course shows things: tables that keep Chinese columns aligned, and tokens you can read.

HTML keeps Chinese columns aligned, which fixed-width printing cannot. `show_token` is the one way a token
is written as text everywhere (tables, widgets, printed segmentations): spaces as ␣ so " love" and "love"
differ, line breaks and tabs as \\n and \\t, and bytes that are not a whole UTF-8 character as \\xNN.
"""

from __future__ import annotations

import html
from typing import Sequence

from IPython.display import HTML

from tutorial_lib._checks import check_sequence, check_type

_VISIBLE = str.maketrans({" ": "␣", "\n": "\\n", "\t": "\\t", "\r": "\\r"})


def show_token(token: bytes | str) -> str:
    """A token as readable text: "␣love", "\\n", and "\\xe4\\xb8" for the first two bytes of 世.

    Bytes decode with backslashreplace, so the valid part of a token stays text (b"a\\xe4" -> "a\\xe4").
    """
    check_type(token, "token", (bytes, str), "bytes or str")
    if isinstance(token, bytes):
        token = token.decode("utf-8", errors="backslashreplace")
    return token.translate(_VISIBLE)


def html_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A small HTML table, left-aligned; cells are escaped, so tokens like "<unk>" show up as text."""
    header, rows = check_sequence(header, "header"), check_sequence(rows, "rows")
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in check_sequence(row, "rows item"))
                   + "</tr>" for row in rows)
    return f'<table style="margin-left:0"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> HTML:
    """Display rows as a table in a notebook cell (the cell's last line should be this call)."""
    return HTML(html_table(header, rows))
