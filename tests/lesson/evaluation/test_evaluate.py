"""Judging a tokenizer: the evaluation metrics on hand-computed toys, the token premium against
tiktoken counted directly, and the errors bad input gets."""

import math
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.text import compare
from tutorial_lib.evaluation import evaluate
from tutorial_lib.unigram import train as unigram_train
from tutorial_lib.text.measure import Segmenter
from tutorial_lib.text.d2l import Vocab

BYTES = Segmenter("bytes", 256, lambda s: list(s.encode()), lambda i: bytes([i]))
CHARS = Segmenter("chars", 0x10000, lambda s: [ord(c) for c in s], lambda i: chr(i).encode())


# --- Rényi entropy and efficiency ----------------------------------------------------------------


def test_renyi_entropy_by_hand():
    uniform = {"a": 5, "b": 5, "c": 5, "d": 5}
    for alpha in (0, 0.5, 1, 2, 2.5, 7):
        assert evaluate.renyi_entropy(uniform, alpha) == pytest.approx(2.0)  # log2 4, any order
    halves = {"a": 2, "b": 1, "c": 1}  # p = 1/2, 1/4, 1/4
    assert evaluate.renyi_entropy(halves, 1) == pytest.approx(1.5)  # Shannon: 1/2*1 + 2 * 1/4*2
    assert evaluate.renyi_entropy(halves, 2) == pytest.approx(math.log2(8 / 3))  # -log2(3/8)
    assert evaluate.renyi_entropy(halves, 3) == pytest.approx((5 - math.log2(5)) / 2)  # 5/32
    assert evaluate.renyi_entropy(halves, 0) == pytest.approx(math.log2(3))  # counts the types
    # the order-1 entropy is the limit of the others, from both sides
    assert evaluate.renyi_entropy(halves, 1 + 1e-7) == pytest.approx(1.5, abs=1e-6)
    assert evaluate.renyi_entropy(halves, 1 - 1e-7) == pytest.approx(1.5, abs=1e-6)
    assert evaluate.renyi_entropy({"a": 3, "zero": 0}, 2.5) == 0.0  # one token: no uncertainty


def test_renyi_efficiency_matches_the_authors_own_test_values():
    # tokenization-scorer's tests (Zouhar et al.): vocabulary = the distinct tokens seen
    text1 = Counter("pick @@ed pick @@l @@ed pick @@les".split())
    text2 = Counter("pick @@e @@d pick @@l @@e @@d pick @@l @@e @@s".split())
    assert evaluate.renyi_entropy(text1, 2.5) == pytest.approx(1.653012966845049)
    assert evaluate.renyi_entropy(text2, 2.5) == pytest.approx(2.1372977167241545)
    assert evaluate.renyi_entropy(text1, 1) == pytest.approx(1.8423709931771088)
    assert evaluate.renyi_efficiency(text1, len(text1), 2.5) == pytest.approx(0.8265064834225245)
    assert evaluate.renyi_efficiency(text2, len(text2), 2.5) == pytest.approx(0.9204840242168808)


def test_renyi_efficiency_divides_by_the_log_of_the_vocabulary():
    assert evaluate.renyi_efficiency({1: 3, 2: 3, 3: 3, 4: 3}, 4) == pytest.approx(1.0)
    assert evaluate.renyi_efficiency({1: 3, 2: 3, 3: 3, 4: 3}, 16) == pytest.approx(0.5)
    assert evaluate.renyi_efficiency({1: 2, 2: 1, 3: 1}, 8, alpha=2) == \
        pytest.approx(math.log2(8 / 3) / 3)


@given(st.lists(st.integers(1, 50), min_size=1, max_size=30), st.integers(0, 100),
       st.sampled_from([0.5, 1, 2.5, 4]))
def test_renyi_efficiency_is_a_share_and_ignores_order(values, extra, alpha):
    counts = dict(enumerate(values))
    vocab = max(2, len(values)) + extra
    eff = evaluate.renyi_efficiency(counts, vocab, alpha)
    assert -1e-12 <= eff <= 1 + 1e-12
    assert eff == pytest.approx(evaluate.renyi_efficiency(dict(enumerate(values[::-1])), vocab,
                                                          alpha))


