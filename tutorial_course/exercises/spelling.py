"""Where a wrong answer differs, spelled out: a repr hides what a learner needs to see there.

'ö' (U+00F6) and 'o' + U+0308 print alike; two long byte strings cut at the same prefix do not say
which byte is wrong; b'\\xe2\\x85\\xab' does not look like the Ⅻ it encodes.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from tutorial_course.exercises.wire import show

SPELL_LIMIT = 12  # characters spelled out with their code points around a difference


def spelled(text: str) -> str:
    """Each character of `text` with its code point: ö (U+00F6) and o + U+0308 print alike."""
    return " ".join(f"{ch!r} U+{ord(ch):04X}" for ch in text)


def difference_note(got: Any, expected: Any) -> str:
    """Where two texts or two byte strings first differ: the offset, and for text the characters
    there with their code points (a repr does not show NFC from NFD, nor which byte is wrong)."""
    if type(got) is not type(expected) or not isinstance(expected, (str, bytes)):
        return ""
    at = next((i for i, (a, b) in enumerate(zip(got, expected)) if a != b),
              min(len(got), len(expected)))
    if isinstance(expected, bytes):
        def byte(data: bytes) -> str:
            return f"0x{data[at]:02X}" if at < len(data) else f"没有（只有 {len(data)} 个字节）"
        return f"\n第一个不同的字节在偏移 {at}：期望 {byte(expected)}，得到 {byte(got)}"
    if expected.isascii() and got.isascii():
        return ""
    window = slice(at, at + SPELL_LIMIT)
    return (f"\n从下标 {at} 起：期望 {spelled(expected[window]) or '（结束）'}；"
            f"得到 {spelled(got[window]) or '（结束）'}")


def misleading_notes(args: tuple) -> str:
    """A line under the failing call for each short argument whose repr misleads: a non-ASCII
    byte string (the characters it encodes, or that it is not whole UTF-8 on its own), and a text
    that NFC changes ('o' + U+0308 prints as the 'ö' it is not)."""
    notes = ""
    for arg in args:
        if (isinstance(arg, str) and len(arg) <= SPELL_LIMIT
                and not unicodedata.is_normalized("NFC", arg)):
            notes += f"\n其中 {show(arg)} 是 {spelled(arg)}"
        if isinstance(arg, bytes) and not arg.isascii() and len(arg) <= 4 * SPELL_LIMIT:
            try:
                notes += f"\n其中 {show(arg)} 是 UTF-8 的 {spelled(arg.decode('utf-8'))}"
            except UnicodeDecodeError:
                notes += f"\n其中 {show(arg)} 单独不是完整的 UTF-8"
    return notes
