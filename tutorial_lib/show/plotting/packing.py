"""The figures of the packing half (chapters 07-10): masks, document lengths, timing, .bin layout,
samples; documents, padding and leaks in the colours of `palette`, as in the widgets."""

from __future__ import annotations

from typing import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.patches import Patch

from tutorial_lib._check_data import (check_dict_of, check_non_empty_dict, check_number_list,
                                      check_same_length, check_str_list)
from tutorial_lib._checks import check_int, check_int_list, check_sequence
from tutorial_lib.packing.masks import PAD_DOC, mask_cells, runs
from tutorial_lib.packing.megatron import byte_offsets
from tutorial_lib.show.palette import BACKGROUND, BLOCKED, DOCUMENTS, GUIDE, LEAK, PADDING
from tutorial_lib.show.plotting import finish, legend_below, legend_beside, line_chart


def mask_heatmaps(masks: dict[str, object], doc_ids: Sequence[int] | None = None, *, title: str,
                  labels: Sequence[str] | None = None):
    """L x L masks side by side, a cell coloured by what it lets the query see (`mask_cells`);
    `doc_ids` None: one document, as in a padded row; `labels` names positions on both axes."""
    check_non_empty_dict(masks, "masks", "name -> 2-D bool or 0/1 array")
    if doc_ids is None:
        doc_ids = [0] * np.shape(next(iter(masks.values())))[-1]
    ids = check_int_list(doc_ids, "doc_ids", low=PAD_DOC)
    cells = {name: mask_cells(ids, mask, f"masks[{name!r}]") for name, mask in masks.items()}
    if labels is not None:
        labels = check_str_list(labels, "labels")
        check_same_length(labels=labels, doc_ids=ids)
    colors = ListedColormap([BLOCKED, LEAK, PADDING, *DOCUMENTS])  # kinds -3, -2, -1, 0..7
    fig, axes = plt.subplots(1, len(cells), figsize=(3.6 * len(cells) + 0.4, 4.4), squeeze=False)
    for ax, (name, found) in zip(axes[0], cells.items()):
        kinds = np.where(found.kinds >= 0, found.kinds % len(DOCUMENTS), found.kinds)
        ax.imshow(kinds, cmap=colors, vmin=-3.5, vmax=len(DOCUMENTS) - 0.5, interpolation="nearest")
        ax.set_title(f"{name}\n允许 {found.allowed} 格，其中跨文档 {found.leaks} 格", fontsize=9)
        ax.set_xlabel("被看的位置（key）")
        ax.set_ylabel("正在预测的位置（query）")
        if labels is not None:
            ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=8)
            ax.set_yticks(range(len(labels)), labels, fontsize=8)
    handles = [Patch(color=DOCUMENTS[0], label="同一文档（每篇一种颜色）"),
               Patch(color=LEAK, label="跨文档（泄漏）"), Patch(color=PADDING, label="涉及填充"),
               Patch(facecolor=BLOCKED, edgecolor=GUIDE, label="不允许")]
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.06, 1, 0.95))
    # the legend goes under the lowest label actually drawn (rotated token labels reach further
    # down than tight_layout's rect allows for), so it never covers a tick or an axis label
    renderer = fig.canvas.get_renderer()
    bottom = min(ax.get_tightbbox(renderer).y0 for ax in axes[0]) / fig.bbox.height
    fig.legend(handles=handles, loc="upper center", ncol=4, fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, bottom - 0.01))
    return fig


DASHES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1)), (0, (1, 3)))


def padding_curves(x: Sequence[float], series: dict[str, Sequence[float]], *, title: str,
                   xlabel: str):
    """Padding shares (0..1, drawn as %) over a log-2 x axis, one line per batching; each line gets
    its own dash and a larger hollow marker, so a line drawn over another leaves it visible."""
    fig = line_chart(x, series, title=title, xlabel=xlabel, ylabel="填充（%）", logx=True,
                     percent=True)
    ax = fig.axes[0]
    for k, line in enumerate(ax.get_lines()):
        line.set_linestyle(DASHES[k % len(DASHES)])
        line.set_markerfacecolor("none")
        line.set_markersize(4 + 2 * k)
    ax.set_ylim(-4, 100)  # a line at 0 % stays whole instead of half under the axis
    legend_beside(ax)  # again: the lines' new dashes and markers
    fig.tight_layout()
    return fig


