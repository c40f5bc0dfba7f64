"""Pre-tokenization: cut text into pieces (pre-tokens) before BPE ever sees it.

BPE merges never cross a pre-token boundary, so the split pattern decides what a token *can* be:
GPT-2 keeps " the" or a whole run of Han characters together; GPT-4 (cl100k) also caps digit runs at
3; nanochat caps them at 2. Special tokens such as <|endoftext|> are cut out first so that their
text is never merged with its neighbours.

The pieces must be the text, cut: nothing dropped, nothing empty. `compile_pattern` is the one gate
every split pattern passes (Tokenizer and both trainers use it) and refuses the patterns that cannot
work; `find_pretokens` checks each split, since only the text shows whether a custom pattern covers
it.

Unicode versions. `\\p{L}` and `\\p{N}` mean "letter" and "number" in the Unicode version of the
regex engine's own tables, and engines ship different versions: the `regex` module used here knows
newer characters than the fancy-regex engine inside tiktoken. U+0C5C is a letter here and unassigned
(Cn) there, so "\u0c5c—you" splits as ["\u0c5c", "—you"] here and as ["\u0c5c—", "you"] in tiktoken,
and the ids differ. Every character the two disagree on is one that Python's own `unicodedata`
(Unicode 14.0 in Python 3.11) still calls unassigned, and the disagreement goes one way only: the
regex module calls it a letter or a number, tiktoken calls it neither
(tests/tokenization/test_pretokenize.py sweeps every code point). We keep the regex module's reading
and do not imitate tiktoken: matching it would mean subtracting a frozen list of code points from
every `\\p{L}` and `\\p{N}`, so the patterns would no longer be the ones tiktoken, minbpe and
nanochat print; it would pin an old Unicode version forever; and text written before those
characters existed never contains them. Round trips are exact either way; only the ids of such
characters can differ from tiktoken's. `class_members` lists, for a character class, the code points
each engine puts in it (chapters 05 and 13 show where the two differ).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache

import regex

from tutorial_lib._checks import check_iterable, check_str

# The original GPT-2 pattern (the one Hugging Face's ByteLevel pre-tokenizer and CS336 use).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
# GPT-4's cl100k_base, exactly as tiktoken ships it (possessive quantifiers, case-insensitive
# contractions).
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

# A pattern made only of these characters is read as a name: as a regex it would match just that
# literal word.
_NAME = regex.compile(r"[\w-]+")
# A pattern is tried at every position of this text (letters, digits, CJK, punctuation, every kind
# of space).
_PROBE = "Hello, world! It's 2024: 12345 人工智能，很好。\n\n  \t x\r\n'é🙂"


def compile_pattern(pattern: str) -> regex.Pattern:
    """The compiled split regex for `pattern`: a name from PATTERNS or a regex. `.pattern` is the
    full regex.

    Refused with a ValueError that says why: a name that is not in PATTERNS (names are exact: "GPT4"
    is not "gpt4"), an invalid regex, a capturing group (findall would return the groups instead of
    the pieces), a pattern that matches the empty string at some position of a probe text (the empty
    piece it makes anywhere else is refused by `find_pretokens`). Whether it covers the text is
    checked on each text.
    """
    check_str(pattern, "pattern", non_empty=True)
    return _compile(pattern)


@lru_cache(maxsize=16)
def _compile(pattern: str) -> regex.Pattern:
    if pattern not in PATTERNS and _NAME.fullmatch(pattern):
        raise ValueError(_unknown_name(pattern))
    try:
        compiled = regex.compile(PATTERNS.get(pattern, pattern))
    except regex.error as e:
        raise ValueError(f"pattern is not a valid regex ({e}): {pattern!r}") from None
    if compiled.groups:
        raise ValueError(
            f"pattern has {compiled.groups} capturing group(s), so findall would return the groups "
            f"instead of the pieces; write a group as (?:...): {pattern!r}"
        )
    for pos in range(len(_PROBE) + 1):
        match = compiled.match(_PROBE, pos)
        if match is not None and match.end() == pos:
            raise ValueError(
                f"pattern matches the empty string (at index {pos} of {_PROBE!r}), but every "
                f"pre-token must hold at least one character: {pattern!r}"
            )
    return compiled


def _unknown_name(name: str) -> str:
    close = difflib.get_close_matches(name.lower(), PATTERNS, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"pattern {name!r} is not a pattern name, which are {sorted(PATTERNS)} "
        f"(exactly as written){hint} "
        "A pattern made only of letters, digits, '_' and '-' is read as a name, not as a regex."
    )


def find_pretokens(
    compiled: regex.Pattern, text: str, offset: int = 0, hold_back: int = 0
) -> list[str]:
    """`compiled.findall(text)`, checked: a ValueError names the first character no piece holds.

    Matches never overlap and come in text order, so they cover `text` exactly when their lengths
    add up to len(text): one sum in C instead of a walk over the positions. An empty piece is
    refused too. `offset` is where `text` starts in the text the caller was given, so that the
    message points into that. `hold_back` > 0 is for text that may continue: the last `hold_back`
    pieces could still change, so they are left out of the result, and a gap or an empty piece after
    the pieces returned is not an error yet.
    """
    pieces = compiled.findall(text)
    kept = max(len(pieces) - hold_back, 0)
    if sum(map(len, pieces)) != len(text) or "" in pieces:
        good, end = _good_prefix(compiled, text)
        if not hold_back or good < kept:
            raise _coverage_error(compiled, text, offset + end, end)
    return pieces[:kept]


def _good_prefix(compiled: regex.Pattern, text: str) -> tuple[int, int]:
    """How many pieces from the start are non-empty and follow each other without a gap, and where
    they end."""
    good = end = 0
    for match in compiled.finditer(text):
        if match.start() != end or match.end() == end:
            break
        good, end = good + 1, match.end()
    return good, end


def _coverage_error(compiled: regex.Pattern, text: str, index: int, end: int) -> ValueError:
    """The error for the first problem, at text[end], which is `index` in the caller's text."""
    match = compiled.match(text, end)
    if match is not None and match.end() == end:
        return ValueError(
            f"pattern matched the empty string at index {index} of the text, but every pre-token "
            f"must hold at least one character: {compiled.pattern!r}"
        )
    context = text[max(end - 10, 0) : end + 10]
    return ValueError(
        f"pattern leaves the character {text[end]!r} at index {index} of the text (in {context!r}) "
        "out of every pre-token; a split pattern must cover the whole text (ending it with the "
        "catch-all "
        f"alternative |(?s:.) does): {compiled.pattern!r}"
    )


