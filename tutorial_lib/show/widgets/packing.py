"""The widgets of the packing half (chapters 07-10): each lays out what `tutorial_lib.packing`
computes. A dataset, samples or a tokenizer handed in are checked by the attributes read."""

from __future__ import annotations

import html
from typing import Sequence

import ipywidgets as w

from tutorial_lib._check_data import check_dict_of, check_has, check_non_empty_dict
from tutorial_lib._checks import check_int, check_int_list, check_sequence, check_type
from tutorial_lib.packing import batch, masks
from tutorial_lib.packing.masks import BLOCKED, LEAK, PAD_DOC
from tutorial_lib.packing.strategies import STRATEGIES, PackResult
from tutorial_lib.show import palette
from tutorial_lib.show.display import Markup, html_table, id_html
from tutorial_lib.show.widgets import live

BATCH_COLORS = palette.DOCUMENTS[:2]  # real tokens of alternate batches
BATCHINGS = dict(zip(("随机分批", "按长度分桶", "全局排序"), batch.BATCHINGS))
MASK_KINDS = {"因果": "causal", "因果+填充": "causal_padding", "文档掩码": "document"}
_BAR = "display:inline-block;height:5px;width:{}px;background:{}"


def batch_grid_html(lengths: list[int], batching: batch.Batching, *, max_batches: int = 4,
                    width_px: int = 480) -> str:
    """The first batches as rows of real tokens, then padding, a pixel the same in every row."""
    lengths = check_int_list(lengths, "lengths", low=0)
    shown = batch.padded_batches(lengths, batching)[:check_int(max_batches, "max_batches", low=1)]
    scale = check_int(width_px, "width_px", low=1) / max(max(lengths, default=1), 1)
    parts = []
    for k, one in enumerate(shown):
        color = BATCH_COLORS[k % len(BATCH_COLORS)]
        for i in one.rows:
            real = round(lengths[i] * scale)
            parts.append('<div style="height:5px;margin:1px 0;white-space:nowrap;line-height:0">'
                         f'<span style="{_BAR.format(real, color)}"></span><span style="'
                         f'{_BAR.format(round(one.width * scale) - real, palette.PADDING)}">'
                         '</span></div>')
        parts.append(f'<div style="font-size:11px;margin:2px 0 6px">第 {k + 1} 批：{len(one.rows)} '
                     f'行 × {one.width} 个位置，填充 {one.padding_share:.0%}</div>')
    return "".join(parts)


def bucketing_explorer(lengths_by_corpus: dict[str, list[int]], *, batch_size: int = 16,
                       bucket_width: int = 32) -> w.VBox:
    """Pick corpus, batching, batch size, bucket width: the padding share and the first batches."""
    corpora = check_dict_of(lengths_by_corpus, "lengths_by_corpus", "corpus name -> token lengths",
                            check_int_list, low=0)
    corpus = w.Dropdown(options=list(corpora), description="语料")
    how = w.Dropdown(options=list(BATCHINGS), value="按长度分桶", description="分批方式")
    size = w.IntSlider(value=check_int(batch_size, "batch_size", low=1, high=128), min=1, max=128,
                       description="批大小", continuous_update=False)
    width = w.IntSlider(value=check_int(bucket_width, "bucket_width", low=1, high=256), min=1,
                        max=256, description="桶宽", continuous_update=False)

    def render(name: str, chosen: str, batch_size: int, bucket_width: int) -> str:
        lengths = corpora[name]
        runs = {label: batch.batches_by(how, lengths, batch_size, bucket_width)
                for label, how in BATCHINGS.items()}
        shares = [(label, f"{run.padding_share:.1%}") for label, run in runs.items()]
        return (html_table(["分批方式", "整个语料的填充比例"], shares)
                + f"<p>{html.escape(chosen)}的前几批（灰色是填充）：</p>"
                + batch_grid_html(lengths, runs[chosen]))

    return w.VBox([corpus, how, width, size, live(render, corpus, how, size, width)])


def packed_rows_html(result: PackResult, max_rows: int = 12) -> str:
    """The first rows of a packing as bars, a block per document segment, then padding; a solid
    right edge where a document's tail was cut off, a dashed left edge where one continues."""
    check_type(result, "result", PackResult, "a PackResult")
    max_rows = check_int(max_rows, "max_rows", low=1)
    bars = []
    for r in range(min(result.n_rows, max_rows)):
        blocks = []
        for segment in result.segments(r):
            doc, offset, n = segment
            edges = (f"border-right:3px solid {palette.CUT};" if result.is_cut(segment) else "") + \
                    (f"border-left:2px dashed {palette.CUT};" if segment.continues else "")
            tip = (f"文档 {doc}：第 {offset}–{offset + n - 1} 个 token"
                   f"（共 {result.doc_lengths[doc]} 个）")
            color = palette.DOCUMENTS[doc % len(palette.DOCUMENTS)]
            blocks.append(f'<div title="{tip}" style="flex:0 0 {100 * n / result.width:.3f}%;'
                          f'background:{color};box-shadow:inset -1px 0 #fff;{edges}'
                          'box-sizing:border-box"></div>')  # the white line parts two documents
        if result.row_padding(r):
            blocks.append(f'<div title="填充 {result.row_padding(r)} 个" style="flex:1;'
                          f'background:{palette.PADDING}"></div>')
        bars.append('<div style="display:flex;height:16px;margin:2px 0;border:1px solid #999">'
                    f'{"".join(blocks)}</div>')
    shown = f"前 {min(result.n_rows, max_rows)} 行，共 {result.n_rows} 行" if result.n_rows \
        else "没有行"
    return (f"<p>{shown}；利用率 {result.utilization:.1%}，填充 {result.padding} 个，"
            f"丢弃 {result.dropped} 个 token（{result.dropped_share:.1%}）</p>" + "".join(bars))


