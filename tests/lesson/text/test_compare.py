"""Real tokenizers wrapped as Segmenters, SentencePiece trained in memory, and what each makes of
a text side by side."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.show import display
from tutorial_lib.text import compare, measure
from tutorial_lib.unigram import train as unigram_train
from tutorial_lib.text.characters import is_han
from tutorial_lib.text.d2l import UNK, Vocab
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, PATTERNS, pretokenize


@pytest.fixture(scope="module")
def unigram(luxun_lines):
    return compare.train_sentencepiece(luxun_lines, 3000, "unigram")


def test_han_split_pattern_isolates_each_han_character():
    assert pretokenize("我在年青时候，OK 人工", compare.HAN_SPLIT_PATTERN) == \
        ["我", "在", "年", "青", "时", "候", "，", "OK", " ", "人", "工"]
    assert pretokenize("我在年青时候", GPT2_PATTERN) == ["我在年青时候"]


@given(st.text().filter(lambda t: not any(map(is_han, t))))
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
    # unseen: 4 byte pieces
    assert len(toks) == 4 and all(measure.token_kind(t) == "partial" for t in toks)
    assert compare.sentencepiece_bytes(unigram)(unigram.unk_id()) == b""
    assert [seg.is_byte_fallback(i) for i in seg.encode("🙂")] == [True] * 4
    assert not any(map(seg.is_byte_fallback, seg.encode("我在年青时候")))


def test_from_unigram_gives_byte_pieces_ids_after_the_pieces():
    model = unigram_train.train_unigram("low lower lowest\nnewer newest wider", 20)
    seg = compare.from_unigram("uni", model)
    n = len(model.log_probs)
    assert seg.vocab_size == n + 256
    pieces = model.encode("lowest 你")
    ids = seg.encode("lowest 你")
    assert [model.log_probs.get(p) is None for p in pieces] == [i >= n for i in ids]
    assert ids[-3:] == [n + b for b in "你".encode()]  # a character it lacks: its three bytes
    assert [seg.is_byte_fallback(i) for i in ids] == [i >= n for i in ids]
    assert b"".join(seg.tokens("lowest 你")) == " lowest 你".encode()  # "▁" before each word
    assert seg.text_of(ids) == "lowest 你"
    with pytest.raises(TypeError, match="model must be a unigram_train.UnigramResult"):
        compare.from_unigram("uni", {"a": -1.0})


def test_train_sentencepiece_bad_arguments(luxun_lines):
    with pytest.raises(ValueError, match="model_type"):
        compare.train_sentencepiece(luxun_lines, 1000, "wordpiece")
    with pytest.raises(ValueError, match="vocab_size"):
        compare.train_sentencepiece(luxun_lines, 100, "bpe")
    with pytest.raises(TypeError, match="lines"):
        compare.train_sentencepiece("一行字", 1000, "bpe")


def test_cl100k_cuts_shi_into_partial_bytes(cl100k_segmenter):
    assert cl100k_segmenter.tokens("世") == [b"\xe4\xb8", b"\x96"]
    assert compare.token_table(cl100k_segmenter, "世界")[:2] == [(3574, b"\xe4\xb8", "partial"),
                                                      (244, b"\x96", "partial")]
    assert measure.cut_characters(cl100k_segmenter.tokens("世界")) == (1, 2)


def test_show_token():
    assert display.show_token("世界\n".encode()) == "世界\\n"
    assert display.show_token(" 世界".encode()) == "␣世界"
    assert display.show_token(b"\xe4\xb8") == "\\xe4\\xb8"
    assert display.show_token(b"a\xe4\t") == "a\\xe4\\t"  # the valid part stays text
    assert display.show_token(" love") == "␣love"
    with pytest.raises(TypeError, match="token must be bytes or str"):
        display.show_token(None)

def test_segment_gives_each_tokenizers_tokens_and_ids(ours, cl100k_segmenter):
    rows = compare.segment("世界", [ours, cl100k_segmenter])
    assert rows[1] == ("cl100k", [b"\xe4\xb8", b"\x96", "界".encode()], [3574, 244, 98220])
    assert rows[0][0] == "ours" and rows[0][2] == ours.encode("世界")


def test_pretokenizations_give_each_patterns_pieces_without_ids():
    rows = compare.pretokenizations("I paid 1234567!")
    assert [name for name, _, _ in rows] == list(PATTERNS)
    for name, pieces, ids in rows:
        assert ids is None and pieces == [p.encode() for p in pretokenize("I paid 1234567!", name)]
    by_name = {name: pieces for name, pieces, _ in rows}
    assert b" 1234567" in by_name["gpt2"] and b"123" in by_name["gpt4"]  # GPT-4 groups 3 digits
    with pytest.raises(ValueError, match="lone surrogate"):
        compare.pretokenizations("\ud800")


def test_from_tokenizer_uses_the_embedding_size_not_the_number_of_entries(cl100k_segmenter, gpt4):
    ours_cl100k = compare.from_tokenizer("cl100k via Tokenizer", gpt4)  # formats.from_tiktoken(cl100k)
    assert ours_cl100k.vocab_size == cl100k_segmenter.vocab_size == 100277
    assert measure.vocab_kinds(ours_cl100k) == measure.vocab_kinds(cl100k_segmenter)


def test_segmentations():
    vocab = Vocab(["i", "love", "cats"])
    as_bytes = measure.Segmenter("bytes", 256, lambda s: list(s.encode()), lambda i: bytes([i]))
    rows = {name: (tokens, ids)
            for name, tokens, ids in compare.segmentations("I love DOGS!", vocab, [as_bytes])}
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
