"""The figures of the tokenization chapters (01-06 and 11): merges, Zipf, coverage, vocabulary size,
timing, the Unigram lattice and training curves."""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
from matplotlib.patches import Arc
from matplotlib.ticker import NullFormatter
from matplotlib.transforms import Bbox

from tutorial_lib._check_data import (check_bool, check_dict_of, check_non_empty_dict, check_number,
                                      check_number_list, check_same_length, check_str_list)
from tutorial_lib._checks import (check_choice, check_int, check_int_list, check_sequence,
                                  check_str, check_type)
from tutorial_lib.show import palette
from tutorial_lib.show.plotting import finish

FIRST, SECOND = palette.DOCUMENTS[:2]  # a plot's first and second series
MARKERS = "osD^vx*+"


def merge_progress(merges: Sequence[int], tokens: Sequence[int], vocab: Sequence[int], *,
                   title: str, mark: int | None = None):
    """Corpus tokens (left axis) and vocabulary size (right) per merge count; `mark` one count."""
    merges = check_int_list(merges, "merges", low=0)
    tokens = check_int_list(tokens, "tokens", low=0)
    vocab = check_int_list(vocab, "vocab", low=0)
    check_same_length(merges=merges, tokens=tokens, vocab=vocab)
    if mark is not None:
        check_int(mark, "mark", low=0)
    fig, left = plt.subplots(figsize=(7, 3.5))
    right = left.twinx()
    left.plot(merges, tokens, "o-", color=FIRST, label="语料总 token 数（按词频加权）")
    right.plot(merges, vocab, "s--", color=SECOND, label="词表大小")
    if mark is not None:
        left.axvline(mark, color=palette.GUIDE, linestyle=":", linewidth=1)
    left.set_ylabel("语料总 token 数", color=FIRST)
    right.set_ylabel("词表大小", color=SECOND)
    handles = left.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    left.legend(handles, [h.get_label() for h in handles], loc="upper center", fontsize=8)
    return finish(fig, left, title=title, xlabel="合并次数")


def pair_count_bars(labels: Sequence[str], counts: Sequence[int], *, title: str,
                    chosen: str | None = None):
    """Bars of pair counts; those tied at the top are orange, the `chosen` label hatched."""
    labels, counts = check_str_list(labels, "labels"), check_int_list(counts, "counts", low=0)
    check_same_length(labels=labels, counts=counts)
    if chosen is not None:
        check_choice(chosen, "chosen", labels)
    top = max(counts, default=0)
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(labels)), 3.5))
    bars = ax.bar(labels, counts, color=[SECOND if c == top else FIRST for c in counts])
    for bar, label in zip(bars, labels):
        if label == chosen:
            bar.set_hatch("//")
    ax.bar_label(bars, fontsize=8)
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.tick_params(axis="x", rotation=60)
    return finish(fig, ax, title=title, ylabel="加权出现次数")


def zipf_plot(series: dict[str, Sequence[int]], *, title: str,
              reference_exponent: float | None = 1.0):
    """Frequency against rank on log-log axes, a line per series; Zipf's law (frequency ~ 1/rank^a)
    is a line of slope -a, drawn through the first series' top count for `reference_exponent`."""
    series = check_dict_of(series, "series", "name -> frequencies", check_int_list, low=1)
    for name, freqs in series.items():
        if not freqs or freqs != sorted(freqs, reverse=True):
            raise ValueError(f"series[{name!r}] must be a non-empty list of counts from the most "
                             "to the least frequent (rank 1 first), e.g. "
                             "sorted(counts.values(), reverse=True)")
    if reference_exponent is not None:
        check_number(reference_exponent, "reference_exponent", low=0, low_open=True)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, freqs in series.items():
        ax.loglog(range(1, len(freqs) + 1), freqs, label=f"{name}（{len(freqs)} 种）")
    if reference_exponent is not None:
        first = next(iter(series.values()))
        ranks = range(1, len(first) + 1)
        label = "齐普夫定律：频率 ∝ 1/排名" + ("" if reference_exponent == 1
                                              else f"^{reference_exponent:g}")
        ax.loglog(ranks, [first[0] / r ** reference_exponent for r in ranks], color=palette.GUIDE,
                  linestyle="--", linewidth=1, label=label)
    return finish(fig, ax, title=title, xlabel="排名（rank，对数坐标）",
                  ylabel="出现次数（对数坐标）", legend=True)