def pretokenize(text: str, pattern: str = GPT2_PATTERN) -> list[str]:
    """Split ordinary text (no special tokens) into pre-tokens. Their concatenation is `text`."""
    check_str(text, "text")
    return find_pretokens(compile_pattern(pattern), text)


def check_special_tokens(special_tokens: Iterable[str]) -> tuple[str, ...]:
    """Validate special tokens: non-empty, distinct strs that have a UTF-8 form (their bytes get an
    id).

    Any iterable of str will do (a list, a tuple, a dict's keys); a single str is refused, since it
    would be read as one special token per character. Returns them as a tuple in the given order.
    """
    tokens = tuple(
        check_iterable(
            special_tokens, "special_tokens", "a collection of str, e.g. ['<|endoftext|>']"
        )
    )
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
    """One regex matching any of the special tokens, as a group (so `split` keeps them).

    Longest first, so that "<|endoftext|><|endoftext|>" wins over "<|endoftext|>" when both exist.
    """
    alternatives = sorted(special_tokens, key=lambda t: (-len(t), t))
    return regex.compile("(" + "|".join(regex.escape(t) for t in alternatives) + ")")


def split_special(text: str, special_tokens: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """Yield (piece, is_special) in text order; empty pieces between adjacent specials are
    skipped."""
    check_str(text, "text")
    tokens = check_special_tokens(special_tokens)
    if not tokens:
        if text:
            yield text, False
        return
    for i, piece in enumerate(special_regex(tokens).split(text)):
        if piece:
            yield piece, i % 2 == 1


# --------------------------------------------------- where the two engines' Unicode tables differ


@cache
def every_character() -> str:
    """Every code point but the surrogates (which no str of real text holds), in order."""
    return "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)


def tiktoken_matches(char_class: str, text: str) -> str:
    """The characters of `text` that tiktoken's regex engine puts in `char_class`, in order.

    tiktoken does not expose its regex, but shows what it matched: with `char_class` as the split
    pattern and only the 256 bytes as tokens, `encode_ordinary` returns the UTF-8 bytes of the
    matched characters and drops everything else.
    """
    import tiktoken

    probe = tiktoken.Encoding("probe", pat_str=check_str(char_class, "char_class", non_empty=True),
                              mergeable_ranks={bytes([b]): b for b in range(256)},
                              special_tokens={})
    return bytes(probe.encode_ordinary(check_str(text, "text"))).decode("utf-8")


def class_members(char_class: str) -> tuple[set[str], set[str]]:
    """The characters in `char_class` (`\\p{L}`, say) for the `regex` module and for tiktoken's
    engine, out of `every_character()`: where their Unicode tables differ, the two sets do."""
    return (set(regex.findall(check_str(char_class, "char_class", non_empty=True),
                              every_character())),
            set(tiktoken_matches(char_class, every_character())))
