"""The widgets of chapters 00-06 redraw from library results when a control changes."""

import pytest

from tutorial_lib.bpe import bpe_toy
from tutorial_lib.text import compare, d2l, measure
from tutorial_lib.bpe import vocab_size as vs
from tutorial_lib.bpe.trainer_stages import merge_work
from tutorial_lib.show.widgets.tokenization import (bpe_steps, bpe_trace_rows, merge_work_explorer, merge_work_html, pretokenize_explorer, segmentation_explorer, tokenizer_comparison, utf8_explorer, vocab_size_explorer, vocab_size_report)
from tutorial_lib.bpe.trainer import train_tokenizer


def test_utf8_explorer_redraws_on_new_text():
    box = utf8_explorer("a")
    control, view = box.children
    assert "1 个字符，1 个字节" in view.value
    control.value = "你🙂"
    assert "2 个字符，7 个字节" in view.value and "e4 bd a0" in view.value


def test_bpe_steps_slider_shows_that_step():
    result = bpe_toy.train({"low": 5, "lowest": 2, "newer": 6, "wider": 3}, 6)
    slider, view = bpe_steps(result).children
    assert "合并 <b>e + r</b>" in view.value
    slider.value = 4
    assert "合并 <b>lo + w</b>" in view.value and "（出现 7 次）" in view.value


def test_segmentation_explorer_follows_text_and_choice():
    vocab = d2l.Vocab(d2l.tokenize(["i love cats", "i love dogs"], "word"))
    upper = measure.Segmenter("upper-bytes", 256, lambda s: list(s.upper().encode()),
                              lambda i: bytes([i]))
    explorer = segmentation_explorer(vocab, [upper], initial="i love")
    choice, box, view = explorer.children
    assert choice.value == "upper-bytes" and ">␣</span>" in view.value and ">L</span>" in view.value
    box.value = "cats"
    assert ">C</span>" in view.value and ">L</span>" not in view.value


def test_trace_rows_list_the_other_tied_pairs_not_the_chosen_one():
    result = bpe_toy.train({"low": 5, "lowest": 2, "newer": 6, "wider": 3}, 3)
    for (step, chosen, _, count, tied, _), trace in zip(bpe_trace_rows(result), result.steps):
        others = [f"{a} + {b}" for (a, b), n in trace.pair_counts.items()
                  if n == count and (a, b) != trace.chosen]
        assert chosen not in tied.split("，")
        assert tied == ("，".join(others) or "—")
    assert any(row[4] != "—" for row in bpe_trace_rows(result))  # this corpus does tie

def test_tokenizer_comparison_redraws_the_tokens_and_the_two_units():
    as_bytes = measure.Segmenter("bytes", 256, lambda s: list(s.encode()), lambda i: bytes([i]))
    control, view = tokenizer_comparison([as_bytes], initial="世界").children
    assert "id 150: \\x96" in view.value and "2 个字符，6 个 UTF-8 字节" in view.value
    control.value = "人a"
    assert "2 个字符，4 个 UTF-8 字节" in view.value and "id 150:" not in view.value



def test_a_refused_value_shows_its_error_and_the_widget_keeps_working():
    control, view = utf8_explorer("a").children
    control.value = "\ud800"
    assert "lone surrogate" in view.value
    control.value = "你"
    assert "e4 bd a0" in view.value


def test_widget_helpers_refuse_bad_arguments():
    with pytest.raises(TypeError, match="initial must be a str"):
        utf8_explorer(None)
    with pytest.raises(TypeError, match="result must be a BPEResult"):
        bpe_steps(None)
    with pytest.raises(TypeError, match="segmenters must be a list"):
        tokenizer_comparison(None)
    with pytest.raises(ValueError, match="segmenters must hold at least one"):
        segmentation_explorer(d2l.Vocab(["a"]), [])


EN = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 5
ZH = ["我们的猫坐在垫子上。", "他们的狗坐在木头上。"] * 5


@pytest.fixture(scope="module")
def corpora():
    en = train_tokenizer(EN, 256 + 40)
    zh = train_tokenizer(ZH, 256 + 30, ["<|endoftext|>"])
    return {"英文": (en, EN[:3], "the cat sat"), "中文": (zh, ZH[:2], "我们的狗")}


def test_the_report_shows_the_library_numbers_and_the_sample_as_tokens(corpora):
    tokenizer, held_out, sample = corpora["英文"]
    html = vocab_size_report(tokenizer, held_out, 266, sample)
    point = vs.measure_sizes(tokenizer, held_out, [266])[0]
    assert f"{point.compression.bytes_per_token:.3f}" in html
    assert f"{point.learned.used} / {point.learned.tokens}" in html
    assert f"{point.learned.rare_or_unused}（{point.learned.rare_or_unused_share:.1%}）" in html
    ids = vs.first_merges(tokenizer, 10).encode_ordinary(sample)
    assert f"样例切成 {len(ids)} 个 token" in html and 'title="id ' in html


