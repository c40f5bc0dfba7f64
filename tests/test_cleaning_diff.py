"""Tests for tokenization.cleaning_diff: deleted characters add up to the length the cleaning takes away."""

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tutorial_lib import data
from tutorial_lib.tokenization import d2l
from tutorial_lib.tokenization.cleaning_diff import cleaning_diff


def test_inner_run_keeps_its_space_and_loses_the_rest():
    diff = cleaning_diff(["Hello, world.  Bye"])
    assert diff.removed_inside == Counter({",": 1, ".": 1, " ": 1})
    assert diff.became_space == Counter({" ": 2})
    assert diff.removed_at_edges == Counter()


def test_run_without_whitespace_becomes_the_space_itself():
    diff = cleaning_diff(["Upper-world", "don't"])
    assert diff.became_space == Counter({"-": 1, "'": 1})
    assert diff.total_removed == 0


def test_runs_at_the_ends_and_lines_without_letters_are_lost_whole():
    diff = cleaning_diff(["[1898]", '"Yes," he said.', "", "   "])
    assert diff.removed_at_edges == Counter({"[": 1, "1": 1, "8": 2, "9": 1, "]": 1, '"': 1, ".": 1, " ": 3})
    assert diff.removed_inside == Counter({",": 1, '"': 1})
    assert diff.total_removed == sum(len(x) - len(d2l.clean_line(x)) for x in ["[1898]", '"Yes," he said.', "", "   "])


@given(st.lists(st.text(alphabet=st.sampled_from(list("ab Z-,.'\t1é")), max_size=30), max_size=5))
def test_deleted_characters_add_up_to_the_length_lost(lines):
    diff = cleaning_diff(lines)
    assert diff.total_removed == sum(len(x) - len(d2l.clean_line(x)) for x in lines)
    assert diff.removed == diff.removed_at_edges + diff.removed_inside


def test_the_time_machine_agrees_with_the_cleaning_report():
    raw_lines = data.load_text("timemachine").splitlines()
    report = d2l.cleaning_report(raw_lines)
    diff = cleaning_diff(raw_lines)
    assert diff.total_removed == report.chars_before - report.chars_after
    assert diff.removed + diff.became_space == report.replaced


def test_bad_input():
    with pytest.raises(TypeError, match="raw_lines"):
        cleaning_diff("one string, not a list")
    with pytest.raises(TypeError, match="raw_lines"):
        cleaning_diff([b"bytes"])
