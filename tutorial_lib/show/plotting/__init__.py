"""Matplotlib that speaks Chinese on any machine, and the charts both halves of the course draw
(each part's figures live beside this module); plots only draw what the library computed.

A fresh pip-only machine has no CJK font, and matplotlib draws empty boxes: we prefer a system CJK
font, else read the Noto Sans SC file of the `zhplot` wheel (importing zhplot would change global
settings behind the learner's back)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Sequence

import matplotlib
import matplotlib.pyplot as plt
from matplotlib import font_manager

from tutorial_lib._check_data import (check_bool, check_dict_of, check_number, check_number_list,
                                      check_same_length, check_str_list)
from tutorial_lib.show import palette

# at most 10 inches wide: a wider figure is shrunk to the output area, its labels to a few pixels
MAX_WIDTH = 10
SYSTEM_CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
                    "WenQuanYi Zen Hei", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC",
                    "Hiragino Sans GB")


def bundled_font_path() -> Path:
    """Path of the Noto Sans SC file in the installed zhplot wheel (found without importing it)."""
    spec = importlib.util.find_spec("zhplot")
    folder = Path(spec.origin).parent if spec and spec.origin else Path("zhplot (not installed)")
    path = folder / "fonts" / "NotoSansSC-Regular.ttf"
    if not path.is_file():
        raise FileNotFoundError(f"Chinese font not found at {path}; run `make install` (package "
                                "zhplot ships it)")
    return path


def setup_chinese(prefer_system: bool = True) -> str:
    """Make every later figure draw Chinese labels; return the CJK font family in use."""
    installed = {font.name for font in font_manager.fontManager.ttflist} if prefer_system else ()
    family = next((name for name in SYSTEM_CJK_FONTS if name in installed), None)
    if family is None:  # register the bundled font
        path = str(bundled_font_path())
        font_manager.fontManager.addfont(path)
        family = font_manager.FontProperties(fname=path).get_name()
    matplotlib.rcParams["font.family"] = "sans-serif"
    matplotlib.rcParams["font.sans-serif"] = [family, "DejaVu Sans"]  # for glyphs CJK fonts lack
    matplotlib.rcParams["axes.unicode_minus"] = False  # ticks use the hyphen every font has
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
    ax.tick_params(axis="x", rotation=45)
    return finish(fig, ax, title=title, ylabel=ylabel)


def legend_beside(ax, *handles_and_labels: list) -> None:
    """The legend right of the axes, never over a bar, a marker or a histogram's peak; the
    artists' own labels, or `ax.legend`'s (handles, labels)."""
    ax.legend(*handles_and_labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1),
              frameon=False)


def legend_below(fig, ax) -> None:
    """The legend under the axes, one entry a line, for labels too long to sit beside them (a
    legend beside took half the figure's width from the axes): the figure grows by the legend's
    height, so the axes keep their size. Call it after `finish`."""
    legend = fig.legend(*ax.get_legend_handles_labels(), fontsize=8, loc="lower left",
                        bbox_to_anchor=(0, 0), frameon=False)
    height = legend.get_window_extent(fig.canvas.get_renderer()).height / fig.dpi
    width, before = fig.get_size_inches()
    fig.set_size_inches(width, before + height)
    fig.tight_layout(rect=(0, height / (before + height), 1, 1))
    x0 = ax.get_position().x0  # the legend starts where the axes do
    legend.set_bbox_to_anchor((x0 - 0.01, 0), transform=fig.transFigure)


def finish(fig, ax, *, title: str, xlabel: str | None = None, ylabel: str | None = None,
           legend: bool = False, grid: str | None = None):
    """What every figure ends with: title, axis labels, legend, dotted grid, tight layout."""
    ax.set_title(title)
    if xlabel is not None:
        ax.set_xlabel(xlabel)
    if ylabel is not None:
        ax.set_ylabel(ylabel)
    if grid:
        ax.grid(True, which=grid, linestyle=":", linewidth=0.6)
    if legend:
        legend_beside(ax)
    fig.tight_layout()
    return fig


def _series(series: object, **axis: Sequence) -> dict[str, list[float]]:
    """`series` checked as a non-empty dict of name -> numbers as long as `axis` (labels or x)."""
    series = check_dict_of(series, "series", "name -> values", check_number_list)
    for name, values in series.items():
        check_same_length(**axis, **{f"series[{name!r}]": values})
    return series


def grouped_bar_chart(labels: Sequence[str], series: dict[str, Sequence[float]], *, title: str,
                      ylabel: str):
    """Bars grouped by label, a colour per series (tokenizers x evaluation sets), values on top."""
    labels = check_str_list(labels, "labels")
    series = _series(series, labels=labels)
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(min(MAX_WIDTH, max(6.5, 0.8 * len(labels))), 3.8))
    values_on_top = []
    for j, (name, values) in enumerate(series.items()):
        xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(labels))]
        values_on_top += ax.bar_label(ax.bar(xs, values, width, label=name), fmt="%.2f",
                                      fontsize=7)
    ax.set_xticks(range(len(labels)), labels, rotation=15 if len(labels) < 8 else 35)
    ax.set_ylim(0, max(max(v) for v in series.values()) * 1.15)
    finish(fig, ax, title=title, ylabel=ylabel, legend=True)
    return _keep_apart(fig, ax, values_on_top)


def _overlapping(fig, texts, gap: float) -> bool:
    """Whether two of `texts` (drawn, non-empty) come closer than `gap` pixels on the canvas."""
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer).padded(gap / 2) for t in texts if t.get_text()]
    return any(a.overlaps(b) for k, a in enumerate(boxes) for b in boxes[k + 1:])


def _keep_apart(fig, ax, values_on_top: list):
    """Tick labels that run into each other slant from their tick (right-aligned); values on
    neighbouring bars that touch get a wider figure, up to `MAX_WIDTH`, until a few pixels part
    them. A figure whose labels are all apart is left as it is."""
    if _overlapping(fig, ax.get_xticklabels(), gap=0):
        plt.setp(ax.get_xticklabels(), ha="right", rotation_mode="anchor")
        fig.tight_layout()
    if _overlapping(fig, values_on_top, gap=3):  # closer than that, two values read as one
        while _overlapping(fig, values_on_top, gap=5) and fig.get_figwidth() < MAX_WIDTH:
            fig.set_figwidth(min(MAX_WIDTH, fig.get_figwidth() + 0.5))
            fig.tight_layout()
    return fig


def line_chart(x: Sequence[float], series: dict[str, Sequence[float]], *, title: str, xlabel: str,
               ylabel: str, logx: bool = False, percent: bool = False):
    """One line per series over the same x values; `percent` draws shares (0..1) as percentages."""
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
    if percent:
        ax.set_ylim(0, 100)
    return finish(fig, ax, title=title, xlabel=xlabel, ylabel=ylabel, legend=True, grid="major")
