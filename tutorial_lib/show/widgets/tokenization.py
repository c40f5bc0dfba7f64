"""The widgets of the tokenization chapters (00-06 and 11): each lays out what a library function
computes. A widget handed a finished result (a BPEResult, a MergeWork, a PruneRound) checks it by
the attributes it reads rather than import the module that made it."""

from __future__ import annotations

import html
from typing import Sequence

import ipywidgets as w

from tutorial_lib._check_data import check_has, check_non_empty_dict, check_str_list
from tutorial_lib._checks import check_choice, check_int, check_sequence, check_str, check_type
from tutorial_lib.bpe import vocab_size
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.show.display import Markup, html_table, segmentation_html, token_html
from tutorial_lib.show.widgets import live
from tutorial_lib.text import characters, compare, d2l, measure


def _text_box(initial: str, description: str, box: type = w.Text, **layout: str) -> w.Text:
    """A text box as wide as the cell (a Text keeps 300 px and hides the end of a longer text)."""
    return box(value=check_str(initial, "initial", utf8=True), description=description,
               continuous_update=True, layout=w.Layout(width="95%", **layout))


def utf8_explorer(initial: str = "分词 token 🙂") -> w.VBox:
    """Type any text: each character's code point and UTF-8 bytes (characters.utf8_breakdown)."""
    box = _text_box(initial, "文本")

    def render(value: str) -> str:
        chars, size = characters.chars_and_bytes(value)
        return (html_table(["字符", "码点", "UTF-8 字节"], characters.utf8_breakdown(value))
                + f"<p>{chars} 个字符，{size} 个字节</p>")

    return w.VBox([box, live(render, box)])


def segmentation_explorer(word_vocab: d2l.Vocab, segmenters: list[measure.Segmenter],
                          initial: str = "i love cats and i love dogs") -> w.VBox:
    """Type a sentence, pick a BPE tokenizer: its char, word and BPE segmentations with counts."""
    by_name = {s.name: s for s in check_sequence(segmenters, "segmenters", "a list of Segmenter")}
    if not by_name:
        raise ValueError("segmenters must hold at least one BPE tokenizer")
    choice = w.Dropdown(options=list(by_name), description="BPE")
    box = _text_box(initial, "句子")

    def render(bpe: str, sentence: str) -> str:
        return segmentation_html(compare.segmentations(sentence, word_vocab, [by_name[bpe]]))

    return w.VBox([choice, box, live(render, choice, box)])


def bpe_pair_rows(step: object) -> list[tuple[str, int, int, str]]:
    """Rows (pair, count, first-met position, note) of a MergeStep, in the order "first" reads."""
    tied = step.tied
    return [(" + ".join(pair), count, position,
             "选中" if pair == step.chosen else ("并列最多" if pair in tied else ""))
            for pair, count, position in step.ranked()]


def bpe_trace_rows(result: object, start: int = 0) -> list[tuple[int, str, str, int, str, Markup]]:
    """A row per merge step after `start` of a bpe_toy.BPEResult, with the corpus after it."""
    steps = check_has(result, "result", ("steps",), "a BPEResult").steps
    rows = []
    for step in steps[check_int(start, "start", low=0):]:
        others = [" + ".join(p) for p in step.tied if p != step.chosen]
        corpus = Markup("；".join(token_html(list(symbols)) for symbols in step.corpus))
        rows.append((step.step, " + ".join(step.chosen), "".join(step.chosen), step.count,
                     "，".join(others) or "—", corpus))
    return rows


def bpe_steps(result: object) -> w.VBox:
    """A slider over the steps of bpe_toy.train: the pair counts, the choice, the corpus after."""
    check_has(result, "result", ("steps",), "a BPEResult (from bpe_toy.train)")
    if not result.steps:
        raise ValueError("result must contain at least one merge step (train with num_merges >= 1)")
    slider = w.IntSlider(value=1, min=1, max=len(result.steps), description="第几步",
                         continuous_update=True)

    def render(k: int) -> str:
        step = result.steps[k - 1]
        head = (f"<p>第 {k} 步：合并 <b>{html.escape(' + '.join(step.chosen))}</b> → "
                f"<b>{html.escape(''.join(step.chosen))}</b>（出现 {step.count} 次）</p>")
        corpus = [(token_html(list(symbols)), freq, len(symbols))
                  for symbols, freq in step.corpus.items()]
        return (head + html_table(["符号对", "次数", "首次出现序号", "备注"], bpe_pair_rows(step))
                + "<p>合并之后的语料：</p>" + html_table(["当前切分", "词频", "符号数"], corpus))

    return w.VBox([slider, live(render, slider)])


