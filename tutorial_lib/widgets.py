"""The sliders, text boxes and dropdowns of the notebooks. No logic of their own: each one calls a library
function and shows its result.

Results are written into an HTML widget (not printed into an Output widget), so the stored notebook
output is the same in JupyterLab, under `make notebooks` and under nbval. A value the library refuses
(say, a lone surrogate pasted into a text box) shows its error message in place of the result: the
widget keeps working.
"""

from __future__ import annotations

import html
from typing import Callable, Sequence

import ipywidgets as w
import numpy as np

from tutorial_lib._checks import (check_choice, check_has, check_int, check_int_list, check_sequence, check_str,
                                  check_str_list, check_type)
from tutorial_lib.display import PALETTE, Markup, html_table, segmentation_html, token_html
from tutorial_lib.packing import batch, doc_masks, megatron
from tutorial_lib.packing.strategies import STRATEGIES, PackResult
from tutorial_lib.tokenization import compare, d2l, metrics, vocab_size
from tutorial_lib.tokenization.bpe_toy import BPEResult, MergeStep
from tutorial_lib.tokenization.pretokenize import PATTERNS, pretokenize
from tutorial_lib.tokenization.tokenizer import Tokenizer
from tutorial_lib.tokenization.trainer_stages import MergeWork


# JupyterLab styles tables in ordinary cell outputs but not inside a widget's HTML, where the columns would
# run together; this class gives them the same look, aligned left like the control above them.
_STYLED = '<div class="jp-RenderedHTMLCommon" style="padding-left:0">{}</div>'


def live(control: w.ValueWidget, render: Callable[[object], str]) -> w.VBox:
    """Show `render(control.value)` under `control` and redraw it whenever the value changes."""
    view = w.HTML(_render(render, control.value))
    control.observe(lambda change: setattr(view, "value", _render(render, change["new"])), names="value")
    return w.VBox([control, view])


def _render(render: Callable[[object], str], value: object) -> str:
    try:
        return _STYLED.format(render(value))
    except (TypeError, ValueError) as e:  # the library's own message, where the result would be
        return _STYLED.format(f'<p style="color:#b00">{html.escape(str(e))}</p>')


def utf8_explorer(initial: str = "分词 token 🙂") -> w.VBox:
    """Type any text and see each character's code point and UTF-8 bytes (metrics.utf8_breakdown)."""
    box = w.Text(value=check_str(initial, "initial", utf8=True), description="文本", continuous_update=True)

    def render(value: str) -> str:
        rows = metrics.utf8_breakdown(value)
        total = sum(len(hexes.split()) for _, _, hexes in rows)
        return (html_table(["字符", "码点", "UTF-8 字节"], rows)
                + f"<p>{len(rows)} 个字符，{total} 个字节</p>")

    return live(box, render)

# --- 01 字符、词与子词 ------------------------------------------------------------------------------------

def segmentation_explorer(word_vocab: d2l.Vocab, segmenters: list[compare.Segmenter],
                          initial: str = "i love cats and i love dogs") -> w.VBox:
    """Type a sentence, pick a BPE tokenizer: its char, word and BPE segmentations with token counts."""
    by_name = {s.name: s for s in check_sequence(segmenters, "segmenters", "a list of Segmenter")}
    if not by_name:
        raise ValueError("segmenters must hold at least one BPE tokenizer")
    choice = w.Dropdown(options=list(by_name), description="BPE")
    box = w.Text(value=check_str(initial, "initial", utf8=True), description="句子", continuous_update=True)

    def render(sentence: str) -> str:
        rows = compare.segmentations(sentence, word_vocab, [by_name[choice.value]])
        return segmentation_html(rows)

    shown = live(box, render)
    choice.observe(lambda _: setattr(shown.children[1], "value", _render(render, box.value)), names="value")
    return w.VBox([choice, shown])


# --- 02 BPE 逐步合并 -------------------------------------------------------------------------------------


def _ch02_pair(pair: tuple[str, str]) -> str:
    return f"{pair[0]} + {pair[1]}"


