"""Matplotlib that speaks Chinese on any machine, and the charts both halves of the course draw.

A fresh pip-only machine has no CJK font, and matplotlib then draws empty boxes and warns
"Glyph ... missing from font". We prefer a CJK font the system already has; otherwise we register
the Noto Sans SC file (SIL Open Font License) that the `zhplot` wheel carries. We only read that
file: importing zhplot itself would change global settings behind the learner's back.

Plot functions only draw: every number they show is computed by the library and passed in, and
every colour comes from `palette`.

The figures of one half live beside this module: `plotting.tokenization` (chapters 01-06) and
`plotting.packing` (chapters 07-10); chapter 12's (judging a tokenizer) are `plotting.evaluation`,
chapter 13's (the tokenizer as a contract) `plotting.contract`.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Sequence

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import font_manager

from tutorial_lib._check_data import (check_bool, check_non_empty_dict, check_number,
                                      check_number_list, check_same_length, check_str_list)
from tutorial_lib.show import palette

SYSTEM_CJK_FONTS = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC", "Hiragino Sans GB",
)


def bundled_font_path() -> Path:
    """Path of the Noto Sans SC file inside the installed zhplot wheel (found without importing
    zhplot)."""
    spec = importlib.util.find_spec("zhplot")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("package zhplot is not installed; run `make install` "
                                "(it ships the Chinese font)")
    path = Path(spec.origin).parent / "fonts" / "NotoSansSC-Regular.ttf"
    if not path.is_file():
        raise FileNotFoundError(f"Chinese font not found at {path}; reinstall zhplot")
    return path


def register_bundled_font() -> str:
    """Add the bundled Noto Sans SC to matplotlib's font list; return its family name."""
    path = bundled_font_path()
    font_manager.fontManager.addfont(str(path))
    return font_manager.FontProperties(fname=str(path)).get_name()


def find_system_cjk_font() -> str | None:
    """The first known Simplified Chinese font the system already has, or None."""
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in SYSTEM_CJK_FONTS if name in installed), None)


def setup_chinese(prefer_system: bool = True) -> str:
    """Make every later figure draw Chinese labels; return the CJK font family in use.

    DejaVu Sans stays second in the list so that glyphs the CJK font lacks still fall back to it,
    and `axes.unicode_minus` is off so axis ticks use the ASCII hyphen every font has.
    """
    family = (find_system_cjk_font() if prefer_system else None) or register_bundled_font()
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["font.sans-serif"] = [family, "DejaVu Sans"]
    matplotlib.rcParams["axes.unicode_minus"] = False
    return family


def bar_chart(labels: Sequence[str], values: Sequence[float], *, title: str, ylabel: str,
              reference: float | None = None):
    """A labelled bar chart, values on the bars; `reference` draws a dashed line, e.g. at 1.0."""
    labels, values = check_str_list(labels, "labels"), check_number_list(values, "values")
    check_same_length(labels=labels, values=values)
    if reference is not None:
        check_number(reference, "reference")
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels)), 3.5))
    bars = ax.bar(labels, values, color=palette.DOCUMENTS[0])
    ax.bar_label(bars, fmt="%.2f", fontsize=8)
    if reference is not None:
        ax.axhline(reference, color=palette.GUIDE, linestyle="--", linewidth=1)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", rotation=45)
    fig.tight_layout()
    return fig


def _series(series: object, **axis: Sequence) -> dict[str, list[float]]:
    """`series` checked as a non-empty dict of name -> numbers, each as long as the one `axis`
    given (labels or x)."""
    check_non_empty_dict(series, "series", "name -> values")
    series = {name: check_number_list(values, f"series[{name!r}]")
              for name, values in series.items()}
    for name, values in series.items():
        check_same_length(**axis, **{f"series[{name!r}]": values})
    return series


def grouped_bar_chart(labels: Sequence[str], series: dict[str, Sequence[float]], *, title: str,
                      ylabel: str):
    """Bars grouped by label, one colour per series (e.g. tokenizers x evaluation sets), values on
    the bars."""
    labels = check_str_list(labels, "labels")
    series = _series(series, labels=labels)
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(max(6.5, 1.3 * len(labels)), 3.8))
    for j, (name, values) in enumerate(series.items()):
        xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(labels))]
        ax.bar_label(ax.bar(xs, values, width, label=name), fmt="%.2f", fontsize=7)
    ax.set_xticks(range(len(labels)), labels, rotation=15)
    ax.set_ylim(0, max(max(v) for v in series.values()) * 1.15)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def line_chart(x: Sequence[float], series: dict[str, Sequence[float]], *, title: str, xlabel: str,
               ylabel: str, logx: bool = False, percent: bool = False):
    """One line per series over the same x values (e.g. padding share against batch size, one line
    per batching).

    `percent` draws values given as shares (0..1) as percentages.
    """
    x = check_number_list(x, "x")
    series = _series(series, x=x)
    check_bool(logx, "logx")
    check_bool(percent, "percent")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for (name, values), marker in zip(series.items(), "osD^vx*+"):
        ax.plot(x, [100 * v if percent else v for v in values], marker=marker, markersize=4,
                label=name)
    if logx:
        ax.set_xscale("log", base=2)
        ax.set_xticks(x, [f"{v:g}" for v in x])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, linestyle=":", linewidth=0.6)
    if percent:
        ax.set_ylim(0, 100)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