def packing_explorer(lengths_by_corpus: dict[str, Sequence[int]],
                     seq_lens: Sequence[int] = (512, 2048, 4096), max_rows: int = 12) -> w.VBox:
    """Pick a strategy, a row length and a corpus: the first rows packed (packed_rows_html)."""
    corpora = check_dict_of(lengths_by_corpus, "lengths_by_corpus",
                            "corpus name -> document lengths", check_int_list, low=1)
    seq_lens = [check_int(n, "seq_lens[]", low=1)
                for n in check_sequence(seq_lens, "seq_lens", "a list of int")]
    strategy = w.Dropdown(options=list(STRATEGIES), value="bfd", description="策略")
    seq_len = w.ToggleButtons(options=seq_lens, value=seq_lens[0], description="L")
    corpus = w.Dropdown(options=list(corpora), description="语料")

    def render(name: str, chosen: str, length: int) -> str:
        return packed_rows_html(STRATEGIES[chosen](corpora[name], length), max_rows)

    return w.VBox([w.HBox([strategy, corpus]), seq_len, live(render, corpus, strategy, seq_len)])


_CELL_CLASS = {LEAK: "leak", PAD_DOC: "pad", BLOCKED: "off"}  # documents are d0, d1, ... by colour
_CELL_COLOR = {"leak": palette.LEAK, "pad": palette.PADDING, "off": palette.BLOCKED}


def mask_grid_html(cells: masks.Cells) -> str:
    """A mask as a query x key grid, a cell coloured by what it lets see (`masks.mask_cells`)."""
    check_type(cells, "cells", masks.Cells, "a masks.Cells (from masks.mask_cells)")
    colors = [*((f"d{i}", c) for i, c in enumerate(palette.DOCUMENTS)), *_CELL_COLOR.items()]
    style = "".join(f".mg .{name}{{background:{color}}}" for name, color in colors)
    names = [[_CELL_CLASS.get(k, f"d{k % len(palette.DOCUMENTS)}") for k in row]
             for row in cells.kinds.tolist()]
    rows = "".join("<tr>" + "".join(f'<td class="{c}"></td>' for c in row) + "</tr>"
                   for row in names)
    return (f"<style>{style}.mg td{{width:7px;height:7px;padding:0;border:1px solid #eee}}</style>"
            f'<table class="mg" style="border-collapse:collapse;margin-left:0">{rows}</table>')


def document_mask_explorer(lengths: dict[str, Sequence[int]], initial_length: int = 32,
                           max_length: int = 48) -> w.VBox:
    """Pick a corpus, a row length and a mask: the row of whole documents (`whole_documents`) as
    a mask grid, with its doc_ids, position ids, cu_seqlens and cross-document share."""
    corpora = check_dict_of(lengths, "lengths", "corpus name -> document lengths", check_int_list,
                            low=1)
    max_length = check_int(max_length, "max_length", low=2)
    corpus = w.Dropdown(options=list(corpora), description="语料")
    kind = w.ToggleButtons(options=list(MASK_KINDS), value="文档掩码", description="掩码")
    row_length = w.IntSlider(value=check_int(initial_length, "initial_length", low=1,
                                             high=max_length),
                             min=1, max=max_length, description="行长 L", continuous_update=False)

    def render(name: str, mask: str, length: int) -> str:
        ids = masks.whole_documents(corpora[name], length)
        v = masks.varlen(ids)
        summary = html_table(["", "值"], [
            ("文档数 / 填充位置", f"{len(v.seqlens)} / {v.padding}"),
            ("doc_ids", " ".join(map(str, ids))),
            ("position_ids", " ".join(map(str, masks.position_ids(ids)))),
            ("cu_seqlens", str(v.cu_seqlens.tolist())),
            ("没有文档掩码时，上下文里有别的文档的 token",
             f"{masks.cross_document_share(ids):.0%}")])
        legend = ("<p>行 = 正在预测的位置（query），列 = 被看的位置（key）。蓝/橙/绿……：同一文档；"
                  f'<span style="color:{palette.LEAK}">红：跨文档（泄漏）</span>；灰：涉及填充；'
                  "白：不允许。</p>")
        cells = masks.mask_cells(ids, masks.row_mask(ids, MASK_KINDS[mask]))
        return mask_grid_html(cells) + legend + summary

    return w.VBox([corpus, kind, row_length, live(render, corpus, kind, row_length)])


