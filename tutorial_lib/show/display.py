"""How the course shows things: HTML tables (they keep Chinese columns aligned, which fixed-width
printing cannot), tokens as readable text (`show_token`) and segmentations as coloured spans
(`token_html`)."""

from __future__ import annotations

import html
import math
import re
from numbers import Real
from typing import Sequence

from IPython.display import HTML

from tutorial_lib._checks import check_int, check_int_list, check_sequence, check_type
from tutorial_lib.show import palette

_VISIBLE = str.maketrans({" ": "␣", "\n": "\\n", "\t": "\\t", "\r": "\\r"})


def show_token(token: bytes | str) -> str:
    """A token as readable text: "␣love" (not "love"), "\\n", "\\xe4\\xb8" for 2 bytes of 世."""
    check_type(token, "token", (bytes, str), "bytes or str")
    if isinstance(token, bytes):
        token = token.decode("utf-8", errors="backslashreplace")
    return token.translate(_VISIBLE)


class Markup(str):
    """A table cell that is already HTML (a token view, say): `html_table` inserts it as it is."""


def token_html(tokens: Sequence[bytes | str], ids: Sequence[int] | None = None) -> Markup:
    """A segmentation as coloured spans, ids and bytes on hover; a split character is one group."""
    tokens = [check_type(t, f"tokens[{i}]", (bytes, str), "bytes or str")
              for i, t in enumerate(check_sequence(tokens, "tokens", "a list of bytes"))]
    ids = None if ids is None else check_int_list(ids, "ids")
    if ids is not None and len(ids) != len(tokens):
        raise ValueError(f"ids must have one id per token: {len(ids)} ids for {len(tokens)} tokens")
    spans = []
    for group in _groups([t.encode("utf-8") if isinstance(t, str) else t for t in tokens]):
        colors = [palette.TOKENS[k % len(palette.TOKENS)] for k in group]
        hover = " | ".join(_describe(tokens[k], None if ids is None else ids[k]) for k in group)
        if len(group) == 1:
            style, text = f"background:{colors[0]}", show_token(tokens[group[0]])
        else:
            stops = ",".join(f"{c} {100 * j // len(group)}% {100 * (j + 1) // len(group)}%"
                             for j, c in enumerate(colors))
            style = f"background:linear-gradient(90deg,{stops});outline:1px dashed #888"
            text = show_token(b"".join(tokens[k] for k in group))
        spans.append(f'<span title="{html.escape(hover)}" style="{style};color:{palette.TOKEN_INK};'
                     'padding:1px 2px;margin:0 1px;border-radius:3px;white-space:pre">'
                     f"{html.escape(text)}</span>")
    # <wbr>: a line may break between two tokens (never inside one), so a long English run wraps
    # like CJK does
    return Markup(f'<span style="line-height:1.9">{"<wbr>".join(spans)}</span>')


def id_html(tokenizer: object, ids: Sequence[int]) -> Markup:
    """`ids` drawn as the tokens of `tokenizer` (anything with `token_bytes`, e.g. a Tokenizer)."""
    return token_html([tokenizer.token_bytes(i) for i in ids], ids)


def segmentation_html(rows: Sequence[tuple[str, Sequence[bytes | str], Sequence[int] | None]],
                      first: str = "分词方式") -> str:
    """HTML table of segmentations, rows (name, tokens, ids or None) as `compare.segment` gives."""
    return html_table([first, "token 数", "切分结果（悬停看 id）"],
                      [(name, len(tokens), token_html(tokens, ids)) for name, tokens, ids in rows])


def guess(my_guess: object, measured: object, what: str, *, unit: str = "",
          digits: int | None = None) -> HTML:
    """The learner's prediction next to the measurement, for the cell after a "先猜一猜": until
    `my_guess` is written down the measurement stays folded, as a guess teaches only before."""
    check_type(what, "what", str, "a str")
    check_type(unit, "unit", str, "a str")
    if digits is not None:
        check_int(digits, "digits", low=0, high=12)
    shown = _shown(measured, unit, digits)
    if my_guess is None:
        return HTML(
            html_table(["", "值"], [(f"你的猜测（{what}）", "—")])
            + "<p>你还没写下猜测：先在上一个单元格里填 my_guess，再运行这里。</p>"
            + f"<details><summary>{html.escape(GIVE_UP)}</summary>"
            + html_table(["", "值"], [(f"实测（{what}）", shown)]) + "</details>"
        )
    rows = [(f"你的猜测（{what}）", _shown(my_guess, unit, None)), (f"实测（{what}）", shown)]
    verdict = html.escape(_verdict(my_guess, measured))
    return HTML(html_table(["", "值"], rows) + f"<p>{verdict}</p>")


