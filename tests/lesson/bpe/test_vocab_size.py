"""Every smaller vocabulary from one training run, measured on held-out text; what a size costs."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.bpe import vocab_size as vs
from tutorial_lib.bpe.pretokenize import GPT4_PATTERN
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_tokenizer

EOT = "<|endoftext|>"
TEXTS = [data.load_text("timemachine")[:30_000], data.load_text("luxun")[:6_000]]
LARGE = 256 + 1 + 160


@pytest.fixture(scope="module")
def large():
    return train_tokenizer(TEXTS, LARGE, [EOT], GPT4_PATTERN)


@pytest.mark.parametrize("num_merges", [0, 1, 37, 100])
def test_a_prefix_of_the_merges_is_the_smaller_training_run(large, num_merges):
    small = train_tokenizer(TEXTS, 257 + num_merges, [EOT], GPT4_PATTERN)
    prefix = vs.first_merges(large, num_merges)
    assert prefix.merges == small.merges
    assert prefix.vocab == small.vocab
    assert prefix.special_tokens == small.special_tokens
    sample = TEXTS[0][-2000:] + TEXTS[1][-500:]
    text = sample + EOT
    assert prefix.encode(text, allowed_special="all") == small.encode(text, allowed_special="all")


def test_all_merges_give_the_same_tokenizer(large):
    full = vs.first_merges(large, len(large.merges))
    assert full.vocab == large.vocab and full.merges == large.merges
    assert full.metadata["first_merges"] == len(large.merges)


def test_a_prefix_of_cl100k_keeps_its_ids(gpt4):
    small = vs.first_merges(gpt4, 1000)
    assert len(small.merges) == 1000 and len(small.vocab) == 256 + 1000 + len(gpt4.special_tokens)
    assert all(gpt4.vocab[i] == token for i, token in small.vocab.items())
    assert small.decode(small.encode_ordinary("hello 世界")) == "hello 世界"


def test_first_merges_checks_its_arguments(large):
    with pytest.raises(ValueError, match="num_merges"):
        vs.first_merges(large, len(large.merges) + 1)
    with pytest.raises(ValueError, match="num_merges"):
        vs.first_merges(large, -1)
    with pytest.raises(TypeError, match="tokenizer"):
        vs.first_merges("gpt2", 3)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 160), min_size=2, max_size=4))
def test_more_merges_never_need_more_tokens(large, merges):
    text = TEXTS[0][-3000:] + TEXTS[1][-800:]
    counts = [len(vs.first_merges(large, k).encode_ordinary(text)) for k in sorted(merges)]
    assert counts == sorted(counts, reverse=True)

def test_size_range_at_size_and_segment_at_size(large):
    assert vs.size_range(large) == (257, LARGE)
    assert vs.at_size(large, 300).merges == large.merges[:43]
    assert vs.at_size(large, 257).merges == []
    tokens, ids = vs.segment_at_size(large, 300, "the 人")
    assert ids == vs.first_merges(large, 43).encode_ordinary("the 人")
    assert b"".join(tokens) == "the 人".encode() and len(tokens) == len(ids)
    with pytest.raises(ValueError, match=f"between 257 .* and {LARGE}"):
        vs.at_size(large, LARGE + 1)
    with pytest.raises(TypeError, match="tokenizer"):
        vs.size_range("gpt2")
    with pytest.raises(ValueError, match="lone surrogate"):
        vs.segment_at_size(large, 300, "\ud800")


def test_learned_ids_are_the_merge_results_in_merge_order(large):
    ids = vs.learned_ids(large)
    assert ids == list(range(257, LARGE))
    assert [large.vocab[i] for i in ids[:3]] == [a + b for a, b in large.merges[:3]]


def test_measure_sizes_from_bytes_up(large):
    lines = TEXTS[0][-4000:].splitlines()[:40]
    lines = [line for line in lines if line]
    points = vs.measure_sizes(large, lines, [257, 300, LARGE])
    assert [p.merges for p in points] == [0, 43, 160]
    assert points[0].compression.bytes_per_token == 1.0 and points[0].learned is None
    assert points[-1].compression.tokens == sum(len(large.encode_ordinary(line)) for line in lines)
    assert points[1].learned.tokens == 43 and 0 < points[-1].learned.used <= 160
    tokens = [p.compression.tokens for p in points]
    assert tokens[0] > tokens[1] > tokens[2]


def test_measure_sizes_refuses_a_size_the_run_did_not_reach(large):
    with pytest.raises(ValueError, match=f"between 257 .* and {LARGE}"):
        vs.measure_sizes(large, ["a"], [LARGE + 1])
    with pytest.raises(ValueError, match="between"):
        vs.measure_sizes(large, ["a"], [256])


# --- growing a trained vocabulary ----------------------------------------------------------------


# gpt2: the session fixture of tests/conftest.py (GPT-2's files, <|endoftext|> special)


@pytest.fixture(scope="module")
def luxun():
    lines = [line for line in data.load_text("luxun").splitlines() if line.strip()]
    return lines[:300], lines[300:360]


@pytest.fixture(scope="module")
def extended(gpt2, luxun):
    return vs.extend(gpt2, luxun[0], 40)


def test_extend_keeps_every_old_id_and_merge_and_appends_the_new_ones(gpt2, extended):
    assert extended.merges[:50_000] == gpt2.merges and len(extended.merges) == 50_040
    assert all(extended.vocab[i] == token for i, token in gpt2.vocab.items())
    new = {i: t for i, t in extended.vocab.items() if i not in gpt2.vocab}
    assert sorted(new) == list(range(50_257, 50_297))
    assert not set(new.values()) & set(gpt2.vocab.values())  # each new id is a new token
    assert extended.special_tokens == gpt2.special_tokens
    assert extended.metadata["extended"]["learned"] == 40


def test_extended_tokenizer_shortens_held_out_chinese_and_leaves_english_alone(gpt2, extended,
                                                                             luxun):
    held_out = "".join(luxun[1])
    ids = extended.encode_ordinary(held_out)
    assert len(ids) < len(gpt2.encode_ordinary(held_out))
    assert extended.decode(ids) == held_out
    # Plain ASCII: curly quotes share bytes with Chinese punctuation, so new merges may join them.
    english = data.load_text("tinystories")[:3000].encode("ascii", "ignore").decode()
    assert extended.encode_ordinary(english) == gpt2.encode_ordinary(english)


def test_a_prefix_of_an_extension_is_the_smaller_extension(gpt2, extended, luxun):
    smaller = vs.extend(gpt2, luxun[0], 15)
    prefix = vs.first_merges(extended, 50_015)
    assert prefix.merges == smaller.merges and prefix.vocab == smaller.vocab


def test_going_on_with_training_is_training_longer(large):
    # A prefix of a run, extended on the run's own texts, is the longer prefix of the same run.
    base = vs.first_merges(large, 60)
    longer = vs.extend(base, TEXTS, 100)
    assert longer.merges == large.merges and longer.vocab == large.vocab
    assert vs.first_merges(longer, 90).vocab == vs.first_merges(large, 90).vocab


def test_extend_passes_over_a_pair_whose_bytes_base_already_has():
    # base makes "abc" as a + bc, yet encodes "abc" as ab, c (a+b ranks first): joining ab and c
    # would give a second id to bytes that already have one.
    vocab = {i: bytes([i]) for i in range(256)} | {256: b"ab", 257: b"bc", 258: b"abc"}
    base = Tokenizer(vocab, [(b"a", b"b"), (b"b", b"c"), (b"a", b"bc")])
    assert base.encode_ordinary("abc") == [256, 99]
    grown = vs.extend(base, ["abc abc abc"], 10)
    assert (b"ab", b"c") not in grown.merges
    assert grown.merges[3:] == [(b" ", b"ab"), (b" ab", b"c")]  # then nothing is left
    assert grown.encode_ordinary("abc abc") == [256, 99, 260]
    assert grown.metadata["extended"]["learned"] == 2


def test_base_parts_are_the_old_tokens_each_new_token_joins(gpt2, extended):
    parts = vs.base_parts(extended, gpt2)
    assert sorted(parts) == list(range(50_257, 50_297))
    for token_id, ids in parts.items():
        assert len(ids) >= 2 and all(i in gpt2.vocab for i in ids)
        assert b"".join(gpt2.vocab[i] for i in ids) == extended.vocab[token_id]
    assert vs.base_parts(gpt2, gpt2) == {}


def test_extend_and_base_parts_check_their_arguments(gpt2, extended, large):
    with pytest.raises(TypeError, match="base"):
        vs.extend("gpt2", ["人"], 3)
    with pytest.raises(ValueError, match="num_tokens"):
        vs.extend(gpt2, ["人"], -1)
    with pytest.raises(ValueError, match="texts"):
        vs.extend(gpt2, [], 3)
    assert vs.extend(gpt2, ["人人"], 0).vocab == gpt2.vocab
    with pytest.raises(ValueError, match="must extend base"):
        vs.base_parts(large, gpt2)
    with pytest.raises(TypeError, match="tokenizer"):
        vs.base_parts("x", gpt2)
