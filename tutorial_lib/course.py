"""The course map and the environment check that notebook 00 shows.

CHAPTERS is the one list of chapters: notebook 00 prints it, and a test keeps README's notebook table
in step with the files in notebooks/.
"""

from __future__ import annotations

import importlib.metadata
import platform
import warnings
from dataclasses import dataclass
from pathlib import Path

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"


@dataclass(frozen=True)
class Chapter:
    number: str
    stem: str  # notebook file name without .ipynb
    title: str
    title_en: str

    @property
    def available(self) -> bool:
        return (NOTEBOOK_DIR / f"{self.stem}.ipynb").is_file()


CHAPTERS = [
    Chapter("00", "00_intro", "导读与环境自检", "Introduction and environment check"),
    Chapter("01", "01_char_word_subword", "字符、词与子词", "Characters, words and subwords"),
    Chapter("02", "02_bpe_step_by_step", "BPE 逐步合并", "BPE step by step"),
    Chapter("03", "03_chinese_corpora", "中文语料", "Chinese corpora"),
    Chapter("04", "04_vocab_size", "词表大小", "Vocabulary size"),
    Chapter("05", "05_byte_level_bpe", "字节级 BPE（GPT 的做法）", "Byte-level BPE as GPT does it"),
    Chapter("06", "06_fast_trainer", "训练器为什么慢、怎样变快", "Why a naive trainer is slow and how to make it fast"),
    Chapter("07", "07_padding_masks", "填充与掩码", "Padding and masks"),
    Chapter("08", "08_packing", "打包策略与利用率", "Packing strategies and utilization"),
    Chapter("09", "09_document_masks", "文档掩码", "Document masks"),
    Chapter("10", "10_megatron_mmap", "Megatron .bin/.idx 与 mmap", "The Megatron .bin/.idx format via mmap"),
]

PACKAGES = ["jupyterlab", "ipywidgets", "jupyterlab_widgets", "matplotlib", "numpy", "regex", "tqdm",
            "tokenizers", "tiktoken", "sentencepiece"]


def package_versions() -> dict[str, str]:
    """Installed version of each package the notebooks rely on ("缺失" when it is not installed)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "缺失"
    return versions


def chinese_font_check() -> tuple[str, bool]:
    """Set up Chinese plotting, draw one Chinese label off-screen, and report (font, no glyph missing)."""
    import matplotlib.pyplot as plt

    from tutorial_lib.plotting import setup_chinese

    family = setup_chinese()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.set_title("分词与序列打包 −1")
        fig.canvas.draw()
        plt.close(fig)
    return family, not any("missing from font" in str(w.message) for w in caught)


def widgets_check() -> bool:
    """True when a widget can be built and its value round-trips inside this kernel."""
    import ipywidgets

    slider = ipywidgets.IntSlider(value=1, min=0, max=10)
    slider.value = 7
    return slider.value == 7


def environment_report() -> list[tuple[str, str]]:
    """Rows (item, status) for the self-check cell of notebook 00."""
    family, glyphs_ok = chinese_font_check()
    rows = [("Python", platform.python_version())]
    rows += [(name, version) for name, version in package_versions().items()]
    rows.append(("中文字体", f"{family}（{'字形完整' if glyphs_ok else '有缺字！'}）"))
    rows.append(("ipywidgets 控件", "正常" if widgets_check() else "异常"))
    return rows
