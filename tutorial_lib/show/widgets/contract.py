"""The widget of chapter 13 (the tokenizer as a contract): a golden vectors file (`golden.read`),
one category at a time. Read as JSON it is a wall of ids; category by category, tokens drawn and
offsets beside them, it shows what each category pins down."""

from __future__ import annotations

import html
from collections.abc import Sequence

import ipywidgets as w

from tutorial_lib._check_data import check_has
from tutorial_lib._checks import check_type
from tutorial_lib.show.display import Markup, html_table, id_html, show_token
from tutorial_lib.show.widgets import live

SHOWN_SPANS = 12  # offsets listed per vector; the rest are counted


def _text(value: str) -> str:
    """Whitespace made visible; a lone surrogate (no UTF-8 form) as its escape."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return html.escape(repr(value))
    return html.escape(show_token(value))


def _spans(offsets: Sequence[Sequence[int]]) -> str:
    shown = " ".join(f"[{a},{b})" for a, b in offsets[:SHOWN_SPANS])
    more = len(offsets) - SHOWN_SPANS
    return shown + (f" …（还有 {more} 个）" if more > 0 else "")


def _error(error: dict | None) -> str:
    return "—" if error is None else html.escape(f"{error['type']}: {error['message']}")


def vector_row(tokenizer: object, vector: dict) -> tuple[str, str, str, str, str]:
    """(input, N(input), tokens, offsets, decoded or error) of one vector, each escaped HTML."""
    if "input_hex" in vector:  # the decode side: bytes that are not UTF-8, as byte tokens
        decoded = (f"replace：{_text(vector['decoded'])}<br>backslashreplace："
                   f"{html.escape(vector['decoded_backslashreplace'])}<br>strict："
                   f"{_error(vector['error'])}")
        return f"字节 {vector['input_hex']}", "—", id_html(tokenizer, vector["ids"]), "—", decoded
    if "ids" not in vector:  # refused by encode
        return _text(vector["input"]), "—", "—", "—", _error(vector["error"])
    same = vector["normalized"] == vector["input"]
    normalized = "（与输入相同）" if same else _text(vector["normalized"])
    tokens, decoded = id_html(tokenizer, vector["ids"]), _text(vector["decoded"])
    if "ids_allowed_special" in vector:  # a control-token look-alike: both ways of encoding it
        tokens += "<br>允许特殊 token 时：" + id_html(tokenizer, vector["ids_allowed_special"])
        decoded += f"<br>encode（不允许）：{_error(vector['encode_error'])}"
    return _text(vector["input"]), normalized, tokens, _spans(vector["offsets"]), decoded


def golden_html(tokenizer: object, vectors: Sequence[dict], category: str) -> str:
    """The vectors of one category as a table."""
    rows = [tuple(map(Markup, vector_row(tokenizer, v))) for v in vectors
            if v["category"] == category]
    if not rows:
        raise ValueError(f"category {category!r} has no vectors here")
    return (f"<p>{len(rows)} 条向量</p>"
            + html_table(["输入", "N(输入)", "切分（悬停看 id）", "偏移 [start, end)",
                          "解码 / 错误"], rows))


def golden_explorer(tokenizer: object, vectors: Sequence[dict],
                    descriptions: dict[str, str] | None = None) -> w.VBox:
    """A dropdown of the categories in `vectors`, the chosen one's table, its description above."""
    check_has(tokenizer, "tokenizer", ("token_bytes",), "a Tokenizer")
    check_type(vectors, "vectors", (list, tuple), "a list of golden vectors")
    categories = list(dict.fromkeys(v["category"] for v in vectors))
    if not categories:
        raise ValueError("vectors is empty: read a golden file with golden.read")
    descriptions = descriptions or {}
    choice = w.Dropdown(options=categories, description="类别")

    def render(category: str) -> str:
        about = descriptions.get(category)
        head = f"<p><b>{html.escape(category)}</b>：{html.escape(about)}</p>" if about else ""
        return head + golden_html(tokenizer, vectors, category)

    return w.VBox([choice, live(render, choice)])
