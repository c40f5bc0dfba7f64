"""Text before tokens: what characters and bytes a string is made of.

(D2L-style cleaning, char/word tokenization and `Vocab` join this module in chapter 01.)
"""

from __future__ import annotations


def utf8_breakdown(text: str) -> list[tuple[str, str, str]]:
    """One row per character: (char, code point "U+XXXX", its UTF-8 bytes in hex).

    Shows why a model that reads bytes sees "你" as three tokens before any merge.
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    return [(ch, f"U+{ord(ch):04X}", ch.encode("utf-8").hex(" ")) for ch in text]