def tokenizer_comparison(segmenters: list[measure.Segmenter],
                         initial: str = "人工智能改变世界。") -> w.VBox:
    """Type Chinese text and see it cut by several tokenizers side by side (compare.segment)."""
    check_sequence(segmenters, "segmenters", "a list of Segmenter")
    box = _text_box(initial, "文本", w.Textarea, height="4em")

    def render(value: str) -> str:
        rows = compare.segment(value, segmenters)
        chars, size = characters.chars_and_bytes(value)
        return segmentation_html(rows) + f"<p>{chars} 个字符，{size} 个 UTF-8 字节</p>"

    return w.VBox([box, live(render, box)])


def vocab_size_report(tokenizer: Tokenizer, held_out: Sequence[str], size: int,
                      sample: str) -> str:
    """Compression and utilization of one vocabulary size on held-out lines, and the sample cut."""
    point = vocab_size.measure_sizes(tokenizer, held_out, [size])[0]
    tokens, ids = vocab_size.segment_at_size(tokenizer, size, sample)
    learned = point.learned
    used = rare = "—"
    if learned is not None:
        used = f"{learned.used} / {learned.tokens}（{learned.used_share:.1%}）"
        rare = f"{learned.rare_or_unused}（{learned.rare_or_unused_share:.1%}）"
    rows = [("合并次数", point.merges),
            ("字节/token", f"{point.compression.bytes_per_token:.3f}"),
            ("字符/token", f"{point.compression.chars_per_token:.3f}"),
            ("学到的 token 在留出文本里用到的", used),
            (f"用到不足 {measure.RARE_BELOW} 次（含没用到）", rare)]
    return (html_table(["词表大小 " + str(point.vocab_size), "留出文本上的实测"], rows)
            + f"<p>样例切成 {len(ids)} 个 token：</p>" + token_html(tokens, ids))


def vocab_size_explorer(corpora: dict[str, tuple[Tokenizer, Sequence[str], str]],
                        initial: int = 1024, step: int = 64) -> w.VBox:
    """Pick a corpus and a vocabulary size: compression, utilization and a sample segmentation;
    `corpora` maps a name to (tokenizer at the largest size, held-out lines, sample text)."""
    check_non_empty_dict(corpora, "corpora", "name -> (tokenizer, held-out lines, sample text)")
    for name, entry in corpora.items():
        tokenizer, held_out, sample = check_sequence(entry, f"corpora[{name!r}]",
                                                     "a (tokenizer, lines, sample)")
        check_type(tokenizer, f"corpora[{name!r}] tokenizer", Tokenizer, "a Tokenizer")
        check_str_list(held_out, f"corpora[{name!r}] held-out lines", non_empty=True)
        check_str(sample, f"corpora[{name!r}] sample", utf8=True)
    corpus = w.Dropdown(options=list(corpora), description="语料")
    low, high = vocab_size.size_range(corpora[corpus.value][0])
    size = w.IntSlider(value=min(max(check_int(initial, "initial", low=1), low), high), min=low,
                       max=high, step=check_int(step, "step", low=1), description="词表大小",
                       continuous_update=False)

    def switch(_: object) -> None:
        low, high = vocab_size.size_range(corpora[corpus.value][0])
        if low > size.max:  # a slider refuses min > max even for a moment
            size.max, size.min = high, low
        else:
            size.min, size.max = low, high

    def render(name: str, value: int) -> str:
        tokenizer, held_out, sample = corpora[name]
        return vocab_size_report(tokenizer, held_out, value, sample)

    corpus.observe(switch, names="value")  # before the view's own observer: the bounds move first
    return w.VBox([corpus, size, live(render, corpus, size)])


def pretokenize_explorer(segmenters: Sequence[measure.Segmenter] = (),
                         initial: str = "I've paid $1234567 for 3 GPUs! 价格是12345元。") -> w.VBox:
    """Type text: its pre-tokens under the GPT-2, GPT-4, nanochat patterns, then its tokens."""
    segmenters = check_sequence(segmenters, "segmenters", "a list of Segmenter")
    box = _text_box(initial, "文本", w.Textarea, height="4em")

    def render(value: str) -> str:
        rows = [(f"预切分·{name}", *rest) for name, *rest in compare.pretokenizations(value)]
        return segmentation_html(rows + compare.segment(value, segmenters),
                                 first="切分方式（片段或 token）")

    return w.VBox([box, live(render, box)])