def sequence_html(dataset: object, tokenizer: object, i: int, max_tokens: int = 80) -> str:
    """Where sequence `i` lives in the `.bin` (from the `.idx` arrays), and its first tokens."""
    check_has(dataset, "dataset", ("byte_range", "document_of"), "an IndexedDataset")
    check_has(tokenizer, "tokenizer", ("token_bytes",), "a Tokenizer")
    i = check_int(i, "i", low=0, high=len(dataset) - 1)
    max_tokens = check_int(max_tokens, "max_tokens", low=1)
    length, (start, end) = int(dataset.sequence_lengths[i]), dataset.byte_range(i)
    ids = dataset.get(i, 0, min(length, max_tokens)).tolist()
    shown = f"前 {len(ids)} 个 token" if len(ids) < length else f"全部 {length} 个 token"
    rows = [("文档编号", dataset.document_of(i)),
            ("长度 sequence_lengths[i]", f"{length} 个 token"),
            ("字节指针 sequence_pointers[i]", start),
            (".bin 中的字节范围", f"[{start}, {end})（{length} × {dataset.dtype.itemsize} 字节）")]
    return html_table(["", "值"], rows) + f"<p>{shown}：</p>" + id_html(tokenizer, ids)


def _index_picker(n: int, description: str) -> tuple[w.IntSlider, w.HBox]:
    """A slider over range(n) and a linked number box: a pixel of the track may skip values."""
    slider = w.IntSlider(value=0, min=0, max=n - 1, description=description,
                         continuous_update=False, readout=False, layout=w.Layout(width="560px"))
    number = w.BoundedIntText(value=0, min=0, max=n - 1, layout=w.Layout(width="90px"))
    w.link((slider, "value"), (number, "value"))
    return slider, w.HBox([slider, number])


def sequence_explorer(dataset: object, tokenizer: object, max_tokens: int = 80) -> w.VBox:
    """A slider over the sequences of a mapped dataset, each shown by sequence_html."""
    check_has(dataset, "dataset", ("byte_range", "document_of"), "an IndexedDataset")
    check_has(tokenizer, "tokenizer", ("token_bytes",), "a Tokenizer")
    if not len(dataset):
        raise ValueError("dataset has no sequences to show")
    max_tokens = check_int(max_tokens, "max_tokens", low=1)
    slider, picker = _index_picker(len(dataset), "序列 i")
    view = live(lambda i: sequence_html(dataset, tokenizer, i, max_tokens), slider)
    return w.VBox([picker, view])


def sample_html(samples: object, tokenizer: object, i: int, max_tokens: int = 16) -> str:
    """Sample `i` of a GPTSamples or PackedSamples, a row per document run: its tokens, position
    ids and targets counted in the loss."""
    check_has(samples, "samples", ("sample", "__len__"), "a GPTSamples or PackedSamples")
    check_has(tokenizer, "tokenizer", ("token_bytes",), "a Tokenizer")
    rows = samples.sample(check_int(i, "i", low=0, high=len(samples) - 1))
    max_tokens = check_int(max_tokens, "max_tokens", low=1)
    table = []
    for run in rows.runs():
        ids = rows.tokens[run.start:min(run.end, run.start + max_tokens)].tolist()
        shown = Markup("") if run.document == PAD_DOC else id_html(tokenizer, ids)
        table.append(("填充" if run.document == PAD_DOC else run.document, run.length,
                      f"{rows.position_ids[run.start]} … {rows.position_ids[run.end - 1]}",
                      f"{run.targets} / {run.length}", shown))
    header = ["文档", "token 数", "position_ids", "计入损失的目标",
              f"开头（至多 {max_tokens} 个 token）"]
    return (f"<p>样本 {i}：{len(rows.tokens)} 个输入 token，{len(table)} 段</p>"
            + html_table(header, table))


def sample_explorer(samples: dict[str, object], tokenizer: object, max_tokens: int = 16) -> w.VBox:
    """Pick a way of making samples and a sample: its runs, position ids and loss (sample_html)."""
    check_non_empty_dict(samples, "samples", "name -> GPTSamples or PackedSamples")
    for name, value in samples.items():
        check_has(value, f"samples[{name!r}]", ("sample", "__len__"),
                  "a GPTSamples or PackedSamples")
    check_has(tokenizer, "tokenizer", ("token_bytes",), "a Tokenizer")
    how = w.Dropdown(options=list(samples), description="做法")
    slider, picker = _index_picker(min(map(len, samples.values())), "样本 i")
    view = live(lambda name, i: sample_html(samples[name], tokenizer, i, max_tokens), how, slider)
    return w.VBox([how, picker, view])
