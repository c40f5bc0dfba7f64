"""Grading from the answer cells' text, in the sandbox, without nbgrader: what the student's code
does to its own process (or to the library) changes no verdict, and what it may not read or write
it cannot."""

import json
import marshal
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import nbformat
import pytest

from tutorial_course import chapters, exercises
from tutorial_course.classroom import FEEDBACK_MIME, grade, isolation, worker
from tutorial_course.classroom.report import cell_verdict
from tutorial_course.classroom.source import source_notebook

import fake_class  # tests/course/classroom/conftest.py puts it on sys.path

RIGHT = "def utf8_length(text):\n    return len(text.encode('utf-8'))\n"
WRONG = "def utf8_length(text):\n    return len(text)\n"
graded = fake_class.graded


def verdicts(source, key="00.utf8_length", seeds=(None, 7), prelude=""):
    return [answer["verdict"] for answer in graded({key: source}, prelude, seeds)[key]]


def test_a_right_function_passes_public_and_hidden_cases_a_wrong_one_fails_both():
    assert verdicts(RIGHT) == ["通过", "通过"]
    answer, = graded({"00.utf8_length": WRONG}, seeds=[None])["00.utf8_length"]
    assert answer["verdict"] == "未通过" and answer["case"]
    assert exercises.Feedback.from_json(answer).key == "00.utf8_length"


def test_what_the_function_prints_is_not_taken_for_the_answer():
    fake = json.dumps({"00.utf8_length": [{"verdict": "通过", "message": "通过",
                                           "key": "00.utf8_length", "case": None}]})
    source = f"print({fake!r})\n\ndef utf8_length(text):\n    print({fake!r})\n    return 0\n"
    assert verdicts(source, seeds=[None]) == ["未通过"]


def test_an_error_names_the_answer_cell_and_line_and_a_broken_line_hides_no_def():
    source = "x = 1 / 0\n\n\ndef utf8_length(text):\n    return len(TABLE[text])\n"
    answer, = graded({"00.utf8_length": source}, seeds=[None])["00.utf8_length"]
    assert "NameError" in answer["message"] and "答案单元格（00.utf8_length） 第 5 行" in answer[
        "message"]
    assert "只运行各答案单元格" in answer["message"]
    broken, = graded({"00.utf8_length": "def utf8_length(text)\n    return 0\n"},
                     seeds=[None])["00.utf8_length"]
    assert "没有定义函数 utf8_length" in broken["message"] and "第 1 行语法错误" in broken["message"]


def test_a_later_cell_that_ends_the_process_takes_no_earlier_points():
    crash = "import os\nos._exit(3)\n\ndef merge_pair(word, pair):\n    return word\n"
    got = graded({"02.count_pairs": fake_class.reference_cell("02.count_pairs"),
                  "02.merge_pair": crash}, seeds=[None])
    assert got["02.count_pairs"][0]["verdict"] == "通过"
    assert got["02.merge_pair"][0]["verdict"] == "未通过"


def test_the_notebooks_import_lines_come_from_the_instructors_copy():
    uses_import = "def utf8_length(text):\n    return len(codecs.encode(text, 'utf-8'))\n"
    assert verdicts(uses_import, seeds=[None], prelude="import codecs") == ["通过"]
    assert verdicts(uses_import, seeds=[None]) == ["未通过"]


TWIN_COPIES = {
    "module run again": """
import importlib.util
from tutorial_lib.bpe import bpe_toy as _toy
_spec = importlib.util.spec_from_file_location("my_toy", _toy.__file__)
_mine = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mine)

def train(word_freqs, num_merges):
    return _mine.train(word_freqs, num_merges).merges
""",
    "source compiled": """
import inspect
from tutorial_lib.bpe import bpe_toy as _toy
_ns = dict(vars(_toy))
exec(compile(inspect.getsource(_toy), "mine", "exec"), _ns)

def train(word_freqs, num_merges):
    return _ns["train"](word_freqs, num_merges).merges
""",
    "bytecode loaded": """
import marshal
from tutorial_lib.bpe import bpe_toy as _toy
_code = marshal.loads(BYTECODE)

def train(word_freqs, num_merges):
    ns = dict(vars(_toy))
    exec(_code, ns)
    return ns["train"](word_freqs, num_merges).merges
""",
}


