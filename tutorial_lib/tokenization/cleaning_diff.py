"""Which characters D2L's cleaning deletes, as opposed to the ones it only changes (chapter 01).

`d2l.clean_line` turns every run of non-letters into one space and strips the ends. So a run inside a line
keeps one character's worth of room (the space) and loses the rest, and a run at either end of a line is
lost whole. Counting the matched non-letters (as `d2l.cleaning_report` does) says what was touched; this
module says what is gone: its counts add up to exactly `len(raw) - len(clean_line(raw))` over the lines.

Which character of an inner run "stays" as the space is a convention: the first whitespace character if the
run has one (", " keeps its space and loses the comma), otherwise the first character ("-" in "Upper-world"
becomes the space). Lower-casing changes letters in place and deletes nothing, so it is not counted here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from tutorial_lib._checks import check_str_list
from tutorial_lib.tokenization.d2l import NON_LETTERS


@dataclass(frozen=True)
class CleaningDiff:
    """What the cleaning did to the non-letters of some raw lines, character by character."""

    removed_at_edges: Counter[str]  # non-letters at the start or end of a line: stripped with nothing in their place
    removed_inside: Counter[str]  # characters of an inner run other than the one that became its space
    became_space: Counter[str]  # the one character per inner run that the space stands for (often a space itself)

    @property
    def removed(self) -> Counter[str]:
        """Every deleted character, wherever it was."""
        return self.removed_at_edges + self.removed_inside

    @property
    def total_removed(self) -> int:
        """How many characters the cleaning deleted: the length the lines lost."""
        return sum(self.removed.values())


def cleaning_diff(raw_lines: Sequence[str]) -> CleaningDiff:
    """Split the non-letters of `raw_lines` into the ones `clean_line` deletes and the ones it turns into a space."""
    edges: Counter[str] = Counter()
    inside: Counter[str] = Counter()
    spaces: Counter[str] = Counter()
    for line in check_str_list(raw_lines, "raw_lines"):
        line = line.rstrip("\r\n")
        for match in NON_LETTERS.finditer(line):
            run = match.group(0)
            if match.start() == 0 or match.end() == len(line):
                edges.update(run)
                continue
            keep = next((i for i, ch in enumerate(run) if ch.isspace()), 0)
            spaces[run[keep]] += 1
            inside.update(run[:keep] + run[keep + 1:])
    return CleaningDiff(edges, inside, spaces)
