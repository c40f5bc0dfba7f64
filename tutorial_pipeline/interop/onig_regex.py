"""A split pattern for Hugging Face's regex engine (Oniguruma) and back: the few spots they differ.

Our patterns run in Python's `regex` module; a `tokenizer.json` Split step runs in Oniguruma with
Ruby's syntax. Most of a split pattern reads the same in both (classes, `\\p{L}`, `(?i:...)`,
lookahead, the possessive `?+ *+ ++`), but four things do not:

- `X{1,3}+` is possessive in `regex` and "X{1,3}, repeated" in Oniguruma, so GPT-4's
  `\\p{N}{1,3}+` would keep "1234567" whole there instead of "123", "456", "7". Written as the
  atomic group `(?>X{1,3})`, which means the same in both, it cuts alike.
- `^` and `$` are the ends of the text in `regex` (`$` also before a final newline) and the ends of
  each line in Ruby; `\\Z` is the end of the text in `regex`, the end or before a final newline in
  Oniguruma, whose end of the text is `\\z`. Each is rewritten to its twin.
- Flags other than `i` (`(?s)`, `(?m)`, `(?x)`, ...) mean different things in the two syntaxes
  (Ruby's `m` is Python's `s`), so a pattern using them is refused rather than guessed.
- Unicode tables: `\\p{L}` and `\\p{N}` come from each engine's own Unicode version. Oniguruma in
  `tokenizers` 0.23.3 reads them exactly as tiktoken does (`tiktoken_probe`: 17,144 letters and
  336 numbers that Python 3.11 calls unassigned are letters or numbers only for `regex`); that
  cannot be rewritten and is pinned by tests/pipeline/interop/test_onig_regex.py.

`to_oniguruma(pattern)` rewrites for a tokenizer.json, `from_oniguruma(pattern)` rewrites a
tokenizer.json's regex for `regex`; both leave a pattern without these constructs unchanged
(GPT-2's, nanochat's, Qwen's, DeepSeek's), and `from_oniguruma(to_oniguruma(p))` reads like p.
"""

from __future__ import annotations

import re

from tutorial_lib._checks import check_str

# What each anchor becomes. `regex`'s (?m:^) and (?m:$) are Ruby's line anchors.
_TO_ONIG = {"^": r"\A", "$": r"\Z", r"\Z": r"\z"}
_FROM_ONIG = {"^": "(?m:^)", "$": "(?m:$)", r"\Z": "$", r"\z": r"\Z"}
# A group opener: (?: (?= (?! (?<= (?<! (?> (?P<name> (?<name>, or flags: (?i: (?i) (?s) ...
_OPENER = re.compile(r"\(\?(?::|=|!|<=|<!|>|P?<\w+>|[a-zA-Z-]+[:)])")
_FLAGS = re.compile(r"\(\?([a-zA-Z-]+)[:)]")


def to_oniguruma(pattern: str) -> str:
    """`pattern` (for the `regex` module) as an Oniguruma regex that cuts text the same way."""
    return _rewrite(check_str(pattern, "pattern", non_empty=True), _TO_ONIG, atomic=True)


def from_oniguruma(pattern: str) -> str:
    """A tokenizer.json's Oniguruma regex as a `regex` pattern that cuts text the same way."""
    return _rewrite(check_str(pattern, "pattern", non_empty=True), _FROM_ONIG, atomic=False)


def _rewrite(pattern: str, anchors: dict[str, str], atomic: bool) -> str:
    """Copy `pattern` piece by piece (`_pieces`), rewriting anchors and `X{n,m}+`.

    `out` holds the rewritten pieces; `atoms` the index in `out` where each atom begins (an escape,
    a class, a group, a character), so that a quantifier can wrap the atom it applies to. With
    `atomic`, `X{n,m}+` becomes `(?>X{n,m})` (possessive, for Oniguruma); without, Oniguruma's
    reading `(?:X{n,m})+` (for `regex`).
    """
    out: list[str] = []
    atom_start: int | None = None  # where in `out` the last atom begins
    opened: list[int] = []  # where in `out` each open group begins
    for piece in _pieces(pattern):
        flags = _FLAGS.fullmatch(piece)
        if flags and flags.group(1) != "i":
            raise ValueError(f"pattern uses the flag group {piece!r}: flags other than i mean "
                             "different things in the regex module and in Oniguruma, so it is not "
                             f"translated: {pattern!r}")
        if piece in anchors:
            out.append(anchors[piece])
            atom_start = None
        elif piece.startswith("(") and not piece.endswith(")"):  # (?i) opens no group
            opened.append(len(out))
            out.append(piece)
            atom_start = None
        elif piece == ")":
            out.append(piece)
            atom_start = opened.pop() if opened else None
        elif piece.startswith("{") and piece.endswith("}+") and atom_start is not None:
            body = "".join(out[atom_start:]) + piece[:-1]
            del out[atom_start:]
            out.append(f"(?>{body})" if atomic else f"(?:{body})+")
            atom_start = None
        elif piece[0] in "{*+?|":  # a quantifier or an alternation: not an atom
            out.append(piece)
            atom_start = None if piece == "|" else atom_start
        else:
            atom_start = len(out)
            out.append(piece)
    return "".join(out)


def _pieces(pattern: str) -> list[str]:
    """`pattern` cut into escapes (with a {…} argument), classes, group openers, quantifiers with
    their lazy/possessive suffix, and single characters."""
    pieces: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            end = i + 2
            if pattern[i + 1 : i + 2] in ("p", "P", "x", "N") and pattern[end : end + 1] == "{":
                end = pattern.index("}", end) + 1
        elif ch == "[":
            end = _class_end(pattern, i)
        elif ch == "(":
            opener = _OPENER.match(pattern, i)
            end = opener.end() if opener else i + 1
        elif ch == "{" and "}" in pattern[i:]:
            end = pattern.index("}", i) + 1
            end += pattern[end : end + 1] in ("+", "?")
        elif ch in "*+?":
            end = i + 1 + (pattern[i + 1 : i + 2] in ("+", "?"))
        else:
            end = i + 1
        pieces.append(pattern[i:end])
        i = end
    return pieces


def _class_end(pattern: str, start: int) -> int:
    """The index just past the `]` that closes the class opened at `start`."""
    i = start + 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":  # a ] right after [ or [^ is a literal
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    if i >= len(pattern):
        raise ValueError(f"pattern has a [ that is never closed: {pattern!r}")
    return i + 1
