import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.text import compare
from tutorial_lib.unigram import model as unigram

TOY = {"人": -2.0, "工": -3.0, "智": -3.2, "能": -2.5, "障": -4.0,
       "人工": -2.8, "智能": -2.7, "人工智能": -6.0, "智障": -5.0}


def brute_force(text, log_probs):
    """Every segmentation with its exact score, written independently of the library."""
    if not text:
        return [([], 0.0)]
    out = []
    for end in range(1, len(text) + 1):
        head = text[:end]
        if head in log_probs:
            out += [([head] + rest, log_probs[head] + score) for rest, score in brute_force(text[end:], log_probs)]
    return out


def test_viterbi_on_the_toy():
    assert unigram.viterbi("人工智能", TOY) == (["人工", "智能"], pytest.approx(-5.5))
    assert unigram.viterbi("人工智障", TOY) == (["人工", "智障"], pytest.approx(-7.8))  # not 人工 智 障 (-10)
    assert unigram.viterbi("人工智能", {**TOY, "人工智能": -5.0})[0] == ["人工智能"]


def test_lattice_and_viterbi_table():
    edges = unigram.lattice("人工智能", TOY)
    assert [(e.start, e.end, e.piece) for e in edges] == [
        (0, 1, "人"), (0, 2, "人工"), (0, 4, "人工智能"), (1, 2, "工"), (2, 3, "智"), (2, 4, "智能"), (3, 4, "能")]
    assert edges[1].log_prob == -2.8
    table = unigram.viterbi_table("人工智能", TOY)
    assert [(s.end, s.piece, s.start) for s in table] == [(1, "人", 0), (2, "人工", 0), (3, "智", 2), (4, "智能", 2)]
    assert [s.score for s in table] == pytest.approx([-2.0, -2.8, -6.0, -5.5])
    last = table[-1].candidates  # every edge ending at 4, each after the best path to its start
    assert [(c.start, c.piece) for c in last] == [(0, "人工智能"), (2, "智能"), (3, "能")]
    assert [c.score for c in last] == pytest.approx([-6.0, -5.5, -8.5])
    assert unigram.count_paths("人工智能", TOY) == 5 and unigram.count_paths("人工智慧", TOY) == 0


def test_segmentations_lists_every_path_best_first():
    paths = unigram.segmentations("人工智能", TOY)
    assert len(paths) == 5
    assert paths[0] == (["人工", "智能"], pytest.approx(-5.5))
    assert sorted(tuple(p) for p, _ in paths) == sorted(tuple(p) for p, _ in brute_force("人工智能", TOY))
    with pytest.raises(ValueError, match="more than limit=3"):
        unigram.segmentations("人工智能", TOY, limit=3)


def test_ties_go_to_the_longest_last_piece_as_in_sentencepiece():
    # a + aa, aa + a and a + a + a all score -3 exactly; SentencePiece keeps the first candidate it met
    assert unigram.viterbi("aaa", {"a": -1.0, "aa": -2.0}) == (["a", "aa"], -3.0)


@st.composite
def text_and_pieces(draw):
    alphabet = "abc"
    text = draw(st.text(alphabet, min_size=1, max_size=9))
    extra = draw(st.lists(st.text(alphabet, min_size=2, max_size=4), max_size=8))
    singles = alphabet if draw(st.booleans()) else draw(st.text(alphabet, min_size=1, max_size=3))
    pieces = sorted(set(singles) | set(extra))
    scores = draw(st.lists(st.floats(-20, 0), min_size=len(pieces), max_size=len(pieces)))
    return text, dict(zip(pieces, scores))


