"""Unigram training: a correct EM (the likelihood never decreases), the vectorised lattice equals
the one-text lattice and brute force, pruning keeps every character and reaches the size, bad input
is named."""

import math
from collections import Counter

import numpy as np
import pytest

from tutorial_lib import data
from tutorial_lib.unigram import (model as unigram, lattice as unigram_lattice, train as unigram_train)

TOY_TEXT = "\n".join(["low lower lowest newer newest wider"] * 3 + ["the cat sat on the mat"] * 2)
WORDS = {"▁人工智能": 3, "▁人工": 2, "▁智能": 1, "▁能人": 1}
TOY = {"▁": -3.0, "人": -2.0, "工": -3.0, "智": -3.2, "能": -2.5, "▁人": -3.5, "人工": -2.8,
       "智能": -2.7, "人工智能": -6.0, "▁人工": -4.0}


def brute_log_likelihood(words, log_probs):
    return sum(n * math.log(sum(math.exp(s) for _, s in unigram.segmentations(w, log_probs)))
               for w, n in words.items())


def brute_expected_counts(words, log_probs):
    counts = Counter()
    for word, n in words.items():
        paths = unigram.segmentations(word, log_probs)
        z = sum(math.exp(s) for _, s in paths)
        for pieces, score in paths:
            for piece in pieces:
                counts[piece] += n * math.exp(score) / z
    return counts


def assert_em_never_decreases(result):
    by_round = {}
    for step in result.em_steps:
        by_round.setdefault(step.round, []).append(step.log_likelihood)
    for values in by_round.values():
        assert all(b >= a - 1e-9 * abs(a) for a, b in zip(values, values[1:])), values


def test_forward_backward_equals_brute_force():
    new, counts, likelihood = unigram_train.em_step(WORDS, TOY)
    # segmentations adds scores in float32 as SentencePiece does, hence rel=1e-6
    assert likelihood == pytest.approx(brute_log_likelihood(WORDS, TOY), rel=1e-6)
    expected = brute_expected_counts(WORDS, TOY)
    assert {p: c for p, c in counts.items() if c} == pytest.approx(dict(expected), rel=1e-6)
    total = sum(expected.values())
    assert new == pytest.approx({p: math.log(expected[p] / total) if expected[p] else
                                 math.log(unigram_train.TINY) for p in TOY}, rel=1e-6)


def test_vectorised_viterbi_equals_unigram_viterbi(luxun_lines):
    words = unigram_train.count_words("\n".join(luxun_lines[:60]))
    result = unigram_train.train_unigram("\n".join(luxun_lines[:60]), 1200)
    pieces = list(result.log_probs)
    lattice = unigram_lattice.build(list(words), list(words.values()), pieces)
    passes = unigram_lattice.Passes(lattice, np.ones(len(lattice.piece), dtype=bool))
    path, best = passes.viterbi(np.array(list(result.log_probs.values())))
    for i, word in enumerate(words):
        assert best[i] == pytest.approx(unigram.viterbi(word, result.log_probs)[1], rel=1e-5)
    assert len(path) == sum(len(unigram.viterbi(w, result.log_probs)[0]) for w in words)


@pytest.mark.parametrize("counts", ["expected", "viterbi"])
def test_em_never_decreases_the_likelihood_on_a_toy(counts):
    result = unigram_train.train_unigram(TOY_TEXT, 30, em_steps=4, counts=counts)
    assert_em_never_decreases(result)
    assert len(result.log_probs) == 30


@pytest.mark.parametrize("counts", ["expected", "viterbi"])
@pytest.mark.parametrize("name, size", [("luxun", 1500), ("tinystories", 400)])
def test_em_never_decreases_the_likelihood_on_real_text(name, size, counts):
    text = "\n".join(data.load_text(name).splitlines()[:300])
    result = unigram_train.train_unigram(text, size, em_steps=3, counts=counts)
    assert_em_never_decreases(result)
    assert len(result.log_probs) == size
    assert set(text) - {" ", "\n"} <= set(result.log_probs)  # every character kept
    assert math.fsum(math.exp(v) for v in result.log_probs.values()) == pytest.approx(1.0)
    # no character left near EM's floor of 1e-30
    assert min(v for p, v in result.log_probs.items() if len(p) == 1) > -30


def test_the_history_records_every_round():
    result = unigram_train.train_unigram(TOY_TEXT, 30)
    rounds = result.prune_rounds
    assert rounds and rounds[-1].after == 30 and rounds[0].before == result.seed_size
    assert all(r.before - r.after == len(r.removed) for r in rounds)
    removed = [p for r in rounds for p, _ in r.removed]
    assert not set(removed) & set(result.log_probs) and all(len(p) > 1 for p in removed)
    assert {s.round for s in result.em_steps} == set(range(len(rounds) + 1))


