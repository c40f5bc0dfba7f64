"""Every registered exercise: its reference solution passes and a typical wrong answer fails.

solutions/chNN.py holds, for chapter NN, one reference function per exercise and WRONG_ANSWERS, a
typical mistake for each (keyed by function name).
"""

import importlib

import pytest

from tutorial_lib import exercises
from tutorial_lib.exercises import check


def solutions_module(key: str):
    return importlib.import_module(f"solutions.ch{key.split('.', 1)[0]}")


def reference_solution(key: str):
    return getattr(solutions_module(key), exercises.REGISTRY[key].function_name)


def wrong_answer(key: str):
    return solutions_module(key).WRONG_ANSWERS[exercises.REGISTRY[key].function_name]


@pytest.mark.parametrize("key", sorted(exercises.REGISTRY))
def test_every_exercise_has_a_solution_and_a_wrong_answer(key):
    assert callable(reference_solution(key)) and callable(wrong_answer(key))


@pytest.mark.parametrize("key", sorted(exercises.REGISTRY))
def test_reference_solution_passes(key):
    feedback = check(key, reference_solution(key))
    assert feedback.passed, feedback.message
    assert feedback.message.startswith("通过")


@pytest.mark.parametrize("key", sorted(exercises.REGISTRY))
def test_typical_wrong_answer_fails_with_the_case(key):
    feedback = check(key, wrong_answer(key))
    assert not feedback.passed
    assert "期望" in feedback.message and "得到" in feedback.message and "提示" in feedback.message


def test_stub_reports_unfinished_without_raising():
    def stub(text):
        raise NotImplementedError

    feedback = check("00.utf8_length", stub)
    assert not feedback.passed and feedback.message.startswith("未完成")


def test_learner_exception_is_reported_not_raised():
    feedback = check("00.utf8_length", lambda text: len(text.encode("ascii")))  # right until Chinese
    assert not feedback.passed
    assert "第 3/6 个用例运行出错：UnicodeEncodeError" in feedback.message


def test_forgotten_return_is_explained():
    assert "return" in check("00.utf8_length", lambda text: None).message


def test_bad_arguments():
    with pytest.raises(ValueError, match="key must be one of"):
        check("99.nope", len)
    with pytest.raises(TypeError, match="fn must be"):
        check("00.utf8_length", 3)
    with pytest.raises(ValueError, match="registered twice"):
        exercises.register(exercises.REGISTRY["00.utf8_length"])
