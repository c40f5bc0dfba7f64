"""Where the `regex` module and tiktoken's regex engine disagree: their Unicode tables, probed.

`\\p{L}` and `\\p{N}` mean "letter" and "number" in the Unicode version of the regex engine's own
tables, and engines ship different versions: the `regex` module used here knows newer characters
than the fancy-regex engine inside tiktoken. U+0C5C is a letter here and unassigned (Cn) there, so
"\u0c5c—you" splits as ["\u0c5c", "—you"] here and as ["\u0c5c—", "you"] in tiktoken, and the ids
differ. Every character the two disagree on is one that Python's own `unicodedata` (Unicode 14.0 in
Python 3.11) still calls unassigned, and the disagreement goes one way only: the regex module calls
it a letter or a number, tiktoken calls it neither (tests/lesson/bpe/test_pretokenize.py sweeps
every code point).

We keep the regex module's reading and do not imitate tiktoken: matching it would mean subtracting
a frozen list of code points from every `\\p{L}` and `\\p{N}`, so the patterns would no longer be
the ones tiktoken, minbpe and nanochat print; it would pin an old Unicode version forever; and text
written before those characters existed never contains them. Round trips are exact either way;
only the ids of such characters can differ from tiktoken's. `class_members` lists, for a character
class, the code points each engine puts in it (chapters 05 and 13 show where the two differ).
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
    """The characters of `text` that tiktoken's regex engine puts in `char_class`, in order.

    tiktoken does not expose its regex, but shows what it matched: with `char_class` as the split
    pattern and only the 256 bytes as tokens, `encode_ordinary` returns the UTF-8 bytes of the
    matched characters and drops everything else.
    """
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