def test_training_is_deterministic_and_encodes():
    one = unigram_train.train_unigram(TOY_TEXT, 30)
    two = unigram_train.train_unigram(TOY_TEXT, 30)
    assert one.log_probs == two.log_probs and one.prune_rounds == two.prune_rounds
    assert one.encode("the lowest cat") == ["▁the", "▁lowest", "▁cat"]
    assert one.decode(one.encode("the lowest cat 你好")) == "the lowest cat 你好"


def test_viterbi_counts_give_a_different_model(luxun_lines):
    text = "\n".join(luxun_lines[:100])
    soft = unigram_train.train_unigram(text, 2000, counts="expected")
    hard = unigram_train.train_unigram(text, 2000, counts="viterbi")
    assert soft.counts == "expected" and hard.counts == "viterbi"
    assert soft.log_probs != hard.log_probs


def test_pre_tokens_follow_sentencepiece():
    assert unigram_train.words_of("the cat  sat\n我在年青时候") == ["▁the", "▁cat", "▁sat",
                                                                 "▁我在年青时候"]
    assert unigram_train.valid_piece("▁the") and unigram_train.valid_piece("时候")
    assert not unigram_train.valid_piece("候，") and not unigram_train.valid_piece("a▁b")
    assert not unigram_train.valid_piece("Ben.") and not unigram_train.valid_piece("<0xE4>")


def test_the_seed_keeps_every_character_and_ranks_by_frequency_times_length():
    seed = unigram_train.seed_vocabulary({"▁abab": 3, "▁ab": 1}, 2, 16)
    assert {"▁", "a", "b"} <= set(seed)
    # ▁abab: 3 x 5 = 15; ab: (3 x 2 + 1) x 2 = 14; abab (3 x 4 = 12) does not make the top 2
    assert list(seed)[3:] == ["▁abab", "ab"]


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(text="abc abd", vocab_size=3), ValueError, "vocab_size"),
    (dict(text="   \n ", vocab_size=10), ValueError, "text"),
    (dict(text="", vocab_size=10), ValueError, "text"),
    (dict(text=b"abc", vocab_size=10), TypeError, "text"),
    (dict(text="abc", vocab_size=10, counts="soft"), ValueError, "counts"),
    (dict(text="abc", vocab_size=10, shrinking_factor=1.0), ValueError, "shrinking_factor"),
    (dict(text="abc", vocab_size="10"), TypeError, "vocab_size"),
])
def test_bad_training_input_is_named(kwargs, error, name):
    with pytest.raises(error, match=name):
        unigram_train.train_unigram(**kwargs)


def test_a_piece_list_without_single_characters_is_refused():
    with pytest.raises(ValueError, match="log_probs must contain every single character"):
        unigram_train.em_step({"▁人工": 1}, {"▁": -1.0, "人工": -1.0})
    with pytest.raises(ValueError, match="words"):
        unigram_train.em_step({}, TOY)


def test_corpus_log_likelihood_sums_every_segmentation():
    text = "人工智能 人工智能 人工智能\n人工 人工\n智能 能人"
    likelihood, chars, unknown = unigram_train.corpus_log_likelihood(text, TOY)
    assert likelihood == pytest.approx(brute_log_likelihood(WORDS, TOY), rel=1e-6)
    assert (chars, unknown) == (sum(len(w) * n for w, n in WORDS.items()), 0)
    with_unknown, _, missing = unigram_train.corpus_log_likelihood("人工你", TOY)
    floor = min(TOY.values()) - 10
    assert missing == 1 and with_unknown == pytest.approx(
        brute_log_likelihood({"▁人工你": 1}, {**TOY, "你": floor}), rel=1e-6)


def test_one_pruning_round_by_itself_keeps_characters_and_cuts_the_cheapest_first():
    """Half of TOY's ten pieces go: the three no best path uses (loss 0, by string), then the two
    cheapest; the five characters stay, whatever their scores."""
    words = dict(unigram_train.count_words("人工智能 人工智能 人工智能\n人工 人工\n智能 能人"))
    pruned = unigram_train.prune_step(words, TOY, 1, 0.5)
    assert (pruned.before, pruned.after) == (10, 5)
    assert [piece for piece, _ in pruned.removed] == ["▁人", "人工", "人工智能", "智能", "▁人工"]
    losses = [loss for _, loss in pruned.removed]
    assert losses[:3] == [0.0, 0.0, 0.0] and 0 < losses[3] < losses[4]
    assert unigram_train.prune_step(words, TOY, 8, 0.5).after == 8  # never below vocab_size
    with pytest.raises(ValueError, match="shrinking_factor"):
        unigram_train.prune_step(words, TOY, 1, 1.5)
