"""Classroom exercises: a notebook declares nothing but `check("key", my_function)`.

The checker runs the learner's function on a list of cases and answers in Chinese: 通过 when every case
passes, 未完成 while the function is still the shipped stub, and otherwise the first failing case with a
hint. It never lets a traceback escape, so a notebook with unsolved exercises still runs clean.
Reference solutions live in `solutions/` at the top of the repository, outside the student notebooks.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Case:
    """One call of the learner's function: fn(*args) should return `expected`."""

    args: tuple
    expected: Any


@dataclass(frozen=True)
class Exercise:
    key: str  # "00.utf8_length": chapter number, then the function the learner writes
    title: str
    hint: str
    make_cases: Callable[[], list[Case]]  # a function, so random cases are built with a fixed seed on demand
    same: Callable[[Any, Any], bool] = field(default=lambda got, expected: got == expected)

    @property
    def function_name(self) -> str:
        return self.key.split(".", 1)[1]


@dataclass(frozen=True)
class Feedback:
    """What `check` returns; its repr is the Chinese message the notebook shows."""

    passed: bool
    message: str

    def __repr__(self) -> str:
        return self.message


REGISTRY: dict[str, Exercise] = {}


def register(exercise: Exercise) -> Exercise:
    if exercise.key in REGISTRY:
        raise ValueError(f"exercise key {exercise.key!r} is registered twice")
    REGISTRY[exercise.key] = exercise
    return exercise


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def check(key: str, fn: Callable) -> Feedback:
    """Run `fn` on every case of exercise `key` and explain the first problem in Chinese."""
    if key not in REGISTRY:
        raise ValueError(f"key must be one of {sorted(REGISTRY)}, got {key!r}")
    if not callable(fn):
        raise TypeError(f"fn must be the function you wrote, got {type(fn).__name__}")
    exercise = REGISTRY[key]
    cases = exercise.make_cases()
    for i, case in enumerate(cases, start=1):
        try:
            got = fn(*case.args)
        except NotImplementedError:
            return Feedback(False, f"未完成：{exercise.title} —— 把函数体里的 raise NotImplementedError 换成你的实现。")
        except Exception as err:  # the learner's bug: show it kindly instead of a traceback
            where = traceback.extract_tb(err.__traceback__)[-1]
            return Feedback(False, f"未完成：{exercise.title} —— 第 {i}/{len(cases)} 个用例运行出错："
                                   f"{type(err).__name__}: {err}（第 {where.lineno} 行）\n"
                                   f"输入：{_short(case.args)}\n提示：{exercise.hint}")
        if got is None and case.expected is not None:
            return Feedback(False, f"未完成：{exercise.title} —— 函数返回了 None，是不是忘了 return？")
        if not exercise.same(got, case.expected):
            return Feedback(False, f"未完成：{exercise.title} —— 第 {i}/{len(cases)} 个用例不对。\n"
                                   f"输入：{_short(case.args)}\n期望：{_short(case.expected)}\n"
                                   f"得到：{_short(got)}\n提示：{exercise.hint}")
    return Feedback(True, f"通过 ✓ {exercise.title}（{len(cases)} 个用例全部正确）")


# --- 00 导读 -------------------------------------------------------------------------------------------

register(Exercise(
    key="00.utf8_length",
    title="练习 0：一段文字占多少字节",
    hint="len(text) 数的是字符；模型读的是 UTF-8 字节，先 text.encode('utf-8') 再数。",
    make_cases=lambda: [Case((text,), len(text.encode("utf-8")))
                        for text in ["hello", "", "你好，世界", "naïve café", "🙂👍", "GPT-4 的词表有 100277 个 token"]],
))

# --- 01 字符、词与子词 ------------------------------------------------------------------------------------

# --- 02 BPE 逐步合并 -------------------------------------------------------------------------------------

# --- 03 中文语料 -----------------------------------------------------------------------------------------