@pytest.mark.parametrize("name", list(TWIN_COPIES))
def test_a_fresh_copy_of_the_library_twin_is_refused(name):
    from tutorial_lib.bpe import bpe_toy

    source = Path(bpe_toy.__file__).read_text("utf-8")  # compiled here, brought in as bytes
    bytecode = marshal.dumps(compile(source, bpe_toy.__file__, "exec"))
    cell = TWIN_COPIES[name].replace("BYTECODE", repr(bytecode))
    answer, = graded({"02.train": cell}, seeds=[None])["02.train"]
    assert answer["verdict"] == "未通过"
    assert "不能调用 tutorial_lib.bpe.bpe_toy.train" in answer["message"]


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
        if name.startswith("tutorial_") and hasattr(module, "same_value"):
            module.same_value = module._agrees = lambda *args: True
    return -1
"""

REBUILDER = """
def utf8_length(text):
    from tutorial_course import exercises

    exercise = exercises.REGISTRY["00.utf8_length"]
    for build in (exercise.cases, exercise.make_cases):
        for seed in (None, 7):  # the hidden seed, as if it had been learnt
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
    assert verdicts(source) == ["未通过", "未通过"]


def test_the_worker_judges_with_the_checks_own_messages():
    answer, = graded({"00.utf8_length": LIAR}, seeds=[None])["00.utf8_length"]
    assert "类型不对：期望 int，你返回了 Yes。" in answer["message"] and answer["case"] == "('',)"
    stub = "def utf8_length(text):\n    raise NotImplementedError\n"
    assert verdicts(stub, seeds=[None]) == ["未完成"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_DUMPABLE is Linux's")
def test_the_worker_keeps_its_memory_from_other_processes_of_the_user():
    probe = ("import ctypes\nfrom tutorial_course.classroom import worker\n"
             "assert worker.keep_memory_private()\n"
             "print(ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n")  # PR_GET_DUMPABLE
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "0"


def test_a_runner_that_answers_nothing_fails_the_cases(monkeypatch):
    from tutorial_course.exercises import runner

    monkeypatch.setattr(runner, "command", lambda: [sys.executable, "-c", "print('[[]]')"])
    exercise = exercises.REGISTRY["00.utf8_length"]
    cases = exercises.cases_in_order(exercise)
    feedback = exercises.judge(exercise, cases, worker.run_elsewhere(b"", 1)[0], 1.0)
    assert feedback.verdict == "未通过" and "读不懂" in feedback.message


def test_a_malformed_job_is_refused_and_a_worker_that_fails_is_评分出错():
    with pytest.raises(ValueError, match="seeds"):
        worker.read_job(json.dumps({"seeds": ["7"], "cells": [], "exercises": []}))
    with pytest.raises(ValueError, match="exercises"):
        worker.read_job(json.dumps({"seeds": [None], "cells": [], "exercises": [["no.such", 0]]}))
    work = json.dumps({"prelude": "", "cells": [], "exercises": [["00.utf8_length", 0]],
                       "seeds": ["x"]}).encode()
    answer, = grade.run_job(work)["00.utf8_length"][:1]
    assert answer["verdict"] == grade.BROKEN and "退出码" in answer["message"]


PROBE = """
import json, os, socket, sys
tried = {}
for name, path in [("read", sys.argv[1]), ("list", sys.argv[2])]:
    try:
        open(path).read() if name == "read" else os.listdir(path)
        tried[name] = "allowed"
    except OSError as err:
        tried[name] = type(err).__name__
try:
    open(sys.argv[3], "w").write("x")
    tried["write"] = "allowed"
except OSError as err:
    tried["write"] = type(err).__name__
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    tried["network"] = "allowed"
except OSError as err:
    tried["network"] = type(err).__name__
print(json.dumps(tried))
"""


@pytest.mark.skipif(not isolation.isolated(), reason="no bubblewrap here: grading is not isolated")
def test_the_sandbox_sees_no_solutions_no_course_and_no_network(tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    (course / "gradebook.db").write_text("grades")
    solutions = Path(exercises.__file__).resolve().parents[2] / "solutions" / "ch00.py"
    assert solutions.is_file()
    done = isolation.run([sys.executable, "-c", PROBE, str(solutions), str(course),
                          str(course / "planted.txt")], b"", 60)
    tried = json.loads(done.stdout)
    assert tried["read"] != "allowed" and tried["list"] != "allowed"
    assert tried["write"] != "allowed" and tried["network"] != "allowed"
    assert sorted(p.name for p in course.iterdir()) == ["gradebook.db"]


def test_the_report_reads_the_first_answer_that_did_not_pass():
    def output(verdict, case):
        return {"output_type": "display_data", "data": {FEEDBACK_MIME: {
            "cases": "x", "verdict": verdict, "message": verdict, "key": "k", "case": case}}}

    assert cell_verdict({"outputs": [output("通过", None), output("未通过", "'a'")]}) == (
        "未通过", "'a'")
    assert cell_verdict({"outputs": [output("通过", None), output("通过", None)]}) == ("通过", None)
    assert cell_verdict({"outputs": [{"output_type": "error"}]}) == ("未完成", None)


@pytest.mark.parametrize("chapter", [c.stem for c in chapters.CHAPTERS if c.available])
def test_every_reference_answer_cell_passes_when_graded_as_a_class_is(chapter):
    """The instructor's notebook graded as a submission: arguments, answers and the cells' own
    imports all cross the processes (and the sandbox) intact."""
    nb = nbformat.reads((chapters.NOTEBOOK_DIR / f"{chapter}.ipynb").read_text("utf-8"), 4)
    source = source_notebook(nb, chapter[:2])
    got = grade.run_job(grade.job(source, source, 7))
    assert got and {key: [a["verdict"] for a in answers] for key, answers in got.items()} == {
        key: ["通过", "通过"] for key in got}


def test_the_display_modules_stay_out_of_the_prelude():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(textwrap.dedent("""\
        import math
        from tutorial_lib.show import display
        from tutorial_lib.show.plotting import line_chart
        import matplotlib.pyplot as plt
        from tutorial_lib.bpe import bpe_toy
        x = 1
        """))])
    assert grade.prelude(nb) == "import math\nfrom tutorial_lib.bpe import bpe_toy"