@settings(deadline=None)
@given(text_and_pieces())
def test_viterbi_equals_brute_force(case):
    text, log_probs = case
    paths = brute_force(text, log_probs)
    if not paths:
        with pytest.raises(ValueError, match="no segmentation"):
            unigram.viterbi(text, log_probs)
        assert unigram.count_paths(text, log_probs) == 0
        return
    best = max(score for _, score in paths)
    pieces, score = unigram.viterbi(text, log_probs)
    assert "".join(pieces) == text and all(p in log_probs for p in pieces)
    assert score == pytest.approx(best, abs=1e-4)
    assert math.fsum(log_probs[p] for p in pieces) == pytest.approx(best, abs=1e-4)
    assert unigram.viterbi_table(text, log_probs)[-1].score == score
    assert len(unigram.segmentations(text, log_probs, limit=10_000)) == len(paths)
    assert unigram.count_paths(text, log_probs) == len(paths)


@pytest.fixture(scope="module")
def luxun_lines():
    return [line for line in data.load_text("luxun").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def sp_unigram(luxun_lines):
    return compare.train_sentencepiece(luxun_lines[:1200], 4000, "unigram")


def test_sentencepiece_log_probs_keeps_normal_pieces(sp_unigram):
    log_probs = unigram.sentencepiece_log_probs(sp_unigram)
    assert "<unk>" not in log_probs and "<s>" not in log_probs and "<0xE4>" not in log_probs
    assert len(log_probs) == sp_unigram.get_piece_size() - 3 - 256  # <unk>, <s>, </s> and 256 byte pieces
    assert all(not p.count(compare.SP_UNDERLINE) for p in log_probs)
    assert all(score <= 0 for score in log_probs.values())
    with pytest.raises(TypeError, match="processor must be a SentencePieceProcessor"):
        unigram.sentencepiece_log_probs({"a": -1.0})


def test_viterbi_matches_sentencepiece_on_luxun(sp_unigram, luxun_lines):
    log_probs = unigram.sentencepiece_log_probs(sp_unigram)
    def covered(lines):
        return [line for line in lines if all(ch in log_probs for ch in line)]

    training, held_out = covered(luxun_lines[:1200]), covered(luxun_lines[1200:2000])
    assert len(training) > 300 and len(held_out) > 100  # lines the model never saw are checked too
    # viterbi = checking text and the whole table (20 ms for these 3,700 pieces), then best_path: check the
    # table once, and run viterbi itself on a line of each half.
    table = unigram.check_log_probs(log_probs)
    for line in training + held_out:
        expected = [p.replace(compare.SP_UNDERLINE, " ") for p in sp_unigram.encode_as_pieces(line)]
        assert unigram.best_path(line, table)[0] == expected, line
        if line in (training[0], held_out[0]):
            assert unigram.viterbi(line, log_probs) == unigram.best_path(line, table), line


def test_bad_input():
    with pytest.raises(ValueError, match="text must be a non-empty str"):
        unigram.viterbi("", TOY)
    with pytest.raises(TypeError, match="text must be a non-empty str"):
        unigram.viterbi(["人工"], TOY)
    with pytest.raises(ValueError, match="'慧' at index 3"):
        unigram.viterbi("人工智慧", TOY)
    with pytest.raises(ValueError, match="'智' at index 0"):
        unigram.viterbi("智", {"智能": -1.0})
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(ValueError, match=r"log_probs\['人'\] must be a finite number <= 0"):
            unigram.viterbi("人", {"人": bad})
    with pytest.raises(ValueError, match=r"log_probs\['人'\] must be a finite number <= 0"):
        unigram.viterbi("人", {"人": 0.5})
    with pytest.raises(TypeError, match=r"log_probs\['人'\] must be a finite number"):
        unigram.viterbi("人", {"人": "-1"})
    with pytest.raises(TypeError, match="log_probs must be a dict"):
        unigram.viterbi("人", [("人", -1.0)])
    with pytest.raises(TypeError, match="a key of log_probs must be a str"):
        unigram.viterbi("人", {1: -1.0})
    with pytest.raises(ValueError, match="empty piece"):
        unigram.viterbi("人", {"": -1.0, "人": -1.0})
    with pytest.raises(ValueError, match="at least one piece"):
        unigram.lattice("人", {})
    with pytest.raises(TypeError, match="limit must be an int"):
        unigram.segmentations("人", TOY, limit=1.5)