def bpe_pair_rows(step: MergeStep) -> list[tuple[str, int, int, str]]:
    """Rows (pair, count, first-met position, note) of one training step, most frequent first.

    The sort is stable, so pairs with the same count keep their first-met order: the order the "first"
    tie-break rule reads them in.
    """
    order = {pair: i for i, pair in enumerate(step.pair_counts, start=1)}
    ranked = sorted(step.pair_counts.items(), key=lambda item: -item[1])
    return [(_ch02_pair(pair), count, order[pair],
             "选中" if pair == step.chosen else ("并列最多" if count == step.count else ""))
            for pair, count in ranked]


def bpe_corpus_rows(corpus: dict[tuple[str, ...], int]) -> list[tuple[Markup, int, int]]:
    """Rows (current split of the word as colored symbols, frequency, symbols in it) of a corpus in training form."""
    return [(token_html(list(symbols)), freq, len(symbols)) for symbols, freq in corpus.items()]


def bpe_trace_rows(result: BPEResult, start: int = 0) -> list[tuple[int, str, str, int, str, Markup]]:
    """One row per merge step from step `start + 1` on: (step, pair, new symbol, count, the other pairs tied at
    that count, the corpus after the step with each word drawn as tokens)."""
    rows = []
    for step in check_type(result, "result", BPEResult, "a BPEResult").steps[check_int(start, "start", low=0):]:
        tied = [_ch02_pair(p) for p, c in step.pair_counts.items() if c == step.count and p != step.chosen]
        corpus = Markup("；".join(token_html(list(symbols)) for symbols in step.corpus))
        rows.append((step.step, _ch02_pair(step.chosen), "".join(step.chosen), step.count, "，".join(tied) or "—",
                     corpus))
    return rows


def bpe_steps(result: BPEResult) -> w.VBox:
    """A slider over the merge steps of bpe_toy.train: that step's pair counts, its choice, the corpus after."""
    check_type(result, "result", BPEResult, "a BPEResult (from bpe_toy.train)")
    if not result.steps:
        raise ValueError("result must contain at least one merge step (train with num_merges >= 1)")
    slider = w.IntSlider(value=1, min=1, max=len(result.steps), description="第几步", continuous_update=True)

    def render(k: int) -> str:
        step = result.steps[k - 1]
        head = (f"<p>第 {k} 步：合并 <b>{html.escape(_ch02_pair(step.chosen))}</b> → "
                f"<b>{html.escape(''.join(step.chosen))}</b>（出现 {step.count} 次）</p>")
        return (head + html_table(["符号对", "次数", "首次出现序号", "备注"], bpe_pair_rows(step))
                + "<p>合并之后的语料：</p>" + html_table(["当前切分", "词频", "符号数"], bpe_corpus_rows(step.corpus)))

    return live(slider, render)


# --- 03 中文语料 -----------------------------------------------------------------------------------------


def tokenizer_comparison(segmenters: list[compare.Segmenter], initial: str = "人工智能改变世界。") -> w.VBox:
    """Type Chinese text and see it cut by several tokenizers side by side, with token counts (compare.segment).

    A character split over several byte tokens is drawn as one striped group; hover shows the ids and bytes.
    """
    check_sequence(segmenters, "segmenters", "a list of Segmenter")
    box = w.Textarea(value=check_str(initial, "initial", utf8=True), description="文本", continuous_update=True,
                     layout=w.Layout(width="95%", height="4em"))

    def render(value: str) -> str:
        chars, size = len(value), len(value.encode("utf-8"))
        return segmentation_html(compare.segment(value, segmenters)) + f"<p>{chars} 个字符，{size} 个 UTF-8 字节</p>"

    return live(box, render)


# --- 04 词表大小 ------------------------------------------------------------------------------------------