def test_renyi_refuses_bad_input():
    with pytest.raises(ValueError, match="counts must hold at least one token"):
        evaluate.renyi_entropy({})
    with pytest.raises(ValueError, match="counts must hold at least one token"):
        evaluate.renyi_entropy({"a": 0})
    with pytest.raises(TypeError, match="counts must be a dict"):
        evaluate.renyi_entropy(["a", "b"])
    with pytest.raises(ValueError, match="alpha"):
        evaluate.renyi_entropy({"a": 1}, -1)
    with pytest.raises(ValueError, match="vocab_size"):  # 3 distinct tokens, 2 entries
        evaluate.renyi_efficiency({"a": 1, "b": 1, "c": 1}, 2)
    with pytest.raises(ValueError, match="vocab_size"):  # log 1 = 0
        evaluate.renyi_efficiency({"a": 1}, 1)


# --- one tokenizer judged on some lines ----------------------------------------------------------


def test_evaluate_a_byte_tokenizer_by_hand():
    e = evaluate.evaluate(BYTES, ["ab", "ab"], "toy")
    assert (e.tokens, e.chars, e.bytes, e.words) == (4, 4, 4, 2)
    assert e.bytes_per_token == 1.0 and e.tokens_per_1000_chars == 1000.0
    assert e.fertility == 2.0 and e.words_delimited
    assert (e.utilization.used, e.utilization.tokens) == (2, 256)
    assert e.renyi_efficiency == pytest.approx(1 / 8)  # H = 1 bit (two tokens, equally often)
    assert e.oov_rate == 0 and e.byte_fallback is None and e.byte_fallback_share is None
    assert e.eval_set == "toy" and e.alpha == 2.5 and e.lossless


def test_evaluate_on_chinese_refuses_fertility():
    e = evaluate.evaluate(BYTES, ["你好 世界"])
    assert (e.chars, e.tokens) == (5, 13)
    assert e.tokens_per_1000_chars == pytest.approx(2600)
    assert e.unspaced_share == 1.0 and e.fertility is None
    for text in ["สวัสดีครับ ผม", "こんにちは 世界"]:
        assert evaluate.evaluate(CHARS, [text]).fertility is None
    # a Chinese name in an English sentence does not make English unspaced
    english = "The poet Lu Xun (鲁迅) wrote many stories about his home town and its people"
    assert evaluate.evaluate(CHARS, [english]).fertility == pytest.approx(len(english) / 15)


def test_evaluate_counts_byte_fallback_and_unknown_tokens():
    known = {"a": 0, "b": 1}

    def encode(text):  # known characters, else one fallback id per UTF-8 byte
        return [known[c] if c in known else 2 + b for c in text for b in
                ([0] if c in known else c.encode())]

    seg = Segmenter("fallback", 258, encode, lambda i: b"ab"[i:i + 1] if i < 2 else bytes([i - 2]),
                    is_byte_fallback=lambda i: i >= 2)
    e = evaluate.evaluate(seg, ["ab你"])
    assert (e.tokens, e.byte_fallback) == (5, 3) and e.byte_fallback_share == pytest.approx(0.6)
    words = compare.from_vocab("words", Vocab(["ab", "c"]))
    e = evaluate.evaluate(words, ["ab c xyz", "ab"])
    assert (e.tokens, e.unknown) == (4, 1) and e.oov_rate == 0.25


def test_evaluate_encodes_each_line_once_and_judges_the_ids_asked_for():
    calls = []
    seg = Segmenter("counted", 256, lambda s: calls.append(s) or list(s.encode()),
                    lambda i: bytes([i]))
    e = evaluate.evaluate(seg, ["ab", "ba", "ab"], ids=[ord("a"), ord("z")])
    assert calls == ["ab", "ba", "ab"]
    assert (e.utilization.tokens, e.utilization.used) == (2, 1)


def test_evaluate_sentencepiece_byte_fallback(luxun_lines):
    processor = compare.train_sentencepiece(luxun_lines[:200], 2000, "bpe",
                                            character_coverage=0.98)
    seg = compare.from_sentencepiece("sp", processor)
    text = "我在年青时候也曾经做过许多梦🙂"
    ids = processor.encode_as_ids(text)
    e = evaluate.evaluate(seg, [text])
    assert e.byte_fallback == sum(map(processor.is_byte, ids)) >= 4  # 🙂 is four byte pieces


