"""Chapter 04 exercises: each checker passes the reference solution and rejects its typical wrong answer."""

import pytest

from solutions import ch04
from tutorial_lib import exercises
from tutorial_lib.exercises import check

KEYS = ["04.embedding_bytes", "04.utilization", "04.vocab_size"]


@pytest.fixture(autouse=True)
def fresh_session():
    exercises.FAILURES.clear()
    yield
    exercises.FAILURES.clear()


def test_chapter_04_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("04.")) == KEYS
    assert set(ch04.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


@pytest.mark.parametrize("key", KEYS)
def test_reference_solution_passes(key):
    feedback = check(key, getattr(ch04, exercises.REGISTRY[key].function_name))
    assert feedback.verdict == "通过", feedback.message


@pytest.mark.parametrize("key", KEYS)
def test_typical_wrong_answer_fails(key):
    feedback = check(key, ch04.WRONG_ANSWERS[exercises.REGISTRY[key].function_name])
    assert feedback.verdict == "未通过" and "期望" in feedback.message and "提示" in feedback.message
