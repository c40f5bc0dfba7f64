"""WordPiece: BERT's pre-tokenizer and longest match against Hugging Face, and the score trainer."""

import os
import subprocess
import sys
from collections import Counter

import pytest
from tokenizers import pre_tokenizers

from tutorial_lib import data
from tutorial_lib.wordpiece import model as wp
from tutorial_lib.wordpiece import train as wt

CORPORA = [c.name for c in data.list_corpora()]
SLICE = 20_000  # characters of each corpus for the per-option checks
OPTIONS = [{}, {"tokenize_chinese_chars": False}, {"lowercase": True, "strip_accents": True}]


@pytest.fixture(scope="module")
def texts():
    return {name: data.load_text(name) for name in CORPORA}


# tatoeba_cmn_attribution is one template line 28,447 times ("CC-BY 2.0 (France) Attribution: tatoeba.org
# #538123 (CM) & #891077 (Martha)"), 2.3M characters, a third of all the corpora: the whole-corpus checks
# read its first 400,000 characters, which hold every character of the file.
WHOLE_LIMIT = {"tatoeba_cmn_attribution": 400_000}


@pytest.fixture(scope="module")
def whole_texts(texts):
    """Every corpus whole but the template above, cut where it has shown every character it has."""
    cut = {name: text[:WHOLE_LIMIT.get(name)] for name, text in texts.items()}
    assert all(set(cut[name]) == set(texts[name]) for name in WHOLE_LIMIT)
    return cut


@pytest.fixture(scope="module")
def trained(texts):
    """Our trainer on Lu Xun + TinyStories at 8000 (under a second)."""
    return wt.train_wordpiece([texts["luxun"], texts["tinystories"]], 8000)


@pytest.fixture(scope="module")
def hf_vocab(texts):
    """HF's WordPieceTrainer on the same text and size: a second, differently built vocabulary."""
    return wt.hf_train([texts["luxun"], texts["tinystories"]], 8000).vocab


# --- pre-tokenization ---------------------------------------------------------------------------

def test_pretokenize_by_hand():
    assert wp.bert_pretokenize("Hello, world!  我爱北京。") == ["Hello", ",", "world", "!", "我", "爱",
                                                               "北", "京", "。"]
    assert wp.bert_pretokenize("我爱北京。", tokenize_chinese_chars=False) == ["我爱北京", "。"]
    assert wp.bert_pretokenize("a\x00b\u200bc\td$e") == ["abc", "d", "$", "e"]  # controls go, $ splits
    assert wp.bert_pretokenize("Héllo", lowercase=True, strip_accents=True) == ["hello"]
    assert wp.bert_pretokenize("Héllo") == ["Héllo"]  # cased by default
    assert wp.bert_pretokenize("한국어 ひらがな") == ["한국어", "ひらがな"]  # not CJK ideographs


def hf_words(text, **options):
    """The words HF's BertNormalizer + BertPreTokenizer make of `text` (to compare with ours)."""
    normalized = wp.hf_normalizer(**options).normalize_str(text)
    return [w for w, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str(normalized)]


def test_pretokenize_equals_hf_on_every_corpus(whole_texts):
    for name, text in whole_texts.items():
        assert wp.bert_pretokenize(text) == hf_words(text), name
        for options in OPTIONS[1:]:
            part = text[:SLICE]
            assert wp.bert_pretokenize(part, **options) == hf_words(part, **options), (name, options)


def test_where_hf_differs():
    # BertPreTokenizer alone keeps a run of Han characters whole: the split is BertNormalizer's.
    raw = [w for w, _ in pre_tokenizers.BertPreTokenizer().pre_tokenize_str("我爱北京。")]
    assert raw == ["我爱北京", "。"]
    assert hf_words("我爱北京。") == wp.bert_pretokenize("我爱北京。")
    # Python lowercases a word-final sigma to ς (as BERT's Python code does), HF's Rust to σ.
    assert wp.bert_pretokenize("ΑΣ", lowercase=True) == ["ας"]
    assert hf_words("ΑΣ", lowercase=True) == ["ασ"]


# --- longest match ------------------------------------------------------------------------------

def test_encode_word_by_hand():
    vocab = {"[UNK]", "un", "##aff", "##able", "a", "##f", "##ff"}
    assert wp.encode_word("unaffable", vocab) == ["un", "##aff", "##able"]  # BERT's docstring example
    assert wp.encode_word("aff", vocab) == ["a", "##ff"]  # longest first, not "a ##f ##f"
    assert wp.encode_word("unx", vocab) == ["[UNK]"]  # the whole word, not "un [UNK]"
    assert wp.encode_word("a" * 101, vocab | {"##" + "a"}) == ["[UNK]"]  # over 100 characters
    assert wp.encode_word("aaa", vocab | {"##a"}, max_input_chars_per_word=3) == ["a", "##a", "##a"]


def check_same_ids(model, text):
    assert model.encode(text) == wp.hf_tokenizer(model).encode(text).ids