def vocab_size_report(tokenizer: Tokenizer, held_out: Sequence[str], size: int, sample: str) -> str:
    """Compression and utilization of one vocabulary size on held-out lines, and the sample cut by it."""
    point = vocab_size.measure_sizes(tokenizer, held_out, [size])[0]
    small = vocab_size.first_merges(tokenizer, point.merges)
    ids = small.encode_ordinary(check_str(sample, "sample", utf8=True))
    learned = point.learned
    rows = [("合并次数", point.merges), ("字节/token", f"{point.compression.bytes_per_token:.3f}"),
            ("字符/token", f"{point.compression.chars_per_token:.3f}"),
            ("学到的 token 在留出文本里用到的", "—" if learned is None else f"{learned.used} / {learned.tokens}"
             f"（{learned.used_share:.1%}）"),
            (f"用到不足 {vocab_size.RARE_BELOW} 次（含没用到）", "—" if learned is None
             else f"{learned.rare + learned.unused}（{learned.rare_or_unused_share:.1%}）")]
    return (html_table(["词表大小 " + str(point.vocab_size), "留出文本上的实测"], rows)
            + f"<p>样例切成 {len(ids)} 个 token：</p>" + token_html([small.token_bytes(i) for i in ids], ids))


def vocab_size_explorer(corpora: dict[str, tuple[Tokenizer, Sequence[str], str]], initial: int = 1024,
                        step: int = 64) -> w.VBox:
    """Pick a corpus and a vocabulary size: compression, utilization and a sample segmentation at that size.

    `corpora` maps a name to (tokenizer trained at the largest size, held-out lines, sample text); every
    smaller size is the first merges of that tokenizer (vocab_size.first_merges), so nothing is retrained.
    """
    check_type(corpora, "corpora", dict, "a dict of name -> (tokenizer, held-out lines, sample text)")
    if not corpora:
        raise ValueError("corpora must name at least one corpus")
    for name, entry in corpora.items():
        tokenizer, held_out, sample = check_sequence(entry, f"corpora[{name!r}]", "a (tokenizer, lines, sample)")
        check_type(tokenizer, f"corpora[{name!r}] tokenizer", Tokenizer, "a Tokenizer")
        check_str_list(held_out, f"corpora[{name!r}] held-out lines", non_empty=True)
        check_str(sample, f"corpora[{name!r}] sample", utf8=True)

    def bounds(name: str) -> tuple[int, int]:
        tokenizer = corpora[name][0]
        base = 256 + len(tokenizer.special_tokens)
        return base, base + len(tokenizer.merges)

    corpus = w.Dropdown(options=list(corpora), description="语料")
    low, high = bounds(corpus.value)
    size = w.IntSlider(value=min(max(check_int(initial, "initial", low=1), low), high), min=low, max=high,
                       step=check_int(step, "step", low=1), description="词表大小", continuous_update=False)

    def render(value: int) -> str:
        tokenizer, held_out, sample = corpora[corpus.value]
        return vocab_size_report(tokenizer, held_out, value, sample)

    shown = live(size, render)

    def switch(_: object) -> None:
        low, high = bounds(corpus.value)
        if low > size.max:  # a slider refuses min > max even for a moment
            size.max, size.min = high, low
        else:
            size.min, size.max = low, high  # may move size.value and redraw; redraw anyway for an unchanged value
        shown.children[1].value = _render(render, size.value)

    corpus.observe(switch, names="value")
    return w.VBox([corpus, shown])


# --- 05 字节级 BPE ---------------------------------------------------------------------------------------


def pretokenize_explorer(segmenters: Sequence[compare.Segmenter] = (),
                         initial: str = "I've paid $1234567 for 3 GPUs! 价格是12345元。") -> w.VBox:
    """Type text and see it cut by the GPT-2, GPT-4 and nanochat split patterns, then by whole tokenizers.

    The patterns give pre-tokens (the pieces BPE merges inside, no ids); each segmenter gives its tokens.
    """
    segmenters = check_sequence(segmenters, "segmenters", "a list of Segmenter")
    box = w.Textarea(value=check_str(initial, "initial", utf8=True), description="文本", continuous_update=True,
                     layout=w.Layout(width="95%", height="4em"))

    def render(value: str) -> str:
        check_str(value, "text", utf8=True)
        rows = [(f"预切分·{name}", [p.encode("utf-8") for p in pretokenize(value, name)], None) for name in PATTERNS]
        return segmentation_html(rows + compare.segment(value, segmenters), first="切分方式（片段或 token）")

    return live(box, render)