def test_every_tokenizer_the_course_knows_can_be_evaluated(luxun_lines, ours, cl100k_segmenter):
    text = "\n".join(luxun_lines[:40])
    unigram = unigram_train.train_unigram(text, len(set(text)) + 200)
    segmenters = [ours, cl100k_segmenter, compare.from_unigram("unigram", unigram)]
    lines = luxun_lines[40:60]
    for seg in segmenters:
        e = evaluate.evaluate(seg, lines)
        assert e.tokens == sum(len(seg.encode(line)) for line in lines), seg.name
        assert 0 < e.renyi_efficiency < 1 and e.fertility is None, seg.name
        assert e.tokens_per_1000_chars == pytest.approx(1000 * e.tokens / e.chars)
    assert evaluate.evaluate(segmenters[2], lines).byte_fallback is not None  # ours: byte pieces


def test_evaluation_table_puts_the_new_columns_beside_measures():
    english, chinese = evaluate.evaluate(BYTES, ["ab", "ab"]), evaluate.evaluate(BYTES, ["你好"])
    columns = ["分词方式", "字节/token", "token/千字", "token/词（fertility）", "[UNK] 占比",
               "字节回退占比", "用到的词表", "Rényi 效率"]
    header, rows = evaluate.evaluation_table([english, chinese], columns)
    assert header == columns
    assert rows[0] == ("bytes", "1.000", "1000.0", "2.00", "0.00%", "—", "0.78%", "0.125")
    assert rows[1][2:4] == ("3000.0", "—")  # six bytes for two characters; no fertility
    with pytest.raises(ValueError, match="columns item must be one of"):
        evaluate.evaluation_table([english], ["速度"])
    with pytest.raises(TypeError, match=r"evaluations\[0\] must be an Evaluation"):
        evaluate.evaluation_table(["bytes"], ["分词方式"])


def test_evaluate_refuses_bad_input():
    with pytest.raises(TypeError, match="segmenter must be a Segmenter"):
        evaluate.evaluate("cl100k", ["a"])
    with pytest.raises(ValueError, match="lines"):
        evaluate.evaluate(BYTES, [])
    with pytest.raises(ValueError, match="alpha"):
        evaluate.evaluate(BYTES, ["a"], alpha=-2)


# --- token premium -------------------------------------------------------------------------------


def test_premium_statistics_by_hand():
    english = ["a" * 2] * 10
    lines = ["b" * (2 * k) for k in range(1, 11)]  # premiums 1, 2, ..., 10
    p = evaluate.token_premium(CHARS, lines, english, "toy")
    assert p.ratios == tuple(float(k) for k in range(1, 11))
    assert p.median == 5.5 and p.max == 10.0
    assert p.p90 == pytest.approx(9.1)  # rank 0.9 * 9 = 8.1: 9 + 0.1 * (10 - 9)
    assert (p.tokens, p.english_tokens) == (110, 20) and p.corpus == 5.5
    assert p.effective_context() == pytest.approx(4096 / 5.5)
    assert p.effective_context(1000) == pytest.approx(1000 / 5.5)


def test_corpus_ratio_weighs_long_sentences_more_than_the_median():
    p = evaluate.token_premium(CHARS, ["aa", "b" * 30, "cc"], ["a", "b" * 10, "c"])
    assert p.ratios == (2.0, 3.0, 2.0) and p.median == 2.0
    assert p.corpus == pytest.approx(34 / 12)


def test_a_premium_from_counts_alone_is_the_premium_of_the_lines():
    lines, english = ["aaaa", "b" * 9, "c"], ["aa", "bbb", "cc"]
    p = evaluate.Premium.from_counts("chars", "toy", [4, 9, 1], [2, 3, 2])
    assert p == evaluate.token_premium(CHARS, lines, english, "toy")
    assert p.ratios == (2.0, 3.0, 0.5) and p.corpus == 2.0
    with pytest.raises(ValueError, match="same sentences.*2 and 1"):
        evaluate.Premium.from_counts("t", "x", [1, 2], [1])
    with pytest.raises(ValueError, match="at least one"):
        evaluate.Premium.from_counts("t", "x", [], [])
    with pytest.raises(ValueError, match=r"english_counts\[1\]"):
        evaluate.Premium.from_counts("t", "x", [1, 2], [1, 0])
    with pytest.raises(TypeError, match=r"counts\[0\]"):
        evaluate.Premium.from_counts("t", "x", [1.5], [1])


def test_effective_context():
    assert evaluate.effective_context(2.0) == 2048
    assert evaluate.effective_context(0.5, 100) == 200
    with pytest.raises(ValueError, match="premium"):
        evaluate.effective_context(0)
    with pytest.raises(ValueError, match="window"):
        evaluate.effective_context(2.0, 0)


