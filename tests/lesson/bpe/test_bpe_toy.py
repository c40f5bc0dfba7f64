"""Tests for tutorial_lib.bpe.bpe_toy: the classic corpora's merges and encodings, tie-break rules,
bad input, invariants.

The figures checked here are the ones notebook 02 shows: the low/lowest/newer/wider corpus, a small Chinese
corpus, "low low low lo" with the smallest-pair rule and low/lower/newest/widest with a three-way tie.
"""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tutorial_lib.packing.batch import pad
from tutorial_lib.text import d2l
from tutorial_lib.bpe.bpe_toy import (EOW, PAD_TOKEN, TIE_BREAKS, UNK, TinyTokenizer, count_pairs, decode, encode, encode_word, merge_pair, tied, train)

CLASSIC = {"low": 5, "lowest": 2, "newer": 6, "wider": 3}
CHINESE = {"人工智能": 3, "人工": 4, "智能": 5, "人工智障": 2}


# --- training on the classic corpus -------------------------------------------------------------------------


def test_classic_merges_in_learned_order():
    result = train(CLASSIC, 6)
    assert result.merges == [("e", "r"), ("er", EOW), ("l", "o"), ("lo", "w"), ("n", "e"), ("ne", "w")]


def test_classic_vocabulary_of_17_symbols():
    vocab = train(CLASSIC, 6).vocab
    # Sorted, it is the usual 17-symbol list; ours lists initial symbols first, then one symbol per merge.
    assert sorted(vocab) == [
        "</w>", "d", "e", "er", "er</w>", "i", "l", "lo", "low", "n", "ne", "new", "o", "r", "s", "t", "w",
    ]  # fmt: skip
    initial = ["d", "e", "i", "l", "n", "o", "r", "s", "t", "w", EOW]
    assert vocab == initial + ["er", "er</w>", "lo", "low", "ne", "new"]


def test_classic_trace_counts():
    steps = train(CLASSIC, 6).steps
    assert [s.step for s in steps] == [1, 2, 3, 4, 5, 6]
    assert [s.count for s in steps] == [9, 9, 7, 7, 6, 6]
    first = steps[0]
    # e+r (newer 6 + wider 3) ties with r+</w> at 9; the "first" rule picks e+r, the first one met.
    assert first.pair_counts[("e", "r")] == first.pair_counts[("r", EOW)] == 9
    assert first.pair_counts[("l", "o")] == 7
    assert list(first.pair_counts)[:4] == [("l", "o"), ("o", "w"), ("w", EOW), ("w", "e")]  # first-met order
    assert steps[-1].corpus == {
        ("low", EOW): 5,
        ("low", "e", "s", "t", EOW): 2,
        ("new", "er</w>"): 6,
        ("w", "i", "d", "er</w>"): 3,
    }


# --- encoding and decoding ---------------------------------------------------------------------------------

CLASSIC_ENCODINGS = {
    "lowest": ["low", "e", "s", "t", EOW],
    "newer": ["new", "er</w>"],
    "newest": ["new", "e", "s", "t", EOW],
    "lowing": ["low", "i", "n", "g", EOW],
    "widerest": ["w", "i", "d", "er", "e", "s", "t", EOW],
}


@pytest.mark.parametrize("word", CLASSIC_ENCODINGS)
def test_classic_encodings(word):
    assert encode_word(word, train(CLASSIC, 6).merges) == CLASSIC_ENCODINGS[word]


def test_unseen_character_becomes_unk_with_alphabet():
    # "Character BPE never meets an unknown symbol" is wrong: "g" never occurs in the training corpus, so
    # with the training alphabet it is <unk> (id 1 in the TinyTokenizer below).
    result = train(CLASSIC, 6)
    assert encode_word("lowing", result.merges, result.alphabet) == ["low", "i", "n", UNK, EOW]


def test_encode_applies_merges_by_rank_not_by_position():
    # (b, c) was learned first, so it wins even though (a, b) sits further left.
    assert encode_word("abc", [("b", "c"), ("a", "b")]) == ["a", "bc", EOW]
    assert encode_word("abc", [("a", "b"), ("b", "c")]) == ["ab", "c", EOW]


@pytest.mark.parametrize("word", ["lowest", "newest"])
def test_decode_round_trip(word):
    symbols = encode_word(word, train(CLASSIC, 6).merges)
    assert symbols == CLASSIC_ENCODINGS[word]
    assert decode(symbols) == word