# --- 06 训练器为什么慢、怎样变快 ---------------------------------------------------------------------------


def merge_work_html(work: MergeWork, number: int, distinct_words: int) -> str:
    """One merge of `trainer_stages.merge_work` as the inverted index sees it: the pair, how many distinct
    pre-tokens it hands to the update (of `distinct_words`), the pair-count changes against what a recount
    scans, and the most frequent of those pre-tokens before and after the merge."""
    check_type(work, "work", MergeWork, "a MergeWork")
    number = check_int(number, "number", low=1)
    distinct_words = check_int(distinct_words, "distinct_words", low=work.words)
    rows = [("合并的一对", token_html(list(work.pair))), ("它在语料中出现的次数", f"{work.count:,}"),
            ("倒排索引交给更新的预切分词（去重）", f"{work.words:,} / {distinct_words:,}（{work.words / distinct_words:.1%}）"),
            ("增量更新改动的 pair 计数", f"{work.updates:,}"),
            ("聚合后重数一遍要扫的相邻对", f"{work.distinct_pairs:,}"),
            ("不聚合、重数一遍要扫的相邻对", f"{work.corpus_pairs:,}")]
    examples = [(token_html(list(before)), len(before), token_html(list(after)), len(after))
                for before, after in work.examples]
    return (f"<p>第 {number} 次合并</p>" + html_table(["", "值"], rows)
            + html_table(["最常见的受影响词：合并前", "token 数", "合并后", "token 数"], examples))


def merge_work_explorer(works: dict[str, Sequence[MergeWork]], distinct_words: dict[str, int]) -> w.VBox:
    """Pick a corpus and step through its merges (merge_work_html of each); `works` from
    trainer_stages.merge_work, `distinct_words` the number of distinct pre-tokens of each corpus."""
    check_type(works, "works", dict, "a dict of corpus name -> list of MergeWork")
    if not works or not all(works.values()):
        raise ValueError("works must name at least one corpus, each with at least one merge")
    check_type(distinct_words, "distinct_words", dict, "a dict of corpus name -> int")
    for name in works:
        check_choice(name, "works key", sorted(distinct_words))
    corpus = w.Dropdown(options=list(works), description="语料")
    step = w.IntSlider(value=1, min=1, max=len(works[corpus.value]), description="第几次合并",
                       style={"description_width": "initial"}, layout=w.Layout(width="60%"))
    view = w.HTML()

    def redraw(_change: object = None) -> None:
        step.max = len(works[corpus.value])
        work = works[corpus.value][step.value - 1]
        view.value = _render(lambda _: merge_work_html(work, step.value, distinct_words[corpus.value]), None)

    for control in (corpus, step):
        control.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([corpus, step]), view])


# --- 07 填充与掩码 ---------------------------------------------------------------------------------------


BATCH_COLORS = ("#4C72B0", "#DD8452")  # real tokens of alternate batches; padding is light grey
BATCHINGS = {"随机分批": "random", "按长度分桶": "bucketed", "全局排序": "sorted"}


def _batching(lengths: list[int], how: str, batch_size: int, bucket_width: int) -> batch.Batching:
    if how == "random":
        return batch.random_batches(lengths, batch_size)
    if how == "bucketed":
        return batch.bucketed_batches(lengths, batch_size, bucket_width)
    return batch.sorted_batches(lengths, batch_size)


