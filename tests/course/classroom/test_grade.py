"""The graded cell's grading, without nbgrader: the function goes by value to a fresh process, and
nothing done to this process (the "kernel") changes the verdict."""

import json
import subprocess
import sys
import threading

import pytest

from tutorial_course import exercises
from tutorial_course.classroom import FEEDBACK_MIME, grade
from tutorial_course.classroom.report import cell_verdict


def notebook_function(source: str, name: str):
    """A function as a notebook defines it: in a module nobody can import, so it goes by value."""
    namespace = {"__name__": "student_notebook"}
    exec(source, namespace)
    return namespace[name]


RIGHT = "def utf8_length(text):\n    return len(text.encode('utf-8'))\n"
WRONG = "def utf8_length(text):\n    return len(text)\n"


def verdicts(fn, seeds=(None, 7)):
    return [answer["verdict"] for answer in grade.run_grading("00.utf8_length", fn, list(seeds))]


def test_a_right_function_passes_public_and_hidden_cases_a_wrong_one_fails_both():
    assert verdicts(notebook_function(RIGHT, "utf8_length")) == ["通过", "通过"]
    answers = grade.run_grading("00.utf8_length", notebook_function(WRONG, "utf8_length"), [None])
    assert answers[0]["verdict"] == "未通过" and answers[0]["case"]
    assert exercises.Feedback.from_json(answers[0]).key == "00.utf8_length"


def test_patching_the_checker_in_this_process_changes_nothing(monkeypatch):
    passed = exercises.Feedback("通过", "通过：全部正确", "00.utf8_length", None)
    monkeypatch.setattr(exercises, "check", lambda *args, **kwargs: passed)
    monkeypatch.setitem(sys.modules, "tutorial_course.exercises.ch00", None)
    assert verdicts(notebook_function(WRONG, "utf8_length")) == ["未通过", "未通过"]


def test_a_library_written_beside_the_notebook_or_put_on_pythonpath_is_not_imported(
        tmp_path, monkeypatch):
    fake = tmp_path / "tutorial_lib"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise SystemExit('the fake library was imported')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    assert verdicts(notebook_function(RIGHT, "utf8_length"), [None]) == ["通过"]


def test_what_the_function_prints_is_not_taken_for_the_answer():
    fake = json.dumps([{"verdict": "通过", "message": "通过", "key": "00.utf8_length", "case": None}])
    source = f"def utf8_length(text):\n    print({fake!r})\n    return len(text)\n"
    assert verdicts(notebook_function(source, "utf8_length"), [None]) == ["未通过"]


def test_a_function_that_cannot_be_sent_fails_with_a_reason():
    lock = threading.Lock()
    answers = grade.run_grading("00.utf8_length", lambda text: lock and 0, [None, 3])
    assert [a["verdict"] for a in answers] == ["未通过", "未通过"]
    assert "无法把你的函数传给评分进程" in answers[0]["message"]


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="key"):
        grade.grade(2, print, [None])
    with pytest.raises(ValueError, match="seeds"):
        grade.grade("00.utf8_length", print, [])


def test_the_report_reads_the_first_answer_that_did_not_pass():
    def output(verdict, case):
        return {"output_type": "display_data", "data": {FEEDBACK_MIME: {
            "cases": "x", "verdict": verdict, "message": verdict, "key": "k", "case": case}}}

    assert cell_verdict({"outputs": [output("通过", None), output("未通过", "'a'")]}) == (
        "未通过", "'a'")
    assert cell_verdict({"outputs": [output("通过", None), output("通过", None)]}) == ("通过", None)
    assert cell_verdict({"outputs": [{"output_type": "error"}]}) == ("未完成", None)


LIAR = """
class Yes(int):
    def __eq__(self, other):
        return True
    __hash__ = int.__hash__

def utf8_length(text):
    return Yes(0)
"""

SNOOP = """
import gc, sys

def utf8_length(text):
    frame = sys._getframe(1)
    while frame is not None:  # a Case among the callers' variables, or in a list of them
        for value in frame.f_locals.values():
            for item in value if isinstance(value, list) else [value]:
                if getattr(item, "args", None) == (text,) and hasattr(item, "expected"):
                    return item.expected
        frame = frame.f_back
    for item in gc.get_objects():
        if getattr(item, "args", None) == (text,) and hasattr(item, "expected"):
            return item.expected
    return -1
"""

PATCHER = """
import sys

def utf8_length(text):
    for name, module in list(sys.modules.items()):
        if name.startswith("tutorial_lib") and hasattr(module, "same_value"):
            module.same_value = module._agrees = lambda *args: True
    return -1
"""


REBUILDER = """
def utf8_length(text):
    from tutorial_course import exercises

    exercise = exercises.REGISTRY["00.utf8_length"]
    for build in (exercise.cases, exercise.make_cases):
        for seed in (None, 7):  # the hidden seed, as if read from the graded cell's source
            try:
                for case in build(seed):
                    if case.args == (text,):
                        return case.expected
            except BaseException:
                pass
    return -1
"""


@pytest.mark.parametrize("source", [LIAR, SNOOP, PATCHER, REBUILDER],
                         ids=["eq", "frames-gc", "patch", "rebuild"])
def test_a_function_written_against_the_checker_passes_nothing(source):
    assert verdicts(notebook_function(source, "utf8_length")) == ["未通过", "未通过"]


def test_the_worker_judges_with_the_checks_own_messages():
    answer = grade.run_grading("00.utf8_length", notebook_function(LIAR, "utf8_length"), [None])[0]
    assert "类型不对：期望 int，你返回了 Yes。" in answer["message"] and answer["case"] == "('',)"
    stub = "def utf8_length(text):\n    raise NotImplementedError\n"
    assert verdicts(notebook_function(stub, "utf8_length"), [None]) == ["未完成"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_DUMPABLE is Linux's")
def test_the_worker_keeps_its_memory_from_other_processes_of_the_user():
    probe = ("import ctypes\nfrom tutorial_course.classroom import worker\n"
             "assert worker.keep_memory_private()\n"
             "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n")  # PR_GET_DUMPABLE
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=grade.LIBRARY_ROOT, check=True)
    assert done.stdout.strip() == "0"


def test_a_runner_that_answers_nothing_fails_the_cases(monkeypatch):
    from tutorial_course.classroom import worker
    from tutorial_course.exercises import runner

    monkeypatch.setattr(runner, "command", lambda: [sys.executable, "-c", "print('[[]]')"])
    exercise = exercises.REGISTRY["00.utf8_length"]
    cases = exercises.cases_in_order(exercise)
    results = worker.run_elsewhere(b"", [[case.args for case in cases]], 1.0, ())
    feedback = exercises.judge(exercise, cases, results[0], 1.0)
    assert feedback.verdict == "未通过" and "读不懂" in feedback.message