def test_decode_turns_markers_into_single_spaces():
    assert decode(["new", "e", "s", "t", EOW, "w", "i", "d", "er</w>"]) == "newest wider"
    assert decode(["a", UNK, EOW]) == "a<unk>"
    assert decode([]) == ""
    assert encode("  low\t\nnewer ", train(CLASSIC, 6).merges) == ["low", EOW, "new", "er</w>"]


# --- a Chinese corpus --------------------------------------------------------------------------------------


def test_chinese_merges():
    result = train(CHINESE, 4)
    assert result.merges == [("人", "工"), ("智", "能"), ("智能", EOW), ("人工", EOW)]
    assert [s.count for s in result.steps] == [9, 8, 8, 4]  # 人工 = 4 + 3 + 2


@pytest.mark.parametrize(
    "word, expected",
    [
        ("人工智能", ["人工", "智能</w>"]),
        ("人工智障", ["人工", "智", "障", EOW]),
        ("人工智慧", ["人工", "智", "慧", EOW]),
        ("智能制造", ["智能", "制", "造", EOW]),
    ],
)
def test_chinese_encodings(word, expected):
    assert encode_word(word, train(CHINESE, 4).merges) == expected


def test_unseen_hanzi_are_unk_with_alphabet():
    # "New Chinese words never become <unk>" is wrong: 慧, 制, 造 are not in the training corpus.
    result = train(CHINESE, 4)
    symbols = encode("人工智慧 智能制造", result.merges, result.alphabet)
    assert symbols == ["人工", "智", UNK, EOW, "智能", UNK, UNK, EOW]


# --- the end-to-end tokenizer ------------------------------------------------------------------------------


@pytest.fixture
def tiny() -> TinyTokenizer:
    result = train(CLASSIC, 6)
    return TinyTokenizer(result.merges, result.alphabet)


def test_tiny_tokenizer_vocabulary_ids(tiny):
    assert tiny.vocab == [
        "<pad>", "<unk>", "d", "e", "er", "er</w>", "i", "l", "lo", "low", "n", "ne", "new", "o", "r", "s", "t",
        "w", "</w>",
    ]  # fmt: skip
    assert tiny.token_to_id[PAD_TOKEN] == 0 and tiny.token_to_id[UNK] == 1 and tiny.token_to_id[EOW] == 18


@pytest.mark.parametrize(
    "text, ids",
    [("lowest newer", [9, 3, 15, 16, 18, 12, 5]), ("newest wider", [12, 3, 15, 16, 18, 17, 6, 2, 5])],
)
def test_tiny_tokenizer_ids_and_decode(tiny, text, ids):
    assert tiny.encode(text) == ids
    assert tiny.decode(ids) == text


def test_tiny_tokenizer_rows_padded_with_the_pad_id_decode_to_their_text(tiny):
    texts = ["lowest", "lowest newer", "wider newest"]
    batch = pad([tiny.encode(text) for text in texts], tiny.token_to_id[PAD_TOKEN])  # chapter 07's padding
    assert batch.input_ids == [
        [9, 3, 15, 16, 18, 0, 0, 0, 0],
        [9, 3, 15, 16, 18, 12, 5, 0, 0],
        [17, 6, 2, 5, 12, 3, 15, 16, 18],
    ]
    assert batch.attention_mask == [[1] * 5 + [0] * 4, [1] * 7 + [0] * 2, [1] * 9]
    assert [tiny.decode(row) for row in batch.input_ids] == texts


def test_tiny_tokenizer_maps_unseen_characters_to_unk_id(tiny):
    assert tiny.encode("lowing") == [9, 6, 10, 1, 18]
    assert tiny.decode([9, 6, 10, 1, 18]) == "lowin<unk>"


# --- "low low low lo", lexicographically smallest pair on ties -----------------------------------------------


def test_low_low_low_lo():
    steps = train({"low": 3, "lo": 1}, 2, tie_break="lexicographic_min").steps
    assert steps[0].pair_counts[("l", "o")] == 4 and steps[0].pair_counts[("o", "w")] == 3
    assert [(s.chosen, s.count) for s in steps] == [(("l", "o"), 4), (("lo", "w"), 3)]
    # Drawn without an end marker, (lo, w) is the unique maximum; with </w> it ties with (w, </w>) at 3, so
    # the rule decides: the greatest-pair rule would learn w+</w> instead.
    assert steps[1].pair_counts[("w", EOW)] == 3
    assert train({"low": 3, "lo": 1}, 2, tie_break="first").merges[1] == ("lo", "w")
    assert train({"low": 3, "lo": 1}, 2, tie_break="lexicographic_max").merges[1] == ("w", EOW)


