"""Chapter 08 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch08
from tutorial_lib import exercises
from tutorial_lib.exercises import check
from tutorial_lib.packing import strategies


def test_the_greedy_checker_shows_a_row_filled_exactly():
    message = check("08.greedy_rows", ch08.WRONG_ANSWERS["greedy_rows"]).message
    assert "[[0], [1]]" in message or "[[0, 1]" in message  # the smallest failing case: a row exactly full


def test_the_cases_are_the_library_strategies():
    for case in exercises.REGISTRY["08.pad_utilization"].make_cases():
        assert case.expected == strategies.pad(*case.args).utilization
    for case in exercises.REGISTRY["08.greedy_rows"].make_cases():
        result = strategies.greedy(*case.args)
        assert case.expected == [[s.doc for s in result.segments(r)] for r in range(result.n_rows)]
