"""Chapter 03 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases catch each mistake the exercises' concepts
warn about."""

import pytest

from solutions import ch03
from tutorial_course import exercises
from tutorial_course.exercises import check

KEYS = ["03.bytes_per_token", "03.chars_for_coverage", "03.count_cut_characters"]


def test_chapter_03_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("03.")) == KEYS


@pytest.mark.parametrize("key, wrong", [
    ("03.chars_for_coverage", ch03.chars_for_coverage_strictly_above),  # a share reached exactly
    ("03.chars_for_coverage", ch03.chars_for_coverage_without_spaces),  # "空格和换行也算"
    ("03.bytes_per_token", ch03.bytes_per_token_mean_of_lines),  # "不是每行比值的平均"
    ("03.count_cut_characters", ch03.count_cut_boundaries),  # "切成三段也只算一个"
])
def test_other_usual_mistakes_fail(key, wrong):
    feedback = check(key, wrong)
    assert feedback.verdict == "未通过" and "输入：" in feedback.message

