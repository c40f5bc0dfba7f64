"""The checker engine and every registered exercise.

solutions/chNN.py holds, for chapter NN, one reference function per exercise and WRONG_ANSWERS, a typical
mistake for each (keyed by function name): the reference must pass, the mistake must fail. The rest checks
that `check` answers whatever a learner's function does, and how it answers.
"""

import copy
import dataclasses
import functools
import importlib
import os
import signal
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_course import exercises
from tutorial_course.exercises import check, sandbox

ROOT = Path(__file__).resolve().parents[2]
KEYS = sorted(exercises.REGISTRY)
EXERCISES = dict(exercises.REGISTRY)  # as registered (`cases_once` puts others in for a test)


def solutions_module(key: str):
    return importlib.import_module(f"solutions.ch{key.split('.', 1)[0]}")


def reference_solution(key: str):
    return getattr(solutions_module(key), exercises.REGISTRY[key].function_name)


def wrong_answer(key: str):
    return solutions_module(key).WRONG_ANSWERS[exercises.REGISTRY[key].function_name]


def chapter_modules() -> list[str]:
    """The chapter modules of tutorial_course/exercises (ch00, ch01, ...), sorted."""
    return sorted(p.stem for p in (ROOT / "tutorial_course" / "exercises").glob("ch*.py"))


def stub(*args):
    raise NotImplementedError


@functools.lru_cache(maxsize=None)
def _public_cases(key: str) -> list:
    return EXERCISES[key].make_cases(None)


@pytest.fixture
def cases_once(monkeypatch):
    """The four tests of every exercise below run `check` on its public cases five times in all;
    some exercises train a model or a tokenizer to build them (ch11, ch04, ch12). Here the registry's
    exercise builds them once per process and hands `check` a copy: the same cases (that a build
    gives the same public cases again is tests/course/exercises/test_hidden_cases.py's), through the
    same `check`."""
    def use(key: str):
        exercise = EXERCISES[key]
        monkeypatch.setitem(exercises.REGISTRY, key, dataclasses.replace(
            exercise, make_cases=lambda seed=None: copy.deepcopy(
                _public_cases(key)) if seed is None else exercise.make_cases(seed)))
        return exercises.REGISTRY[key]
    return use


# --- every exercise ------------------------------------------------------------------------------------


def test_one_module_of_cases_per_chapter_mirroring_solutions():
    cases = chapter_modules()
    assert cases == sorted(p.stem for p in (ROOT / "solutions").glob("ch*.py"))
    assert {"ch00", "ch01", "ch02", "ch03"} <= set(cases)
    for module in cases:
        chapter = module.removeprefix("ch")
        assert any(key.startswith(f"{chapter}.") for key in KEYS), f"{module} registers no exercise"
        assert set(solutions_module(f"{chapter}.x").WRONG_ANSWERS) == {
            exercises.REGISTRY[key].function_name for key in KEYS if key.startswith(f"{chapter}.")}


def test_importing_check_alone_registers_every_chapter():
    script = "from tutorial_course.exercises import check, REGISTRY; print(sorted({k[:2] for k in REGISTRY}))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == str([module.removeprefix("ch") for module in chapter_modules()])


def test_a_chapter_module_can_be_imported_first():
    script = "import tutorial_course.exercises.ch02; from tutorial_course.exercises import REGISTRY; print(len(REGISTRY))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.strip() == str(len(KEYS))


@pytest.mark.parametrize("key", KEYS)
def test_reference_solution_passes(key, cases_once):
    cases_once(key)
    feedback = check(key, reference_solution(key))
    assert feedback.verdict == "通过" and feedback.passed, feedback.message
    assert feedback.message.startswith("通过")


@pytest.mark.parametrize("key", KEYS)
def test_typical_wrong_answer_fails_with_the_case(key, cases_once):
    cases_once(key)
    feedback = check(key, wrong_answer(key))
    assert feedback.verdict == "未通过" and not feedback.passed
    assert feedback.message.startswith("未通过")
    assert "输入：" in feedback.message and "期望" in feedback.message and "得到" in feedback.message
    assert "提示" in feedback.message


