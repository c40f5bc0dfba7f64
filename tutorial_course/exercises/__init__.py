"""Classroom exercises: a notebook declares nothing but `check("key", my_function)`.

`check` runs the learner's function on every case of the exercise, each under a time limit, and
answers in Chinese with one verdict:

- 通过: every case is right;
- 未完成: the function is still the shipped stub (it raises NotImplementedError on every case);
- 未通过: a wrong answer or an exception; the message shows the failing case with the shortest
  input, the one a learner can most easily work through by hand;
- 超时: a case ran past the time limit (most often an endless loop); the message names that case.

Whatever the function returns or raises (a numpy array, a generator, an object whose == or repr
raises) and whatever it does (sys.exit, os._exit, fork, loop in C, reset the timers, allocate 20
GB), `check` answers within the time limit of the case, lets no traceback escape and the kernel
survives: each check runs the function in a forked copy of the kernel (`exercises.sandbox`, which
says how, and what happens on Windows), so a notebook with unsolved exercises still runs clean.

The answer is judged in the kernel, never where the function ran: the child only calls it
(`call_case`) and sends back what it returned as a literal of exact builtin and numpy types
(`exercises.wire`); the kernel decodes that into fresh values and compares them (`judge`). So an
object whose `==` always says True is only described ("类型不对：期望 int，你返回了 Yes"), and a
function that patches `same_value` patches it in the child, where nothing is compared. The child
is still a copy of the kernel, cases and all: in self-study a function can find `case.expected`
(in a caller's frame, through `gc`). Grading closes that: the classroom's worker builds the cases
and runs the answer cells in another interpreter that never holds them (`exercises.runner`).
Hints come in two tiers: the concept, then, after repeated failures, the recipe. The cases live in
one module per chapter (`Chapter.exercise_module`), as `solutions/chNN.py` hold the reference
solutions. For grading, `check(..., seed=N)` runs hidden cases (`Exercise.cases`), `block_library`
refuses the library's own answers (`exercises.blocking`); a grader keeps `Feedback.to_json`.
"""

from __future__ import annotations

import copy
import importlib
import json
import math
import random
import traceback
from collections import Counter
from dataclasses import dataclass
from numbers import Number
from typing import Any, Callable

from tutorial_course import chapters, progress
from tutorial_course.exercises import blocking, sandbox, spelling, wire
from tutorial_course.exercises.feedback import ICONS, VERDICT_LOOK, Feedback  # noqa: F401 - re-exported
from tutorial_course.exercises.wire import show  # noqa: F401 - re-exported
from tutorial_lib._check_data import check_callable, check_number
from tutorial_lib._checks import check_choice

TIME_LIMIT = 3.0  # seconds per case: ample for any sensible solution, short enough to wait for
ERROR_CHARS = 300  # of an exception's message shown to the learner
RECIPE_AFTER = 5  # from this many failures of one exercise on, the hint gives the recipe too
ANSWER_CELL = "答案单元格"  # how grading names the cells it compiles: "答案单元格（02.train）"
# characters of the encoded answer of one case (`wire`): what fits in one line of the sandbox's pipe
VALUE_LIMIT = sandbox.LINE_LIMIT - 1024


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: fn(*args) should return `expected`."""

    args: tuple
    expected: Any


def draw(seed: int | None, public: int) -> random.Random:
    """The random numbers a case builder draws its cases with: `random.Random(public)` for the
    public cases (seed None, the ones the notebook shows), else one derived from `seed` for that
    seed's hidden cases. A string seed is hashed with SHA-512, the same on every machine."""
    return random.Random(public if seed is None else f"hidden cases {public} {seed}")


@dataclass(frozen=True)
class Exercise:
    key: str  # "00.utf8_length": chapter number, then the function the learner writes
    points: int  # in a class: 3 the chapter's central algorithm, 2 a step with edge cases, 1 a line
    title: str
    concept: str  # first hint: the idea the exercise is about
    recipe: str  # later hint: the steps, for a learner the concept alone has not helped
    # a function of the seed (None: the public cases; an int: hidden ones), so that random cases
    # are built on demand, the same for the same seed
    make_cases: Callable[[int | None], list[Case]]
    # dotted names of the tutorial_lib functions that compute the answer: refused with
    # check(..., block_library=True), so a learner cannot pass by calling them
    library_twins: tuple[str, ...] = ()
    # explain(got, expected): what the learner reads for a wrong answer instead of 期望/得到, or ""
    explain: Callable[[Any, Any], str] | None = None

    @property
    def function_name(self) -> str:
        return self.key.split(".", 1)[1]

    def cases(self, seed: int | None = None) -> list[Case]:
        """The public cases (seed None), or the hidden cases of an int seed: the hand-written edge
        cases again, and a new draw of the random ones and of the slices of real text."""
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise TypeError(f"seed must be None or an int, not {type(seed).__name__}")
        return self.make_cases(seed)


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
    rounding, at the top and inside lists, tuples and dict values (`_same_inside`).

    The type check comes first so that `==` below is the built-in one: a numpy array compared with a
    list gives an array of booleans, not an answer, and a one-element array would pass for a number.
    """
    if not _right_type(got, expected):
        return False
    if isinstance(expected, (list, tuple)):
        return len(got) == len(expected) and all(map(_same_inside, got, expected))
    return _same_inside(got, expected)


def _same_inside(got: Any, expected: Any) -> bool:
    """A value inside a list, tuple or dict: what `==` between the containers says (a tuple is not
    a list here; a subclass such as ch09's _Bools keeps its own `==`), but a float is compared up
    to rounding, and only a number (not a bool, not an array) is a number.

    Rounding is rel 1e-9: far above the error of float arithmetic, even in sums over hundreds of
    terms (tests/course/exercises/test_ch11.py passes an E-step that adds in another order), and far
    below a real mistake."""
    if isinstance(expected, Number) and not isinstance(expected, bool):
        if not _right_type(got, expected):
            return False
        if isinstance(expected, float):
            return math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-12)
        return bool(got == expected)
    if type(expected) in (list, tuple):
        return (isinstance(got, type(expected)) and len(got) == len(expected)
                and all(map(_same_inside, got, expected)))
    if type(expected) is dict:  # the same keys exactly, in any order; each value as here
        return (isinstance(got, dict) and got.keys() == expected.keys()
                and all(_same_inside(got[k], v) for k, v in expected.items()))
    return bool(got == expected)


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
    wanted, name = type(expected).__name__, wire.type_name(got)
    if wire.is_iterator(got):
        return (f"\n你返回的是 {name}（一个还没取值的迭代器），不是 {wanted}："
                "用 list(...) 把元素取出来。")
    if name == "ndarray":
        return f"\n你返回的是 numpy 数组，期望 {wanted}：用 .tolist() 或 .item() 转成 Python 的值。"
    return f"\n类型不对：期望 {wanted}，你返回了 {name}。"


def _error_text(err: BaseException, fn: Callable) -> str:
    """"ValueError: message (你的代码第 N 行)", the line taken from the learner's own code where
    possible.

    The traceback is walked, never formatted: formatting reads a source line per frame, which for
    a recursion a million frames deep takes longer than the time limit.
    """
    try:
        detail = str(err)
    except BaseException:
        detail = ""
    if len(detail) > ERROR_CHARS:
        detail = detail[: ERROR_CHARS - 3] + "..."
    text = f"{type(err).__name__}: {detail}" if detail else type(err).__name__
    filename = getattr(getattr(fn, "__code__", None), "co_filename", None)
    where = ""
    for frame, lineno in traceback.walk_tb(err.__traceback__):
        if frame.f_code.co_filename == filename:
            where = f"（你的代码第 {lineno} 行）"
        elif frame.f_code.co_filename.startswith(ANSWER_CELL):  # graded from the cells' text
            where = f"（{frame.f_code.co_filename} 第 {lineno} 行）"
    return text + where


# --- running one case ----------------------------------------------------------------------------


def _agrees(got: Any, expected: Any, same: Callable[[Any, Any], bool] = same_value) -> bool:
    try:
        return same(got, expected)
    except BaseException:  # an object whose == raises (or exits) is simply not the expected value
        return False


def _blocked_text() -> str:
    return f"这个练习要你自己实现，不能调用 {blocking.HITS[0]}。"


def call_case(fn: Callable, args: tuple) -> list:
    """Run one case where the learner's function runs (the sandbox's child, or the grading runner)
    and say what happened, as JSON-able data for `judge`, which alone knows the expected value:
    ["value", `wire.encode(got)`], ["raised", whether it was NotImplementedError, the error's
    text], ["blocked", text] or ["big", characters]. A call of a blocked library twin fails the
    case, even one the learner caught."""
    blocking.clear()
    try:
        got = fn(*copy.deepcopy(args))
    except BaseException as err:  # the learner's bug, even sys.exit(): explained, never raised
        if blocking.HITS:
            return ["blocked", _blocked_text()]
        return ["raised", isinstance(err, NotImplementedError), f"运行出错：{_error_text(err, fn)}"]
    if blocking.HITS:
        return ["blocked", _blocked_text()]
    encoded = wire.encode(got)
    try:
        size = len(json.dumps(encoded))
    except (ValueError, RecursionError):  # nested too deep for json, say
        encoded = wire.describe(got)
        size = len(json.dumps(encoded))
    return ["big", size] if size > VALUE_LIMIT else ["value", encoded]


_UNREADABLE = "运行出错：检查程序读不懂运行你的函数的进程交回的结果。"


def _judged(result: Any, case: Case, explain: Callable | None = None) -> tuple[str, str]:
    """(outcome, what the learner should see) of one case from what `call_case` answered, outcome
    one of ok, stub, wrong; the answer is decoded and compared here, on plain values, and a wrong
    one explained by the exercise's `explain` where it has something to say."""
    if isinstance(result, sandbox.Ended):
        return "wrong", result.explained()
    try:
        tag, *rest = result
        if tag == "value":
            got = wire.decode(rest[0])
        elif tag == "raised" and type(rest[1]) is str:
            return ("stub" if rest[0] is True else "wrong"), rest[1]
        elif tag == "blocked" and type(rest[0]) is str:
            return "wrong", rest[0]
        elif tag == "big" and type(rest[0]) is int:
            return "wrong", (f"运行出错：你的函数返回的值太大了（编码后有 {rest[0]} 个字符，"
                             f"检查程序最多接收 {VALUE_LIMIT} 个）：看看返回的是不是想要的结果。")
        else:
            return "wrong", _UNREADABLE
    except (ValueError, TypeError, IndexError, RecursionError):
        return "wrong", _UNREADABLE
    if _agrees(got, case.expected):
        return "ok", ""
    if explain and (text := explain(got, case.expected)):
        return "wrong", text
    note = (_type_note(got, case.expected) or _dict_note(got, case.expected)
            or spelling.difference_note(got, case.expected))
    return "wrong", f"期望：{show(case.expected)}\n得到：{show(got)}{note}"


def _dict_note(got: Any, expected: Any) -> str:
    """Where a dict answer differs: `show` cuts a dict after a few items, past which the wrong key
    may be."""
    if type(expected) is not dict or not isinstance(got, dict):
        return ""
    missing, extra = [k for k in expected if k not in got], [k for k in got if k not in expected]
    wrong = [k for k in expected if k in got and not _agrees(got[k], expected[k], _same_inside)]
    notes = [f"少了 {len(missing)} 个键，比如 {show(missing[0])}" if missing else "",
             f"多了 {len(extra)} 个键，比如 {show(extra[0])}" if extra else "",
             f"{len(wrong)} 个键的值不对，比如 [{show(wrong[0])}]：期望 "
             f"{show(expected[wrong[0]])}，得到 {show(got[wrong[0]])}"
             f"{spelling.difference_note(got[wrong[0]], expected[wrong[0]])}" if wrong else ""]
    return "".join(f"\n{note}" for note in notes if note)


# --- the verdict ----------------------------------------------------------------------------------


def _hint(exercise: Exercise) -> str:
    """The concept; from the RECIPE_AFTER-th failure of this exercise on, the recipe as well."""
    left = RECIPE_AFTER - FAILURES[exercise.key]
    if left > 0:
        return f"提示：{exercise.concept}\n（如果再错 {left} 次，提示会给出具体做法。）"
    return f"提示：{exercise.concept}\n做法：{exercise.recipe}"


def _call_text(exercise: Exercise, case: Case) -> str:
    """The call that failed; arguments whose repr misleads are spelled out below it."""
    return (f"输入：{exercise.function_name}({', '.join(show(arg) for arg in case.args)})"
            f"{spelling.misleading_notes(case.args)}")


def _failed(exercise: Exercise, verdict: str, headline: str, case: Case, detail: str) -> Feedback:
    FAILURES[exercise.key] += 1
    lines = [
        f"{verdict}：{exercise.title} —— {headline}",
        _call_text(exercise, case),
        detail,
        _hint(exercise),
    ]
    return Feedback(verdict, "\n".join(line for line in lines if line), exercise.key,
                    show(case.args))


def exercise_of(key: str) -> Exercise:
    """The registered exercise `key`; ValueError naming the known keys otherwise."""
    return REGISTRY[check_choice(key, "key", sorted(REGISTRY))]


def cases_in_order(exercise: Exercise, seed: int | None = None) -> list[Case]:
    """The cases of `seed` (see `Exercise.cases`), shortest input first: the order they run in."""
    return sorted(exercise.cases(seed), key=lambda case: input_size(case.args))


def check(key: str, fn: Callable, *, time_limit: float = TIME_LIMIT, seed: int | None = None,
          block_library: bool = True) -> Feedback:
    """Run `fn` on every case of exercise `key`, shortest input first, and explain the verdict in
    Chinese.

    seed None runs the public cases; an int runs that seed's hidden cases (`Exercise.cases`), which
    a function that only knows the public answers fails. The exercise's `library_twins` refuse to
    run while `fn` does (`exercises.blocking`), as in grading: a function that only calls the
    library's own answer hears so now, not when it is graded. block_library=False lets them run.

    Every case runs, so the message can say how many fail and show the shortest failing one; a case
    that runs past `time_limit` seconds (the call, and the encoding of what it returned with the
    repr of an object that is not a plain value, together) ends the check at once with 超时, since
    the later, longer ones would hang too. What `fn` prints is shown, up to `sandbox.OUTPUT_LIMIT`
    characters. The sandbox's child only calls `fn` (`call_case`); the answer is judged here.
    """
    exercise = exercise_of(key)
    check_callable(fn, "fn", "the function you wrote")
    seconds = check_number(time_limit, "time_limit", low=0, low_open=True)
    if not isinstance(block_library, bool):
        raise TypeError(f"block_library must be a bool, not {type(block_library).__name__}")
    cases = cases_in_order(exercise, seed)
    arguments = [case.args for case in cases]
    block = blocking.prepare(exercise.library_twins) if block_library else None
    results = sandbox.run_each(lambda k: call_case(fn, arguments[k]), len(cases), seconds, block)
    feedback = judge(exercise, cases, results, seconds)
    if seed is None:  # self-study: remembered in the learner's workspace/, nowhere else
        progress.record(key, feedback.verdict)
    return feedback


def judge(exercise: Exercise, cases: list[Case], results: list[Any], seconds: float) -> Feedback:
    """The verdict on `results` (what `sandbox.run_each` answered for `call_case` on each of
    `cases`, in order; it may stop at a timed-out one), told in Chinese. The classroom's grading
    worker, which runs the function in another process, judges with this too."""
    failures: list[tuple[Case, str]] = []
    stubs = 0
    for number, (case, result) in enumerate(zip(cases, results), start=1):
        if isinstance(result, sandbox.Ended) and result.timed_out:
            return _failed(exercise, "超时",
                           f"第 {number}/{len(cases)} 个用例运行了 {seconds:g} 秒还没结束，"
                           "可能是死循环（比如循环里的下标或条件一直没变）。", case, "")
        outcome, detail = _judged(result, case, exercise.explain)
        stubs += outcome == "stub"
        if outcome != "ok":
            failures.append((case, detail))
    if len(results) < len(cases):  # an answer missing without a time-out: nothing to trust
        failures.append((cases[len(results)], _UNREADABLE))
    if stubs == len(cases):
        return Feedback("未完成", f"未完成：{exercise.title} —— "
                        "把函数体里的 raise NotImplementedError 换成你的实现。", exercise.key)
    if not failures:
        return Feedback("通过", f"通过：{exercise.title}（{len(cases)} 个用例全部正确）",
                        exercise.key)
    case, detail = failures[0]
    return _failed(exercise, "未通过",
                   f"{len(failures)}/{len(cases)} 个用例不对，这是输入最短的一个：", case, detail)


# Each chapter's cases register themselves when its module is imported; the course map says which
# exist.
for _chapter in chapters.CHAPTERS:
    importlib.import_module(_chapter.exercise_module)
