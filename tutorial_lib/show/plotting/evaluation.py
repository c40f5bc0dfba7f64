"""The figures of chapter 12 (judging a tokenizer): the distribution of the token premium, and
points labelled one by one (bits per byte against bytes per token, a quota's frontier)."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
from matplotlib.patches import Patch
from matplotlib.ticker import NullFormatter

from tutorial_lib._check_data import (check_bool, check_non_empty_dict, check_number,
                                      check_number_list, check_same_length, check_str_list)
from tutorial_lib._checks import check_type
from tutorial_lib.show import palette
from tutorial_lib.show.plotting import finish, legend_beside

LOG_TICKS = (0.25, 0.5, 1, 2, 3, 5, 10, 20, 30, 50, 100)  # a log axis's labels: round premiums


def _premium_series(series: object) -> dict[str, dict[str, list[float]]]:
    """Every tokenizer with the same languages in order, every premium list non-empty, > 0."""
    check_non_empty_dict(series, "series", "tokenizer -> {language: premiums}")
    checked, langs = {}, None
    for name, by_lang in series.items():
        where = f"series[{name!r}]"
        check_non_empty_dict(by_lang, where, "language -> premiums")
        langs = langs or list(by_lang)
        if list(by_lang) != langs:
            raise ValueError(f"{where} must have the same languages in the same order as the "
                             f"first tokenizer ({langs}), got {list(by_lang)}")
        checked[name] = {}
        for lang, values in by_lang.items():
            values = check_number_list(values, f"{where}[{lang!r}]", low=0)
            if not values or min(values) <= 0:
                raise ValueError(f"{where}[{lang!r}] must be a non-empty list of premiums > 0")
            checked[name][lang] = values
    return checked


def premium_boxes(series: dict[str, dict[str, Sequence[float]]], *, title: str,
                  ylabel: str = "token 溢价（÷ 英语的 token 数）",
                  logy: bool = False, reference: float | None = 1.0):
    """Token premiums {tokenizer: {language: per-sentence premiums}} as boxes; the whiskers end
    at the 10th and 90th percentiles' sentences, and the sentences beyond them are not drawn (a
    thousand dots per box hid the whiskers). `logy` puts 2 and 1/2 equally far from 1."""
    series = _premium_series(series)
    check_bool(logy, "logy")
    if reference is not None:
        check_number(reference, "reference", low=0, low_open=True)
    check_type(title, "title", str, "a str")
    langs = list(next(iter(series.values())))
    width = 0.8 / len(series)
    fig, ax = plt.subplots(figsize=(min(10, max(7, 0.25 * len(langs) * len(series) + 2)), 4.2))
    for j, (name, by_lang) in enumerate(series.items()):
        colour = palette.DOCUMENTS[j % len(palette.DOCUMENTS)]
        xs = [i + (j - (len(series) - 1) / 2) * width for i in range(len(langs))]
        ax.boxplot([by_lang[lang] for lang in langs], positions=xs, widths=width * 0.85,
                   whis=(10, 90), showfliers=False, patch_artist=True, manage_ticks=False,
                   boxprops={"facecolor": colour, "edgecolor": colour, "alpha": 0.75},
                   medianprops={"color": palette.TOKEN_INK},
                   whiskerprops={"color": colour}, capprops={"color": colour})
    if reference is not None:
        ax.axhline(reference, color=palette.GUIDE, linestyle="--", linewidth=1)
    if logy:
        values = [v for by_lang in series.values() for vs in by_lang.values() for v in vs]
        ax.set_yscale("log")
        ticks = [t for t in LOG_TICKS if min(values) / 1.5 <= t <= max(values) * 1.5]
        ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xticks(range(len(langs)), langs, rotation=30)
    ax.grid(True, axis="y", linestyle=":", linewidth=0.6)
    legend_beside(ax, [Patch(facecolor=palette.DOCUMENTS[j % len(palette.DOCUMENTS)], alpha=0.75)
                       for j in range(len(series))], list(series))
    return finish(fig, ax, title=title, ylabel=ylabel)


Points = tuple[Sequence[float], Sequence[float], Sequence[str]]  # xs, ys, a label per point


def _points(series: object, where: str) -> dict[str, Points]:
    check_non_empty_dict(series, where, "series name -> (xs, ys, labels)")
    checked = {}
    for name, (xs, ys, labels) in series.items():
        xs = check_number_list(xs, f"{where}[{name!r}] xs")
        ys = check_number_list(ys, f"{where}[{name!r}] ys")
        labels = check_str_list(labels, f"{where}[{name!r}] labels")
        if not len(xs) == len(ys) == len(labels) or not xs:
            raise ValueError(f"{where}[{name!r}] must hold as many xs, ys and labels, at least one")
        checked[name] = (xs, ys, labels)
    return checked


def labelled_panels(panels: dict[str, dict[str, Points]], *, title: str, xlabel: str,
                    ylabels: Sequence[str]):
    """Panels side by side, each {series: (xs, ys, labels)}: a line or a single marker per series,
    in the same colour in every panel, each point labelled; a lone point by its series' name, every
    other one below the one before, since two lone points can fall on the same spot."""
    check_non_empty_dict(panels, "panels", "panel title -> {series: (xs, ys, labels)}")
    checked = {t: _points(series, f"panels[{t!r}]") for t, series in panels.items()}
    check_same_length(ylabels=check_str_list(ylabels, "ylabels"), panels=checked)
    check_type(title, "title", str, "a str")
    names = list(dict.fromkeys(name for series in checked.values() for name in series))
    fig, axes = plt.subplots(1, len(checked), figsize=(6.2 * len(checked), 4.2), squeeze=False)
    for ax, (panel, series), ylabel in zip(axes[0], checked.items(), ylabels):
        lone = 0
        for name, (xs, ys, labels) in series.items():
            colour = palette.DOCUMENTS[names.index(name) % len(palette.DOCUMENTS)]
            ax.plot(xs, ys, marker="o", markersize=5, color=colour, label=name,
                    linestyle="-" if len(xs) > 1 else "none")
            below = len(xs) == 1 and lone % 2 == 1
            lone += len(xs) == 1
            for x, y, label in zip(xs, ys, labels):
                ax.annotate(label, (x, y), textcoords="offset points",
                            xytext=(4, -11 if below else 4), fontsize=8, color=colour)
        ax.margins(x=0.08, y=0.08)
        ax.set_title(panel, fontsize=10)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.grid(True, linestyle=":", linewidth=0.6)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    return fig
