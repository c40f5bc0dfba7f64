"""Tests for tokenization.d2l: the figures D2L's preprocessing prints for The Time Machine (3221 lines, the first
word ids, a char corpus of 170,580 ids over 28 symbols), Vocab rules, bad input."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.text import d2l
from tutorial_lib.text.d2l import UNK, Vocab


@pytest.fixture(scope="module")
def lines():
    return d2l.read_time_machine()


# --- D2L's printed figures -----------------------------------------------------------------------------------


def test_d2l_line_count_and_sample_lines(lines):
    assert len(lines) == 3221
    assert lines[0] == "the time machine by h g wells"
    assert lines[10] == "twinkled and his usually pale face was flushed and animated the"


def test_d2l_first_word_tokens(lines):
    tokens = d2l.tokenize(lines)
    assert tokens[0] == ["the", "time", "machine", "by", "h", "g", "wells"]
    assert tokens[1:5] == [[], [], [], []] and tokens[5] == ["i"]
    assert tokens[8][:3] == ["the", "time", "traveller"]


def test_d2l_word_vocab_ids(lines):
    vocab = Vocab(d2l.tokenize(lines))
    assert list(vocab.token_to_idx.items())[:10] == [
        ("<unk>", 0), ("the", 1), ("i", 2), ("and", 3), ("of", 4), ("a", 5), ("to", 6), ("was", 7), ("in", 8),
        ("that", 9),
    ]
    assert vocab[d2l.tokenize(lines)[0]] == [1, 19, 50, 40, 2183, 2184, 400]
    assert vocab[d2l.tokenize(lines)[10]] == [2186, 3, 25, 1044, 362, 113, 7, 1421, 3, 1045, 1]
    assert len(vocab) == 4580


def test_d2l_char_corpus_170580_tokens_over_28_symbols():
    corpus, vocab = d2l.load_corpus_time_machine()
    assert (len(corpus), len(vocab)) == (170580, 28)
    assert vocab.idx_to_token[:3] == [UNK, " ", "e"]  # the space is the most frequent "character"
    assert sorted(vocab.idx_to_token[1:]) == [" "] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    assert corpus[:4] == [vocab["t"], vocab["h"], vocab["e"], vocab[" "]]
    assert d2l.load_corpus_time_machine(max_tokens=10)[0] == corpus[:10]


def test_word_level_corpus():
    corpus, vocab = d2l.load_corpus_time_machine(granularity="word")
    assert len(vocab) == 4580 and len(corpus) == 32775 and 0 not in corpus


# --- what cleaning removes -------------------------------------------------------------------------------------


def test_clean_line_examples():
    assert d2l.clean_line("The Time Machine, by H. G. Wells [1898]\n") == "the time machine by h g wells"
    assert d2l.clean_line("don't  stop--NOW!") == "don t stop now"
    assert d2l.clean_line("naïve café") == "na ve caf"  # only ASCII letters survive
    assert d2l.clean_line("1898 ...") == ""


def test_cleaning_report_on_the_time_machine():
    report = d2l.cleaning_report(data.load_text("timemachine").splitlines())
    assert report.chars_before == 175758 and report.chars_after == 170580
    assert report.lowercased == 3618
    assert report.replaced[","] == 2225 and report.replaced["'"] == 657
    assert {ch: n for ch, n in report.replaced.items() if ch.isdigit()} == {"1": 1, "8": 2, "9": 1}  # "[1898]"
    assert sum(report.removed.values()) == report.chars_before - report.chars_after == 5178
    assert report.split_words["don't"] == 11
    assert sum(report.split_words.values()) == 472


def test_cleaning_report_small():
    report = d2l.cleaning_report(["Hi, you're 2!\n"])
    assert (report.chars_before, report.chars_after, report.lowercased) == (13, 9, 1)  # "hi you re"
    assert report.replaced == Counter({" ": 2, ",": 1, "'": 1, "2": 1, "!": 1})
    assert report.split_words == Counter({"you're": 1})


def test_an_inner_run_keeps_its_space_and_loses_the_rest():
    report = d2l.cleaning_report(["Hello, world.  Bye", "Upper-world"])
    assert report.removed_inside == Counter({",": 1, ".": 1, " ": 1})
    assert report.became_space == Counter({" ": 2, "-": 1})
    assert report.removed_at_edges == Counter()


def test_runs_at_the_ends_and_lines_without_letters_are_lost_whole():
    lines = ["[1898]", '"Yes," he said.', "", "   "]
    report = d2l.cleaning_report(lines)
    assert report.removed_at_edges == Counter({"[": 1, "1": 1, "8": 2, "9": 1, "]": 1, '"': 1, ".": 1, " ": 3})
    assert report.removed_inside == Counter({",": 1, '"': 1})


@given(st.lists(st.text(alphabet=st.sampled_from(list("ab Z-,.'\t1é")), max_size=30), max_size=5))
def test_deleted_characters_add_up_to_the_length_lost(lines):
    report = d2l.cleaning_report(lines)
    assert sum(report.removed.values()) == report.chars_before - report.chars_after
    non_letters = sum(1 for x in lines for c in x if not (c.isascii() and c.isalpha()))
    assert sum(report.replaced.values()) == non_letters


# --- Vocab -----------------------------------------------------------------------------------------------------


def test_vocab_frequency_order_ties_by_first_appearance():
    vocab = Vocab([["b", "a", "c"], ["a", "c", "d"]])
    assert vocab.idx_to_token == [UNK, "a", "c", "b", "d"]  # a,c twice; then b before d (seen first)
    assert vocab.token_freqs == [("a", 2), ("c", 2), ("b", 1), ("d", 1)]


def test_vocab_min_freq_and_reserved_tokens():
    tokens = ["x", "y", "x", "z", "x", "y", "<pad>"]
    vocab = Vocab(tokens, min_freq=2, reserved_tokens=["<pad>", "<bos>"])
    assert vocab.idx_to_token == [UNK, "<pad>", "<bos>", "x", "y"]  # <pad> in the corpus is not added twice
    assert vocab["z"] == vocab.unk == 0 and "z" not in vocab and "x" in vocab
    assert vocab[["x", "q", "<bos>"]] == [3, 0, 2]
    assert vocab.to_tokens([3, 0]) == ["x", UNK] and vocab.to_tokens(4) == "y"
    assert len(Vocab()) == 1


def test_vocab_bad_arguments():
    with pytest.raises(ValueError, match="min_freq"):
        Vocab(["a"], min_freq=-1)
    with pytest.raises(TypeError, match="min_freq"):
        Vocab(["a"], min_freq=1.5)
    with pytest.raises(ValueError, match="reserved_tokens"):
        Vocab(["a"], reserved_tokens=["<unk>"])
    with pytest.raises(ValueError, match="reserved_tokens"):
        Vocab(["a"], reserved_tokens=["<pad>", "<pad>"])
    with pytest.raises(TypeError, match="reserved_tokens"):
        Vocab(["a"], reserved_tokens="<pad>")
    with pytest.raises(TypeError, match="tokens"):
        Vocab("abc")
    with pytest.raises(TypeError, match="tokens"):
        Vocab([1, 2])
    vocab = Vocab(["a"])
    with pytest.raises(ValueError, match=r"indices must be an int in \[0, 1\]"):
        vocab.to_tokens(-1)
    with pytest.raises(TypeError, match="indices"):
        vocab.to_tokens("a")
    with pytest.raises(TypeError, match="tokens"):
        vocab[3]


@given(st.lists(st.lists(st.sampled_from("abcdefg"), max_size=6), max_size=8), st.integers(0, 3))
def test_vocab_invariants(tokens, min_freq):
    vocab = Vocab(tokens, min_freq=min_freq)
    counts = d2l.count_tokens(tokens)
    assert vocab.idx_to_token[0] == UNK
    assert all(vocab.to_tokens(vocab[t]) == t for t in vocab.idx_to_token)
    kept = vocab.idx_to_token[1:]
    assert [counts[t] for t in kept] == sorted((counts[t] for t in kept), reverse=True)
    assert set(kept) == {t for t, n in counts.items() if n >= min_freq}


# --- tokenize, split, OOV, Zipf ----------------------------------------------------------------------------------


def test_char_and_word_counts_of_one_sentence():
    sentence = "i love cats and i love dogs"
    assert len(d2l.tokenize([sentence.replace(" ", "")], "char")[0]) == 21
    assert len(d2l.tokenize([sentence], "char")[0]) == 27  # with the spaces a char model has to predict too
    assert len(d2l.tokenize([sentence])[0]) == 7
    assert len(set(sentence.split())) == 5  # "5 subword tokens" is just the distinct words


def test_tokenize_bad_arguments():
    with pytest.raises(ValueError, match="granularity must be one of"):
        d2l.tokenize(["a b"], "byte")
    with pytest.raises(TypeError, match="lines"):
        d2l.tokenize("a b")
    with pytest.raises(TypeError, match=r"lines\[1\]"):
        d2l.tokenize(["a", 3])
    with pytest.raises(TypeError, match="line"):
        d2l.clean_line(None)
    with pytest.raises(TypeError, match="raw_lines"):
        d2l.cleaning_report("one string, not a list")
    with pytest.raises(TypeError, match=r"raw_lines\[0\]"):
        d2l.cleaning_report([b"bytes"])


def test_split_and_oov_rate(lines):
    train, held_out = d2l.split_lines(lines)
    assert (len(train), len(held_out)) == (2898, 323) and train + held_out == lines
    vocab = Vocab(d2l.tokenize(train))
    assert len(vocab) == 4345
    assert d2l.oov_rate(vocab, d2l.tokenize(held_out)) == pytest.approx(0.07895574657752308)
    assert d2l.oov_rate(Vocab(["a", "b"]), ["a", "c", "c", "b"]) == 0.5  # tokens, not distinct types


def test_split_and_oov_bad_arguments():
    with pytest.raises(ValueError, match="train_fraction"):
        d2l.split_lines(["a", "b"], 1.0)
    with pytest.raises(ValueError, match="train_fraction"):
        d2l.split_lines(["a", "b", "c"], 0.1)
    with pytest.raises(ValueError, match="tokens must not be empty"):
        d2l.oov_rate(Vocab(["a"]), [[], []])
    with pytest.raises(TypeError, match="vocab"):
        d2l.oov_rate({"a": 1}, ["a"])
    for bad in (float("nan"), float("inf"), 0, 1):
        with pytest.raises(ValueError, match="train_fraction"):
            d2l.split_lines(["a", "b"], bad)
    with pytest.raises(TypeError, match="train_fraction"):
        d2l.split_lines(["a", "b"], "0.5")


def test_frequencies_by_rank():
    assert d2l.frequencies_by_rank([["a", "b", "a"], ["c", "a", "b"]]) == [3, 2, 1]
    assert d2l.frequencies_by_rank([]) == []


# --- the trade-off notebook 01 measures ------------------------------------------------------------------------


def test_time_machine_trade_off_figures(lines):
    """Word-level OOV on the last 10% of lines, none for characters or byte-level BPE
    (measure.measure)."""
    from tutorial_lib.text import compare, measure
    from tutorial_lib.bpe.tokenizer import Tokenizer
    from tutorial_lib.bpe.trainer import train_bpe

    train, held_out = d2l.split_lines(lines)
    word = measure.measure(compare.from_vocab("word", Vocab(d2l.tokenize(train))), held_out)
    by_char = compare.from_vocab("char", Vocab(d2l.tokenize(train, "char")), "char")
    char = measure.measure(by_char, held_out)
    assert (word.tokens, word.unknown, word.restored_lines) == (3141, 248, 171)
    assert (char.vocab_size, char.tokens, char.unknown, char.lossless) == (28, 15830, 0, True)
    bpe = compare.from_tokenizer("bpe", Tokenizer(*train_bpe(train, 1000)))
    m = measure.measure(bpe, held_out)
    assert m.unknown == 0 and m.lossless and word.tokens < m.tokens < char.tokens
    raw = data.load_text("timemachine").splitlines()[len(train):]  # punctuation, digits, capitals: still lossless
    assert measure.measure(bpe, raw + ["分词 🙂"]).lossless