def test_the_explorer_follows_the_corpus_and_the_size(corpora):
    corpus, size, view = vocab_size_explorer(corpora, initial=10_000).children
    en_top = 256 + len(corpora["英文"][0].merges)
    zh_top = 257 + len(corpora["中文"][0].merges)
    # clamped to the size training reached
    assert (size.min, size.max, size.value) == (256, en_top, en_top)
    assert f"词表大小 {en_top}" in view.value
    size.value = 256
    assert "词表大小 256" in view.value
    assert "合并次数</td><td style=\"text-align:left\">0<" in view.value
    corpus.value = "中文"
    assert (size.min, size.max) == (257, zh_top) and f"词表大小 {size.value}" in view.value
    assert "字符/token" in view.value


def test_the_explorer_refuses_bad_corpora():
    with pytest.raises(ValueError, match="corpora must contain at least one"):
        vocab_size_explorer({})
    with pytest.raises(TypeError, match="tokenizer"):
        vocab_size_explorer({"x": ("not a tokenizer", ["a"], "a")})


def test_the_explorer_shows_each_pattern_and_each_tokenizer_and_follows_the_text():
    tok = compare.from_tokenizer("小 BPE", train_tokenizer(["aaa bbb 123"], 260))
    box, view = pretokenize_explorer([tok], initial="1234567").children
    for name in ["预切分·gpt2", "预切分·gpt4", "预切分·nanochat", "小 BPE"]:
        assert name in view.value
    # digit grouping
    assert ">1234567<" in view.value and ">123<" in view.value and ">12<" in view.value
    box.value = "x\ud800"
    assert "lone surrogate" in view.value  # the library's message, and the widget keeps working
    box.value = "人工智能"
    assert ">人工智能<" in view.value


def test_bad_arguments():
    with pytest.raises(TypeError, match="segmenters must be a list of Segmenter"):
        pretokenize_explorer("abc")
    with pytest.raises(TypeError, match="initial must be"):
        pretokenize_explorer([], initial=3)


WORKS = {"英文": merge_work(["ab ab ab xab xab cab"], 258),
         "中文": merge_work(["人工智能，人工"], 259)}
DISTINCT = {"英文": 4, "中文": 3}


def test_html_shows_the_pair_the_words_and_the_work():
    html = merge_work_html(WORKS["英文"][0], 1, 4)
    assert "第 1 次合并" in html and "4 / 4（100.0%）" in html
    assert html.count("<tr>") == 1 + 6 + 1 + 3  # header + 6 rows, header + 3 example words
    # " xab" after the merge: ␣ x ab, whitespace visible
    assert ">␣</span>" in html and ">ab</span>" in html
    # " xab": 4 -> 3 tokens
    assert "<td style=\"text-align:left\">4</td><td" in html and ">3</td></tr>" in html


def test_explorer_follows_corpus_and_merge():
    explorer = merge_work_explorer(WORKS, DISTINCT)
    (corpus, step), view = explorer.children[0].children, explorer.children[1]
    assert step.max == 2 and "第 1 次合并" in view.value
    step.value = 2
    assert "第 2 次合并" in view.value
    corpus.value = "中文"
    assert step.max == 3 and "/ 3（" in view.value


def test_explorer_refuses_bad_input():
    with pytest.raises(ValueError, match="works must contain at least one corpus"):
        merge_work_explorer({}, {})
    with pytest.raises(ValueError, match="at least one merge for each corpus"):
        merge_work_explorer({"英文": []}, {"英文": 4})
    with pytest.raises(ValueError, match="works key"):
        merge_work_explorer(WORKS, {"英文": 4})
    with pytest.raises(ValueError, match="distinct_words"):
        merge_work_html(WORKS["英文"][0], 1, 1)


def test_text_boxes_are_as_wide_as_the_cell_so_the_sentence_is_not_cut_off():
    vocab = d2l.Vocab(d2l.tokenize(["i love cats"], "word"))
    upper = measure.Segmenter("upper-bytes", 256, lambda s: list(s.upper().encode()),
                              lambda i: bytes([i]))
    box = segmentation_explorer(vocab, [upper]).children[1]
    assert box.layout.width == "95%"  # a Text's default 300 px hides the end of a sentence
    assert utf8_explorer().children[0].layout.width == "95%"


def test_pruning_explorer_shows_each_round_with_its_costly_and_free_pieces():
    from tutorial_lib.unigram.train import PruneRound
    from tutorial_lib.show.widgets.tokenization import pruning_explorer

    rounds = [PruneRound(0, 10, 7, (("ab", 0.0), ("abc", 0.0), ("bc", 0.25))),
              PruneRound(1, 7, 5, (("ca", 0.5), ("cab", 1.5)))]
    slider, view = pruning_explorer(rounds).children
    assert "10 → 7" in view.value and "其中 2 个损失为 0" in view.value
    assert "0.2500" in view.value and "ab、abc" in view.value and "0.0000" not in view.value
    slider.value = 2
    assert "第 2 轮剪枝" in view.value and "1.5000" in view.value and "例如 无" in view.value
    free = PruneRound(2, 5, 4, (("bca", 0.0),))
    assert "损失都是 0" in pruning_explorer([free]).children[1].value
    with pytest.raises(ValueError, match="at least one pruning round"):
        pruning_explorer([])