def test_smallest_pair_rule_with_unk():
    # "low low low lo lower newest widest", 8 merges, ties broken by the smallest pair.
    corpus = {"low": 3, "lo": 1, "lower": 1, "newest": 1, "widest": 1}
    result = train(corpus, 8, tie_break="lexicographic_min")
    assert result.merges == [
        ("l", "o"), ("lo", "w"), ("low", EOW), ("e", "s"), ("es", "t"), ("est", EOW), ("d", "est</w>"), ("e", "r"),
    ]  # fmt: skip
    encoded = {w: encode_word(w, result.merges, result.alphabet) for w in ["low", "lower", "lowest", "lobster"]}
    assert encoded == {
        "low": ["low</w>"],
        "lower": ["low", "er", EOW],
        "lowest": ["low", "est</w>"],
        "lobster": ["lo", UNK, "s", "t", "er", EOW],
    }


# --- low/lower/newest/widest, a three-way tie ---------------------------------------------------------------


def test_three_way_tie_and_the_rules():
    corpus = {"low": 5, "lower": 2, "newest": 6, "widest": 3}
    counts = train(corpus, 1).steps[0].pair_counts
    assert [counts[p] for p in [("e", "s"), ("s", "t"), ("l", "o"), ("o", "w")]] == [9, 9, 7, 7]
    # The end marker adds a third pair at 9. The greater-pair rule picks (t, </w>) here; without a marker
    # it would pick (s, t), not (e, s), which only the smallest-pair and first-met rules choose.
    assert counts[("t", EOW)] == 9
    assert train(corpus, 1, tie_break="lexicographic_max").merges == [("t", EOW)]
    assert train(corpus, 1, tie_break="lexicographic_min").merges == [("e", "s")]
    assert train(corpus, 1, tie_break="first").merges == [("e", "s")]


# --- tie-break rules ----------------------------------------------------------------------------------------


def test_first_and_lexicographic_rules_learn_different_merges():
    first = train(CLASSIC, 6, tie_break="first").merges
    smallest = train(CLASSIC, 6, tie_break="lexicographic_min").merges
    greatest = train(CLASSIC, 6, tie_break="lexicographic_max").merges
    # Step 5 ties n+e, e+w and w+er</w> at 6: first-met is n+e, the smallest is e+w.
    assert first[:4] == smallest[:4] and first[4] == ("n", "e") and smallest[4] == ("e", "w")
    assert greatest[0] == ("r", EOW)  # e+r and r+</w> tie at 9 in step 1
    assert train(CHINESE, 4, tie_break="lexicographic_min").merges[1] == ("智", "能")
    assert train(CHINESE, 4, tie_break="lexicographic_max").merges[1] == ("能", EOW)


def test_tie_break_rules_on_a_symmetric_corpus():
    # Every pair of {"ab", "ba"} has count 1: first met, smallest ("</w>" sorts before letters), greatest.
    corpus = {"ab": 1, "ba": 1}
    assert [train(corpus, 1, tie_break=rule).merges[0] for rule in TIE_BREAKS] == [
        ("a", "b"),
        ("a", EOW),
        ("b", "a"),
    ]


# --- training edge cases ------------------------------------------------------------------------------------


def test_training_stops_early_when_no_pair_is_left():
    result = train({"ab": 2}, 10)
    assert result.merges == [("a", "b"), ("ab", EOW)]
    assert result.steps[-1].corpus == {("ab</w>",): 2}
    assert result.vocab == ["a", "b", EOW, "ab", "ab</w>"]


def test_zero_merges_leaves_characters_and_marker():
    result = train(CLASSIC, 0)
    assert result.merges == [] and result.steps == []
    assert result.vocab == ["d", "e", "i", "l", "n", "o", "r", "s", "t", "w", EOW]
    assert encode_word("low", result.merges) == ["l", "o", "w", EOW]


def test_helpers():
    assert merge_pair(("a", "a", "a", EOW), ("a", "a")) == ("aa", "a", EOW)  # non-overlapping, left first
    assert count_pairs({("a", "b", EOW): 2, ("b", EOW): 3}) == {("a", "b"): 2, ("b", EOW): 5}


@pytest.mark.parametrize("symbols", [["a", "a", "b"], ("a", "a", "b")])
@pytest.mark.parametrize("pair", [["a", "a"], ("a", "a")])
def test_merge_pair_takes_lists_and_tuples(symbols, pair):
    # A list slice never equals a tuple pair: a naive check would return a list input unchanged.
    assert merge_pair(symbols, pair) == ("aa", "b")


