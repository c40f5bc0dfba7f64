"""Chapter 03: reference solutions, and the typical wrong answer each checker must reject."""

import math
from collections import Counter
from itertools import accumulate


def chars_for_coverage(text: str, fraction: float) -> int:
    counts = sorted(Counter(text).values(), reverse=True)
    total = sum(counts)
    for k, covered in enumerate(accumulate(counts), start=1):
        if covered / total >= fraction:
            return k
    return len(counts)


def bytes_per_token(lines: list[str], encode) -> float:
    total_bytes = sum(len(line.encode("utf-8")) for line in lines)
    total_tokens = sum(len(encode(line)) for line in lines)
    return total_bytes / total_tokens


def count_cut_characters(tokens: list[bytes]) -> int:
    ends = set(accumulate(len(t) for t in tokens))
    cut, start = 0, 0
    for ch in b"".join(tokens).decode("utf-8"):
        end = start + len(ch.encode("utf-8"))
        cut += any(i in ends for i in range(start + 1, end))
        start = end
    return cut


def _share_of_alphabet(text: str, fraction: float) -> int:
    # Confuses "share of the text" with "share of the distinct characters".
    return math.ceil(fraction * len(set(text)))


def _chars_not_bytes(lines: list[str], encode) -> float:
    # Counts characters instead of UTF-8 bytes.
    return sum(len(line) for line in lines) / sum(len(encode(line)) for line in lines)


def _invalid_tokens(tokens: list[bytes]) -> int:
    # Counts tokens that are not valid UTF-8 on their own: a character cut in two is counted twice.
    count = 0
    for token in tokens:
        try:
            token.decode("utf-8")
        except UnicodeDecodeError:
            count += 1
    return count


def chars_for_coverage_strictly_above(text: str, fraction: float) -> int:
    """Waits for the running share to pass `fraction` instead of reaching it (> for >=)."""
    counts = sorted(Counter(text).values(), reverse=True)
    total = sum(counts)
    for k, covered in enumerate(accumulate(counts), start=1):
        if covered / total > fraction:
            return k
    return len(counts)


def chars_for_coverage_without_spaces(text: str, fraction: float) -> int:
    """Leaves spaces and line breaks out, as if they were not characters of the text."""
    return chars_for_coverage("".join(text.split()), fraction)


def bytes_per_token_mean_of_lines(lines: list[str], encode) -> float:
    """Averages the per-line ratios, so a short line weighs as much as a long one."""
    ratios = [len(line.encode("utf-8")) / len(encode(line)) for line in lines if line]
    return sum(ratios) / len(ratios)


def count_cut_boundaries(tokens: list[bytes]) -> int:
    """Counts token boundaries inside characters: a character cut in three is counted twice."""
    ends = set(accumulate(len(t) for t in tokens))
    cut, start = 0, 0
    for ch in b"".join(tokens).decode("utf-8"):
        end = start + len(ch.encode("utf-8"))
        cut += sum(i in ends for i in range(start + 1, end))
        start = end
    return cut


WRONG_ANSWERS = {
    "chars_for_coverage": _share_of_alphabet,
    "bytes_per_token": _chars_not_bytes,
    "count_cut_characters": _invalid_tokens,
}
