"""Sampling draws each path with P(path)**alpha / Z (chi-square on a toy), n-best is brute force's
top n, byte fallback round-trips every text and counts only the characters it spells."""

import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.unigram import byte_fallback, model as unigram, sample as unigram_sample
from tutorial_lib.unigram import train as unigram_train

TOY = {"人": -2.0, "工": -3.0, "智": -3.2, "能": -2.5, "障": -4.0,
       "人工": -2.8, "智能": -2.7, "人工智能": -6.0, "智障": -5.0}
CHI2_99_9 = {4: 18.47, 9: 27.88}  # 99.9% quantiles of chi-square with 4 and 9 degrees of freedom


@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.0])
def test_sampling_frequencies_match_the_path_probabilities(alpha):
    paths = unigram_sample.path_probabilities("人工智能", TOY, alpha)
    assert len(paths) == 5 and math.fsum(p for _, p in paths) == pytest.approx(1.0)
    n = 20_000
    seen = Counter(tuple(s) for s in unigram_sample.samples("人工智能", TOY, n, alpha, seed=7))
    chi2 = sum((seen[tuple(pieces)] - n * p) ** 2 / (n * p) for pieces, p in paths)
    assert set(seen) <= {tuple(pieces) for pieces, _ in paths}
    assert chi2 < CHI2_99_9[len(paths) - 1], (chi2, seen)


def test_a_large_alpha_is_viterbi_and_the_seed_repeats():
    assert unigram_sample.sample("人工智能", TOY, alpha=200.0) == unigram.viterbi("人工智能", TOY)[0]
    assert unigram_sample.samples("人工智障", TOY, 20, seed=3) == \
        unigram_sample.samples("人工智障", TOY, 20, seed=3)
    rng = random.Random(3)  # samples is sample n times on one stream, the forward pass done once
    assert unigram_sample.samples("人工智障", TOY, 20, seed=3) == \
        [unigram_sample.sample("人工智障", TOY, 1.0, rng) for _ in range(20)]
    rng = random.Random(1)
    assert unigram_sample.sample("人工智能", TOY, 1.0, rng) in \
        [p for p, _ in unigram_sample.path_probabilities("人工智能", TOY)]


@settings(deadline=None, max_examples=60)
@given(st.text(alphabet="人工智能障", min_size=1, max_size=7), st.integers(1, 6))
def test_nbest_is_the_brute_force_top_n(text, n):
    best = unigram_sample.nbest(text, TOY, n)
    every = unigram.segmentations(text, TOY)
    assert [s for _, s in best] == [s for _, s in every[:n]]
    assert best[0] == unigram.viterbi(text, TOY) or best[0][1] == unigram.viterbi(text, TOY)[1]


@pytest.mark.parametrize("alpha", [0, -1.0, float("nan")])
def test_alpha_must_be_positive(alpha):
    with pytest.raises(ValueError, match="alpha"):
        unigram_sample.sample("人工", TOY, alpha)
    with pytest.raises(ValueError, match="alpha"):
        unigram_sample.path_probabilities("人工", TOY, alpha)


def test_bad_sampling_input_is_named():
    with pytest.raises(TypeError, match="alpha"):
        unigram_sample.sample("人工", TOY, "1")
    with pytest.raises(ValueError, match="n"):
        unigram_sample.nbest("人工", TOY, 0)
    with pytest.raises(ValueError, match="seed"):
        unigram_sample.sample("人工", TOY, 1.0, -1)
    with pytest.raises(ValueError, match="no segmentation"):
        unigram_sample.sample("人工x", TOY)


def test_byte_pieces_are_sentencepiece_s():
    assert byte_fallback.byte_pieces("你") == ["<0xE4>", "<0xBD>", "<0xA0>"]
    assert byte_fallback.encode("人工你", TOY) == ["人工", "<0xE4>", "<0xBD>", "<0xA0>"]
    assert byte_fallback.decode(["人工", "<0xE4>", "<0xBD>", "<0xA0>", "能"]) == "人工你能"
    assert byte_fallback.decode(["<0xE4>"]) == "\ufffd"  # a cut sequence, as SentencePiece
    assert byte_fallback.fallback_rate(["人工你"], TOY) == pytest.approx(1 / 3)


@settings(deadline=None, max_examples=200)
@given(st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from("人工智能𠀀𪚥🙂👨‍👩‍👧"))))
def test_byte_fallback_round_trips_every_text(text):
    pieces = byte_fallback.encode(text, TOY)
    assert byte_fallback.decode(pieces) == text
    assert all(p in TOY or byte_fallback.is_byte_piece(p) for p in pieces)


def test_a_space_is_a_separator_not_a_character_spelled_in_bytes():
    # FLORES once reported 8.76% "spelled in bytes", 1,060 of its 3,789 characters being spaces
    assert byte_fallback.fallback_rate(["人工 你"], TOY) == pytest.approx(1 / 3)
    assert byte_fallback.fallback_rate(["人工你 ", " 人工"], TOY) == pytest.approx(1 / 5)
    assert byte_fallback.fallback_chars(["人工 你\n你\t"], TOY) == Counter({"你": 2, "\t": 1})
    with pytest.raises(ValueError, match="besides spaces"):
        byte_fallback.fallback_rate([" \n "], TOY)


@settings(deadline=None, max_examples=200)
@given(st.text(st.sampled_from("人工智能你𠀀3 \t\n\u3000")))
def test_fallback_chars_are_what_a_trained_model_spells(text):
    table = {**TOY, "▁": -1.0}  # as in a trained model, which always has "▁"
    pieces = byte_fallback.encode_words(unigram_train.words_of(text), table)
    spelled = byte_fallback.fallback_chars([text], table)
    assert sum(map(byte_fallback.is_byte_piece, pieces)) == \
        sum(len(c.encode()) * n for c, n in spelled.items())


def test_bad_fallback_input_is_named():
    with pytest.raises(TypeError, match="text"):
        byte_fallback.encode(b"x", TOY)
    with pytest.raises(TypeError, match="pieces"):
        byte_fallback.decode("人工")
    with pytest.raises(ValueError, match="char"):
        byte_fallback.byte_pieces("人工")
