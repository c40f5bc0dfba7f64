"""Merging one pair in a word, left to right and never overlapping ("aaa" -> "aa", "a"): the step
every BPE trainer repeats and WordPiece's trainer borrows. The fast trainer calls `occurrences` and
`replace` apart, to recount only the pairs around each merged position."""

from __future__ import annotations

from tutorial_lib._checks import check_int, check_int_list

Pair = tuple[int, int]


def merge(ids: list[int], pair: tuple[int, int], new_id: int) -> list[int]:
    """A new list: `ids` (a list or 1-D array of ints) with each occurrence of `pair` replaced by
    `new_id`."""
    ids = check_int_list(ids, "ids")
    pair = tuple(check_int_list(pair, "pair"))
    if len(pair) != 2:
        raise ValueError(f"pair must be two ids (left, right), got {pair}")
    return merge_unchecked(ids, pair, check_int(new_id, "new_id"))


def merge_unchecked(ids: list[int], pair: Pair, new_id: int) -> list[int]:
    """`merge` without the checks, for merge loops: `ids` a list of int, `pair` a tuple."""
    return replace(ids, occurrences(ids, pair), new_id)


def occurrences(ids: list[int], pair: Pair) -> list[int]:
    """Start positions of the occurrences a left-to-right merge replaces; they never overlap."""
    a, b = pair
    if ids.count(a) == 1:  # the usual case in training: found in C, without the loop's last search
        i = ids.index(a)
        return [i] if i < len(ids) - 1 and ids[i + 1] == b else []
    starts = []
    i, last = 0, len(ids) - 1
    while True:
        try:
            i = ids.index(a, i, last)  # list.index scans in C: faster than a loop on long words
        except ValueError:
            return starts
        if ids[i + 1] == b:
            starts.append(i)
            i += 2
        else:
            i += 1


def replace(ids: list[int], starts: list[int], new_id: int) -> list[int]:
    """A new list: `ids` with the pair starting at each of `starts` replaced by `new_id`."""
    out, done = [], 0
    for start in starts:
        out += ids[done:start]
        out.append(new_id)
        done = start + 2
    out += ids[done:]
    return out