def batch_grid_html(lengths: list[int], batching: batch.Batching, *, max_batches: int = 4,
                    width_px: int = 480) -> str:
    """The first batches of a batching drawn as rows: real tokens in the batch's color, padding in grey.

    One pixel column stands for the same number of tokens in every row, so the grey share is the padding share.
    """
    lengths = check_int_list(lengths, "lengths", low=0)
    check_type(batching, "batching", batch.Batching, "a Batching (from packing.batch)")
    scale = check_int(width_px, "width_px", low=1) / max(max(lengths, default=1), 1)
    parts = []
    for k, rows in enumerate(batching.batches[:check_int(max_batches, "max_batches", low=1)]):
        longest = max(lengths[i] for i in rows)
        color = BATCH_COLORS[k % len(BATCH_COLORS)]
        for i in rows:
            real, filler = round(lengths[i] * scale), round(longest * scale) - round(lengths[i] * scale)
            parts.append(f'<div style="height:5px;margin:1px 0;white-space:nowrap;line-height:0">'
                         f'<span style="display:inline-block;height:5px;width:{real}px;background:{color};'
                         f'"></span><span style="display:inline-block;height:5px;width:{filler}px;background:#ddd">'
                         '</span></div>')
        share = 1 - sum(lengths[i] for i in rows) / (len(rows) * longest) if longest else 0.0
        parts.append(f'<div style="font-size:11px;margin:2px 0 6px">第 {k + 1} 批：{len(rows)} 行 × {longest} 个位置，'
                     f'填充 {share:.0%}</div>')
    return "".join(parts)


def bucketing_explorer(lengths_by_corpus: dict[str, list[int]], *, batch_size: int = 16,
                       bucket_width: int = 32) -> w.VBox:
    """Pick a corpus, a batching, the batch size and the bucket width: the padding share of the whole corpus
    under each batching, and the first batches drawn as rows (grey = padding)."""
    check_type(lengths_by_corpus, "lengths_by_corpus", dict, "a dict of corpus name -> token lengths")
    if not lengths_by_corpus:
        raise ValueError("lengths_by_corpus must hold at least one corpus")
    corpora = {name: check_int_list(lengths, f"lengths_by_corpus[{name!r}]", low=0)
               for name, lengths in lengths_by_corpus.items()}
    corpus = w.Dropdown(options=list(corpora), description="语料")
    how = w.Dropdown(options=list(BATCHINGS), value="按长度分桶", description="分批方式")
    size = w.IntSlider(value=check_int(batch_size, "batch_size", low=1, high=128), min=1, max=128,
                       description="批大小", continuous_update=False)
    width = w.IntSlider(value=check_int(bucket_width, "bucket_width", low=1, high=256), min=1, max=256,
                        description="桶宽", continuous_update=False)

    def render(_: object) -> str:
        lengths = corpora[corpus.value]
        ratios = [(name, f"{_batching(lengths, key, size.value, width.value).padding_ratio:.1%}")
                  for name, key in BATCHINGS.items()]
        shown = _batching(lengths, BATCHINGS[how.value], size.value, width.value)
        return (html_table(["分批方式", "整个语料的填充比例"], ratios)
                + f"<p>{html.escape(how.value)}的前几批（灰色是填充）：</p>" + batch_grid_html(lengths, shown))

    shown = live(size, render)
    for control in (corpus, how, width):
        control.observe(lambda _: setattr(shown.children[1], "value", _render(render, None)), names="value")
    return w.VBox([corpus, how, width, shown])


# --- 08 打包利用率 ------------------------------------------------------------------------------------------




