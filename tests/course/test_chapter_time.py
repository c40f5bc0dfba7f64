"""The learner-time estimate: what it counts; what 选读 parts and folded originals leave out."""

import json

from tutorial_course import chapter_time


def _nb(*cells):
    return {"cells": [{"cell_type": kind, "source": source, "outputs": []} if kind == "code"
                      else {"cell_type": kind, "source": source} for kind, source in cells]}


def test_a_optional_part_runs_until_a_heading_as_high_as_its_own():
    nb = _nb(("markdown", "## 3 核心"), ("markdown", "## 4 延伸（选读）"), ("code", "x = 1"),
             ("markdown", "### 4.1 更深"), ("markdown", "## 5 又是核心"), ("code", "y = 2"))
    core, skipped = chapter_time.core_cells(nb)
    assert [c["source"] for c in core] == ["## 3 核心", "## 5 又是核心", "y = 2"]
    assert [c["source"] for c in skipped] == ["## 4 延伸（选读）", "x = 1", "### 4.1 更深"]


def test_reading_counts_han_and_english_words_outside_folds(tmp_path):
    text = "汉" * 250 + " " + "word " * 80 + "<details>" + "汉" * 5000 + "</details>"
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(_nb(("markdown", text), ("code", "my_guess = None"),
                                   ("code", "# a comment\n\na = 1\nb = 2"),
                                   ("code", 'check("09.cu_seqlens", f)'))), encoding="utf-8")
    e = chapter_time.estimate(path, {"09.cu_seqlens": 3})
    assert e.reading == 2.0  # 250 characters and 80 words: a minute each; the fold is not read
    assert e.code == 2 / chapter_time.CODE_LINES_PER_MINUTE
    assert e.exercises == chapter_time.EXERCISE_MINUTES[3]
    assert e.guesses_and_widgets == chapter_time.GUESS_MINUTES


def test_every_chapter_has_an_estimate():
    estimates = chapter_time.estimates()
    assert len(estimates) == 14 and all(e.minutes > 10 for e in estimates.values())


def test_every_chapter_core_path_fits_one_sitting():
    """The course's promise: at most SITTING minutes per chapter, exercises included; what is
    beyond sits in 选读 parts (their exercises are listed, and graded all the same)."""
    over = {number: round(e.minutes) for number, e in chapter_time.estimates().items()
            if e.minutes > chapter_time.SITTING}
    assert over == {}
