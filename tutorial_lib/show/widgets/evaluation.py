"""The widget of chapter 12 (judging a tokenizer): a tokenizer's premium for one language, as the
spread over all parallel sentences and as one sentence's tokens beside the English original. The
box plots show where the sentences lie; only the tokens show why one of them costs three times as
many as its English twin."""

from __future__ import annotations

import math
from collections.abc import Sequence

import ipywidgets as w

from tutorial_lib import data
from tutorial_lib._checks import check_sequence, check_type
from tutorial_lib.evaluation.evaluate import ENGLISH, Premium
from tutorial_lib.show.display import segmentation_html
from tutorial_lib.show.widgets import live
from tutorial_lib.text.measure import Segmenter

BINS = [0.5 * 2 ** (k / 2) for k in range(11)]  # premium bin edges 0.5 ... 16, a factor √2 apart
BAR_PX = 240  # the longest bar of the spread


def spread_html(ratios: Sequence[float], mark: float) -> str:
    """Per-sentence premiums binned on a log scale, as bars, from the first bin holding a
    sentence to the last; the bin holding `mark` (the chosen sentence's premium) is drawn red."""
    edges = [0.0, *BINS, math.inf]
    bins = [(lo, hi, sum(lo <= r < hi for r in ratios)) for lo, hi in zip(edges, edges[1:])]
    held = [k for k, (_, _, n) in enumerate(bins) if n]
    most = max(n for _, _, n in bins)
    rows = []
    for lo, hi, n in bins[held[0]:held[-1] + 1]:
        label = f"&lt; {hi:.2g}" if lo == 0 else (f"≥ {lo:.2g}" if hi == math.inf
                                                   else f"{lo:.2g}–{hi:.2g}")
        colour = "#d62728" if lo <= mark < hi else "#1f77b4"
        bar = (f'<span style="display:inline-block;height:0.9em;width:{BAR_PX * n // most}px;'
               f'background:{colour}"></span>')
        rows.append(f"<tr><td style='text-align:right;padding-right:6px'>{label}</td>"
                    f"<td style='text-align:left'>{bar} {n}</td></tr>")
    return "<table>" + "".join(rows) + "</table>"


def premium_explorer(segmenters: Sequence[Segmenter], premiums: Sequence[Premium],
                     langs: Sequence[str]) -> w.VBox:
    """Pick a tokenizer, a language and a sentence of FLORES: the spread of that language's
    premium under that tokenizer (`premiums`, from `evaluate.flores_premiums`) with the sentence
    marked, and the sentence's tokens beside its English original's."""
    by_name = {check_type(s, "segmenters item", Segmenter, "a Segmenter").name: s
               for s in check_sequence(segmenters, "segmenters", "a list of Segmenter")}
    by = {(p.tokenizer, p.lang): p
          for p in check_sequence(premiums, "premiums", "a list of Premium")}
    langs = list(check_sequence(langs, "langs", "a list of FLORES language codes"))
    missing = [(name, lang) for name in by_name for lang in langs if (name, lang) not in by]
    if not by_name or not langs or missing:
        raise ValueError("premiums must hold every tokenizer with every language, at least one "
                         f"of each; missing {missing[:3]}")
    english = data.load_parallel(ENGLISH)
    tokenizer = w.Dropdown(options=list(by_name), description="分词器")
    lang = w.Dropdown(options=[(data.LANGUAGE_NAMES[code], code) for code in langs],
                      description="语言")
    sentence = w.IntSlider(value=0, min=0, max=len(english) - 1, description="第几句",
                           continuous_update=False)

    def render(name: str, code: str, index: int) -> str:
        premium, segmenter = by[name, code], by_name[name]
        pair = ((data.LANGUAGE_NAMES[code], data.load_parallel(code)[index]),
                ("英语原句", english[index]))
        rows = [(label, segmenter.tokens(text), None) for label, text in pair]
        ratio = premium.ratios[index]
        return (f"<p>{name} 上{data.LANGUAGE_NAMES[code]}的溢价：中位数 {premium.median:.2f}，"
                f"P90 {premium.p90:.2f}，整体 {premium.corpus:.2f}；这一句 {ratio:.2f}"
                f"（红色那一格）。</p>" + spread_html(premium.ratios, ratio)
                + segmentation_html(rows, first="句子"))

    return w.VBox([w.HBox([tokenizer, lang]), sentence, live(render, tokenizer, lang, sentence)])
