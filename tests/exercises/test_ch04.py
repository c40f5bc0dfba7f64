"""Chapter 04 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

import pytest

from solutions import ch04
from tutorial_lib import exercises
from tutorial_lib.exercises import check

KEYS = ["04.embedding_bytes", "04.utilization", "04.vocab_size"]


def test_chapter_04_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("04.")) == KEYS


@pytest.mark.parametrize("key, wrong", [
    ("04.vocab_size", ch04.vocab_size_without_eow),
    ("04.embedding_bytes", ch04.embedding_bytes_tied_twice),
    ("04.utilization", ch04.utilization_over_tokens),  # "分母是词表大小，不是 token 数"
])
def test_other_usual_mistakes_fail(key, wrong):
    feedback = check(key, wrong)
    assert feedback.verdict == "未通过" and "输入：" in feedback.message


def test_an_empty_text_uses_nothing():
    """The recipe promises 0.0 for no ids: a case holds it."""
    cases = exercises.REGISTRY["04.utilization"].make_cases()
    assert any(case.args[0] == [] and case.expected == 0.0 for case in cases)