def merge_work_html(work: object, number: int, distinct_words: int) -> str:
    """One merge of `trainer_stages.merge_work` as the inverted index sees it: the pre-tokens it
    hands to the update, the pair counts changed against a recount, the commonest words."""
    check_has(work, "work", ("pair", "words_share", "examples"), "a MergeWork")
    number = check_int(number, "number", low=1)
    handed = f"{work.words:,} / {distinct_words:,}（{work.words_share(distinct_words):.1%}）"
    rows = [("合并的一对", token_html(list(work.pair))),
            ("它在语料中出现的次数", f"{work.count:,}"),
            ("倒排索引交给更新的预切分词（去重）", handed),
            ("增量更新改动的 pair 计数", f"{work.updates:,}"),
            ("聚合后重数一遍要扫的相邻对", f"{work.distinct_pairs:,}"),
            ("不聚合、重数一遍要扫的相邻对", f"{work.corpus_pairs:,}")]
    examples = [(token_html(list(before)), len(before), token_html(list(after)), len(after))
                for before, after in work.examples]
    return (f"<p>第 {number} 次合并</p>" + html_table(["", "值"], rows)
            + html_table(["最常见的受影响词：合并前", "token 数", "合并后", "token 数"], examples))


def merge_work_explorer(works: dict[str, Sequence[object]],
                        distinct_words: dict[str, int]) -> w.VBox:
    """Pick a corpus and step through its merges (merge_work_html), `works` from merge_work."""
    check_non_empty_dict(works, "works", "corpus name -> list of MergeWork")
    if not all(works.values()):
        raise ValueError("works must hold at least one merge for each corpus")
    check_non_empty_dict(distinct_words, "distinct_words", "corpus name -> int")
    for name in works:
        check_choice(name, "works key", sorted(distinct_words))
    corpus = w.Dropdown(options=list(works), description="语料")
    step = w.IntSlider(value=1, min=1, max=len(works[corpus.value]), description="第几次合并",
                       style={"description_width": "initial"}, layout=w.Layout(width="60%"))

    def render(name: str, number: int) -> str:
        return merge_work_html(works[name][number - 1], number, distinct_words[name])

    # the slider's bounds follow the corpus before the view redraws
    corpus.observe(lambda _: setattr(step, "max", len(works[corpus.value])), names="value")
    return w.VBox([w.HBox([corpus, step]), live(render, corpus, step)])


def pruning_html(round_: object, shown: int = 12) -> str:
    """One PruneRound: the pieces removed, those EM had already starved, the costliest ones."""
    removed = check_has(round_, "round_", ("removed", "before", "after"), "a PruneRound").removed
    shown = check_int(shown, "shown", low=1)
    free = sum(1 for _, loss in removed if loss <= 0)
    total = sum(loss for _, loss in removed)
    costly = sorted([item for item in removed if item[1] > 0],
                    key=lambda item: (-item[1], item[0]))[:shown]
    free_examples = "、".join([html.escape(p) for p, loss in removed if loss <= 0][:shown])
    rows = [(token_html([piece]), len(piece), f"{loss:.4f}") for piece, loss in costly]
    summary = (f"<p>第 {round_.round + 1} 轮剪枝：{round_.before:,} → {round_.after:,} 个子词，"
               f"删掉 {len(removed):,} 个，其中 {free:,} 个损失为 0（EM 已经不用它们，"
               f"例如 {free_examples or '无'}）；删掉的合计估计损失 {total:.2f}（对数似然）。</p>")
    if not rows:
        return summary + "<p>这一轮删掉的子词损失都是 0。</p>"
    return summary + html_table(["删掉的子词里损失最大的", "字数", "估计损失"], rows)


def pruning_explorer(rounds: Sequence[object], shown: int = 12) -> w.VBox:
    """Step through the pruning rounds of a trained Unigram model (`UnigramResult.prune_rounds`)."""
    rounds = [check_has(r, "each round", ("removed",), "a PruneRound")
              for r in check_sequence(rounds, "rounds", "a list of PruneRound")]
    if not rounds:
        raise ValueError("rounds must hold at least one pruning round")
    pick = w.IntSlider(value=1, min=1, max=len(rounds), description="第几轮剪枝",
                       style={"description_width": "initial"}, layout=w.Layout(width="60%"))
    return w.VBox([pick, live(lambda i: pruning_html(rounds[i - 1], shown), pick)])