def test_flores_premium_equals_tiktoken_counts_computed_directly(cl100k, cl100k_segmenter):
    english = data.load_parallel("eng_Latn")
    rows = evaluate.flores_premiums([cl100k_segmenter], ["zho_Hans", "tha_Thai", "eng_Latn"])
    assert [(p.tokenizer, p.lang) for p in rows] == \
        [("cl100k", "zho_Hans"), ("cl100k", "tha_Thai"), ("cl100k", "eng_Latn")]
    eng = [len(cl100k.encode_ordinary(line)) for line in english]
    for p in rows:
        counts = [len(cl100k.encode_ordinary(line)) for line in data.load_parallel(p.lang)]
        assert p.ratios == tuple(n / e for n, e in zip(counts, eng))
        assert (p.tokens, p.english_tokens) == (sum(counts), sum(eng))
    assert rows[-1].corpus == rows[-1].max == 1.0
    assert rows[0].corpus == pytest.approx(sum(len(cl100k.encode_ordinary(line)) for line in
                                               data.load_parallel("zho_Hans")) / sum(eng))


def test_premium_table_and_series():
    a = evaluate.token_premium(CHARS, ["aaaa", "bb"], ["aa", "bb"], "zho_Hans")
    b = evaluate.token_premium(BYTES, ["你", "好"], ["a", "b"], "zho_Hans")
    header, rows = evaluate.premium_table([a, b], window=1000)
    assert header == ["分词器", "语言", "中位数", "P90", "最大值", "整体比值",
                      "1000 窗口里的英语等效 token"]
    assert rows[0] == ("chars", "简体中文", "1.50", "1.90", "2.00", "1.50", "667")
    assert rows[1] == ("bytes", "简体中文", "3.00", "3.00", "3.00", "3.00", "333")
    assert evaluate.premium_series([a, b]) == {"chars": {"简体中文": [2.0, 1.0]},
                                               "bytes": {"简体中文": [3.0, 3.0]}}
    with pytest.raises(TypeError, match=r"premiums\[1\] must be a Premium"):
        evaluate.premium_table([a, "b"])
    with pytest.raises(TypeError, match=r"premiums\[0\] must be a Premium"):
        evaluate.premium_series([{"zho_Hans": [1.0]}])


def test_premium_refuses_bad_input():
    with pytest.raises(ValueError, match="lines and english_lines must be parallel.*2 and 3"):
        evaluate.token_premium(CHARS, ["a", "b"], ["a", "b", "c"])
    with pytest.raises(ValueError, match="lines"):
        evaluate.token_premium(CHARS, [], [])
    with pytest.raises(ValueError, match=r"lines\[1\] must be a sentence"):
        evaluate.token_premium(CHARS, ["a", ""], ["a", "b"])
    with pytest.raises(ValueError, match=r"english_lines\[0\] must be a sentence"):
        evaluate.token_premium(CHARS, ["a"], ["  "])
    silent = Segmenter("silent", 1, lambda s: [] if s.isascii() else [0], lambda i: b"")
    with pytest.raises(ValueError, match=r"silent gives 0 tokens for english_lines\[0\]"):
        evaluate.token_premium(silent, ["你"], ["a"])
    with pytest.raises(ValueError, match="english_counts"):
        evaluate.token_premium(CHARS, ["a"], ["a"], english_counts=[0])
    with pytest.raises(ValueError, match="langs item must be one of"):
        evaluate.flores_premiums([CHARS], ["xxx_Latn"])
    with pytest.raises(ValueError, match="reference must be one of"):
        evaluate.flores_premiums([CHARS], ["zho_Hans"], reference="english")
    with pytest.raises(TypeError, match=r"segmenters\[0\] must be a Segmenter"):
        evaluate.flores_premiums(["cl100k"], ["zho_Hans"])
    with pytest.raises(ValueError, match="langs"):
        evaluate.flores_premiums([CHARS], [])
    # sets have no order: line i of one would not be line i of the other
    with pytest.raises(TypeError, match="lines must be a list of str, got set"):
        evaluate.token_premium(CHARS, {"a", "b"}, ["a", "b"])
    with pytest.raises(TypeError, match="langs must be a list of str, got set"):
        evaluate.flores_premiums([CHARS], {"zho_Hans"})
