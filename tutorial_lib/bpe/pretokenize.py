"""Pre-tokenization: cut text into pieces (pre-tokens) before BPE ever sees it.

BPE merges never cross a pre-token boundary, so the split pattern decides what a token *can* be:
GPT-2 keeps " the" or a whole run of Han characters together; GPT-4 (cl100k) also caps digit runs at
3; nanochat caps them at 2. Special tokens such as <|endoftext|> are cut out first. The pieces must
be the text, cut: nothing dropped, nothing empty (`find_pretokens` checks each split).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from functools import lru_cache

import regex

from tutorial_lib._checks import check_iterable, check_str

# The original GPT-2 pattern (the one Hugging Face's ByteLevel pre-tokenizer and CS336 use).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# GPT-4's cl100k_base, exactly as tiktoken ships it.
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

_NAME = regex.compile(r"[\w-]+")  # a pattern of only these is a name: as a regex, a literal word
# A pattern is tried at every position of this text (letters, digits, CJK, punctuation, spaces).
_PROBE = "Hello, world! It's 2024: 12345 人工智能，很好。\n\n  \t x\r\n'é🙂"


def compile_pattern(pattern: str) -> regex.Pattern:
    """The compiled split regex for `pattern` (a name from PATTERNS or a regex); a ValueError says
    why one cannot work (a capturing group: findall would return the groups)."""
    check_str(pattern, "pattern", non_empty=True)
    return _compile(pattern)


@lru_cache(maxsize=16)
def _compile(pattern: str) -> regex.Pattern:
    if pattern not in PATTERNS and _NAME.fullmatch(pattern):
        close = difflib.get_close_matches(pattern.lower(), PATTERNS, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"pattern {pattern!r} is not a pattern name, which are "
                         f"{sorted(PATTERNS)} (exactly as written){hint} A pattern made only of "
                         "letters, digits, '_' and '-' is read as a name, not as a regex.")
    try:
        compiled = regex.compile(PATTERNS.get(pattern, pattern))
    except regex.error as e:
        raise ValueError(f"pattern is not a valid regex ({e}): {pattern!r}") from None
    if compiled.groups:
        raise ValueError(f"pattern has {compiled.groups} capturing group(s), so findall would "
                         f"return the groups instead of the pieces; write a group as (?:...): "
                         f"{pattern!r}")
    for pos in range(len(_PROBE) + 1):
        match = compiled.match(_PROBE, pos)
        if match is not None and match.end() == pos:
            raise ValueError(f"pattern matches the empty string (at index {pos} of {_PROBE!r}), "
                             f"but every pre-token must hold at least one character: {pattern!r}")
    return compiled


def find_pretokens(compiled: regex.Pattern, text: str, offset: int = 0, hold_back: int = 0
                   ) -> list[str]:
    """`compiled.findall(text)`, checked: a ValueError names the first character no piece holds.

    Matches never overlap, so they cover `text` when their lengths add up to len(text): one sum in
    C. With `hold_back` > 0 the text may continue: its last `hold_back` pieces are left out.
    """
    pieces = compiled.findall(text)
    kept = max(len(pieces) - hold_back, 0)
    if sum(map(len, pieces)) != len(text) or "" in pieces:
        good, end = _good_prefix(compiled, text)
        if not hold_back or good < kept:
            raise _coverage_error(compiled, text, offset + end, end)
    return pieces[:kept]


def _good_prefix(compiled: regex.Pattern, text: str) -> tuple[int, int]:
    good = end = 0
    for match in compiled.finditer(text):
        if match.start() != end or match.end() == end:
            break
        good, end = good + 1, match.end()
    return good, end


def _coverage_error(compiled: regex.Pattern, text: str, index: int, end: int) -> ValueError:
    match = compiled.match(text, end)
    if match is not None and match.end() == end:
        return ValueError(f"pattern matched the empty string at index {index} of the text, but "
                          f"every pre-token must hold at least one character: {compiled.pattern!r}")
    context = text[max(end - 10, 0) : end + 10]
    return ValueError(f"pattern leaves the character {text[end]!r} at index {index} of the text "
                      f"(in {context!r}) out of every pre-token; a split pattern must cover the "
                      f"whole text (ending it with the catch-all alternative |(?s:.) does): "
                      f"{compiled.pattern!r}")


def pretokenize(text: str, pattern: str = GPT2_PATTERN) -> list[str]:
    """Split ordinary text (no special tokens) into pre-tokens. Their concatenation is `text`."""
    check_str(text, "text")
    return find_pretokens(compile_pattern(pattern), text)


def check_special_tokens(special_tokens: Iterable[str]) -> tuple[str, ...]:
    """Special tokens as a tuple, in order: non-empty, distinct strs with a UTF-8 form (their bytes
    get an id); a single str, one token per character, is refused."""
    tokens = tuple(check_iterable(special_tokens, "special_tokens",
                                  "a collection of str, e.g. ['<|endoftext|>']"))
    for i, token in enumerate(tokens):
        check_str(token, f"special_tokens[{i}]", utf8=True)
        if not token:
            raise ValueError("special_tokens must not contain the empty string")
    duplicates = sorted({t for t in tokens if tokens.count(t) > 1})
    if duplicates:
        raise ValueError(f"special_tokens must be distinct, repeated: {duplicates}")
    return tokens


@lru_cache(maxsize=16)
def special_regex(special_tokens: tuple[str, ...]) -> regex.Pattern:
    """One regex matching any special token, as a group (so `split` keeps them); longest first, so
    "<|endoftext|><|endoftext|>" wins over "<|endoftext|>" when both exist."""
    alternatives = sorted(special_tokens, key=lambda t: (-len(t), t))
    return regex.compile("(" + "|".join(regex.escape(t) for t in alternatives) + ")")


def split_special(text: str, special_tokens: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Yield (piece, is_special) in text order, without empty pieces between adjacent specials."""
    check_str(text, "text")
    tokens = check_special_tokens(special_tokens)
    if not tokens:
        if text:
            yield text, False
        return
    for i, piece in enumerate(special_regex(tokens).split(text)):
        if piece:
            yield piece, i % 2 == 1