def packed_rows_html(result: PackResult, lengths: Sequence[int], max_rows: int = 12) -> str:
    """The first `max_rows` rows of a packing as bars: one colored block per document segment (width
    proportional to its length), grey for padding; a red right edge where a document's tail was cut off
    (cropped, truncated or carried into another row), a dashed left edge where a segment continues one."""
    check_type(result, "result", PackResult, "a PackResult")
    lengths = check_int_list(lengths, "lengths", low=1)
    max_rows = check_int(max_rows, "max_rows", low=1)
    bars = []
    for r in range(min(result.n_rows, max_rows)):
        blocks, used = [], 0
        for doc, offset, n in result.segments(r):
            end = offset + n
            edges = ("border-right:3px solid #c00;" if end < lengths[doc] else "") + \
                    ("border-left:2px dashed #555;" if offset else "")
            tip = f"文档 {doc}：第 {offset}–{end - 1} 个 token（共 {lengths[doc]} 个）"
            blocks.append(f'<div title="{tip}" style="flex:0 0 {100 * n / result.width:.3f}%;'
                          f'background:{PALETTE[doc % len(PALETTE)]};box-shadow:inset -1px 0 #fff;{edges}'
                          'box-sizing:border-box"></div>')  # the white line parts two documents of one colour
            used += n
        if used < result.width:
            blocks.append(f'<div title="填充 {result.width - used} 个" style="flex:1;background:repeating-linear-'
                          'gradient(45deg,#ddd 0 4px,#f4f4f4 4px 8px)"></div>')
        bars.append(f'<div style="display:flex;height:16px;margin:2px 0;border:1px solid #999">{"".join(blocks)}</div>')
    shown = f"前 {min(result.n_rows, max_rows)} 行，共 {result.n_rows} 行" if result.n_rows else "没有行"
    return (f"<p>{shown}；利用率 {result.utilization:.1%}，填充 {result.padding} 个，丢弃 {result.dropped} 个 "
            f"token（{result.dropped_share:.1%}）</p>" + "".join(bars))


def packing_explorer(lengths_by_corpus: dict[str, Sequence[int]], seq_lens: Sequence[int] = (512, 2048, 4096),
                     max_rows: int = 12) -> w.VBox:
    """Pick a strategy, a row length and a corpus; see the first rows drawn as document blocks
    (strategies.STRATEGIES on the corpus's document lengths, drawn by packed_rows_html)."""
    check_type(lengths_by_corpus, "lengths_by_corpus", dict, "a dict of corpus name -> document lengths")
    if not lengths_by_corpus:
        raise ValueError("lengths_by_corpus must name at least one corpus")
    corpora = {name: check_int_list(lengths, f"lengths_by_corpus[{name!r}]", low=1)
               for name, lengths in lengths_by_corpus.items()}
    seq_lens = [check_int(n, "seq_lens[]", low=1) for n in check_sequence(seq_lens, "seq_lens", "a list of int")]
    strategy = w.Dropdown(options=list(STRATEGIES), value="bfd", description="策略")
    seq_len = w.ToggleButtons(options=seq_lens, value=seq_lens[0], description="L")
    corpus = w.Dropdown(options=list(corpora), description="语料")
    view = w.HTML()

    def redraw(_change: object = None) -> None:
        lengths = corpora[corpus.value]
        view.value = _render(lambda _: packed_rows_html(STRATEGIES[strategy.value](lengths, seq_len.value),
                                                        lengths, max_rows), None)

    for control in (strategy, seq_len, corpus):
        control.observe(redraw, names="value")
    redraw()
    return w.VBox([w.HBox([strategy, corpus]), seq_len, view])


# --- 09 文档掩码 -----------------------------------------------------------------------------------------

_MASK_CELL = {"doc": "#4C72B0", "leak": "#C44E52", "pad": "#BBBBBB", "off": "#FFFFFF"}
_DOC_TINTS = ["#4C72B0", "#DD8452", "#55A868", "#8172B3", "#937860", "#DA8BC3", "#CCB974", "#64B5CD"]
MASK_KINDS = ("因果", "因果+填充", "文档掩码")


def mask_cells(doc_ids: np.ndarray, kind: str) -> list[list[str]]:
    """The CSS class of every (query, key) cell of one row's mask: d0..d8 (own document, by colour), leak
    (another document), pad (padding involved) or off (blocked)."""
    check_choice(kind, "kind", MASK_KINDS)
    ids = doc_masks.as_doc_ids(doc_ids)
    real = ids != -1
    allowed = np.tril(np.ones((len(ids), len(ids)), dtype=bool))
    if kind == "因果+填充":
        allowed &= real[:, None] & real[None, :]
    elif kind == "文档掩码":
        allowed = doc_masks.document_mask(ids)
    return [["off" if not allowed[i, j] else f"d{ids[i] % len(_DOC_TINTS)}" if ids[i] == ids[j] != -1
             else "leak" if real[i] and real[j] else "pad" for j in range(len(ids))] for i in range(len(ids))]