@pytest.mark.parametrize("key", KEYS)
def test_the_shown_case_is_the_shortest_failing_one(key, cases_once):
    exercise, wrong = cases_once(key), wrong_answer(key)
    failing = []
    for case in exercise.make_cases():
        try:
            right = exercises.same_value(wrong(*case.args), case.expected)
        except Exception:
            right = False
        if not right:
            failing.append(case)
    shortest = min(exercises.input_size(case.args) for case in failing)
    message = check(key, wrong).message
    assert f" {len(failing)}/" in message.splitlines()[0]
    shown = next(case for case in failing if exercises.input_size(case.args) == shortest)
    assert exercises._call_text(exercise, shown) in message


@pytest.mark.parametrize("key", KEYS)
def test_stub_is_unfinished_and_not_counted_as_a_failure(key, cases_once):
    cases_once(key)
    feedback = check(key, stub)
    assert feedback.verdict == "未完成"
    assert feedback.message.endswith("把函数体里的 raise NotImplementedError 换成你的实现。")
    assert exercises.FAILURES[key] == 0


# --- 02.train: the learner's own training loop -------------------------------------------------------------


def test_train_cases_are_the_library_with_the_chapter_rule():
    from tutorial_lib.bpe import bpe_toy

    cases = exercises.REGISTRY["02.train"].make_cases()
    assert all(case.expected == bpe_toy.train(*case.args, tie_break="first").merges for case in cases)
    assert any(case.args[1] == 0 for case in cases), "a case that learns nothing"
    assert any(len(case.expected) < case.args[1] for case in cases), "a case that runs out of pairs"
    for rule in ("lexicographic_min", "lexicographic_max"):  # ties decide some cases, else any rule would pass
        assert any(bpe_toy.train(*case.args, tie_break=rule).merges != case.expected for case in cases), rule


@pytest.mark.parametrize("wrong", ["train_last_of_ties", "train_without_stopping"])
def test_other_typical_wrong_trainings_fail(wrong):
    feedback = check("02.train", getattr(solutions_module("02.train"), wrong))
    assert feedback.verdict == "未通过" and "输入：train(" in feedback.message


def test_a_failing_train_case_shows_the_words_in_the_order_the_function_got_them():
    """reprlib sorts a plain dict's keys; under the "first" rule the order of the words is part of the input."""
    from tutorial_lib.bpe import bpe_toy

    def reversed_words(corpus, num_merges):
        return bpe_toy.train(dict(reversed(corpus.items())), num_merges).merges

    message = check("02.train", reversed_words, block_library=False).message
    assert "输入：train({'ba': 1, 'ab': 1}, 1)\n期望：[('b', 'a')]\n得到：[('a', 'b')]" in message


def test_train_built_from_the_two_earlier_exercises_passes():
    """What the notebook suggests: the learner's count_pairs and merge_pair, in a loop."""
    count_pairs, merge_pair = reference_solution("02.count_pairs"), reference_solution("02.merge_pair")

    def train(corpus, num_merges):
        words, merges = {tuple(w) + ("</w>",): f for w, f in corpus.items()}, []
        while len(merges) < num_merges and (counts := count_pairs(words)):
            best = max(counts, key=counts.get)
            words = {merge_pair(s, best): f for s, f in words.items()}
            merges.append(best)
        return merges

    assert check("02.train", train).passed


# --- the smallest failing case ------------------------------------------------------------------------------


def test_a_wrong_answer_on_long_inputs_shows_the_shortest_of_them():
    def right_for_short_texts(text):
        return len(text.encode("utf-8")) if len(text) <= 5 else len(text)

    message = check("00.utf8_length", right_for_short_texts).message
    assert "2/6 个用例不对" in message
    assert "输入：utf8_length('naïve café')\n期望：12\n得到：10" in message


def test_learner_exception_is_reported_with_its_line_not_raised():
    feedback = check("00.utf8_length", lambda text: len(text.encode("ascii")))  # right until non-ASCII
    assert feedback.verdict == "未通过"
    assert "4/6 个用例不对" in feedback.message
    assert "输入：utf8_length('🙂👍')\n运行出错：UnicodeEncodeError: 'ascii' codec" in feedback.message
    assert "（你的代码第" in feedback.message


