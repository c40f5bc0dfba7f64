"""Chapter 08 checkers: the reference solutions pass, the typical mistakes fail, and the stubs are 未完成."""

import pytest

from solutions import ch08
from tutorial_lib.exercises import check

KEYS = ["08.pad_utilization", "08.greedy_rows"]


@pytest.mark.parametrize("key", KEYS)
def test_reference_passes_and_typical_mistake_fails(key):
    name = key.split(".", 1)[1]
    assert check(key, getattr(ch08, name)).verdict == "通过"
    assert check(key, ch08.WRONG_ANSWERS[name]).verdict == "未通过"


@pytest.mark.parametrize("key", KEYS)
def test_the_stub_is_not_done(key):
    def stub(lengths, seq_len):
        raise NotImplementedError

    assert check(key, stub).verdict == "未完成"


def test_the_greedy_checker_shows_a_row_filled_exactly():
    message = check("08.greedy_rows", ch08.WRONG_ANSWERS["greedy_rows"]).message
    assert "[[0], [1]]" in message or "[[0, 1]" in message  # the smallest failing case has an exactly full row
