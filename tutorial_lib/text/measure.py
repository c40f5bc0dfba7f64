"""Measuring a tokenizer on text: the one home for every number that judges a tokenization.

A token count only means something next to a unit of the text itself, so everything here is in the
units every tokenizer shares, characters and UTF-8 bytes: byte-level BPE, SentencePiece, cl100k and
a D2L word vocabulary fit in one table. `Segmenter` is a tokenizer reduced to what a measurement
needs (`compare` wraps real ones); `measure` gives one table row; chapter 12's metrics extend
`Measurement` in `evaluation.evaluate`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Callable, Iterable, Mapping, Sequence

from tutorial_lib._check_data import check_callable, check_str_list
from tutorial_lib._checks import (check_choice, check_int, check_int_list, check_sequence,
                                  check_str, check_type, check_utf8)
from tutorial_lib.text.characters import chars_and_bytes, is_han

RARE_BELOW = 5  # a token used fewer times than this in a text counts as rare there


@dataclass(frozen=True)
class Segmenter:
    """A tokenizer reduced to what a measurement needs.

    `decode(ids)` gives the text back (default: the tokens' bytes joined, as for byte-level BPE; a
    word vocabulary puts spaces back instead); `unk_id` is None for a tokenizer that never loses a
    character; `is_byte_fallback(id)` says whether an id is a byte piece standing in for a missing
    character (SentencePiece's <0xE4>), None where there are none (byte-level BPE's bytes are
    ordinary tokens).
    """

    name: str
    vocab_size: int
    encode: Callable[[str], list[int]]
    token_bytes: Callable[[int], bytes]
    decode: Callable[[list[int]], str] | None = None
    unk_id: int | None = None
    is_byte_fallback: Callable[[int], bool] | None = None

    def tokens(self, text: str) -> list[bytes]:
        """The bytes of each token of `text`, in order."""
        return [self.token_bytes(i) for i in self.encode(text)]

    def text_of(self, ids: list[int]) -> str:
        """The text `ids` stand for: `decode` if given, else the tokens' bytes joined, decoded."""
        if self.decode is not None:
            return self.decode(ids)
        return b"".join(map(self.token_bytes, ids)).decode("utf-8", errors="replace")


def token_kind(token: bytes) -> str:
    """"partial" (its bytes are not valid UTF-8 on their own), "char" (one character) or "multi":
    byte-level BPE spends merges on partial tokens before a Han character exists whole."""
    check_type(token, "token", bytes, "bytes")
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "partial"
    return "char" if len(text) == 1 else "multi"


def cut_characters(tokens: Sequence[bytes]) -> tuple[int, int]:
    """(characters whose UTF-8 bytes are spread over more than one token, all characters), for
    tokens (bytes, in order) joining to valid UTF-8: a cut character is never seen whole."""
    tokens = check_sequence(tokens, "tokens", "a list of bytes")
    if not all(type(token) is bytes for token in tokens):  # one quick pass in the usual case
        for i, token in enumerate(tokens):
            check_type(token, f"tokens[{i}]", bytes, "bytes")
    data = b"".join(tokens)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        where = f"{e.reason} at byte {e.start}"
        raise ValueError(f"tokens must join to valid UTF-8 ({where})") from None
    cut = set()  # the first byte of each character that a token ends inside
    for end in accumulate(len(t) for t in tokens):  # the byte offset where each token ends
        start = end  # a continuation byte (10xxxxxx) here: walk back to its character's first
        while start < len(data) and data[start] & 0xC0 == 0x80:
            start -= 1
        if start != end:
            cut.add(start)  # a set: a character cut twice counts once
    return len(cut), len(text)


@dataclass(frozen=True)
class Compression:
    """Tokens needed for some lines, next to the lines' size in characters and in UTF-8 bytes."""

    chars: int
    bytes: int
    tokens: int

    @classmethod
    def of_lines(cls, lines: Sequence[str], tokens: int) -> Compression:
        """`tokens` tokens for `lines` (already checked), with the lines' characters and bytes."""
        sizes = [chars_and_bytes(line) for line in lines]
        return cls(sum(c for c, _ in sizes), sum(b for _, b in sizes), tokens)

    @property
    def chars_per_token(self) -> float:
        return self.chars / self.tokens

    @property
    def bytes_per_token(self) -> float:
        return self.bytes / self.tokens


def compression(encode: Callable[[str], Sequence[int]], lines: Sequence[str]) -> Compression:
    """Encode each line on its own and total the tokens, characters and bytes.

    A ratio of totals, not a mean of per-line ratios, which would weigh short lines as much as long
    ones. Bytes per token is the unit every tokenizer shares (CS336's compression ratio); characters
    per token is easier to picture for Chinese, nearly 3 bytes a character.
    """
    check_callable(encode, "encode", "a function str -> list of ids")
    lines = _lines(lines)
    tokens = sum(len(check_sequence(encode(line), "encode(line)", "a list of ids"))
                 for line in lines)
    if tokens == 0:
        raise ValueError("encode produced no tokens for these lines")
    return Compression.of_lines(lines, tokens)


def _lines(lines: object) -> list[str]:
    """Lines to measure on: a list of str with some text, each with a UTF-8 form."""
    lines = check_str_list(lines, "lines", non_empty=True)
    return [check_utf8(line, f"lines[{i}]") for i, line in enumerate(lines)]


def token_counts(encode: Callable[[str], Sequence[int]], lines: Iterable[str]) -> Counter[int]:
    """How often each id occurs when every line is encoded on its own (unused ids are absent)."""
    check_callable(encode, "encode", "a function str -> list of ids")
    counts: Counter[int] = Counter()
    for line in check_str_list(lines, "lines"):
        counts.update(encode(line))
    return counts


@dataclass(frozen=True)
class Utilization:
    """How many entries of a vocabulary a text uses: at all, only rarely, or never. A token almost
    never used is an embedding row training almost never updates: the glitch tokens."""

    tokens: int  # vocabulary entries looked at
    used: int  # entries that occur at least once
    rare: int  # entries that occur, but fewer than `rare_below` times
    rare_below: int

    @property
    def unused(self) -> int:
        return self.tokens - self.used

    @property
    def used_share(self) -> float:
        return self.used / self.tokens

    @property
    def rare_or_unused(self) -> int:
        """Entries the text gives fewer than `rare_below` examples of (never used ones included)."""
        return self.rare + self.unused

    @property
    def rare_or_unused_share(self) -> float:
        return self.rare_or_unused / self.tokens


def utilization(counts: Counter[int] | dict[int, int], ids: Iterable[int],
                rare_below: int = RARE_BELOW) -> Utilization:
    """Utilization of the vocabulary entries `ids` by a text whose token counts are `counts`.

    Pass all ordinary tokens, or only the learned ones: the 256 bytes are there, used or not.
    """
    check_type(counts, "counts", dict, "a dict or Counter of id -> count")
    ids = sorted(set(check_int_list(list(ids), "ids", low=0)))
    if not ids:
        raise ValueError("ids must name at least one vocabulary entry")
    rare_below = check_int(rare_below, "rare_below", low=1)
    used = [i for i in ids if counts.get(i, 0) > 0]
    rare = sum(counts[i] < rare_below for i in used)
    return Utilization(len(ids), len(used), rare, rare_below)


def vocab_kinds(segmenter: Segmenter) -> dict[str, int]:
    """How many vocabulary entries are partial bytes, single characters or several characters.

    Ids that decode to nothing (SentencePiece's <s>, <unk>) and ids a vocabulary leaves unused
    (cl100k has a few gaps) are not counted.
    """
    kinds: Counter[str] = Counter()
    for i in range(check_type(segmenter, "segmenter", Segmenter, "a Segmenter").vocab_size):
        try:
            token = segmenter.token_bytes(i)
        except (KeyError, ValueError):
            continue  # a gap in the ids
        if token:
            kinds[token_kind(token)] += 1
    return {kind: kinds[kind] for kind in ("partial", "char", "multi")}


def top_multichar_tokens(segmenter: Segmenter, lines: Sequence[str], k: int = 15,
                         must_contain_han: bool = True) -> list[tuple[str, int]]:
    """The k tokens of two or more characters used most often when `lines` are encoded, with
    their counts, ties by token text: what a tokenizer "learned" is best seen in use."""
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    counts: Counter[bytes] = Counter()
    for line in check_str_list(lines, "lines"):
        counts.update(t for t in segmenter.tokens(line) if token_kind(t) == "multi")
    rows = [(t.decode("utf-8"), n) for t, n in counts.items()]
    if must_contain_han:
        rows = [(t, n) for t, n in rows if any(is_han(ch) for ch in t)]
    return sorted(rows, key=lambda row: (-row[1], row[0]))[:check_int(k, "k", low=1)]