def test_a_partly_written_function_is_not_a_stub():
    def only_ascii(text):
        if not text.isascii():
            raise NotImplementedError("non-ASCII text")
        return len(text)

    feedback = check("00.utf8_length", only_ascii)
    assert feedback.verdict == "未通过"
    assert "运行出错：NotImplementedError: non-ASCII text" in feedback.message


def test_the_learner_cannot_change_the_shown_input():
    def clears_its_input(corpus):
        corpus.clear()
        return {}

    message = check("02.count_pairs", clears_its_input).message
    assert "输入：count_pairs({(" in message


# --- whatever the function returns ------------------------------------------------------------------------


def test_forgotten_return_is_explained():
    feedback = check("00.utf8_length", lambda text: None)
    assert feedback.verdict == "未通过" and "忘了 return" in feedback.message


def test_numpy_number_is_a_number_but_an_array_is_not():
    assert check("00.utf8_length", lambda text: np.int64(len(text.encode("utf-8")))).passed
    feedback = check("00.utf8_length", lambda text: np.array([len(text.encode("utf-8"))]))
    assert feedback.verdict == "未通过" and "numpy 数组" in feedback.message and ".tolist()" in feedback.message


def test_an_array_where_a_list_is_expected_answers():
    vocab = reference_solution("01.build_vocab")
    feedback = check("01.build_vocab", lambda tokens, min_freq: np.array(vocab(tokens, min_freq)))
    assert feedback.verdict == "未通过" and "numpy 数组" in feedback.message


def test_a_tuple_is_as_good_as_a_list_and_a_float_as_good_as_an_int():
    encode_word = reference_solution("02.encode_word")
    assert check("02.encode_word", lambda word, merges: tuple(encode_word(word, merges))).passed
    assert check("00.utf8_length", lambda text: float(len(text.encode("utf-8")))).passed


def test_floats_inside_lists_tuples_and_dict_values_are_compared_up_to_rounding():
    same = exercises.same_value
    assert same(0.1 + 0.2, 0.3) and same([0.1 + 0.2, 1], [0.3, 1]) and same((0.1 + 0.2,), [0.3])
    assert same({"a": 0.1 + 0.2, "b": [1.0, (2.0 + 1e-15,)]}, {"a": 0.3, "b": [1.0, (2.0,)]})
    assert same({"a": 1e-13}, {"a": 0.0})  # abs 1e-12 for counts that are all but zero
    assert not same([0.3 + 1e-6], [0.3]) and not same({"a": 0.3 + 1e-6}, {"a": 0.3})
    # keys exactly, no key missing or extra; the dict's order does not count
    assert same({"b": 2.0, "a": 1.0}, {"a": 1.0, "b": 2.0})
    assert not same({"a": 1.0}, {"a": 1.0, "b": 0.0}) and not same({"a": 1.0, "c": 0.0}, {"a": 1.0})
    # types inside as == between the containers has them, and only a number is a number
    assert same([1, 2.0], [1.0, 2]) and same({"a": np.float64(0.5)}, {"a": 0.5})
    assert not same([True], [1.0]) and not same({"a": np.array([0.5])}, {"a": 0.5})
    assert not same([[1.0, 2.0]], [(1.0, 2.0)]) and not same({"a": "0.5"}, {"a": 0.5})
    assert not same([0.5, 0.5], [0.5]) and not same({"a": [1.0]}, {"a": [1.0, 0.0]})
    assert not same(np.array([0.3]), [0.3])  # the type check still comes first


def test_a_bool_is_not_a_number_here():
    feedback = check("00.utf8_length", lambda text: bool(text))
    assert feedback.verdict == "未通过" and "类型不对：期望 int，你返回了 bool。" in feedback.message


def test_a_generator_gets_a_list_hint():
    encode_word = reference_solution("02.encode_word")
    feedback = check("02.encode_word", lambda word, merges: (s for s in encode_word(word, merges)))
    assert feedback.verdict == "未通过"
    assert "得到：<generator object" in feedback.message and "0x" not in feedback.message
    assert "用 list(...) 把元素取出来" in feedback.message


class Hostile:
    """Every dunder a checker might call raises."""

    def __eq__(self, other):
        raise ValueError("no comparing")

    def __repr__(self):
        raise RuntimeError("no printing")

    def __bool__(self):
        raise TypeError("no truth")

    __hash__ = None