def test_unk_is_spelled_as_d2l_spells_it():
    assert UNK == d2l.UNK  # the toy stands alone (no import of chapter 01), with the same spelling


# --- bad input ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, error, words",
    [
        ({"corpus": ["low"]}, TypeError, "corpus must be a dict"),
        ({"corpus": {1: 2}}, TypeError, "corpus word must be a non-empty str, got int 1"),
        ({"corpus": {"": 2}}, ValueError, "corpus word must be a non-empty str"),
        ({"corpus": {"lo w": 2}}, ValueError, "without whitespace"),
        ({"corpus": {"a</w>": 2}}, ValueError, "reserved end-of-word marker"),
        ({"corpus": {"low": 0}}, ValueError, "corpus['low'] must be an int >= 1, got 0"),
        ({"corpus": {"low": -3}}, ValueError, "corpus['low'] must be an int >= 1"),
        ({"corpus": {"low": 2.0}}, TypeError, "corpus['low'] must be an int >= 1, got float"),
        ({"corpus": {"low": True}}, TypeError, "corpus['low'] must be an int"),
        ({"num_merges": -1}, ValueError, "num_merges must be an int >= 0"),
        ({"num_merges": 2.5}, TypeError, "num_merges must be an int"),
        ({"tie_break": "lexicographic"}, ValueError, "tie_break must be one of ['first', 'lexicographic_max'"),
    ],
)
def test_train_rejects_bad_input(kwargs, error, words):
    args = {"corpus": CLASSIC, "num_merges": 3} | kwargs
    with pytest.raises(error) as info:
        train(**args)
    assert words in str(info.value)


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: encode_word(42, []), TypeError, "word must be a non-empty str, got int 42"),
        (lambda: encode_word("", []), ValueError, "word must be a non-empty str"),
        (lambda: encode_word("a b", []), ValueError, "without whitespace"),
        (lambda: encode_word("ab", "ab"), TypeError, "merges must be a list"),
        (lambda: encode_word("ab", [("a", "b", "c")]), ValueError, "merges[0] must be two non-empty symbols"),
        (lambda: encode_word("ab", [("a", "")]), ValueError, "merges[0] must be two non-empty symbols"),
        (lambda: encode_word("ab", [("a", 1)]), TypeError, "merges[0][1] must be a str"),
        (lambda: encode_word("ab", ["ab"]), TypeError, "merges[0] must be a list of str"),
        (lambda: encode_word("ab", [("a", "b"), ("a", "b")]), ValueError, "same pair twice"),
        (lambda: encode_word("ab", [], alphabet=42), TypeError, "alphabet must be None or a collection"),
        (lambda: encode_word("ab", [], alphabet=["ab"]), ValueError, "single-character"),
        (lambda: encode_word("ab", [], alphabet=[1]), TypeError, "each alphabet item must be a str"),
        (lambda: merge_pair("aab", ("a", "a")), TypeError, "symbols must be a list of str"),
        (lambda: merge_pair(["a", 1], ("a", "a")), TypeError, "symbols[1] must be a str"),
        (lambda: merge_pair(["a"], ("a", "a", "a")), ValueError, "pair must be two non-empty symbols"),
        (lambda: merge_pair(["a"], "aa"), TypeError, "pair must be a list of str"),
        (lambda: encode(["low"], []), TypeError, "text must be a str"),
        (lambda: decode("low</w>"), TypeError, "symbols must be a list of str"),
        (lambda: decode(["low", 3]), TypeError, "symbols[1] must be a str"),
    ],
)
def test_encode_and_decode_reject_bad_input(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


def test_tiny_tokenizer_rejects_bad_input(tiny):
    with pytest.raises(ValueError, match=r"ids\[1\] must be an int in \[0, 18\], got 19"):
        tiny.decode([3, 19])
    with pytest.raises(ValueError, match=r"ids\[0\] must be an int in"):
        tiny.decode([-1])
    with pytest.raises(TypeError, match=r"ids\[1\] must be an int in \[0, 18\], got str '3'"):
        tiny.decode([3, "3"])
    with pytest.raises(TypeError, match="ids must be a list of int"):
        tiny.decode("12")
    with pytest.raises(TypeError, match="alphabet must be a collection"):
        TinyTokenizer([("a", "b")], None)
    with pytest.raises(ValueError, match="reserved symbols"):
        TinyTokenizer([("<un", "k>")], list("<unk>"))


# --- properties ---------------------------------------------------------------------------------------------

# Characters of the marker itself are allowed inside words, so decode must not confuse "<", "/", "w", ">"
# typed by a learner with the end-of-word marker.
CHARS = "ab人工</w>"
words = st.text(alphabet=CHARS, min_size=1, max_size=6).filter(lambda w: EOW not in w)
corpora = st.dictionaries(words, st.integers(1, 9), min_size=1, max_size=6)


@st.composite
def trained_and_text(draw):
    corpus = draw(corpora)
    result = train(corpus, draw(st.integers(0, 20)), tie_break=draw(st.sampled_from(sorted(TIE_BREAKS))))
    word = st.text(alphabet=result.alphabet, min_size=1, max_size=8).filter(lambda w: EOW not in w)
    text_words = draw(st.lists(word, max_size=5))
    spaces = draw(st.lists(st.sampled_from([" ", "  ", "\t", "\n"]), min_size=len(text_words) + 1))
    text = spaces[0] + "".join(w + s for w, s in zip(text_words, spaces[1:]))
    return result, text


@settings(deadline=None)
@given(trained_and_text())
def test_decode_inverts_encode_over_the_training_alphabet(case):
    result, text = case
    symbols = encode(text, result.merges, result.alphabet)
    assert decode(symbols) == " ".join(text.split())
    tokenizer = TinyTokenizer(result.merges, result.alphabet)
    assert tokenizer.decode(tokenizer.encode(text)) == " ".join(text.split())


@settings(deadline=None)
@given(trained_and_text(), st.text(alphabet="ab人工智</w>xy", min_size=1, max_size=8))
def test_encode_stays_inside_the_vocabulary(case, word):
    assume(EOW not in word)
    result = case[0]
    assert set(encode_word(word, result.merges, result.alphabet)) <= set(result.vocab) | {UNK}
    if set(word) <= set(result.alphabet):
        assert set(encode_word(word, result.merges, result.alphabet)) <= set(result.vocab)


@settings(deadline=None)
@given(corpora, st.integers(0, 30))
def test_vocabulary_grows_by_one_symbol_per_merge(corpus, num_merges):
    result = train(corpus, num_merges)
    initial = set("".join(corpus)) | {EOW}
    assert len(result.merges) == len(result.steps) <= num_merges
    assert len(result.vocab) == len(set(result.vocab)) == len(initial) + len(result.merges)
    if len(result.merges) < num_merges:  # stopped early: only because every word became a single symbol
        assert all(len(symbols) == 1 for symbols in result.steps[-1].corpus)


symbol_lists = st.lists(st.sampled_from(["a", "b", "ab", EOW]), max_size=10)


@given(symbol_lists, st.tuples(st.sampled_from("ab"), st.sampled_from(["a", "b", EOW])))
def test_merge_pair_keeps_the_text_and_leaves_no_occurrence(symbols, pair):
    merged = merge_pair(symbols, pair)
    assert "".join(merged) == "".join(symbols)
    assert pair not in zip(merged, merged[1:])  # with non-empty symbols no occurrence survives or appears
    assert merge_pair(tuple(symbols), list(pair)) == merged


# --- one step read as a table: pairs ranked by count, the ties at the top -----------------------


def test_ranked_pairs_are_most_frequent_first_and_keep_first_met_order_among_ties():
    step = train(CLASSIC, 1).steps[0]
    rows = step.ranked()
    assert [(pair, count) for pair, count, _ in rows[:3]] == [
        (("e", "r"), 9), (("r", "</w>"), 9), (("w", "e"), 8)]
    assert rows[0][2] < rows[1][2]  # the two tied at 9 stay in first-met order
    assert sorted(position for _, _, position in rows) == list(range(1, len(step.pair_counts) + 1))
    assert list(step.pair_counts)[rows[0][2] - 1] == rows[0][0]  # the position is where it was met


def test_tied_pairs_are_those_at_the_chosen_count_in_first_met_order():
    steps = train(CLASSIC, 6).steps
    assert steps[0].tied == [("e", "r"), ("r", "</w>")]
    for step in steps:
        assert step.chosen in step.tied
        assert all(step.pair_counts[p] == step.count for p in step.tied)
    assert tied({("a", "b"): 2, ("b", "c"): 3, ("c", "d"): 3}) == [("b", "c"), ("c", "d")]


@given(st.dictionaries(st.text("abc", min_size=1, max_size=5), st.integers(1, 5), min_size=1,
                       max_size=5))
def test_the_first_rule_chooses_the_first_tied_pair(corpus):
    for step in train(corpus, 3, tie_break="first").steps:
        assert step.tied[0] == step.chosen == step.ranked()[0][0]
