"""Chapter 08 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch08
from tutorial_lib.exercises import check

def test_the_greedy_checker_shows_a_row_filled_exactly():
    message = check("08.greedy_rows", ch08.WRONG_ANSWERS["greedy_rows"]).message
    assert "[[0], [1]]" in message or "[[0, 1]" in message  # the smallest failing case has an exactly full row
