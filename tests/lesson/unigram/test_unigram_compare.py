"""The side-by-side of our Unigram trainer and SentencePiece's: its pieces on small inputs (the whole
comparison runs in notebook 11 and benchmarks/bench_unigram.py)."""

import pytest

from tutorial_lib import data
from tutorial_lib.unigram import (byte_fallback, sp_settings, compare as unigram_compare, train as unigram_train)
from tutorial_lib.unigram.model import SP_UNDERLINE


def test_cuts_are_the_offsets_between_pieces():
    assert unigram_compare.cuts(["▁我", "在", "年青"]) == {2, 3}
    assert unigram_compare.cuts(["▁hello"]) == set()
    assert unigram_compare.cuts([]) == set()


def test_split_lines_keeps_order_and_refuses_an_empty_side():
    train, held_out = unigram_compare.split_lines("tatoeba_cmn")
    lines = [line for line in data.load_text("tatoeba_cmn").splitlines() if line.strip()]
    assert train + held_out == lines and len(train) == int(len(lines) * 0.9)
    with pytest.raises(ValueError, match="train_share"):
        unigram_compare.split_lines("tatoeba_cmn", 1.0)
    with pytest.raises(ValueError, match="train_share"):
        unigram_compare.split_lines("tatoeba_cmn", 0)


def test_sentencepiece_table_keeps_the_word_marker_as_our_trainer_writes_it():
    lines = unigram_compare.split_lines("tinystories")[0][:300]
    model = sp_settings.train(lines, {**unigram_compare.SENTENCEPIECE_OPTIONS, "vocab_size": 800})
    table = unigram_compare.sentencepiece_table(model)
    assert len(table) == 800 - unigram_compare.EXTRA_IDS
    assert SP_UNDERLINE in table and not any(" " in piece for piece in table)
    # our Viterbi over SentencePiece's table cuts a line as SentencePiece itself does
    for line in lines[:20]:
        ours = byte_fallback.encode_words(unigram_train.words_of(line), table)
        assert ours == model.processor.encode(line, out_type=str)


def test_encode_words_is_encode_of_each_word():
    result = unigram_train.train_unigram(data.load_text("luxun")[:20_000], 3000)
    text = "他说：“我在年青时候也曾经做过许多梦，𠀀 Hello  world”"
    words = unigram_train.words_of(text)
    assert byte_fallback.encode_words(words, result.log_probs) == [
        p for w in words for p in byte_fallback.encode(w, result.log_probs)]
    assert result.decode(result.encode(text)) == text.replace("  ", " ")
    with pytest.raises(TypeError, match="words"):
        byte_fallback.encode_words("abc", result.log_probs)
