"""`Feedback.key`, `Feedback.case` and the JSON a grader stores: what the class report reads."""

import json

import pytest

from tutorial_course import exercises
from tutorial_course.exercises import Feedback, check


def stub(text):
    raise NotImplementedError


def chars_not_bytes(text):
    return len(text)


def forever(text):
    while True:
        pass


def test_each_verdict_names_its_exercise_and_only_a_failure_names_a_case():
    passed = check("00.utf8_length", lambda text: len(text.encode("utf-8")))
    unfinished = check("00.utf8_length", stub)
    failed = check("00.utf8_length", chars_not_bytes)
    timed_out = check("00.utf8_length", forever, time_limit=0.5)
    assert [f.verdict for f in (passed, unfinished, failed, timed_out)] == [
        "通过", "未完成", "未通过", "超时"]
    assert {f.key for f in (passed, unfinished, failed, timed_out)} == {"00.utf8_length"}
    assert passed.case is None and unfinished.case is None
    # the shortest failing input (2 characters, 8 bytes), as show() writes the args
    assert failed.case == exercises.show(("🙂👍",)) == "('🙂👍',)"
    assert "输入：utf8_length('🙂👍')" in failed.message
    assert timed_out.case == exercises.show(("",)), "the first case, the shortest, hangs"


def test_a_hidden_failure_names_a_hidden_case():
    feedback = check("02.train", lambda corpus, n: [], seed=5)
    shortest = min(exercises.REGISTRY["02.train"].cases(5),
                   key=lambda case: exercises.input_size(case.args) if case.expected else 1e9)
    assert feedback.case == exercises.show(shortest.args)


def test_json_round_trip():
    for feedback in (check("00.utf8_length", chars_not_bytes), check("00.utf8_length", stub)):
        data = feedback.to_json()
        assert data == {"verdict": feedback.verdict, "message": feedback.message,
                        "key": "00.utf8_length", "case": feedback.case}
        again = Feedback.from_json(json.loads(json.dumps(data, ensure_ascii=False)))
        assert again == feedback
        assert repr(again) == repr(feedback) and again._repr_html_() == feedback._repr_html_()


def test_what_the_learner_sees_is_unchanged_by_the_new_fields():
    feedback = check("00.utf8_length", chars_not_bytes)
    assert repr(feedback) == f"✘ {feedback.message}"
    assert "00.utf8_length" not in feedback.message and "00.utf8_length" not in repr(feedback)


@pytest.mark.parametrize("bad, error", [
    ([], TypeError),
    ({"verdict": "passed", "message": "m", "key": "k", "case": None}, ValueError),
    ({"verdict": "通过", "message": 1, "key": "k", "case": None}, TypeError),
    ({"verdict": "通过", "message": "m", "case": None}, TypeError),
    ({"verdict": "未通过", "message": "m", "key": "k", "case": 3}, TypeError),
])
def test_from_json_refuses_what_to_json_never_writes(bad, error):
    with pytest.raises(error, match="d"):
        Feedback.from_json(bad)
