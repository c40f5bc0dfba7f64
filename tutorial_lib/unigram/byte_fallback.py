"""Byte fallback: a character the vocabulary lacks becomes its UTF-8 bytes, written <0xE4>.

A vocabulary trained on text that lacked a rare Han character or an emoji cannot segment it.
Without byte fallback SentencePiece emits <unk> and the character is lost; with it, the 256 byte
pieces <0x00> ... <0xFF> are in the vocabulary and the character is spelled as its bytes: 你 is
<0xE4><0xBD><0xA0> (a common Han character takes 3 bytes, 𠀀 of Extension B 4, a digit 1), so
every text survives encode -> decode (a byte run that is not UTF-8, possible only from hand-made
pieces, decodes with U+FFFD like SentencePiece).

As in SentencePiece, an unknown character enters the lattice as one piece scored below every real
piece (the lowest log-probability minus 10), so Viterbi uses it only where nothing else fits.
"""

from __future__ import annotations

import re
from collections import ChainMap, Counter

from tutorial_lib._check_data import check_str_list
from tutorial_lib._checks import check_str
from tutorial_lib.unigram import model as unigram

UNK_PENALTY = 10.0  # SentencePiece's kUnkPenalty
_BYTE = re.compile(r"<0x([0-9A-F]{2})>")


def byte_pieces(char: str) -> list[str]:
    """The byte pieces of one character: "你" -> ["<0xE4>", "<0xBD>", "<0xA0>"]."""
    check_str(char, "char", non_empty=True)
    if len(char) != 1:
        raise ValueError(f"char must be one character, got {char!r}")
    return [f"<0x{b:02X}>" for b in char.encode("utf-8", "surrogatepass")]


def is_byte_piece(piece: str) -> bool:
    """Whether `piece` is one of the 256 byte pieces <0x00> .. <0xFF>."""
    return _BYTE.fullmatch(piece) is not None


def encode(text: str, log_probs: dict[str, float]) -> list[str]:
    """The Viterbi pieces of `text`, each character `log_probs` lacks spelled as byte pieces."""
    text = check_str(text, "text")
    return encode_words([text] if text else [], log_probs)


def encode_words(words: list[str], log_probs: dict[str, float]) -> list[str]:
    """`encode` of each word in turn, the pieces joined. The table is checked, and its lowest score
    and longest piece found, once for all the words (per word, that costs as much as Viterbi)."""
    table = unigram.check_log_probs(log_probs)
    return encode_checked(check_str_list(words, "words"), table, table_bounds(table))


def table_bounds(table: dict[str, float]) -> tuple[float, int]:
    """(the score an unknown character gets, the length of the longest piece) of a table."""
    return min(table.values()) - UNK_PENALTY, max(map(len, table))


def encode_checked(words: list[str], table: dict[str, float], bounds: tuple[float, int]
                   ) -> list[str]:
    """`encode_words` with a good table and its `table_bounds`: a trained model's, not per line."""
    floor, longest = bounds
    out: list[str] = []
    for word in filter(None, words):
        unknown = set(word) - table.keys()
        scores = ChainMap(dict.fromkeys(unknown, floor), table) if unknown else table
        pieces, _ = unigram.best_path(word, scores, longest)
        out += [b for p in pieces for b in (byte_pieces(p) if p in unknown else [p])]
    return out


def decode(pieces: list[str]) -> str:
    """The text of `pieces`: normal pieces as they are, each run of byte pieces as UTF-8."""
    pieces = check_str_list(pieces, "pieces")
    out: list[str] = []
    run = bytearray()
    for piece in pieces:
        match = _BYTE.fullmatch(piece)
        if match:
            run.append(int(match.group(1), 16))
            continue
        if run:
            out.append(run.decode("utf-8", "replace"))
            run.clear()
        out.append(piece)
    if run:
        out.append(run.decode("utf-8", "replace"))
    return "".join(out)


def fallback_chars(texts: list[str], log_probs: dict[str, float]) -> Counter[str]:
    """The characters of `texts` a trained model spells in bytes, with how often each occurs.

    Spaces and line breaks are left out: the pre-tokenizer (`train.words_of`) splits the text on
    them, so they never reach the lattice and are never spelled (a "▁" piece stands for a space).
    Any other character the table lacks is spelled, a tab or an ideographic space included.
    """
    texts = check_str_list(texts, "texts")
    table = unigram.check_log_probs(log_probs)
    return Counter(c for t in texts for line in t.splitlines() for c in line
                   if c != " " and c not in table)


def fallback_rate(texts: list[str], log_probs: dict[str, float]) -> float:
    """The share of the characters of `texts` spelled in bytes (0.0 = the vocabulary covers all),
    spaces and line breaks left out of both counts, as in `fallback_chars`: counting them would
    report a space, which no model spells, as a character lost to bytes."""
    spelled = fallback_chars(texts, log_probs)
    chars = sum(len(line) - line.count(" ") for t in texts for line in t.splitlines())
    if chars == 0:
        raise ValueError("texts must contain at least one character besides spaces and newlines")
    return spelled.total() / chars
