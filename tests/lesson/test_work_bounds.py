"""Functions whose work could grow faster than their input: each bounds it, and says so when it
stops, on the worst input it documents. Work is counted (calls, lookups), never timed."""

import pytest

from tutorial_lib.unigram import model as unigram, sample as unigram_sample
from tutorial_lib.wordpiece import model as wordpiece

DEAD_ENDS = {"a": -1.0, "aa": -1.5}  # 'a' * n has fib(n) segmentations


@pytest.fixture
def scored(monkeypatch):
    """How many times a path's score is extended: the brute-force walk's unit of work."""
    calls = [0]
    real = unigram.add_score

    def counted(score, log_prob):
        calls[0] += 1
        return real(score, log_prob)

    monkeypatch.setattr(unigram, "add_score", counted)
    return calls


def test_a_text_with_no_segmentation_is_refused_before_any_walk(scored):
    text = "a" * 40 + "z"  # once 20 minutes: every dead end below the 'z' was walked
    with pytest.raises(ValueError, match="'z' at index 40"):
        unigram.segmentations(text, DEAD_ENDS)
    assert scored[0] <= 4 * len(text)  # Viterbi's pass, which names the character


def test_more_paths_than_the_limit_are_counted_not_walked(scored):
    with pytest.raises(ValueError, match="2,504,730,781,961 segmentations, more than limit=1000"):
        unigram_sample.path_probabilities("a" * 60, DEAD_ENDS)
    assert scored[0] == 0


def test_the_walk_follows_only_pieces_that_can_reach_the_end(scored):
    text = "a" * 14 + "b"  # 610 segmentations of the a's, then a piece that only some reach
    pieces = {**DEAD_ENDS, "ab": -2.0}
    paths = unigram.segmentations(text, pieces)
    assert len(paths) == unigram.count_paths(text, pieces) == 377
    assert scored[0] <= len(paths) * len(text)


class CountingVocab(set):
    lookups = 0

    def __contains__(self, piece):
        CountingVocab.lookups += 1
        return super().__contains__(piece)


def test_longest_match_tries_no_candidate_longer_than_the_longest_piece():
    word = "a" * 20000  # once 6 minutes: every end up to the word's length was tried
    vocab = CountingVocab({"a", "##a", "aaa"})
    assert wordpiece.encode_word(word, vocab, max_input_chars_per_word=10**6)[:2] == ["aaa", "##a"]
    assert CountingVocab.lookups <= len(word) * wordpiece.longest_piece(vocab)