@pytest.mark.parametrize("which", ["ours", "hf"])
def test_ids_equal_hf_on_every_corpus(texts, trained, hf_vocab, which):
    vocab = trained.vocab if which == "ours" else hf_vocab
    for options in OPTIONS:
        model = wp.WordPiece(vocab, **options)
        for name, text in texts.items():
            assert model.encode(text[:SLICE]) == wp.hf_tokenizer(model).encode(text[:SLICE]).ids, \
                (name, options)
    short = wp.WordPiece(vocab, max_input_chars_per_word=6, unk_token="[UNK]")
    for name, text in texts.items():
        check_same_ids(short, text[:SLICE])


def test_ids_equal_hf_on_whole_corpora(whole_texts, trained):
    model = wp.WordPiece(trained.vocab)
    hf = wp.hf_tokenizer(model)
    unk = 0
    for name, text in whole_texts.items():
        ids = model.encode(text)
        assert ids == hf.encode(text).ids, name
        unk += ids.count(model.vocab["[UNK]"])
    assert unk > 0  # the check covered [UNK] too (Japanese kana, Thai, ... are not in this vocab)


def test_longest_match_properties(texts, trained):
    model = trained.model()
    longest = max(len(p.removeprefix("##")) for p in model.vocab)
    for name, text in texts.items():
        for word in set(model.words(text[:SLICE])):
            pieces = model.tokenize_word(word)
            if pieces == ["[UNK]"]:
                continue
            assert "".join(p.removeprefix("##") for p in pieces) == word
            assert not pieces[0].startswith("##") and all(p.startswith("##") for p in pieces[1:])
            assert all(p in model.vocab for p in pieces)
            start = 0
            for i, piece in enumerate(pieces):  # no longer piece fits where this one starts
                size = len(piece.removeprefix("##"))
                for longer in range(size + 1, min(longest, len(word) - start) + 1):
                    candidate = ("##" if i else "") + word[start:start + longer]
                    assert candidate not in model.vocab, (word, pieces, candidate)
                start += size


def test_decode():
    model = wp.WordPiece(["[UNK]", "un", "##aff", "##able", ",", "x"])
    assert model.decode(model.encode("unaffable, x  y")) == "unaffable , x [UNK]"


# --- training -----------------------------------------------------------------------------------

def test_the_courses_toy():
    """The HF course's example: ("##g", "##s") scores 5 / (20 * 5) = 1/20, the best first pair.

    Then every pair with ##u scores 1/36 (e.g. 15 / (15 * 36) for h ##u): the tie goes to the
    higher count, p ##u (17), where the course's dict order picks h ##u.
    """
    text = " ".join(["hug"] * 10 + ["pug"] * 5 + ["pun"] * 12 + ["bun"] * 4 + ["hugs"] * 5)
    result = wt.train_wordpiece([text], 11)
    assert result.vocab[:10] == ["[UNK]", "##g", "##n", "##s", "##u", "b", "h", "p", "##gs", "pu"]
    assert result.merges[0] == wt.Merge(("##g", "##s"), "##gs", 1 / 20, 5)
    assert len(result.vocab) == 11 and result.alphabet_size == 7


def naive_train(texts, vocab_size):
    """Exact pair and symbol counts at every step, no heap: a merge recounts each word it changes in full
    (the word's old counts out, its new ones in); the same rule and tie-break."""
    counts = wt.count_words(texts)
    words = {w: wt.split_word(w) for w in counts}
    vocab = ["[UNK]"] + sorted({s for split in words.values() for s in split})
    pairs, symbols = Counter(), Counter()

    def add(split, n):
        for table, keys in ((symbols, split), (pairs, zip(split, split[1:]))):
            for key in keys:
                table[key] += n
                if not table[key]:
                    del table[key]

    for w, split in words.items():
        add(split, counts[w])
    merges = []
    while len(vocab) < vocab_size:
        if not pairs:
            break
        pair = min(pairs, key=lambda p: (-pairs[p] / (symbols[p[0]] * symbols[p[1]]), -pairs[p], p))
        merges.append(pair)
        piece = wt.join(*pair)
        for w, split in words.items():
            if pair[0] in split:  # a word without the left symbol cannot hold the pair
                merged = wt.merge_unchecked(split, pair, piece)
                if merged != split:
                    add(split, -counts[w])
                    add(merged, counts[w])
                    words[w] = merged
        if piece not in vocab:
            vocab.append(piece)
    return vocab, merges


@pytest.mark.parametrize("name", ["timemachine", "luxun", "flores/deu_Latn"])
def test_trainer_equals_the_naive_one(texts, name):
    text = texts[name][:4000]
    alphabet = len(wt.train_wordpiece([text], 1 + 10 ** 6).vocab)  # trains to the end
    size = (alphabet + len(set(text))) // 2 + 150
    vocab, merges = naive_train([text], size)
    result = wt.train_wordpiece([text], size)
    assert result.vocab == vocab and [m.pair for m in result.merges] == merges


