"""Root cause 4, the tokenizer: a dict given to `train_tokenizer` was read as its keys, so the counts of the
chapter's classic word -> count example were silently ignored; a dict now stands for each word repeated
count times, and a set (no order, no repeats) is refused."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.bpe import corpus, trainer
from tutorial_lib.bpe.trainer import train_tokenizer

CLASSIC = {"low": 5, "lower": 2, "newest": 6, "widest": 3}  # Sennrich et al.'s example


def repeated(counts):
    return [word for word, count in counts.items() for _ in range(count)]


def test_the_classic_word_counts_train_like_the_repeated_words():
    from_counts, from_texts = train_tokenizer(CLASSIC, 266), train_tokenizer(repeated(CLASSIC), 266)
    assert from_counts.merges == from_texts.merges and from_counts.metadata == from_texts.metadata
    assert from_counts.merges[:2] == [(b"s", b"t"), (b"e", b"st")]  # "est" occurs 9 times: the counts count
    assert from_counts.merges != train_tokenizer(list(CLASSIC), 266).merges  # the keys alone differ


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(st.text("abcde ", min_size=1, max_size=8), st.integers(0, 6), max_size=6)
       .filter(lambda counts: any(word.strip() and n for word, n in counts.items())))
def test_any_word_counts_train_like_the_repeated_words(counts):
    assert trainer.train_bpe(counts, 270) == trainer.train_bpe(repeated(counts), 270)
    assert corpus.corpus_digest(counts) == corpus.corpus_digest(repeated(counts))


@pytest.mark.parametrize("texts, error, message", [
    ({"low", "lower"}, TypeError, "texts_or_path must be .* in order, got a set"),
    (frozenset({"low"}), TypeError, "got a set"),
    ({"low": -1}, ValueError, r"the count of 'low' in texts_or_path must be an int >= 0, got -1"),
    ({"low": 2.5}, TypeError, r"the count of 'low' in texts_or_path must be an int"),
    ({"low": True}, TypeError, r"the count of 'low' in texts_or_path must be an int"),
    ({b"low": 1}, TypeError, r"a word \(key\) of texts_or_path must be a str, got bytes"),
    ({"low": 10**7, "lower": 1}, ValueError, "texts_or_path's counts add up to 10,000,001, more than the "
                                             "10,000,000 texts"),
])
def test_bad_word_counts_and_sets_are_refused(texts, error, message):
    with pytest.raises(error, match=message):
        train_tokenizer(texts, 270)