@dataclass(frozen=True)
class Measurement(Compression):
    """One tokenizer measured on one set of lines, each line encoded on its own."""

    name: str
    vocab_size: int
    eval_set: str
    lines: int
    words: int  # whitespace-separated words, to put tokens on a per-word scale
    unknown: int  # tokens that are the unknown id
    restored_lines: int  # lines that decode(encode(line)) gives back exactly
    # characters spread over several tokens; None unless the tokens' bytes rebuild every line
    cut_chars: int | None

    @property
    def tokens_per_word(self) -> float:
        return self.tokens / self.words

    @property
    def oov_rate(self) -> float:
        return self.unknown / self.tokens

    @property
    def lossless(self) -> bool:
        return self.restored_lines == self.lines


def measure(segmenter: Segmenter, lines: Sequence[str], eval_set: str = "") -> Measurement:
    """Encode each line, count tokens and unknown ids, decode it back, count the characters cut.

    Cut characters are counted only when the tokens' bytes rebuild every line: where a line is lost
    (a word vocabulary dropping spaces, `<unk>`), "which token holds which byte" has no answer, so
    the result is None rather than a count over the lines that happened to survive.
    """
    check_type(segmenter, "segmenter", Segmenter, "a Segmenter")
    lines = _lines(lines)
    check_str(eval_set, "eval_set")
    tokens = words = unknown = restored = cut = 0
    rebuilt = True
    for line in lines:
        ids = check_sequence(segmenter.encode(line), "encode(line)", "a list of ids")
        tokens += len(ids)
        words += len(line.split())
        unknown += 0 if segmenter.unk_id is None else ids.count(segmenter.unk_id)
        restored += segmenter.text_of(ids) == line
        # once one line's tokens fail to rebuild its bytes, cut characters have no answer
        pieces = [segmenter.token_bytes(t) for t in ids]
        rebuilt = rebuilt and b"".join(pieces) == line.encode("utf-8")
        if rebuilt:
            cut += cut_characters(pieces)[0]
    if tokens == 0:
        raise ValueError(f"{segmenter.name} produced no tokens for these lines")
    size = Compression.of_lines(lines, tokens)
    return Measurement(chars=size.chars, bytes=size.bytes, tokens=tokens, name=segmenter.name,
                       vocab_size=segmenter.vocab_size, eval_set=eval_set, lines=len(lines),
                       words=words, unknown=unknown, restored_lines=restored,
                       cut_chars=cut if rebuilt else None)


# Columns a notebook can pick for its table: header -> how a Measurement fills it.
COLUMNS: dict[str, Callable[[Measurement], object]] = {
    "分词方式": lambda m: m.name,
    "词表大小": lambda m: m.vocab_size,
    "测试文本": lambda m: m.eval_set,
    "token 数": lambda m: m.tokens,
    "token/词": lambda m: f"{m.tokens_per_word:.2f}",
    "OOV 率": lambda m: f"{100 * m.oov_rate:.2f}%",
    "字符/token": lambda m: f"{m.chars_per_token:.3f}",
    "字节/token": lambda m: f"{m.bytes_per_token:.3f}",
    "被切开的字": lambda m: "—" if m.cut_chars is None else f"{100 * m.cut_chars / m.chars:.2f}%",
    "原样还原的行": lambda m: f"{m.restored_lines}/{m.lines}",
}


def measurement_table(measurements: Sequence[Measurement], columns: Sequence[str],
                      table: Mapping[str, Callable[[Measurement], object]] = COLUMNS
                      ) -> tuple[list[str], list[tuple]]:
    """(header, rows) for `display.table`: a row per measurement, the chosen columns of `table`
    (`COLUMNS`, or a longer table such as evaluate's) in order."""
    columns = check_str_list(columns, "columns")
    for column in columns:
        check_choice(column, "columns item", table)
    rows = check_sequence(measurements, "measurements")
    return columns, [tuple(table[c](m) for c in columns) for m in rows]