def tradeoff_scatter(labels: Sequence[str], vocab_sizes: Sequence[int], lengths: Sequence[int], *,
                     title: str, flagged: Sequence[bool] | None = None, flag_label: str = "有 OOV",
                     xlabel: str = "词表大小（对数坐标）", ylabel: str = "同一段文本的 token 数"):
    """One labelled point per tokenizer: vocabulary size (log x) against the token count of the
    same text; `flagged` points (e.g. the tokenizers that produce `<unk>`) are orange."""
    labels = check_str_list(labels, "labels")
    vocab_sizes = check_int_list(vocab_sizes, "vocab_sizes", low=1)  # the x axis is logarithmic
    lengths = check_int_list(lengths, "lengths", low=0)
    flags = [False] * len(labels) if flagged is None else [
        check_bool(f, f"flagged[{i}]")
        for i, f in enumerate(check_sequence(flagged, "flagged", "a list of bool"))]
    check_same_length(labels=labels, vocab_sizes=vocab_sizes, lengths=lengths, flagged=flags)
    fig, ax = plt.subplots(figsize=(7, 4))
    for flag, color, name in ((False, FIRST, None), (True, SECOND, flag_label)):
        points = [(x, y) for x, y, f in zip(vocab_sizes, lengths, flags) if f == flag]
        if points:
            ax.scatter(*zip(*points), color=color, zorder=3, label=name if flag else None)
    ax.set_xscale("log")
    ax.margins(x=0.16)  # room for the rightmost point's label
    ax.set_ylim(0, max(lengths, default=1) * 1.12)
    finish(fig, ax, title=title, xlabel=xlabel, ylabel=ylabel, legend=any(flags), grid="major")
    _label_points(fig, ax, labels, vocab_sizes, lengths)
    return fig


# where a point's label may go, in the order tried: offset (points), horizontal, vertical alignment
LABEL_SPOTS = ((6, 4, "left", "bottom"), (6, -4, "left", "top"), (0, 7, "center", "bottom"),
               (0, -7, "center", "top"), (-6, 4, "right", "bottom"), (-6, -4, "right", "top"))


def _label_points(fig, ax, labels: list[str], xs: list, ys: list) -> None:
    """Each point's label at the first of `LABEL_SPOTS` where it stays inside the axes and covers
    no point and no label placed before it (two points at the same height once had their labels
    run into each other); at the first spot if none is free."""
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    dots = [Bbox.from_bounds(px - 5, py - 5, 10, 10) for px, py in ax.transData.transform(
        list(zip(xs, ys)))]
    taken = []
    for label, x, y in zip(labels, xs, ys):
        for dx, dy, ha, va in LABEL_SPOTS:
            text = ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha,
                               va=va, fontsize=8)
            box = text.get_window_extent(renderer).padded(-1, -2)  # the ink, not the line
            inside = frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and \
                box.y1 <= frame.y1
            if inside and not any(box.overlaps(other) for other in dots + taken):
                break
            text.remove()
        else:  # no free spot: the first one
            dx, dy, ha, va = LABEL_SPOTS[0]
            text = ax.annotate(label, (x, y), textcoords="offset points", xytext=(dx, dy), ha=ha,
                               va=va, fontsize=8)
            box = text.get_window_extent(renderer).padded(-1, -2)
        taken.append(box)


