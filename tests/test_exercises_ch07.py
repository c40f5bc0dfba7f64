"""Chapter 07 exercises: each checker passes the reference solution and rejects its typical wrong answer."""

import pytest

from solutions import ch07
from tutorial_lib import exercises
from tutorial_lib.exercises import check

KEYS = ["07.attention_mask", "07.labels", "07.padding_ratio"]


@pytest.fixture(autouse=True)
def fresh_session():
    exercises.FAILURES.clear()
    yield
    exercises.FAILURES.clear()


def test_chapter_07_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("07.")) == KEYS
    assert set(ch07.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


@pytest.mark.parametrize("key", KEYS)
def test_reference_solution_passes(key):
    feedback = check(key, getattr(ch07, exercises.REGISTRY[key].function_name))
    assert feedback.verdict == "通过", feedback.message


@pytest.mark.parametrize("key", KEYS)
def test_typical_wrong_answer_fails(key):
    feedback = check(key, ch07.WRONG_ANSWERS[exercises.REGISTRY[key].function_name])
    assert feedback.verdict == "未通过" and "期望" in feedback.message and "提示" in feedback.message


def test_a_mask_from_numpy_gets_the_tolist_hint():
    import numpy as np

    feedback = check("07.attention_mask", lambda lengths, width, side: np.array(ch07.attention_mask(lengths, width, side)))
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message
