"""Chapter 01 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases catch the other usual mistakes, and both ways
the recipes offer pass."""

from collections import Counter

import pytest

from solutions import ch01
from tutorial_course import exercises
from tutorial_course.exercises import check

KEYS = ["01.build_vocab", "01.clean_line", "01.oov_rate"]


def test_chapter_01_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("01.")) == KEYS


@pytest.mark.parametrize("key, wrong", [
    ("01.clean_line", ch01.clean_line_keeping_case),
    ("01.build_vocab", ch01.build_vocab_without_unk),
    ("01.oov_rate", ch01.oov_rate_of_known_tokens),
])
def test_other_usual_mistakes_fail(key, wrong):
    feedback = check(key, wrong)
    assert feedback.verdict == "未通过" and "输入：" in feedback.message


def test_most_common_is_as_good_as_a_stable_sort():
    """The recipe says Counter.most_common() keeps first-use order among ties, as sorted() does."""
    def build_vocab(tokens, min_freq):
        return ["<unk>"] + [t for t, n in Counter(tokens).most_common() if n >= min_freq]

    assert check("01.build_vocab", build_vocab).passed


def test_looking_up_the_unknown_id_is_as_good_as_not_in():
    def oov_rate(vocab, tokens):
        return sum(vocab[t] == vocab.unk for t in tokens) / len(tokens)

    assert check("01.oov_rate", oov_rate).passed