def length_histograms(lengths: dict[str, Sequence[int]], *, title: str, marks: Sequence[int] = ()):
    """One histogram of document lengths per corpus, dashed lines at `marks` (row lengths); log
    axes, else many short documents flatten the rest and the few over a row's length vanish."""
    lengths = check_dict_of(lengths, "lengths", "name -> lengths", check_int_list, low=1)
    marks = check_int_list(marks, "marks", low=1)
    longest = max(max(values, default=1) for values in lengths.values())
    bins = np.geomspace(1, max(longest, *marks, 2) * 1.2, 40)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for name, values in lengths.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5,
                label=f"{name}（{len(values)} 篇）")
    for mark in marks:
        ax.axvline(mark, color=GUIDE, linestyle="--", linewidth=1)
        ax.annotate(f"L={mark}", (mark, 1), xycoords=("data", "axes fraction"), fontsize=8,
                    ha="right", va="top", rotation=90)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(bottom=0.7)  # a bin holding one document still shows
    return finish(fig, ax, title=title, xlabel="文档长度（token，对数坐标）",
                  ylabel="文档数（对数坐标）", legend=True)

def timing_plot(series: dict[str, tuple[Sequence[int], Sequence[float]]], *, title: str):
    """Seconds against input size, log-log, a line per method: slope 1 is linear, 2 quadratic."""
    check_non_empty_dict(series, "series", "name -> (sizes, seconds)")
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    for name, pair in series.items():
        sizes, seconds = check_sequence(pair, f"series[{name!r}]", "a pair (sizes, seconds)")
        sizes = check_int_list(sizes, f"series[{name!r}] sizes", low=1)
        seconds = check_number_list(seconds, f"series[{name!r}] seconds", low=0)
        check_same_length(sizes=sizes, seconds=seconds)
        ax.plot(sizes, seconds, marker="o", label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    finish(fig, ax, title=title, xlabel="文档数（对数坐标）", ylabel="秒（对数坐标）", grid="both")
    legend_below(fig, ax)  # a method's name can be long: beside the axes it squeezed them
    return fig

def bin_layout(lengths: Sequence[int], itemsize: int, *, title: str):
    """The first sequences of a `.bin` as byte ranges, each with its `.idx` pointer below."""
    lengths = check_int_list(lengths, "lengths", low=0)
    if not lengths:
        raise ValueError("lengths must hold at least one sequence")
    itemsize = check_int(itemsize, "itemsize", low=1)
    pointers = byte_offsets(lengths, itemsize)  # the .idx pointers, then the end of the last
    fig, ax = plt.subplots(figsize=(8, 2.2))
    for i, (start, end) in enumerate(zip(pointers[:-1], pointers[1:])):
        ax.barh(0, end - start, left=start, height=0.6, color=DOCUMENTS[i % len(DOCUMENTS)],
                edgecolor=BACKGROUND)
        ax.text((start + end) / 2, 0, f"序列 {i}\n{lengths[i]} 个 token", ha="center",
                va="center", fontsize=8, color=BACKGROUND)
        ax.annotate(f"{int(start)}", (start, -0.3), xytext=(0, -12), textcoords="offset points",
                    ha="center", fontsize=8, arrowprops={"arrowstyle": "->", "color": GUIDE})
    ax.set_xlim(0, pointers[-1])
    ax.set_ylim(-0.9, 0.5)
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    xlabel = f".bin 中的字节偏移（箭头处是 .idx 里的字节指针；每个 token {itemsize} 字节）"
    return finish(fig, ax, title=title, xlabel=xlabel)

def sample_documents(panels: dict[str, object], *, title: str):
    """A panel per way of making samples, a row per sample, tokens coloured by their document."""
    check_non_empty_dict(panels, "panels", "name -> 2-D array of document ids")
    grids = {name: np.asarray(ids) for name, ids in panels.items()}
    for name, ids in grids.items():
        if ids.ndim != 2 or ids.dtype.kind not in "iu":
            raise ValueError(f"panels[{name!r}] must be a 2-D array of int document ids, got shape "
                             f"{ids.shape}")
    colors = np.array([matplotlib.colors.to_rgb(c) for c in DOCUMENTS])
    height = 1.2 + 0.22 * sum(len(ids) for ids in grids.values())
    fig, axes = plt.subplots(len(grids), 1, figsize=(8, height), squeeze=False,
                             height_ratios=[max(1, len(ids)) for ids in grids.values()])
    for ax, (name, ids) in zip(axes[:, 0], grids.items()):
        padding = matplotlib.colors.to_rgb(PADDING)
        image = np.where((ids != PAD_DOC)[..., None], colors[ids % len(colors)], padding)
        ax.imshow(image, aspect="auto", interpolation="nearest")
        found = runs(ids, f"panels[{name!r}]")
        inside = found.start > 0  # a run that starts inside a sample: a document boundary there
        ax.vlines(found.start[inside] - 0.5, found.row[inside] - 0.5, found.row[inside] + 0.5,
                  colors=BACKGROUND, linewidth=1)
        ax.set_yticks(range(len(ids)))
        ax.set_ylabel("样本")
        ax.set_title(name, fontsize=10)
    axes[-1, 0].set_xlabel("样本中的位置（token）")
    fig.suptitle(title)
    fig.legend(handles=[Patch(color=PADDING, label="填充")], loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig
