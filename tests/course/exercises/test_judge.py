"""The answer is judged where the learner's code does not run: what the function returned crosses as
a plain-value literal (`exercises.wire`), so a lying `__eq__` or a patched comparison gains
nothing. The same exploits under classroom grading are in tests/course/classroom/test_grade.py."""

import collections
import math
import sys

import numpy as np
import pytest

from tutorial_course import exercises
from tutorial_course.exercises import check, sandbox, wire


class Yes(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class YesDict(dict):
    def __eq__(self, other):
        return True

    __hash__ = None


def test_a_value_whose_eq_always_says_true_fails():
    feedback = check("00.utf8_length", lambda text: Yes(0))
    assert feedback.verdict == "未通过"
    assert "类型不对：期望 int，你返回了 Yes。" in feedback.message
    assert check("02.count_pairs", lambda words: YesDict()).verdict == "未通过"


def test_patching_the_comparison_in_the_running_process_changes_nothing():
    def patched(text):
        module = sys.modules["tutorial_course.exercises"]
        module.same_value = module._agrees = lambda *args: True
        return None

    feedback = check("00.utf8_length", patched)
    assert feedback.verdict == "未通过"
    assert "你的函数返回了 None：是不是忘了 return？" in feedback.message


def test_the_messages_about_types_are_the_ones_from_before():
    message = check("00.utf8_length", lambda text: iter([1])).message
    assert "你返回的是 list_iterator（一个还没取值的迭代器），不是 int" in message
    assert "得到：<list_iterator object>" in message
    message = check("00.utf8_length", lambda text: np.array([len(text.encode())])).message
    assert "你返回的是 numpy 数组，期望 int" in message
    assert "类型不对：期望 int，你返回了 str。" in check(
        "00.utf8_length", lambda text: str(len(text.encode()))).message
    assert check("00.utf8_length", lambda text: np.int64(len(text.encode()))).passed
    assert check("02.count_pairs", lambda words: {}).verdict == "未通过"


def test_a_stub_is_still_unfinished():
    def stub(text):
        raise NotImplementedError

    assert check("00.utf8_length", stub).verdict == "未完成"


def test_an_answer_too_large_to_send_fails_with_a_reason():
    feedback = check("00.utf8_length", lambda text: "x" * (exercises.VALUE_LIMIT + 10))
    assert feedback.verdict == "未通过"
    assert "你的函数返回的值太大了" in feedback.message
    huge = check("00.utf8_length", lambda text: 10 ** 5000)  # more digits than Python prints
    assert huge.verdict == "未通过" and "类型不对" not in huge.message
    assert wire.decode(wire.encode(-(10 ** 5000))) == -(10 ** 5000)


def test_the_thread_fallback_judges_the_same_way(monkeypatch):
    monkeypatch.setattr(sandbox, "CAN_FORK", False)
    assert check("00.utf8_length", lambda text: len(text.encode())).passed
    assert check("00.utf8_length", lambda text: Yes(0)).verdict == "未通过"


PLAIN = [None, True, 0, -7, 2**80, 1.5, -0.0, math.inf, "汉字", b"\x00\xff", [1, [2]], (1, (2,)),
         {"tuple": [1], (1, 2): {3}}, {1, "a"}, frozenset({(1, 2)}), collections.Counter("abca"),
         collections.OrderedDict(b=1, a=2), collections.defaultdict(list, a=[1]),
         np.arange(6, dtype=np.int32).reshape(2, 3), np.array([1.5, math.nan]), np.int64(3),
         np.float32(0.1), np.bool_(True), np.str_("ab"), np.array(["ab", "c"])]


@pytest.mark.parametrize("value", PLAIN, ids=[type(v).__name__ for v in PLAIN])
def test_plain_values_cross_exactly(value):
    back = wire.decode(wire.encode(value))
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.shape == value.shape
        assert back.tobytes() == value.tobytes()
    else:
        assert back == value and repr(back) == repr(value)


def test_nan_crosses_and_subclasses_and_other_objects_are_described():
    assert math.isnan(wire.decode(wire.encode(math.nan)))
    for value in (Yes(1), YesDict(a=1), np.ma.array([1]), object(), (x for x in [1])):
        back = wire.decode(wire.encode(value))
        assert type(back) is wire.Described and back != value and back != back.text
        assert wire.type_name(back) == type(value).__name__
    assert wire.is_iterator(wire.decode(wire.encode(iter([]))))
    assert wire.decode(wire.encode([Yes(1)]))[0].text == "1"
    nested = []
    nested.append(nested)
    assert type(wire.decode(wire.encode(nested))) is wire.Described


@pytest.mark.parametrize("data", [{"eval": "1"}, {"tuple": 3}, {"set": [[1]]}, {"bytes": "!"},
                                  {"ndarray": ["|O", [1], ""]}, {"a": 1, "b": 2}, {"other": [1]},
                                  {"defaultdict": ["os.system", []]}])
def test_anything_the_encoder_cannot_have_made_is_refused(data):
    with pytest.raises(ValueError):
        wire.decode(data)


def test_an_unreadable_answer_fails_the_case():
    exercise = exercises.REGISTRY["00.utf8_length"]
    cases = exercises.cases_in_order(exercise)
    results = [["value", {"eval": "0"}]] + [["value", 0]] * (len(cases) - 1)
    feedback = exercises.judge(exercise, cases, results, 1.0)
    assert feedback.verdict == "未通过" and "读不懂" in feedback.message
