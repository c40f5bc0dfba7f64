"""Chapter 04 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch04
from tutorial_lib import exercises

KEYS = ["04.embedding_bytes", "04.utilization", "04.vocab_size"]


def test_chapter_04_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("04.")) == KEYS
    assert set(ch04.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}
