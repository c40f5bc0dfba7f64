"""Where the `regex` module and tiktoken's regex engine disagree: their Unicode tables, probed.

`\\p{L}` and `\\p{N}` follow each engine's own Unicode tables, and the `regex` module knows newer
characters than the engine inside tiktoken: U+0C5C is a letter here and unassigned there, so
"\u0c5c—you" splits as ["\u0c5c", "—you"] here and as ["\u0c5c—", "you"] in tiktoken. We keep the
regex module's reading: imitating tiktoken would pin every `\\p{L}` to an old Unicode. Round trips
are exact either way; only the ids of such characters differ.
"""

from __future__ import annotations

from functools import cache

import regex

from tutorial_lib._checks import check_str


@cache
def every_character() -> str:
    """Every code point but the surrogates (which no str of real text holds), in order."""
    return "".join(chr(code) for code in range(0x110000) if not 0xD800 <= code < 0xE000)


def tiktoken_matches(char_class: str, text: str) -> str:
    """The characters of `text` that tiktoken's engine puts in `char_class`: as the split pattern,
    with only the 256 bytes as tokens, it keeps the matched characters' bytes and drops the rest."""
    import tiktoken  # a comparison library: only this probe needs it

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