class HostileStr(str):
    def __eq__(self, other):
        raise ValueError("no comparing")

    def __repr__(self):
        raise RuntimeError("no printing")

    __hash__ = str.__hash__


def test_objects_whose_eq_and_repr_raise_get_an_answer():
    feedback = check("00.utf8_length", lambda text: Hostile())
    assert feedback.verdict == "未通过" and "<Hostile 对象，它的 repr 出错了>" in feedback.message
    clean_line = reference_solution("01.clean_line")
    feedback = check("01.clean_line", lambda line: HostileStr(clean_line(line)))
    assert feedback.verdict == "未通过" and "得到：<HostileStr 对象，它的 repr 出错了>" in feedback.message


def test_an_exception_whose_str_raises_is_still_named():
    class Broken(Exception):
        def __str__(self):
            raise RuntimeError

    def fails(text):
        raise Broken

    feedback = check("00.utf8_length", fails)
    assert feedback.verdict == "未通过" and "运行出错：Broken" in feedback.message


returned_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5) | st.binary(max_size=5)
    | st.builds(np.array, st.lists(st.integers(0, 9), max_size=4)) | st.builds(Hostile),
    lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=2), inner, max_size=3),
    max_leaves=6,
)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(KEYS), returned_values)
def test_check_answers_whatever_is_returned(key, value):
    feedback = check(key, lambda *args: value)
    assert feedback.verdict == "未通过"
    assert repr(feedback) == "✘ " + feedback.message


# --- time limits -------------------------------------------------------------------------------------------


def test_an_endless_loop_times_out_naming_the_case():
    feedback = check("00.utf8_length", stuck_forever, time_limit=0.2)
    assert feedback.verdict == "超时"
    assert feedback.message.startswith("超时：练习 0：一段文字占多少字节 —— 第 1/6 个用例运行了 0.2 秒还没结束")
    assert "输入：utf8_length('')" in feedback.message
    assert exercises.FAILURES["00.utf8_length"] == 1


def test_a_loop_that_swallows_exceptions_still_times_out():
    def stuck(text):
        while True:
            try:
                len(text)  # (CPython 3.10 cannot interrupt a loop whose body is only `pass`; real code has a body)
            except Exception:
                pass

    assert check("00.utf8_length", stuck, time_limit=0.2).verdict == "超时"


def test_a_stuck_case_later_in_the_list_is_the_one_named():
    def stuck_on_emoji(text):
        while "🙂" in text:
            pass
        return len(text.encode("utf-8"))

    feedback = check("00.utf8_length", stuck_on_emoji, time_limit=0.2)
    assert feedback.verdict == "超时" and "输入：utf8_length('🙂👍')" in feedback.message


def test_the_kernels_alarm_handler_and_timer_are_left_alone():
    """The limit is a wall-clock kill of a forked child: the kernel's SIGALRM is none of its business,
    even when the learner's code resets the timer."""
    def outer_handler(signum, frame):
        raise AssertionError("the outer timer must not fire during this test")

    def resets_the_timer(text):
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        return len(text.encode("utf-8"))

    previous = signal.signal(signal.SIGALRM, outer_handler)
    signal.setitimer(signal.ITIMER_REAL, 600)
    try:
        assert check("00.utf8_length", resets_the_timer).passed
        assert check("00.utf8_length", stuck_forever, time_limit=0.2).verdict == "超时"
        assert signal.getsignal(signal.SIGALRM) is outer_handler
        assert signal.getitimer(signal.ITIMER_REAL)[0] > 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def stuck_forever(text):
    while True:
        pass


def test_outside_the_main_thread_the_limit_holds_too():
    answers = []

    def learner_thread():
        answers.append(check("00.utf8_length", stuck_forever, time_limit=0.2))
        answers.append(check("00.utf8_length", reference_solution("00.utf8_length")))
        answers.append(check("00.utf8_length", stub))

    thread = threading.Thread(target=learner_thread)
    thread.start()
    thread.join()
    assert [feedback.verdict for feedback in answers] == ["超时", "通过", "未完成"]


def test_without_fork_a_worker_thread_enforces_the_limit(monkeypatch):
    """The Windows fallback, taken here on purpose: the same verdicts, from a thread of the kernel."""
    monkeypatch.setattr(sandbox, "CAN_FORK", False)
    stop = threading.Event()

    def stuck(text):
        while not stop.is_set():  # ends once the test is over, so no thread spins on
            pass

    try:
        assert check("00.utf8_length", stuck, time_limit=0.2).verdict == "超时"
    finally:
        stop.set()
    assert check("00.utf8_length", reference_solution("00.utf8_length")).passed
    assert check("00.utf8_length", stub).verdict == "未完成"
    feedback = check("00.utf8_length", lambda text: sys.exit(3))
    assert feedback.verdict == "未通过" and "运行出错：SystemExit: 3" in feedback.message


# --- the sandbox ---------------------------------------------------------------------------------------


def test_what_the_function_prints_is_shown(capsys):
    def chatty(text):
        print("在算", repr(text))
        print("警告", file=sys.stderr)
        return len(text.encode("utf-8"))

    assert check("00.utf8_length", chatty).passed
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"在算 {case.args[0]!r}" for case in sorted(
        exercises.REGISTRY["00.utf8_length"].make_cases(), key=lambda c: exercises.input_size(c.args))]
    assert err == "警告\n" * 6


def test_a_flood_of_output_is_cut(capsys):
    def floods(text):
        while True:
            print("刷屏" * 1000)

    assert check("00.utf8_length", floods, time_limit=0.5).verdict == "超时"
    out = capsys.readouterr().out
    note = f"\n……（输出超过 {sandbox.OUTPUT_LIMIT} 个字符，后面的不再显示）\n"
    assert out.endswith(note) and len(out) == sandbox.OUTPUT_LIMIT + len(note)


def test_one_long_print_of_emoji_is_cut_not_taken_for_a_broken_pipe(capsys):
    def prints_emoji(text):
        print("🙂" * 2 * sandbox.OUTPUT_LIMIT)
        return len(text.encode("utf-8"))

    assert check("00.utf8_length", prints_emoji).passed
    out = capsys.readouterr().out
    assert out.startswith("🙂" * sandbox.OUTPUT_LIMIT + "\n……（输出超过")


def test_a_case_that_ends_its_process_fails_alone_and_the_others_still_run():
    def exits_on_emoji(text):
        if "🙂" in text:
            os._exit(5)
        return len(text.encode("utf-8"))

    feedback = check("00.utf8_length", exits_on_emoji)
    assert feedback.verdict == "未通过" and "1/6 个用例不对" in feedback.message
    assert "输入：utf8_length('🙂👍')\n运行出错：运行你的函数的进程直接退出了（退出码 5）" in feedback.message


SEEN = []


def test_the_function_runs_in_a_copy_of_the_kernel():
    """What it changes outside itself stays in the copy (said in exercises.sandbox)."""
    def remembers(text):
        SEEN.append(text)
        return len(text.encode("utf-8"))

    assert check("00.utf8_length", remembers).passed
    assert SEEN == []


