"""The figure of chapter 13 (the tokenizer as a contract): each token's span in the original text,
one character to a cell (Han and emoji take two, as in a terminal); the tokens sharing a character
stack in lanes. Characters the font cannot draw (emoji, a zero-width joiner, a lone combining
accent) are written as their code point, so that nothing is silently left blank."""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Sequence

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font
from matplotlib.patches import Patch, Rectangle

from tutorial_lib._check_data import check_bool
from tutorial_lib._checks import check_int, check_int_list, check_str, check_type
from tutorial_lib.show import palette
from tutorial_lib.show.display import show_token
from tutorial_lib.show.plotting import finish


@cache
def _font_has(char: str, families: tuple[str, ...]) -> bool:
    """Whether one of `families` draws `char` (else matplotlib warns and leaves a box)."""
    for family in families:
        path = font_manager.findfont(font_manager.FontProperties(family=family),
                                     fallback_to_default=False)
        if FT2Font(path).get_char_index(ord(char)):
            return True
    return False


def _label(char: str) -> tuple[str, bool]:
    """(what to write in a character's cell, whether that is a code point label)."""
    shown = show_token(char)  # a space as ␣, a newline as \n
    first = tuple(matplotlib.rcParams["font.sans-serif"][:1])  # the font Agg looks in (no fallback)
    drawable = (unicodedata.category(char) not in ("Mn", "Me", "Cf", "Cc") or shown != char)
    drawable = drawable and all(_font_has(c, first) for c in shown)
    return (shown, False) if drawable else (f"U+{ord(char):04X}", True)


def _cells(text: str, columns: int) -> list[tuple[int, int, int]]:
    """(row, first column, width) of each character; a row ends at `columns` or a newline."""
    cells, row, col = [], 0, 0
    for char in text:
        width = 2 if unicodedata.east_asian_width(char) in ("W", "F") or ord(char) > 0xFFFF else 1
        if col + width > columns:
            row, col = row + 1, 0
        cells.append((row, col, width))
        col += width
        if char == "\n":
            row, col = row + 1, 0
    return cells


def _lanes(spans: list[tuple[int, int]]) -> list[int]:
    """A lane for each token, the lowest one free of overlap: tokens sharing a character stack."""
    ends, lanes = [], []  # the end of the last span in each lane; each token's lane
    for start, end in spans:
        lane = next((k for k, last in enumerate(ends) if last <= start), len(ends))
        if lane == len(ends):
            ends.append(end)
        ends[lane] = max(end, start + 1)
        lanes.append(lane)
    return lanes


def _checked(text: object, spans: object, partial: object, ids: object
             ) -> tuple[str, list[tuple[int, int]], list[bool], list[int] | None]:
    text = check_str(text, "text")
    check_type(spans, "spans", (list, tuple), "a list of (start, end) pairs")
    partial = [check_bool(flag, f"partial[{k}]") for k, flag in
               enumerate(check_type(partial, "partial", (list, tuple), "a list of bools"))]
    if len(partial) != len(spans):
        raise ValueError(f"partial must have one bool per span ({len(spans)}), got {len(partial)}")
    checked = []
    for k, span in enumerate(spans):
        if len(check_type(span, f"spans[{k}]", (list, tuple), "a (start, end) pair")) != 2:
            raise ValueError(f"spans[{k}] must be a (start, end) pair, got {span!r}")
        start = check_int(span[0], f"spans[{k}] start", low=0, high=len(text))
        checked.append((start, check_int(span[1], f"spans[{k}] end", low=start, high=len(text))))
    ids = None if ids is None else check_int_list(ids, "ids", low=0)
    if ids is not None and len(ids) != len(spans):
        raise ValueError(f"ids must have one id per span ({len(spans)}), got {len(ids)}")
    return text, checked, partial, ids


def offset_boxes(text: str, spans: Sequence[tuple[int, int]], partial: Sequence[bool], *,
                 title: str, ids: Sequence[int] | None = None, columns: int = 36):
    """`text` one character to a cell, a box per token under its span [start, end), hatched if
    `partial` (it cuts a character), its id in it if `ids` are given; rows wrap at `columns`."""
    text, spans, partial, ids = _checked(text, spans, partial, ids)
    check_type(title, "title", str, "a str")
    columns = check_int(columns, "columns", low=4, high=200)
    cells, lanes = _cells(text, columns), _lanes(spans)
    rows = cells[-1][0] + 1 if cells else 1
    depth = [1] * rows  # lanes of boxes under each row of text
    for (start, end), lane in zip(spans, lanes):
        for row in {cells[k][0] for k in range(start, end)}:
            depth[row] = max(depth[row], lane + 1)
    tops = [0.0]  # where each row of text sits, going down
    for d in depth:
        tops.append(tops[-1] - 1.3 - 0.9 * d)
    fig, ax = plt.subplots(figsize=(0.3 * columns + 0.6, 0.45 * -tops[-1] + 0.9))
    for char, (row, col, width) in zip(text, cells):
        shown, is_code = _label(char)
        ax.text(col + width / 2, tops[row], shown, ha="center", va="center",
                fontsize=5.5 if is_code else 13, color=palette.TOKEN_INK)
    for k, ((start, end), lane) in enumerate(zip(spans, lanes)):
        by_row: dict[int, list[tuple[int, int]]] = {}  # the token's cells, row by row
        for row, col, width in cells[start:end]:
            by_row.setdefault(row, []).append((col, col + width))
        for row, extent in by_row.items():
            left, right = extent[0][0], extent[-1][1]
            y = tops[row] - 0.75 - 0.9 * lane
            ax.add_patch(Rectangle((left + 0.06, y - 0.7), right - left - 0.12, 0.7,
                                   facecolor=palette.TOKENS[k % len(palette.TOKENS)],
                                   edgecolor=palette.CUT if partial[k] else palette.TOKEN_INK,
                                   linewidth=1.6 if partial[k] else 0.6,
                                   hatch="//" if partial[k] else None))
            if ids is not None:
                # on a white patch: over a partial token's red hatching the digits were unreadable
                ax.text((left + right) / 2, y - 0.35, str(ids[k]), ha="center", va="center",
                        fontsize=7, color=palette.TOKEN_INK,
                        bbox={"boxstyle": "round,pad=0.1", "facecolor": "white",
                              "edgecolor": "none", "alpha": 0.85})
    ax.set_xlim(-0.2, columns + 0.2)
    ax.set_ylim(tops[-1] + 0.2, 0.8)
    ax.set_axis_off()
    ax.legend(handles=[Patch(facecolor=palette.TOKENS[0], edgecolor=palette.TOKEN_INK,
                             label="token（框住它覆盖的字符）"),
                       Patch(facecolor=palette.TOKENS[1], edgecolor=palette.CUT, hatch="///",
                             label="只含一个字符的部分字节的 token")],
              loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=2, frameon=False, fontsize=9)
    return finish(fig, ax, title=title)
