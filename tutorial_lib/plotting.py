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
from matplotlib import font_manager

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
    import matplotlib.pyplot as plt

    if len(labels) != len(values):
        raise ValueError(f"labels and values must have the same length, got {len(labels)} and {len(values)}")
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
