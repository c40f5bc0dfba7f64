"""Matplotlib that speaks Chinese on any machine, plus the few plots several chapters share.

A fresh pip-only machine has no CJK font, and matplotlib then draws empty boxes and warns
"Glyph ... missing from font". We prefer a CJK font the system already has; otherwise we register the
Noto Sans SC file (SIL Open Font License) that the `zhplot` wheel carries. We only read that file:
importing zhplot itself would change global settings behind the learner's back.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import font_manager
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from tutorial_lib._checks import (check_bool, check_choice, check_int, check_int_list, check_number,
                                  check_number_list, check_same_length, check_sequence, check_str_list, check_type)

SYSTEM_CJK_FONTS = (
    "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei", "WenQuanYi Zen Hei",
    "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC", "Hiragino Sans GB",
)


def bundled_font_path() -> Path:
    """Path of the Noto Sans SC file inside the installed zhplot wheel (found without importing zhplot)."""
    spec = importlib.util.find_spec("zhplot")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("package zhplot is not installed; run `make install` (it ships the Chinese font)")
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
    """A labelled bar chart (values written on the bars); `reference` draws a dashed line, e.g. 1.0."""
    labels, values = check_str_list(labels, "labels"), check_number_list(values, "values")
    check_same_length(labels=labels, values=values)
    if reference is not None:
        check_number(reference, "reference")
    fig, ax = plt.subplots(figsize=(max(6, 0.6 * len(labels)), 3.5))
    bars = ax.bar(labels, values, color="#4C72B0")
    ax.bar_label(bars, fmt="%.2f", fontsize=8)
    if reference is not None:
        ax.axhline(reference, color="gray", linestyle="--", linewidth=1)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.tick_params(axis="x", rotation=45)
    fig.tight_layout()
    return fig


def merge_progress(merges: Sequence[int], tokens: Sequence[int], vocab: Sequence[int], *, title: str,
                   mark: int | None = None):
    """Corpus length in tokens (left axis, falling) and vocabulary size (right axis, rising) per merge count.

    `mark` draws a dotted vertical line at one merge count, e.g. the number of merges a chapter stops at.
    """
    merges, tokens = check_int_list(merges, "merges", low=0), check_int_list(tokens, "tokens", low=0)
    vocab = check_int_list(vocab, "vocab", low=0)
    check_same_length(merges=merges, tokens=tokens, vocab=vocab)
    if mark is not None:
        check_int(mark, "mark", low=0)
    fig, left = plt.subplots(figsize=(7, 3.5))
    right = left.twinx()
    left.plot(merges, tokens, "o-", color="#4C72B0", label="语料总 token 数（按词频加权）")
    right.plot(merges, vocab, "s--", color="#DD8452", label="词表大小")
    if mark is not None:
        left.axvline(mark, color="gray", linestyle=":", linewidth=1)
    left.set_xlabel("合并次数")
    left.set_ylabel("语料总 token 数", color="#4C72B0")
    right.set_ylabel("词表大小", color="#DD8452")
    left.set_title(title)
    handles = left.get_legend_handles_labels()[0] + right.get_legend_handles_labels()[0]
    left.legend(handles, [h.get_label() for h in handles], loc="upper center", fontsize=8)
    fig.tight_layout()
    return fig


def pair_count_bars(labels: Sequence[str], counts: Sequence[int], *, title: str, chosen: str | None = None):
    """Bars of pair counts; the bars tied at the maximum are orange, and `chosen` (one label) gets a hatch."""
    labels, counts = check_str_list(labels, "labels"), check_int_list(counts, "counts", low=0)
    check_same_length(labels=labels, counts=counts)
    if chosen is not None:
        check_choice(chosen, "chosen", labels)
    top = max(counts, default=0)
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(labels)), 3.5))
    bars = ax.bar(labels, counts, color=["#DD8452" if c == top else "#4C72B0" for c in counts])
    for bar, label in zip(bars, labels):
        if label == chosen:
            bar.set_hatch("//")
    ax.bar_label(bars, fontsize=8)
    ax.set_ylim(0, top * 1.15 if top > 0 else 1)
    ax.set_title(title)
    ax.set_ylabel("加权出现次数")
    ax.tick_params(axis="x", rotation=60)
    fig.tight_layout()
    return fig


def zipf_plot(series: dict[str, Sequence[int]], *, title: str, reference_exponent: float | None = 1.0):
    """Frequency against rank on log-log axes, one line per series (e.g. words, BPE tokens, characters).

    Zipf's law says frequency ~ 1 / rank^a with a close to 1, which is a straight line of slope -a here;
    `reference_exponent` draws that line through the first series' most frequent token for comparison.
    """
    check_type(series, "series", dict, "a dict of name -> frequencies")
    if not series:
        raise ValueError("series must contain at least one name -> frequencies entry")
    series = {name: check_int_list(freqs, f"series[{name!r}]", low=1) for name, freqs in series.items()}
    for name, freqs in series.items():
        if not freqs or freqs != sorted(freqs, reverse=True):
            raise ValueError(f"series[{name!r}] must be a non-empty list of counts from the most to the least "
                             f"frequent (rank 1 first), e.g. sorted(counts.values(), reverse=True)")
    if reference_exponent is not None:
        check_number(reference_exponent, "reference_exponent", low=0, low_open=True)
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for name, freqs in series.items():
        ax.loglog(range(1, len(freqs) + 1), freqs, label=f"{name}（{len(freqs)} 种）")
    if reference_exponent is not None:
        first = next(iter(series.values()))
        ranks = range(1, len(first) + 1)
        ax.loglog(ranks, [first[0] / r ** reference_exponent for r in ranks], color="gray", linestyle="--",
                  linewidth=1, label=_zipf_label(reference_exponent))
    ax.set_xlabel("排名（rank，对数坐标）")
    ax.set_ylabel("出现次数（对数坐标）")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _zipf_label(exponent: float) -> str:
    """The reference line's legend: "频率 ∝ 1/排名" for Zipf's own exponent 1, "1/排名^a" otherwise."""
    return "齐普夫定律：频率 ∝ 1/排名" + ("" if exponent == 1 else f"^{exponent:g}")


def tradeoff_scatter(labels: Sequence[str], vocab_sizes: Sequence[int], lengths: Sequence[int], *, title: str,
                     flagged: Sequence[bool] | None = None, flag_label: str = "有 OOV",
                     xlabel: str = "词表大小（对数坐标）", ylabel: str = "同一段文本的 token 数"):
    """One labelled point per tokenizer: vocabulary size (log x) against the token count of the same text.

    `flagged` marks some points in orange (e.g. the tokenizers that produce `<unk>`), named `flag_label`.
    """
    labels = check_str_list(labels, "labels")
    vocab_sizes = check_int_list(vocab_sizes, "vocab_sizes", low=1)  # the x axis is logarithmic
    lengths = check_int_list(lengths, "lengths", low=0)
    check_same_length(labels=labels, vocab_sizes=vocab_sizes, lengths=lengths)
    flags = [False] * len(labels) if flagged is None else check_sequence(flagged, "flagged", "a list of bool")
    for i, flag in enumerate(flags):
        check_bool(flag, f"flagged[{i}]")
    check_same_length(labels=labels, flagged=flags)
    fig, ax = plt.subplots(figsize=(7, 4))
    for flag, color, name in ((False, "#4C72B0", None), (True, "#DD8452", flag_label)):
        points = [(x, y) for x, y, f in zip(vocab_sizes, lengths, flags) if f == flag]
        if points:
            ax.scatter(*zip(*points), color=color, zorder=3, label=name if flag else None)
    for label, x, y in zip(labels, vocab_sizes, lengths):
        ax.annotate(label, (x, y), textcoords="offset points", xytext=(6, 4), fontsize=8)
    ax.set_xscale("log")
    ax.margins(x=0.12)
    ax.set_ylim(0, max(lengths, default=1) * 1.12)
    ax.grid(True, which="major", linestyle=":", linewidth=0.6)
    if any(flags):
        ax.legend(fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def coverage_plot(curve: Sequence[float], marks: dict[float, int], *, title: str):
    """Share of a text covered by its k most frequent characters, against k (log x axis).

    `marks` maps a coverage level to the k that reaches it (metrics.chars_for_coverage); each gets a dot and a
    dotted guide, and a box in the empty lower right lists them, so the plot shows how long the rare tail is.
    """
    curve = check_number_list(curve, "curve", low=0, high=1)
    if not curve:
        raise ValueError("curve must not be empty")
    for level, k in check_type(marks, "marks", dict, "a dict of coverage level -> rank").items():
        check_number(level, "each key of marks", low=0, high=1, low_open=True)
        check_int(k, f"marks[{level}]", low=1, high=len(curve))
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.plot(range(1, len(curve) + 1), [100 * c for c in curve], color="#4C72B0")
    for level, k in sorted(marks.items()):
        ax.axvline(k, color="gray", linestyle=":", linewidth=1)
        ax.plot([k], [100 * curve[k - 1]], "o", color="#DD8452")
    if marks:
        ax.text(0.97, 0.06, "\n".join(f"覆盖 {100 * level:g}%：{k} 个字" for level, k in sorted(marks.items())),
                transform=ax.transAxes, ha="right", va="bottom", fontsize=9,
                bbox={"boxstyle": "round", "facecolor": "white", "edgecolor": "#DD8452"})
    ax.set_xscale("log")
    ax.set_xlim(1, len(curve) * 1.05)
    ax.set_xlabel("按频率排名的前 k 个不同字符（对数坐标）")
    ax.set_ylabel("覆盖的文本比例（%）")
    ax.grid(True, linestyle=":", linewidth=0.6)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def _series(series: object, **axis: Sequence) -> dict[str, list[float]]:
    """`series` checked as a non-empty dict of name -> numbers, each as long as the one `axis` given (labels or x)."""
    check_type(series, "series", dict, "a dict of name -> values")
    if not series:
        raise ValueError("series must contain at least one name -> values entry")
    series = {name: check_number_list(values, f"series[{name!r}]") for name, values in series.items()}
    for name, values in series.items():
        check_same_length(**axis, **{f"series[{name!r}]": values})
    return series


def grouped_bar_chart(labels: Sequence[str], series: dict[str, Sequence[float]], *, title: str, ylabel: str):
    """Bars grouped by label, one colour per series (e.g. tokenizers x evaluation sets), values on the bars."""
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


# --- 04 词表大小 ------------------------------------------------------------------------------------------


def vocab_size_curves(series: dict[str, tuple[Sequence[int], Sequence[float]]], *, title: str, ylabel: str,
                      xlabel: str = "词表大小（对数坐标）", logy: bool = False, percent: bool = False):
    """One line per series over its own vocabulary sizes (log x, ticks at powers of two: 256, 1K, 8K, ...).

    Each series is (sizes, values): training runs on different corpora stop at different sizes. `percent`
    draws shares (0..1) as percentages; `logy` shows a quantity that falls by orders of magnitude.
    """
    check_type(series, "series", dict, "a dict of name -> (vocab sizes, values)")
    if not series:
        raise ValueError("series must contain at least one name -> (sizes, values) entry")
    check_bool(logy, "logy")
    check_bool(percent, "percent")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    low, high = float("inf"), 0
    for (name, pair), marker in zip(series.items(), "osD^vx*+"):
        sizes, values = check_sequence(pair, f"series[{name!r}]", "a pair (vocab sizes, values)")
        sizes = check_int_list(sizes, f"series[{name!r}] sizes", low=1)
        values = check_number_list(values, f"series[{name!r}] values")
        check_same_length(sizes=sizes, values=values)
        ax.plot(sizes, [100 * v if percent else v for v in values], marker=marker, markersize=4, label=name)
        low, high = min(low, *sizes), max(high, *sizes)
    ax.set_xscale("log", base=2)
    ticks = [2 ** k for k in range(20) if low <= 2 ** k <= high]
    ax.set_xticks(ticks, [f"{t // 1024}K" if t >= 1024 else str(t) for t in ticks])
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="major", linestyle=":", linewidth=0.6)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# --- 06 训练器为什么慢、怎样变快 ---------------------------------------------------------------------------


def loglog_panels(panels: dict[str, dict[str, tuple[Sequence[float], Sequence[float]]]], *, title: str, xlabel: str,
                  ylabel: str):
    """Side-by-side log-log panels sharing the y axis, one line per series: {panel: {series: (x, y)}}.

    On log-log axes a line of slope 1 grows in proportion to x, a flat line not at all; the shared y axis
    lets the panels (English, Chinese) be compared directly.
    """
    check_type(panels, "panels", dict, "a dict of panel title -> {series name: (x, y)}")
    if not panels:
        raise ValueError("panels must contain at least one panel")
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), sharey=True, squeeze=False)
    for ax, (name, series) in zip(axes[0], panels.items()):
        check_type(series, f"panels[{name!r}]", dict, "a dict of series name -> (x, y)")
        for (label, pair), marker in zip(series.items(), "osD^vx*+"):
            x, y = check_sequence(pair, f"panels[{name!r}][{label!r}]", "a pair (x, y)")
            x = check_number_list(x, f"panels[{name!r}][{label!r}] x", low=0)
            y = check_number_list(y, f"panels[{name!r}][{label!r}] y", low=0)
            check_same_length(x=x, y=y)
            ax.plot(x, y, marker=marker, markersize=4, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.grid(True, which="both", linestyle=":", linewidth=0.6)
        ax.legend(fontsize=7)
    axes[0][0].set_ylabel(ylabel)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


# --- 07 填充与掩码, 09 文档掩码 --------------------------------------------------------------------------


def line_chart(x: Sequence[float], series: dict[str, Sequence[float]], *, title: str, xlabel: str, ylabel: str,
               logx: bool = False, percent: bool = False):
    """One line per series over the same x values (e.g. padding share against batch size, one line per batching).

    `percent` draws values given as shares (0..1) as percentages.
    """
    x = check_number_list(x, "x")
    series = _series(series, x=x)
    check_bool(logx, "logx")
    check_bool(percent, "percent")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for (name, values), marker in zip(series.items(), "osD^vx*+"):
        ax.plot(x, [100 * v if percent else v for v in values], marker=marker, markersize=4, label=name)
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


_DOC_COLORS = ["#4C72B0", "#DD8452", "#55A868", "#8172B3", "#937860", "#DA8BC3", "#CCB974", "#64B5CD"]
_LEAK, _PADDING, _BLOCKED = "#C44E52", "#BBBBBB", "#FFFFFF"


def mask_heatmaps(masks: dict[str, object], doc_ids: Sequence[int] | None = None, *, title: str,
                  labels: Sequence[str] | None = None):
    """L x L attention masks side by side (row = query, column = key); a cell a query may attend is coloured by
    what it lets the query see: its own document (that document's colour), another document (red: leakage) or
    padding (gray). Blocked cells are white.

    `doc_ids` gives each position's document (-1 = padding); without it every position is one document, as in a
    padded batch row. `labels` names the positions (the row's tokens) on both axes. A mask may be bool or 0/1.
    """
    check_type(masks, "masks", dict, "a dict of name -> 2-D bool or 0/1 array")
    if not masks:
        raise ValueError("masks must contain at least one name -> matrix entry")
    arrays = {name: _bool_matrix(mask, f"masks[{name!r}]") for name, mask in masks.items()}
    length = next(iter(arrays.values())).shape[1]
    ids = np.zeros(length, dtype=np.int64) if doc_ids is None else np.array(check_int_list(doc_ids, "doc_ids", low=-1))
    for name, array in arrays.items():
        if array.shape != (len(ids), len(ids)):
            raise ValueError(f"masks[{name!r}] must be {len(ids)} x {len(ids)} (one row and column per position), "
                             f"got shape {array.shape}")
    if labels is not None:
        labels = check_str_list(labels, "labels")
        check_same_length(labels=labels, doc_ids=ids)
    real = ids != -1
    same = (ids[:, None] == ids[None, :]) & real[:, None]
    kind = np.where(same, ids[:, None] % len(_DOC_COLORS), np.where(real[:, None] & real[None, :], -1, -2))
    colors = ListedColormap([_PADDING, _LEAK, *_DOC_COLORS, _BLOCKED])
    fig, axes = plt.subplots(1, len(arrays), figsize=(3.6 * len(arrays) + 0.4, 4.4), squeeze=False)
    for ax, (name, mask) in zip(axes[0], arrays.items()):
        ax.imshow(np.where(mask, kind, len(_DOC_COLORS)), cmap=colors, vmin=-2.5, vmax=len(_DOC_COLORS) + 0.5,
                  interpolation="nearest")
        ax.set_title(f"{name}\n允许 {int(mask.sum())} 格，其中跨文档 {int((mask & (kind == -1)).sum())} 格", fontsize=9)
        ax.set_xlabel("被看的位置（key）")
        ax.set_ylabel("正在预测的位置（query）")
        if labels is not None:
            ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=8)
            ax.set_yticks(range(len(labels)), labels, fontsize=8)
    handles = [Patch(color=_DOC_COLORS[0], label="同一文档（每篇一种颜色）"), Patch(color=_LEAK, label="跨文档（泄漏）"),
               Patch(color=_PADDING, label="涉及填充"),
               Patch(facecolor=_BLOCKED, edgecolor="gray", label="不允许")]
    fig.legend(handles=handles, loc="lower center", ncol=4, fontsize=8, frameon=False, bbox_to_anchor=(0.5, 0))
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.1, 1, 0.95))
    return fig


def _bool_matrix(mask: object, name: str) -> np.ndarray:
    array = np.asarray(mask)
    if array.ndim != 2 or not (array.dtype == bool or np.isin(array, (0, 1)).all()):
        raise ValueError(f"{name} must be a 2-D array of bool or 0/1, got shape {array.shape} and dtype {array.dtype}")
    return array.astype(bool)


# --- 08 打包利用率 ------------------------------------------------------------------------------------------


def length_histograms(lengths: dict[str, Sequence[int]], *, title: str, marks: Sequence[int] = ()):
    """One histogram of document lengths per corpus, log-scaled x, with dashed lines at `marks` (row lengths)."""
    check_type(lengths, "lengths", dict, "a dict of name -> lengths")
    if not lengths:
        raise ValueError("lengths must contain at least one name -> lengths entry")
    lengths = {name: check_int_list(values, f"lengths[{name!r}]", low=1) for name, values in lengths.items()}
    marks = check_int_list(marks, "marks", low=1)
    longest = max(max(values, default=1) for values in lengths.values())
    bins = np.geomspace(1, max(longest, *marks, 2) * 1.2, 40)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for name, values in lengths.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5, label=f"{name}（{len(values)} 篇）")
    for mark in marks:
        ax.axvline(mark, color="gray", linestyle="--", linewidth=1)
        ax.annotate(f"L={mark}", (mark, 1), xycoords=("data", "axes fraction"), fontsize=8, ha="right", va="top",
                    rotation=90)
    ax.set_xscale("log")
    ax.set_xlabel("文档长度（token，对数坐标）")
    ax.set_ylabel("文档数")
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def timing_plot(series: dict[str, tuple[Sequence[int], Sequence[float]]], *, title: str):
    """Seconds against input size on log-log axes, one line per method: a slope of 1 is linear, 2 quadratic."""
    check_type(series, "series", dict, "a dict of name -> (sizes, seconds)")
    if not series:
        raise ValueError("series must contain at least one name -> (sizes, seconds) entry")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for name, pair in series.items():
        sizes, seconds = check_sequence(pair, f"series[{name!r}]", "a pair (sizes, seconds)")
        sizes = check_int_list(sizes, f"series[{name!r}] sizes", low=1)
        seconds = check_number_list(seconds, f"series[{name!r}] seconds", low=0)
        check_same_length(sizes=sizes, seconds=seconds)
        ax.plot(sizes, seconds, marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("文档数（对数坐标）")
    ax.set_ylabel("秒（对数坐标）")
    ax.grid(True, which="both", linestyle=":", linewidth=0.6)
    ax.set_title(title)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


# --- 10 Megatron .bin/.idx 与 mmap ---------------------------------------------------------------------------


def bin_layout(lengths: Sequence[int], itemsize: int, *, title: str):
    """The first sequences of a `.bin` as byte ranges: one box per sequence (width = its bytes), labelled with
    its length in tokens, and its byte pointer from the `.idx` written under where it starts."""
    lengths = check_int_list(lengths, "lengths", low=0)
    if not lengths:
        raise ValueError("lengths must hold at least one sequence")
    itemsize = check_int(itemsize, "itemsize", low=1)
    pointers = np.concatenate([[0], np.cumsum(lengths)]) * itemsize
    fig, ax = plt.subplots(figsize=(8, 2.2))
    for i, (start, end) in enumerate(zip(pointers[:-1], pointers[1:])):
        ax.barh(0, end - start, left=start, height=0.6, color=_DOC_COLORS[i % len(_DOC_COLORS)],
                edgecolor="white")
        ax.text((start + end) / 2, 0, f"序列 {i}\n{lengths[i]} 个 token", ha="center", va="center", fontsize=8,
                color="white")
        ax.annotate(f"{int(start)}", (start, -0.3), xytext=(0, -12), textcoords="offset points", ha="center",
                    fontsize=8, arrowprops={"arrowstyle": "->", "color": "gray"})
    ax.set_xlim(0, pointers[-1])
    ax.set_ylim(-0.9, 0.5)
    ax.set_yticks([])
    ax.set_xlabel(f".bin 中的字节偏移（箭头处是 .idx 里的字节指针；每个 token {itemsize} 字节）")
    ax.set_title(title)
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    return fig


def sample_documents(panels: dict[str, object], *, title: str):
    """One panel per way of making training samples: each row of a panel is one sample, each column one token
    position, coloured by the document the token comes from (grey: padding, -1), with a white line wherever
    one document ends and the next begins inside a sample."""
    check_type(panels, "panels", dict, "a dict of name -> 2-D array of document ids")
    if not panels:
        raise ValueError("panels must contain at least one name -> document ids entry")
    grids = {name: np.asarray(ids) for name, ids in panels.items()}
    for name, ids in grids.items():
        if ids.ndim != 2 or ids.dtype.kind not in "iu":
            raise ValueError(f"panels[{name!r}] must be a 2-D array of int document ids, got shape {ids.shape}")
    colors = np.array([matplotlib.colors.to_rgb(c) for c in _DOC_COLORS])
    fig, axes = plt.subplots(len(grids), 1, figsize=(8, 1.2 + 0.22 * sum(len(ids) for ids in grids.values())),
                             squeeze=False, height_ratios=[max(1, len(ids)) for ids in grids.values()])
    for ax, (name, ids) in zip(axes[:, 0], grids.items()):
        image = np.where((ids >= 0)[..., None], colors[ids % len(colors)], matplotlib.colors.to_rgb(_PADDING))
        ax.imshow(image, aspect="auto", interpolation="nearest")
        rows, cols = np.nonzero(ids[:, 1:] != ids[:, :-1])
        ax.vlines(cols + 0.5, rows - 0.5, rows + 0.5, colors="white", linewidth=1)
        ax.set_yticks(range(len(ids)))
        ax.set_ylabel("样本")
        ax.set_title(name, fontsize=10)
    axes[-1, 0].set_xlabel("样本中的位置（token）")
    fig.suptitle(title)
    fig.legend(handles=[Patch(color=_PADDING, label="填充")], loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig
