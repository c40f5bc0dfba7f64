"""Classroom exercises: a notebook declares nothing but `check("key", my_function)`.

`check` runs the learner's function on every case of the exercise, each under a time limit, and
answers in Chinese with one verdict:

- 通过: every case is right;
- 未完成: the function is still the shipped stub (it raises NotImplementedError on every case);
- 未通过: a wrong answer or an exception; the message shows the failing case with the shortest
  input, the one a learner can most easily work through by hand;
- 超时: a case ran past the time limit (most often an endless loop); the message names that case.

Whatever the function returns or raises (a numpy array, a generator, an object whose == or repr
raises), `check` answers and lets no traceback escape, so a notebook with unsolved exercises still
runs clean. Hints come in two tiers: first the concept, then, after repeated failures of the same
exercise in this session, the recipe. The cases live in one module per chapter
(`course.Chapter.exercise_module`), mirroring `solutions/chNN.py` at the top of the repository,
which holds the reference solutions outside the student notebooks.
"""

from __future__ import annotations

import copy
import importlib
import math
import re
import reprlib
import signal
import threading
import traceback
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from numbers import Number
from typing import Any, Callable

from tutorial_lib import course
from tutorial_lib._checks import check_callable, check_choice, check_number

TIME_LIMIT = 3.0  # seconds per case: ample for any sensible solution, short enough to wait for
# from this many failures of one exercise on, the hint gives the recipe, not only the concept
RECIPE_AFTER = 3


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: fn(*args) should return `expected`."""

    args: tuple
    expected: Any


@dataclass(frozen=True)
class Exercise:
    key: str  # "00.utf8_length": chapter number, then the function the learner writes
    title: str
    concept: str  # first hint: the idea the exercise is about
    recipe: str  # later hint: the steps, for a learner the concept alone has not helped
    # a function, so random cases are built with a fixed seed on demand
    make_cases: Callable[[], list[Case]]

    @property
    def function_name(self) -> str:
        return self.key.split(".", 1)[1]


@dataclass(frozen=True)
class Feedback:
    """What `check` returns; its repr is the Chinese message the notebook shows."""

    verdict: str  # 通过, 未完成, 未通过 or 超时
    message: str

    @property
    def passed(self) -> bool:
        return self.verdict == "通过"

    def __repr__(self) -> str:
        return self.message


REGISTRY: dict[str, Exercise] = {}
FAILURES: Counter[str] = Counter()  # 未通过 and 超时 verdicts per exercise key in this session


def register(exercise: Exercise) -> Exercise:
    if exercise.key in REGISTRY:
        raise ValueError(f"exercise key {exercise.key!r} is registered twice")
    REGISTRY[exercise.key] = exercise
    return exercise


# --- comparing and showing values -----------------------------------------------------------------


def _right_type(got: Any, expected: Any) -> bool:
    """Any number but a bool for a number, a list or a tuple for either, else an instance of the
    expected type."""
    if isinstance(expected, Number) and not isinstance(expected, bool):
        return issubclass(type(got), Number) and type(got) is not bool
    if isinstance(expected, (list, tuple)):
        return issubclass(type(got), (list, tuple))
    return issubclass(type(got), type(expected))


def same_value(got: Any, expected: Any) -> bool:
    """Whether `got` is a right answer: the expected value, of an accepted type; floats up to
    rounding.

    The type check comes first so that `==` below is the built-in one: a numpy array compared with a
    list gives an array of booleans, not an answer, and a one-element array would pass for a number.
    """
    if not _right_type(got, expected):
        return False
    if isinstance(expected, float):
        return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(expected, (list, tuple)):
        return list(got) == list(expected)
    return bool(got == expected)


class _Repr(reprlib.Repr):
    """reprlib with room for an exercise's input, and no memory address or traceback from a
    learner's object."""

    def __init__(self) -> None:
        super().__init__()
        self.maxstring = self.maxother = 100
        self.maxlist = self.maxtuple = self.maxset = 12
        self.maxdict = 10

    def repr_dict(self, obj: dict, level: int) -> str:
        """A dict in its own order (reprlib sorts the keys): in a BPE corpus the word order decides
        ties."""
        if not obj:
            return "{}"
        if level <= 0:
            return "{...}"
        shown = list(obj.items())[: self.maxdict]
        items = [f"{self.repr1(k, level - 1)}: {self.repr1(v, level - 1)}" for k, v in shown]
        return "{" + ", ".join(items) + (", ..." if len(obj) > self.maxdict else "") + "}"

    def repr_instance(self, obj: Any, level: int) -> str:
        try:
            text = re.sub(r" at 0x[0-9A-Fa-f]+", "", repr(obj))
        except Exception:
            return f"<{type(obj).__name__} 对象，它的 repr 出错了>"
        return text if len(text) <= self.maxother else text[: self.maxother - 3] + "..."


_REPR = _Repr()


def show(value: Any) -> str:
    """A short, safe repr of a learner's value or of a case's input."""
    try:
        return _REPR.repr(value)
    except Exception:  # a container holding an object that breaks even reprlib
        return f"<{type(value).__name__} 对象>"


def input_size(args: tuple) -> int:
    """How long a case's input is to read; cases are tried shortest first, so the first failure is
    the shortest.

    Measured on the full repr (the cases' own values, all printable), not on the shortened one
    `show` gives.
    """
    return len(repr(args))


def _type_note(got: Any, expected: Any) -> str:
    """A line explaining a returned value of the wrong type, or "" if its type is acceptable."""
    if got is None:
        return "\n你的函数返回了 None：是不是忘了 return？"
    if _right_type(got, expected):
        return ""
    wanted = type(expected).__name__
    if issubclass(type(got), Iterator):
        return (f"\n你返回的是 {type(got).__name__}（一个还没取值的迭代器），不是 {wanted}："
                "用 list(...) 把元素取出来。")
    if type(got).__name__ == "ndarray":
        return f"\n你返回的是 numpy 数组，期望 {wanted}：用 .tolist() 或 .item() 转成 Python 的值。"
    return f"\n类型不对：期望 {wanted}，你返回了 {type(got).__name__}。"


def _error_text(err: BaseException, fn: Callable) -> str:
    """"ValueError: message (你的代码第 N 行)", the line taken from the learner's own code where
    possible."""
    try:
        detail = str(err)
    except Exception:
        detail = ""
    text = f"{type(err).__name__}: {detail}" if detail else type(err).__name__
    filename = getattr(getattr(fn, "__code__", None), "co_filename", None)
    lines = [
        frame.lineno
        for frame in traceback.extract_tb(err.__traceback__)
        if frame.filename == filename
    ]
    return text + (f"（你的代码第 {lines[-1]} 行）" if lines else "")


# --- running one case under a time limit ----------------------------------------------------------


class _TimedOut(BaseException):
    """Raised into a case that ran too long; a BaseException, so a learner's `except Exception` lets
    it by."""


def _call_with_limit(func: Callable[[], Any], seconds: float) -> Any:
    """func(), or _TimedOut after `seconds`.

    In the main thread on Unix (where Jupyter runs a cell) a SIGALRM interrupts the stuck code
    itself, and a timer set by someone else is put back afterwards. Elsewhere func runs in a daemon
    thread that we stop waiting for: Python cannot kill a thread, so a stuck one keeps running until
    the kernel restarts.
    """
    if (
        not hasattr(signal, "setitimer")
        or threading.current_thread() is not threading.main_thread()
    ):
        return _call_in_thread(func, seconds)

    def on_alarm(signum: int, frame: Any) -> None:
        raise _TimedOut

    previous_handler = signal.signal(signal.SIGALRM, on_alarm)
    previous_timer = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return func()
    finally:
        try:
            signal.setitimer(signal.ITIMER_REAL, 0)
        # even when the alarm comes just as func returns, the handler and the outer timer go back
        finally:
            signal.signal(
                signal.SIGALRM, signal.SIG_DFL if previous_handler is None else previous_handler
            )
            if previous_timer[0] > 0:
                signal.setitimer(signal.ITIMER_REAL, *previous_timer)


def _call_in_thread(func: Callable[[], Any], seconds: float) -> Any:
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = func()
        except BaseException as err:  # handed to the caller, which decides what the learner sees
            box["error"] = err

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise _TimedOut
    if "error" in box:
        raise box["error"]
    return box["value"]


def _agrees(got: Any, expected: Any) -> bool:
    try:
        return same_value(got, expected)
    except Exception:  # an object whose == raises is simply not the expected value
        return False


def _try_case(fn: Callable, case: Case, seconds: float) -> tuple[str, str]:
    """Run one case: (outcome, what the learner should see), outcome one of ok, stub, wrong,
    timeout."""
    try:
        got = _call_with_limit(lambda: fn(*copy.deepcopy(case.args)), seconds)
        right = _call_with_limit(lambda: _agrees(got, case.expected), seconds)
    except _TimedOut:
        return "timeout", ""
    except Exception as err:  # the learner's bug: explained, never raised
        return (
            "stub" if isinstance(err, NotImplementedError) else "wrong"
        ), f"运行出错：{_error_text(err, fn)}"
    if right:
        return "ok", ""
    note = _type_note(got, case.expected)
    return "wrong", f"期望：{show(case.expected)}\n得到：{show(got)}{note}"


# --- the verdict ----------------------------------------------------------------------------------


def _hint(exercise: Exercise) -> str:
    """The concept; from the RECIPE_AFTER-th failure of this exercise on, the recipe as well."""
    left = RECIPE_AFTER - FAILURES[exercise.key]
    if left > 0:
        return f"提示：{exercise.concept}\n（如果再错 {left} 次，提示会给出具体做法。）"
    return f"提示：{exercise.concept}\n做法：{exercise.recipe}"


def _call_text(exercise: Exercise, case: Case) -> str:
    return f"输入：{exercise.function_name}({', '.join(show(arg) for arg in case.args)})"


def _failed(exercise: Exercise, verdict: str, headline: str, case: Case, detail: str) -> Feedback:
    FAILURES[exercise.key] += 1
    lines = [
        f"{verdict}：{exercise.title} —— {headline}",
        _call_text(exercise, case),
        detail,
        _hint(exercise),
    ]
    return Feedback(verdict, "\n".join(line for line in lines if line))


def check(key: str, fn: Callable, *, time_limit: float = TIME_LIMIT) -> Feedback:
    """Run `fn` on every case of exercise `key`, shortest input first, and explain the verdict in
    Chinese.

    Every case runs, so the message can say how many fail and show the shortest failing one; a case
    that runs past `time_limit` seconds ends the check at once with 超时, since the later, longer
    ones would hang too.
    """
    exercise = REGISTRY[check_choice(key, "key", sorted(REGISTRY))]
    check_callable(fn, "fn", "the function you wrote")
    seconds = check_number(time_limit, "time_limit", low=0, low_open=True)
    cases = sorted(exercise.make_cases(), key=lambda case: input_size(case.args))
    failures: list[tuple[Case, str]] = []
    stubs = 0
    for number, case in enumerate(cases, start=1):
        outcome, detail = _try_case(fn, case, seconds)
        if outcome == "timeout":
            return _failed(exercise, "超时",
                           f"第 {number}/{len(cases)} 个用例运行了 {seconds:g} 秒还没结束，"
                           "可能是死循环（比如循环里的下标或条件一直没变）。", case, "")
        stubs += outcome == "stub"
        if outcome != "ok":
            failures.append((case, detail))
    if stubs == len(cases):
        return Feedback("未完成", f"未完成：{exercise.title} —— "
                                  "把函数体里的 raise NotImplementedError 换成你的实现。")
    if not failures:
        return Feedback("通过", f"通过 ✓ {exercise.title}（{len(cases)} 个用例全部正确）")
    case, detail = failures[0]
    return _failed(exercise, "未通过",
                   f"{len(failures)}/{len(cases)} 个用例不对，这是输入最短的一个：", case, detail)


# Each chapter's cases register themselves when its module is imported; the course map says which
# exist.
for _chapter in course.CHAPTERS:
    importlib.import_module(_chapter.exercise_module)