def test_the_memory_allowance_is_a_part_of_the_machine():
    physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    assert 0 < sandbox.memory_allowance() <= min(sandbox.MAX_ALLOWANCE, physical // 2)


# --- hints in tiers ----------------------------------------------------------------------------------------


def test_the_recipe_comes_after_repeated_failures_of_the_same_exercise():
    exercise = exercises.REGISTRY["02.merge_pair"]
    wrong = wrong_answer("02.merge_pair")
    first = check("02.merge_pair", wrong).message
    assert exercise.concept in first and exercise.recipe not in first and "再错 4 次" in first
    check("02.count_pairs", wrong_answer("02.count_pairs"))  # another exercise: counted on its own
    check("02.merge_pair", stub)  # the stub is not a failure
    assert check("02.merge_pair", reference_solution("02.merge_pair")).passed
    for left in (3, 2, 1):  # the recipe, nearly the answer, waits for the fifth failure
        later = check("02.merge_pair", wrong).message
        assert exercise.recipe not in later and f"再错 {left} 次" in later
    fifth = check("02.merge_pair", wrong).message
    assert exercise.concept in fifth and f"做法：{exercise.recipe}" in fifth
    assert exercises.FAILURES == {"02.merge_pair": 5, "02.count_pairs": 1}


# --- what a failing case shows ----------------------------------------------------------------------------


def test_text_that_only_looks_the_same_is_spelled_with_code_points():
    """'café' in NFC and in NFD print alike: the message names the characters where they differ."""
    def decomposed(tokenizer, category, x):
        vector = reference_solution("13.golden_vector")(tokenizer, category, x)
        if vector:
            vector["normalized"] = unicodedata.normalize("NFD", vector["normalized"])
        return vector

    message = check("13.golden_vector", decomposed).message
    assert "期望 'ö' U+00F6；得到 'o' U+006F '\u0308' U+0308" in message
    # the input, 'o' + U+0308, prints as 'ö' too: it is spelled under the call
    assert "输入：golden_vector(<课程分词器 normalization='NFC'>, 'combining_marks', 'o\u0308')\n" \
           "其中 'o\u0308' 是 'o' U+006F '\u0308' U+0308" in message


def test_a_byte_string_answer_names_the_first_byte_that_differs():
    message = check("10.idx_bytes", lambda *args: b"MMIDIDX\x00\x00\x02").message
    assert "第一个不同的字节在偏移 9：期望 0x01，得到 0x02" in message
    short = check("10.idx_bytes", lambda *args: b"MMIDIDX").message
    assert "第一个不同的字节在偏移 7：期望 0x00，得到 没有（只有 7 个字节）" in short


def test_a_byte_string_input_is_spelled_as_the_characters_it_encodes():
    def roman_numerals_as_latin(token):  # Ⅻ is Latin script but a number (Nl), not a letter
        return "latin" if token == "Ⅻ".encode() else reference_solution("12.token_script")(token)

    message = check("12.token_script", roman_numerals_as_latin).message
    assert "其中 b'\\xe2\\x85\\xab' 是 UTF-8 的 'Ⅻ' U+216B" in message


def test_calling_the_library_answer_fails_in_self_study_as_in_grading():
    from tutorial_lib.text import characters

    feedback = check("03.chars_for_coverage", characters.chars_for_coverage)
    assert feedback.verdict == "未通过"
    assert "不能调用 tutorial_lib.text.characters.chars_for_coverage" in feedback.message
    assert check("03.chars_for_coverage", characters.chars_for_coverage, block_library=False).passed


def test_every_exercise_has_a_concept_and_a_different_recipe():
    for exercise in exercises.REGISTRY.values():
        assert exercise.concept and exercise.recipe and exercise.concept != exercise.recipe


# --- arguments ---------------------------------------------------------------------------------------------


def test_bad_arguments():
    with pytest.raises(ValueError, match="key must be one of"):
        check("99.nope", len)
    with pytest.raises(TypeError, match="fn must be the function you wrote"):
        check("00.utf8_length", 3)
    with pytest.raises(ValueError, match="time_limit must be a finite number > 0"):
        check("00.utf8_length", len, time_limit=0)
    with pytest.raises(ValueError, match="registered twice"):
        exercises.register(exercises.REGISTRY["00.utf8_length"])


def test_verdicts_differ_at_a_glance_in_plain_text_and_in_html():
    """Each verdict has its icon in the text a notebook stores and its colours in the HTML view;
    the message itself still starts with the verdict word."""
    def stub(text):
        raise NotImplementedError

    def stuck(text):
        while True:
            pass

    answers = {"通过": check("00.utf8_length", lambda text: len(text.encode("utf-8"))),
               "未通过": check("00.utf8_length", len),
               "未完成": check("00.utf8_length", stub),
               "超时": check("00.utf8_length", stuck, time_limit=0.2)}
    looks = set()
    for verdict, feedback in answers.items():
        icon, ink, background, border = exercises.VERDICT_LOOK[verdict]
        assert feedback.verdict == verdict and feedback.message.startswith(verdict)
        assert repr(feedback) == f"{icon} {feedback.message}"
        shown = feedback._repr_html_()
        assert f"color:{ink};background:{background}" in shown and border in shown
        assert shown.count("<b>") == 1 and f"{icon} <b>{verdict}</b>：" in shown
        looks.add((icon, background))
    assert len(looks) == 4
    assert "&lt;" in check("00.utf8_length", lambda text: "<b>")._repr_html_()  # escaped