GIVE_UP = "我不猜了，直接看答案"
_NUMBER = re.compile(r"\s*([+-]?(?:\d[\d,]*)?\.?\d+(?:[eE][+-]?\d+)?)\s*(%|％|倍|x|×)?\s*")


def as_number(value: object) -> float | int | None:
    """`value` as a number if it is one or spells one ("95.5%", "1,024", " 3 倍"), else None."""
    if _is_number(value):
        return value
    match = _NUMBER.fullmatch(value) if isinstance(value, str) else None
    if match is None:
        return None
    number = float(match.group(1).replace(",", ""))
    return int(number) if number.is_integer() and "." not in match.group(1) else number


def _verdict(my_guess: object, measured: object) -> str:
    guessed, actual = as_number(my_guess), as_number(measured)
    if guessed is None or actual is None:
        same = str(my_guess).strip() == str(measured).strip()
        return "猜中了。" if same else "和实测不同，想想差在哪里。"
    if math.isclose(guessed, actual, rel_tol=1e-9, abs_tol=1e-12):
        return "猜中了。"
    if not actual:
        return f"实测是 0，你猜的是 {guessed:g}。"
    ratio = guessed / actual
    return f"你的猜测是实测值的 {ratio:.3g} 倍。" if 0.95 < ratio < 1.05 else \
        f"你的猜测是实测值的 {ratio:.2g} 倍。"


def _shown(value: object, unit: str, digits: int | None) -> str:
    if not _is_number(value):
        return str(value)
    return f"{value:,.{digits}f}{unit}" if digits is not None else f"{value:,}{unit}"


def _is_number(value: object) -> bool:
    """An int or float (numpy's too), not a bool, not nan or inf."""
    return isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(value)


def _groups(tokens: list[bytes]) -> list[list[int]]:
    """Token indices grouped so that a token ending inside a UTF-8 character joins the next one."""
    groups: list[list[int]] = []
    owed = 0  # continuation bytes the current character still needs
    for k, token in enumerate(tokens):
        if owed and groups:
            groups[-1].append(k)
        else:
            groups.append([k])
        for b in token:
            if owed and b & 0xC0 == 0x80:
                owed -= 1
            else:  # a lead byte says how long its character is: 110xxxxx 2, 1110xxxx 3, ...
                owed = (1 if b >> 5 == 0b110 else 2 if b >> 4 == 0b1110
                        else 3 if b >> 3 == 0b11110 else 0)
    return groups


def _describe(token: bytes | str, token_id: int | None) -> str:
    shown = show_token(token)
    shown = shown if isinstance(token, str) else f"{shown} ({token.hex(' ')})"
    return shown if token_id is None else f"id {token_id}: {shown}"


# JupyterLab right-aligns table cells; text and tokens read better on the left
_LEFT = 'style="text-align:left"'


def _cell(value: object) -> str:
    return value if isinstance(value, Markup) else html.escape(str(value))


def html_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A small HTML table, left-aligned; cells are escaped (so "<unk>" shows) unless Markup."""
    header, rows = check_sequence(header, "header"), check_sequence(rows, "rows")
    head = "".join(f"<th {_LEFT}>{html.escape(str(h))}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td {_LEFT}>{_cell(c)}</td>"
                                    for c in check_sequence(row, "rows item")) + "</tr>"
                   for row in rows)
    return (f'<table style="margin-left:0"><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> HTML:
    """Display rows as a table in a notebook cell (as the cell's last line)."""
    return HTML(html_table(header, rows))


def tokens(tokens: Sequence[bytes | str], ids: Sequence[int] | None = None) -> HTML:
    """Display one segmentation as colored spans in a notebook cell (see `token_html`)."""
    return HTML(token_html(tokens, ids))


def segmentations(rows: Sequence[tuple[str, Sequence[bytes | str], Sequence[int] | None]],
                  first: str = "分词方式") -> HTML:
    """Display several segmentations in a notebook cell (see `segmentation_html`)."""
    return HTML(segmentation_html(rows, first))
