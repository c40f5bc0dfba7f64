"""Chapter 11 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold the holes a plausible wrong answer would
slip through, and their expected values are the library's."""

import pytest

from solutions import ch11
from tutorial_lib import exercises
from tutorial_lib.exercises import check
from tutorial_lib.tokenization import wordpiece, wordpiece_train

KEYS = ["11.encode_word", "11.wordpiece_score"]
UNK, PREFIX = "[UNK]", "##"


def cases(key, seed=None):
    return exercises.REGISTRY[key].cases(seed)


def test_chapter_11_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("11.")) == KEYS
    assert set(ch11.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


# --- 11.wordpiece_score ---------------------------------------------------------------------------

def _no_prefix(word_counts):
    """Forgets ##: pairs of bare characters, so 'ab' at the start and inside a word are one pair."""
    freq, pairs = {}, {}
    for word, n in word_counts.items():
        for s in word:
            freq[s] = freq.get(s, 0) + n
        for p in zip(word, word[1:]):
            pairs[p] = pairs.get(p, 0) + n
    best = min(pairs, key=lambda p: (-pairs[p] / (freq[p[0]] * freq[p[1]]), -pairs[p], p))
    return (best[0], PREFIX + best[1]) if best[0] in {w[0] for w in word_counts} else best


def _unweighted(word_counts):
    """Counts each word once, ignoring how often it occurs."""
    return ch11.wordpiece_score({w: 1 for w in word_counts})


def _symbols_once_per_word(word_counts):
    """freq(s) counts the words s occurs in, not its occurrences: ##b in abab counts once."""
    freq, pairs = {}, {}
    for word, n in word_counts.items():
        symbols = [word[0]] + [PREFIX + c for c in word[1:]]
        for s in set(symbols):
            freq[s] = freq.get(s, 0) + n
        for p in zip(symbols, symbols[1:]):
            pairs[p] = pairs.get(p, 0) + n
    return min(pairs, key=lambda p: (-pairs[p] / (freq[p[0]] * freq[p[1]]), -pairs[p], p))


def _ties_by_first_seen(word_counts):
    """Breaks equal scores by the first pair met, not by count then the smaller pair."""
    freq, pairs = ch11._counts(word_counts)
    return max(pairs, key=lambda p: pairs[p] / (freq[p[0]] * freq[p[1]]))


@pytest.mark.parametrize("wrong", [ch11.WRONG_ANSWERS["wordpiece_score"], _no_prefix, _unweighted,
                                   _symbols_once_per_word, _ties_by_first_seen])
def test_score_cases_reject_each_plausible_mistake(wrong):
    assert not check("11.wordpiece_score", wrong).passed
    assert not check("11.wordpiece_score", wrong, seed=7).passed


def test_score_cases_are_the_library_and_include_a_table_where_frequency_disagrees():
    disagree = 0
    for case in cases("11.wordpiece_score"):
        (table,) = case.args
        scores, counts = wordpiece_train.pair_scores(table), wordpiece_train.pair_counts(table)
        assert case.expected == wordpiece_train.best_pair(table)
        assert scores[case.expected] == max(scores.values())
        disagree += max(counts, key=lambda p: (counts[p], p)) != case.expected
    assert disagree >= 3
    # the real-text tables are large enough to matter
    assert max(len(case.args[0]) for case in cases("11.wordpiece_score")) >= 100


# --- 11.encode_word -------------------------------------------------------------------------------

def _forgets_prefix(word, vocab, max_input_chars_per_word=100):
    """Looks continuation pieces up without ##."""
    pieces, start = [], 0
    if len(word) > max_input_chars_per_word:
        return [UNK]
    while start < len(word):
        for end in range(len(word), start, -1):
            if word[start:end] in vocab:
                break
        else:
            return [UNK]
        pieces.append(word[start:end] if start == 0 else PREFIX + word[start:end])
        start = end
    return pieces


def _partial_unk(word, vocab, max_input_chars_per_word=100):
    """Replaces only the uncovered character by [UNK] and goes on."""
    if len(word) > max_input_chars_per_word:
        return [UNK]
    pieces, start = [], 0
    while start < len(word):
        for end in range(len(word), start, -1):
            piece = word[start:end] if start == 0 else PREFIX + word[start:end]
            if piece in vocab:
                break
        else:
            pieces.append(UNK)
            start += 1
            continue
        pieces.append(piece)
        start = end
    return pieces


def _off_by_one_limit(word, vocab, max_input_chars_per_word=100):
    """[UNK] already at the limit (>=) instead of past it (>)."""
    if len(word) >= max_input_chars_per_word:
        return [UNK]
    return ch11.encode_word(word, vocab, max_input_chars_per_word)


def _no_limit(word, vocab, max_input_chars_per_word=100):
    return ch11.encode_word(word, vocab, 10**9)


@pytest.mark.parametrize("wrong", [ch11.WRONG_ANSWERS["encode_word"], _forgets_prefix,
                                   _partial_unk, _off_by_one_limit, _no_limit])
def test_encode_cases_reject_each_plausible_mistake(wrong):
    assert not check("11.encode_word", wrong).passed
    assert not check("11.encode_word", wrong, seed=7).passed


@pytest.mark.parametrize("seed", [None, 3])
def test_encode_cases_are_the_library_and_real_text_needs_unk(seed):
    found = cases("11.encode_word", seed)
    for case in found:
        word, vocab, n = case.args
        assert case.expected == wordpiece.encode_word(word, vocab, max_input_chars_per_word=n)
        assert case.expected == wordpiece.WordPiece(list(vocab), max_input_chars_per_word=n
                                                    ).tokenize_word(word)
    real = [c for c in found if len(c.args[1]) > 100]
    assert len(real) >= 20
    assert any(c.expected == [UNK] for c in real)
    assert any(len(c.expected) >= 3 for c in real)


def test_hidden_cases_cut_other_real_text():
    public = {c.args[0] for c in cases("11.encode_word") if len(c.args[1]) > 100}
    hidden = {c.args[0] for c in cases("11.encode_word", 3) if len(c.args[1]) > 100}
    assert public != hidden