def test_training_respects_the_size_and_is_deterministic(texts, trained):
    assert len(trained.vocab) == 8000 == len(set(trained.vocab)) and trained.vocab[0] == "[UNK]"
    again = wt.train_wordpiece([texts["luxun"], texts["tinystories"]], 8000)
    assert again.vocab == trained.vocab and again.merges == trained.merges
    code = ("from tutorial_lib import data; import tutorial_lib.wordpiece.train "
            "as wt; print(wt.train_wordpiece([data.load_text('timemachine')], 1500).vocab)")
    outputs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout
               for seed in ("1", "2")}
    assert len(outputs) == 1
    assert str(wt.train_wordpiece([texts["timemachine"]], 1500).vocab) + "\n" in outputs


def test_merge_replay_differs_from_longest_match(texts, trained):
    """The worked example: same vocabulary, two encoders; "father" is the most frequent case."""
    found = wt.merge_vs_longest_match([texts["luxun"], texts["tinystories"]], trained)
    assert found[0] == wt.Disagreement("father", 33, ["f", "##at", "##h", "##e", "##r"],
                                       ["f", "##a", "##th", "##e", "##r"])
    model = trained.model()
    for d in found:  # both use vocabulary pieces and spell the word
        for pieces in (d.longest_match, d.merges):
            assert all(p in model.vocab for p in pieces)
            assert "".join(p.removeprefix("##") for p in pieces) == d.word


def test_unk_rates_with_and_without_the_chinese_split(texts):
    lines = texts["luxun"].splitlines()
    rows = wt.unk_rates(lines[:2000], {"held out": lines[2000:2600]}, 4000)["held out"]
    by = {(r.train_split, r.encode_split): r for r in rows}
    assert by[True, True].unk_chars < by[False, False].unk_chars < by[True, False].unk_chars
    assert by[True, True].unk_chars > 0  # held-out lines have characters the 2000 lines lack


def test_compare_with_hf(texts):
    [result] = wt.compare_with_hf([texts["tinystories"][:100_000]], [600])
    assert result.ours == result.hf == 600
    assert 0 < result.shared < 600 and 0 < result.jaccard < 1 and 0 < result.same_words < 1
    assert result.differ and all(ours != hf for _, ours, hf in result.differ)
    with pytest.raises(ValueError, match="each vocab size must be"):
        wt.compare_with_hf(["hug pug"], [3, 8])  # below [UNK] + the alphabet h p ##u ##g


def test_a_smaller_vocabulary_is_the_start_of_a_larger_one(texts):
    """What compare_with_hf relies on to train once for several sizes."""
    lines = [texts["luxun"][:20_000], texts["tinystories"][:20_000]]
    largest = wt.train_wordpiece(lines, 2400).vocab
    for size in (1664, 2000):  # 1664: [UNK] and the alphabet, nothing merged yet
        assert wt.train_wordpiece(lines, size).vocab == largest[:size]


# --- bad input ----------------------------------------------------------------------------------

def test_bad_input():
    with pytest.raises(ValueError, match="unk_token"):
        wp.WordPiece(["a", "##b"])
    with pytest.raises(ValueError, match="vocab_size must be at least 5"):
        wt.train_wordpiece(["hug pug"], 4)  # [UNK] + the alphabet h p ##u ##g
    with pytest.raises(ValueError, match="empty corpus"):
        wt.train_wordpiece([], 100)
    with pytest.raises(ValueError, match="empty corpus"):
        wt.train_wordpiece([" \n "], 100)
    with pytest.raises(TypeError, match="texts"):
        wt.train_wordpiece("hug pug", 100)
    with pytest.raises(TypeError, match=r"texts\[1\]"):
        wt.train_wordpiece(["hug", b"pug"], 100)
    with pytest.raises(TypeError, match="text"):
        wp.WordPiece(["[UNK]"]).encode(b"bytes")
    with pytest.raises(TypeError, match="vocab_size"):
        wt.train_wordpiece(["hug"], 10.0)
    with pytest.raises(ValueError, match="twice"):
        wp.WordPiece(["[UNK]", "a", "a"])
    with pytest.raises(ValueError, match="ids repeat"):
        wp.WordPiece({"[UNK]": 0, "a": 0})
    with pytest.raises(ValueError, match="surrogate"):
        wp.bert_pretokenize("a\ud800b")
    with pytest.raises(ValueError, match="ids"):
        wp.WordPiece(["[UNK]"]).decode([5])
    with pytest.raises(TypeError, match="lowercase"):
        wp.bert_pretokenize("x", lowercase=1)


def test_pair_scores_follow_the_formula_on_the_toy_table():
    table = {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5}
    scores = wt.pair_scores(table)
    assert scores[("##g", "##s")] == 5 / (20 * 5)
    assert scores[("##u", "##g")] == 20 / (36 * 20)
    assert wt.best_pair(table) == ("##g", "##s")
    assert wt.best_pair({"a": 3, "b": 1}) is None
    with pytest.raises(ValueError, match="word_counts"):
        wt.pair_scores({"ab": 0})
    with pytest.raises(TypeError, match="word_counts"):
        wt.pair_scores([("ab", 1)])
    assert wt.pair_counts(table)[("##u", "##g")] == 20