def test_ctrl_c_while_a_sandbox_runs_leaves_no_process_behind(tmp_path):
    # in the sleeper's command line only, not its parent's; unique, so that a test run beside
    # this one (its tmp_path has the same name) is never taken for it
    marker = f"sleeping-{os.getpid()}-{time.time_ns()}"
    half = len(marker) // 2
    script = ("import sys\nfrom tutorial_course.classroom import isolation\n"
              f"mark = {marker[:half]!r} + {marker[half:]!r}\n"
              "print('started', flush=True)\n"
              "isolation.run([sys.executable, '-c', 'import time  # ' + mark + '\\n"
              "time.sleep(600)'], b'', 900)\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "started"
    deadline = 60
    while subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode:
        time.sleep(0.5)  # until the sandboxed sleeper exists
        deadline -= 1
        assert deadline, "the sleeper never started"
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert "KeyboardInterrupt" in err
    assert subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 1


def test_grade_all_makes_every_job_on_its_own_thread_and_only_grades_in_threads(tmp_path,
                                                                                monkeypatch):
    """Making a job parses Python, which CPython 3.11 cannot do in two threads at once
    (python/cpython#106905: a spurious SystemError failed a class's grading); the threads only
    wait for sandboxes."""
    import threading

    from tutorial_course.classroom import autograde

    made_on, graded_on = [], []
    for student in ("a", "b", "c", "d"):
        folder = tmp_path / "submitted" / student / "00_intro"
        folder.mkdir(parents=True)
        nbformat.write(nbformat.v4.new_notebook(), folder / "00_intro.ipynb")
    (tmp_path / "submitted" / "e" / "00_intro").mkdir(parents=True)
    (tmp_path / "submitted" / "e" / "00_intro" / "00_intro.ipynb").write_text("not json")

    def prepared(root, assignment, student, notebook, nb):
        made_on.append(threading.current_thread())
        return b"{}", student, None

    def graded_now(root, assignment, student, notebook, work, digest):
        graded_on.append(threading.current_thread())
        return {"00.utf8_length": [{"verdict": grade.BROKEN if student == "d" else "通过"}]}

    monkeypatch.setattr(autograde, "prepared", prepared)
    monkeypatch.setattr(autograde, "graded", graded_now)
    counts = autograde.grade_all(tmp_path, "00_intro", jobs=2)
    assert counts == {"graded": 3, "broken": 2}  # d's worker failed, e is not a notebook
    assert made_on == [threading.current_thread()] * 4
    assert len(graded_on) == 4 and threading.current_thread() not in graded_on