def coverage_plot(curve: Sequence[float], marks: dict[float, int], *, title: str):
    """Share of a text covered by its k most frequent characters against k, `marks` level -> k."""
    curve = check_number_list(curve, "curve", low=0, high=1)
    if not curve:
        raise ValueError("curve must not be empty")
    for level, k in check_type(marks, "marks", dict, "a dict of coverage level -> rank").items():
        check_number(level, "each key of marks", low=0, high=1, low_open=True)
        check_int(k, f"marks[{level}]", low=1, high=len(curve))
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.plot(range(1, len(curve) + 1), [100 * c for c in curve], color=FIRST)
    for level, k in sorted(marks.items()):
        ax.axvline(k, color=palette.GUIDE, linestyle=":", linewidth=1)
        ax.plot([k], [100 * curve[k - 1]], "o", color=SECOND)
    if marks:
        notes = "\n".join(f"覆盖 {100 * level:g}%：{k} 个字" for level, k in sorted(marks.items()))
        ax.text(0.97, 0.06, notes, transform=ax.transAxes, ha="right", va="bottom", fontsize=9,
                bbox={"boxstyle": "round", "facecolor": palette.BACKGROUND, "edgecolor": SECOND})
    ax.set_xscale("log")
    ax.set_xlim(1, len(curve) * 1.05)
    return finish(fig, ax, title=title, xlabel="按频率排名的前 k 个不同字符（对数坐标）",
                  ylabel="覆盖的文本比例（%）", grid="major")


def vocab_size_curves(series: dict[str, tuple[Sequence[int], Sequence[float]]], *, title: str,
                      ylabel: str, xlabel: str = "词表大小（对数坐标）", logy: bool = False,
                      percent: bool = False):
    """A line per series (sizes, values) over its own vocabulary sizes, log x ticked 256, 1K, ..."""
    check_non_empty_dict(series, "series", "name -> (vocab sizes, values)")
    check_bool(logy, "logy")
    check_bool(percent, "percent")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    low, high = float("inf"), 0
    for (name, pair), marker in zip(series.items(), MARKERS):
        sizes, values = check_sequence(pair, f"series[{name!r}]",
                                       "a pair (vocab sizes, values)")
        sizes = check_int_list(sizes, f"series[{name!r}] sizes", low=1)
        values = check_number_list(values, f"series[{name!r}] values")
        check_same_length(sizes=sizes, values=values)
        ax.plot(sizes, [100 * v if percent else v for v in values], marker=marker, markersize=4,
                label=name)
        low, high = min(low, *sizes), max(high, *sizes)
    ax.set_xscale("log", base=2)
    ticks = [2 ** k for k in range(20) if low <= 2 ** k <= high]
    ax.set_xticks(ticks, [f"{t // 1024}K" if t >= 1024 else str(t) for t in ticks])
    if logy:
        ax.set_yscale("log")
    return finish(fig, ax, title=title, xlabel=xlabel, ylabel=ylabel, legend=True, grid="major")


def loglog_panels(panels: dict[str, dict[str, tuple[Sequence[float], Sequence[float]]]], *,
                  title: str, xlabel: str, ylabel: str):
    """Side-by-side log-log panels sharing the y axis, {panel: {series: (x, y)}}; the x ticks are
    the measured sizes (minor labels such as "3 × 10¹" collide), one legend below all panels."""
    check_non_empty_dict(panels, "panels", "panel title -> {series name: (x, y)}")
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.3), sharey=True,
                             squeeze=False)
    for ax, (name, series) in zip(axes[0], panels.items()):
        check_type(series, f"panels[{name!r}]", dict, "a dict of series name -> (x, y)")
        xs: set[float] = set()
        for (label, pair), marker in zip(series.items(), MARKERS):
            where = f"panels[{name!r}][{label!r}]"
            x, y = check_sequence(pair, where, "a pair (x, y)")
            x = check_number_list(x, f"{where} x", low=0)
            y = check_number_list(y, f"{where} y", low=0)
            check_same_length(x=x, y=y)
            ax.plot(x, y, marker=marker, markersize=4, label=label)
            xs.update(x)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(sorted(xs), [f"{v:g}" for v in sorted(xs)])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", linestyle=":", linewidth=0.6)
    axes[0][0].set_ylabel(ylabel)
    legend = {}  # one entry per series name, in order of first appearance
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    fig.legend(list(legend.values()), list(legend), loc="lower center",
               ncol=min(len(legend), 5), fontsize=8, frameon=False)
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig


def lattice_plot(text: str, edges: Sequence[tuple[int, int]], path: Sequence[tuple[int, int]], *,
                 title: str):
    """A lattice: an arc per piece (start, end) over the characters of `text`, `path` thick."""
    text = check_str(text, "text", non_empty=True)
    spans = [check_sequence(e, "each edge", "a pair (start, end)") for e in edges]
    chosen = {tuple(check_sequence(e, "each path edge", "a pair (start, end)")) for e in path}
    for start, end in [*spans, *chosen]:
        check_int(start, "an edge's start", low=0, high=len(text) - 1)
        check_int(end, "an edge's end", low=start + 1, high=len(text))
    fig, ax = plt.subplots(figsize=(max(6.5, 0.55 * len(text)), 3.6))
    for start, end in sorted(spans, key=lambda e: (tuple(e) in chosen, e)):
        on_path, width = (start, end) in chosen, end - start
        height = 0.55 * width ** 0.8 if width > 1 else 0.35
        below = width == 1
        ax.add_patch(Arc(((start + end) / 2, 0), width, 2 * height,
                         theta1=180 if below else 0, theta2=360 if below else 180,
                         color=FIRST if on_path else palette.GUIDE,
                         linewidth=2.4 if on_path else 0.7, alpha=1 if on_path else 0.55))
        if on_path:
            ax.text((start + end) / 2, -height - 0.12 if below else height + 0.06,
                    text[start:end], ha="center", va="top" if below else "bottom", fontsize=9,
                    color=FIRST)
    ax.plot(range(len(text) + 1), [0] * (len(text) + 1), "o", color=SECOND, markersize=4)
    for i, char in enumerate(text):
        ax.text(i + 0.5, 0.04, char, ha="center", va="bottom", fontsize=11)
    top = max([0.55 * (e - s) ** 0.8 for s, e in spans] + [0.5])
    ax.set_xlim(-0.3, len(text) + 0.3)
    ax.set_ylim(-0.75, top + 0.45)
    ax.axis("off")
    return finish(fig, ax, title=title)


def em_curves(runs: dict[str, Sequence[tuple[int, int, float]]], *, title: str, ylabel: str):
    """Unigram runs, a point per EM step (round, pieces, value); dotted: a pruning round starts."""
    check_non_empty_dict(runs, "runs", "name -> list of (round, pieces, value)")
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 4.6), sharex=True,
                                      gridspec_kw={"height_ratios": [2.2, 1]})
    for (name, steps), marker in zip(runs.items(), "osD^"):
        rows = [check_sequence(s, f"a step of runs[{name!r}]", "(round, pieces, value)")
                for s in check_sequence(steps, f"runs[{name!r}]")]
        x = range(1, len(rows) + 1)
        top.plot(x, [check_number(r[2], "a value") for r in rows], marker=marker, markersize=3,
                 label=name)
        bottom.plot(x, [check_int(r[1], "pieces", low=1) for r in rows], marker=marker,
                    markersize=3)
    first = [r[0] for r in next(iter(runs.values()))]
    for i in range(1, len(first)):
        if first[i] != first[i - 1]:
            for ax in (top, bottom):
                ax.axvline(i + 0.5, color=palette.GUIDE, linestyle=":", linewidth=1)
    bottom.set_yscale("log")
    bottom.set_ylabel("词表大小")
    bottom.set_xlabel("EM 步（虚线：一轮剪枝）")
    bottom.grid(True, linestyle=":", linewidth=0.6)
    return finish(fig, top, title=title, ylabel=ylabel, legend=True, grid="major")