def _mask_grid(cells: list[list[str]]) -> str:
    style = "".join(f".mg .{name}{{background:{color}}}" for name, color in
                    [*((f"d{i}", c) for i, c in enumerate(_DOC_TINTS)), *_MASK_CELL.items()])
    rows = "".join("<tr>" + "".join(f'<td class="{c}"></td>' for c in row) + "</tr>" for row in cells)
    return (f"<style>{style}.mg td{{width:7px;height:7px;padding:0;border:1px solid #eee}}</style>"
            f'<table class="mg" style="border-collapse:collapse;margin-left:0">{rows}</table>')


def document_mask_explorer(lengths: dict[str, Sequence[int]], initial_length: int = 32,
                           max_length: int = 48) -> w.VBox:
    """Pick a corpus, a row length L and a mask: the row holds the corpus's first documents that fit whole
    (the rest of the row is padding), drawn as a grid of query x key cells, with its doc_ids, position ids,
    cu_seqlens and the share of tokens that would see another document without a document mask."""
    check_type(lengths, "lengths", dict, "a dict of corpus name -> document lengths")
    corpora = {name: check_int_list(values, f"lengths[{name!r}]", low=1) for name, values in lengths.items()}
    if not corpora:
        raise ValueError("lengths must name at least one corpus")
    max_length = check_int(max_length, "max_length", low=2)
    corpus = w.Dropdown(options=list(corpora), description="语料")
    kind = w.ToggleButtons(options=list(MASK_KINDS), value="文档掩码", description="掩码")
    row_length = w.IntSlider(value=check_int(initial_length, "initial_length", low=1, high=max_length), min=1,
                             max=max_length, description="行长 L", continuous_update=False)

    def render(length: int) -> str:
        docs = corpora[corpus.value]
        fitting = int(np.searchsorted(np.cumsum(docs), length, side="right"))  # whole documents only
        ids = doc_masks.doc_ids_from_lengths(docs[:fitting], length)
        summary = html_table(["", "值"], [
            ("文档数 / 填充位置", f"{fitting} / {int((ids == -1).sum())}"),
            ("doc_ids", " ".join(map(str, ids))), ("position_ids", " ".join(map(str, doc_masks.position_ids(ids)))),
            ("cu_seqlens", str(doc_masks.varlen(ids).cu_seqlens.tolist())),
            ("没有文档掩码时，上下文里有别的文档的 token", f"{doc_masks.cross_document_share(ids):.0%}")])
        legend = ("<p>行 = 正在预测的位置（query），列 = 被看的位置（key）。蓝/橙/绿……：同一文档；"
                  '<span style="color:#C44E52">红：跨文档（泄漏）</span>；灰：涉及填充；白：不允许。</p>')
        return _mask_grid(mask_cells(ids, kind.value)) + legend + summary

    shown = live(row_length, render)
    redraw = lambda _: setattr(shown.children[1], "value", _render(render, row_length.value))  # noqa: E731
    corpus.observe(redraw, names="value")
    kind.observe(redraw, names="value")
    return w.VBox([corpus, kind, shown])


# --- 10 Megatron .bin/.idx 与 mmap ---------------------------------------------------------------------------


def sequence_html(dataset: megatron.IndexedDataset, tokenizer: Tokenizer, i: int, max_tokens: int = 80) -> str:
    """Where sequence `i` lives: its document, length, byte pointer and byte range in `.bin` (read from the
    `.idx` arrays), and its first `max_tokens` tokens read through the mapping, drawn as tokens."""
    check_type(dataset, "dataset", megatron.IndexedDataset, "an IndexedDataset")
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    i = check_int(i, "i", low=0, high=len(dataset) - 1)
    max_tokens = check_int(max_tokens, "max_tokens", low=1)
    length, pointer = int(dataset.sequence_lengths[i]), int(dataset.sequence_pointers[i])
    document = int(np.searchsorted(dataset.document_indices, i, side="right")) - 1
    ids = dataset.get(i, 0, min(length, max_tokens)).tolist()
    shown = f"前 {len(ids)} 个 token" if len(ids) < length else f"全部 {length} 个 token"
    rows = [("文档编号", document), ("长度 sequence_lengths[i]", f"{length} 个 token"),
            ("字节指针 sequence_pointers[i]", pointer),
            (".bin 中的字节范围", f"[{pointer}, {pointer + length * dataset.dtype.itemsize})"
                                  f"（{length} × {dataset.dtype.itemsize} 字节）")]
    return html_table(["", "值"], rows) + f"<p>{shown}：</p>" + token_html(
        [tokenizer.token_bytes(t) for t in ids], ids)


