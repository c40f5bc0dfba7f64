"""Pre-tokenization: cut text into pieces (pre-tokens) before BPE ever sees it.

BPE merges never cross a pre-token boundary, so the split pattern decides what a token *can* be:
GPT-2 keeps " the" or a whole run of Han characters together; GPT-4 (cl100k) also caps digit runs at 3;
nanochat caps them at 2. Special tokens such as <|endoftext|> are cut out first so that their text is
never merged with its neighbours.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Iterator

import regex

# The original GPT-2 pattern (the one Hugging Face's ByteLevel pre-tokenizer and CS336 use).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# GPT-4's cl100k_base, exactly as tiktoken ships it (possessive quantifiers, case-insensitive contractions).
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# nanochat: GPT-4's pattern with digits grouped by at most 2, which wastes fewer tokens on numbers.
NANOCHAT_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,2}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
PATTERNS = {"gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN, "nanochat": NANOCHAT_PATTERN}


@lru_cache(maxsize=16)
def compile_pattern(pattern: str) -> regex.Pattern:
    """Compile a split pattern once; accepts a name from PATTERNS or the pattern itself."""
    if not isinstance(pattern, str) or not pattern:
        raise TypeError(f"pattern must be a non-empty str (a regex or one of {sorted(PATTERNS)})")
    return regex.compile(PATTERNS.get(pattern, pattern))


def pretokenize(text: str, pattern: str = GPT2_PATTERN) -> list[str]:
    """Split ordinary text (no special tokens) into pre-tokens. Their concatenation is `text`."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return compile_pattern(pattern).findall(text)


def check_special_tokens(special_tokens: Iterable[str]) -> tuple[str, ...]:
    """Validate special tokens: non-empty, distinct strs. Returns them as a tuple in the given order."""
    if isinstance(special_tokens, str):
        raise TypeError("special_tokens must be a collection of str, not a single str")
    tokens = tuple(special_tokens)
    for tok in tokens:
        if not isinstance(tok, str):
            raise TypeError(f"special_tokens must contain only str, got {type(tok).__name__}")
        if not tok:
            raise ValueError("special_tokens must not contain the empty string")
    duplicates = sorted({t for t in tokens if tokens.count(t) > 1})
    if duplicates:
        raise ValueError(f"special_tokens must be distinct, repeated: {duplicates}")
    return tokens


@lru_cache(maxsize=16)
def special_regex(special_tokens: tuple[str, ...]) -> regex.Pattern:
    """One regex matching any of the special tokens, as a group (so `split` keeps them).

    Longest first, so that "<|endoftext|><|endoftext|>" wins over "<|endoftext|>" when both exist.
    """
    alternatives = sorted(special_tokens, key=lambda t: (-len(t), t))
    return regex.compile("(" + "|".join(regex.escape(t) for t in alternatives) + ")")


def split_special(text: str, special_tokens: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Yield (piece, is_special) in text order; empty pieces between adjacent specials are skipped."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    tokens = check_special_tokens(special_tokens)
    if not tokens:
        if text:
            yield text, False
        return
    for i, piece in enumerate(special_regex(tokens).split(text)):
        if piece:
            yield piece, i % 2 == 1