def sequence_explorer(dataset: megatron.IndexedDataset, tokenizer: Tokenizer, max_tokens: int = 80) -> w.VBox:
    """A slider over the sequences of a mapped dataset, each shown by sequence_html."""
    check_type(dataset, "dataset", megatron.IndexedDataset, "an IndexedDataset")
    if not len(dataset):
        raise ValueError("dataset has no sequences to show")
    max_tokens = check_int(max_tokens, "max_tokens", low=1)
    slider = w.IntSlider(value=0, min=0, max=len(dataset) - 1, description="序列 i", continuous_update=False)
    return live(slider, lambda i: sequence_html(dataset, tokenizer, i, max_tokens))


def sample_html(samples: object, tokenizer: Tokenizer, i: int, max_tokens: int = 16) -> str:
    """Training sample `i` of `samples` (gpt_samples.GPTSamples or PackedSamples) one document run per table
    row: which document, how many input tokens, the position ids it gets, how many of its targets count in
    the loss, and its first `max_tokens` tokens."""
    check_has(samples, "samples", ("sample", "__len__"), "a GPTSamples or PackedSamples")
    check_type(tokenizer, "tokenizer", Tokenizer, "a Tokenizer")
    rows = samples.sample(check_int(i, "i", low=0, high=len(samples) - 1))
    max_tokens = check_int(max_tokens, "max_tokens", low=1)
    starts = np.flatnonzero(np.diff(rows.document_ids, prepend=-2) != 0)
    table = []
    for start, end in zip(starts, [*starts[1:], len(rows.tokens)]):
        doc = int(rows.document_ids[start])
        ids = rows.tokens[start:min(end, start + max_tokens)].tolist()
        shown = Markup("") if doc == -1 else token_html([tokenizer.token_bytes(t) for t in ids], ids)
        table.append(("填充" if doc == -1 else doc, int(end - start),
                      f"{rows.position_ids[start]} … {rows.position_ids[end - 1]}",
                      f"{int(rows.loss_mask[start:end].sum())} / {int(end - start)}", shown))
    return (f"<p>样本 {i}：{len(rows.tokens)} 个输入 token，{len(table)} 段</p>"
            + html_table(["文档", "token 数", "position_ids", "计入损失的目标", f"开头（至多 {max_tokens} 个 token）"],
                         table))


def sample_explorer(samples: dict[str, object], tokenizer: Tokenizer, max_tokens: int = 16) -> w.VBox:
    """Pick a way of making samples and a sample: its document runs, position ids and loss mask (sample_html)."""
    check_type(samples, "samples", dict, "a dict of name -> GPTSamples or PackedSamples")
    if not samples:
        raise ValueError("samples must name at least one way of making samples")
    for name, value in samples.items():
        check_has(value, f"samples[{name!r}]", ("sample", "__len__"), "a GPTSamples or PackedSamples")
    how = w.Dropdown(options=list(samples), description="做法")
    slider = w.IntSlider(value=0, min=0, max=min(map(len, samples.values())) - 1, description="样本 i",
                         continuous_update=False)
    shown = live(slider, lambda i: sample_html(samples[how.value], tokenizer, i, max_tokens))
    how.observe(lambda _: setattr(shown.children[1], "value", _render(
        lambda i: sample_html(samples[how.value], tokenizer, i, max_tokens), slider.value)), names="value")
    return w.VBox([how, shown])
