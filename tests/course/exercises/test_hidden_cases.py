"""Hidden cases: `Exercise.cases(seed)` and `check(..., seed=...)`.

The public cases (seed None) are the ones every notebook output and test was made with, so they
must not change under a release without anyone meaning it. public_cases.json (next to this file)
records, for every exercise, what its public cases are, in a form that is the same on every
machine (`canonical`):

- "digest": the SHA-256 (first 16 hex digits) of their canonical text: every case in order, its
  args and expected value written out in full (numpy arrays too, other objects by their repr), each
  float replaced by a marker;
- "floats": those floats, in that order, compared with the checker's own tolerance (`close`).

Floats are not hashed because their last bits are not the same everywhere: ch11's Unigram models,
trained when the cases are built, go through numpy's vectorized exp and log, whose results differ
in the last bit from one processor to another. A dict whose values are all floats (ch11's log-probs
and expected counts) is written in key order, since its order can be a sort by those floats; the
checker compares dicts in any order. Every other dict keeps its own order (in a BPE corpus the word
order decides ties). So a changed input, an expected value changed by more than rounding, a case
added, removed or moved, still fails here; noise in the last bits does not.

A deliberate change of public cases is recorded with
    .venv/bin/python tests/course/exercises/test_hidden_cases.py --record KEY [KEY ...]
which rewrites the entries of those exercises only (a new exercise is recorded the same way); the
diff of public_cases.json then shows what changed. The digests were first taken of repr(cases) (at
commit a92c401, before seeds existed); the recorded form covers at least all that repr showed.
An int seed draws other cases, so a function that only knows the public answers fails.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import math
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from tutorial_course import exercises
from tutorial_course.exercises import Case, check

KEYS = sorted(exercises.REGISTRY)
SEEDS = (1, 2, 3)
RECORD = Path(__file__).with_name("public_cases.json")
RECORD_COMMAND = ".venv/bin/python tests/course/exercises/test_hidden_cases.py --record"
# the checker's tolerance for a float (exercises._same_inside): a difference it would not notice is
# no change of a case, and it is far above the last-bit noise of float arithmetic
REL_TOL, ABS_TOL = 1e-9, 1e-12
FLOAT = "~"  # where a float stands in the canonical text


# --- the canonical form of cases ------------------------------------------------------------------

def _is_float(value: Any) -> bool:
    return isinstance(value, (float, np.floating))


def _write(value: Any, floats: list[float]) -> str:
    """The canonical text of `value`; its floats are appended to `floats`, in order."""
    kind = type(value)
    name = "" if kind.__module__ == "builtins" else kind.__qualname__  # a subclass shows its name
    if isinstance(value, Case):
        return f"Case({_write(value.args, floats)}, {_write(value.expected, floats)})"
    if _is_float(value):
        floats.append(float(value))
        return f"{name}({FLOAT})" if name else FLOAT
    if isinstance(value, complex):
        return f"complex({_write(value.real, floats)}, {_write(value.imag, floats)})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_write(item, floats) for item in value)
        return f"{name}[{inner}]" if isinstance(value, list) else f"{name}({inner},)"
    if isinstance(value, dict):
        items = list(value.items())
        if items and all(_is_float(v) for _, v in items):  # its order may be a sort by the floats
            items.sort(key=lambda kv: _write(kv[0], []))
        inner = ", ".join(f"{_write(k, floats)}: {_write(v, floats)}" for k, v in items)
        return f"{name}{{{inner}}}"
    if isinstance(value, (set, frozenset)):  # in a stable order, whatever PYTHONHASHSEED is
        written = []
        for item in value:
            own: list[float] = []
            written.append((_write(item, own), own))
        written.sort()
        floats.extend(f for _, own in written for f in own)
        return f"{kind.__name__}{{{', '.join(text for text, _ in written)}}}"
    if isinstance(value, np.ndarray):
        head = f"ndarray({value.dtype.str}, {value.shape}"
        if value.dtype.kind in "fc":
            parts = value.ravel()
            if value.dtype.kind == "c":  # each number as its real and imaginary part
                parts = np.stack([parts.real, parts.imag], -1).ravel()
            floats.extend(float(f) for f in parts)
            return f"{head}, {FLOAT} x {parts.size})"
        if value.dtype.kind == "O":
            return f"{head}, {_write(value.tolist(), floats)})"
        return f"{head}, {value.tolist()!r})"
    # None, bool, int, str, bytes, numpy ints and dtypes, and other objects: their repr, which
    # is what was digested before (no object of a case shows a float in it)
    return f"{name}:{value!r}" if name else repr(value)


def canonical(cases: list[Case]) -> tuple[str, list[float]]:
    """(the canonical text of `cases`, their floats in order): see the module's docstring."""
    floats: list[float] = []
    return _write(list(cases), floats), floats


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_of(cases: list[Case]) -> dict:
    """What public_cases.json keeps of an exercise's public cases."""
    text, floats = canonical(cases)
    return {"digest": _sha(text), "floats": floats}


def close(got: float, recorded: float) -> bool:
    """Equal up to the checker's tolerance; nan equals nan, inf only the same inf."""
    if math.isnan(got) or math.isnan(recorded):
        return math.isnan(got) and math.isnan(recorded)
    return got == recorded or math.isclose(got, recorded, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def differences(cases: list[Case], recorded: dict) -> list[str]:
    """How `cases` differ from their record: [] when they are the recorded cases."""
    text, floats = canonical(cases)
    found = []
    if _sha(text) != recorded["digest"]:
        found.append(f"digest {_sha(text)} != {recorded['digest']}: an input, a non-float value, "
                     "the number, order or type of the cases or of the floats changed")
    if len(floats) != len(recorded["floats"]):
        found.append(f"{len(floats)} floats, {len(recorded['floats'])} recorded")
    else:
        bad = [i for i, (a, b) in enumerate(zip(floats, recorded["floats"])) if not close(a, b)]
        if bad:
            found.append(f"{len(bad)} floats beyond rel {REL_TOL:g}, the first #{bad[0]}: "
                         f"{floats[bad[0]]!r} != recorded {recorded['floats'][bad[0]]!r}")
    return found


def load_record() -> dict[str, dict]:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def write_record(keys: list[str]) -> None:
    """Record the public cases of `keys` in public_cases.json, keeping every other entry."""
    table = load_record() if RECORD.exists() else {}
    for key in keys:
        table[key] = record_of(exercises.REGISTRY[key].cases())
    text = json.dumps(dict(sorted(table.items())), indent=1, ensure_ascii=False)
    RECORD.write_text(text + "\n", encoding="utf-8")


def fingerprint(cases: list[Case]) -> str:
    """The cases exactly, floats and all: for comparing draws made in this process."""
    text, floats = canonical(cases)
    return _sha(text + repr(floats))


# --- the public cases are the recorded ones -------------------------------------------------------

RECORDED = load_record() if RECORD.exists() else {}


def solutions(key: str):
    return importlib.import_module(f"solutions.ch{key.split('.', 1)[0]}")


def reference(key: str):
    return getattr(solutions(key), exercises.REGISTRY[key].function_name)


def plain(value):
    """The expected value as a literal of its repr where it has one (the checker's own marker types
    become the builtin values they show as), else itself."""
    try:
        return ast.literal_eval(repr(value))
    except (ValueError, SyntaxError):
        return value


def hard_coded(key: str, built: Callable):
    """A "solution" that looks its input up among the public cases and returns their answer, as a
    learner would type it (a plain int for ch04's ExactInt, a list for ch09's _Bools)."""
    table = {repr(case.args): plain(case.expected) for case in built(key)}

    def answer(*args):
        return table[repr(args)]  # a KeyError for an input it has not seen
    return answer


def test_every_exercise_is_recorded():
    assert sorted(RECORDED) == KEYS, f"record a new exercise with: {RECORD_COMMAND} KEY"


# `built(key, seed)` (conftest.py) is exercise.cases(seed), built once per process: here the fresh
# builds are the ones that prove a build gives the same cases again

@pytest.mark.parametrize("key", KEYS)
def test_public_cases_are_the_recorded_ones(key, built):
    exercise = exercises.REGISTRY[key]
    found = differences(built(key), RECORDED[key])
    assert not found, (f"the public cases of {key} changed: {'; '.join(found)}. If that is meant, "
                       f"record them with: {RECORD_COMMAND} {key}")
    assert fingerprint(exercise.cases(None)) == fingerprint(exercise.make_cases()) \
        == fingerprint(built(key))


# --- the record ignores last-bit noise and catches a real change ----------------------------------

UNIGRAM_KEYS = ["11.viterbi", "11.expected_counts"]  # floats from a model trained at import


def remade(value: Any, change: Callable[[float], float]) -> Any:
    """`value` rebuilt with every float x replaced by change(x), and every dict of floats in reverse
    order (as a sort by floats that differ in the last bits could leave it)."""
    if isinstance(value, Case):
        return Case(remade(value.args, change), remade(value.expected, change))
    if type(value) is float:
        return change(value)
    if type(value) in (list, tuple):
        return type(value)(remade(item, change) for item in value)
    if type(value) is dict:
        items = [(k, remade(v, change)) for k, v in value.items()]
        return dict(reversed(items) if all(type(v) is float for _, v in items) else items)
    return value


def last_bit(x: float) -> float:
    return float(np.nextafter(x, np.inf))


def only(n: int, change: Callable[[float], float]) -> Callable[[float], float]:
    """change applied to the n-th float met (from 0), every other float kept."""
    met = []

    def once(x: float) -> float:
        met.append(x)
        return change(x) if len(met) == n + 1 else x
    return once


@pytest.mark.parametrize("key", UNIGRAM_KEYS)
def test_last_bit_noise_and_the_order_of_a_dict_of_floats_are_no_change(key, built):
    """What another processor gives: the failure the old digest of repr(cases) had."""
    cases = built(key)
    reordered, noisy = remade(cases, lambda x: x), remade(cases, last_bit)
    assert reordered == cases and repr(reordered) != repr(cases)
    assert all(a != b for a, b in zip(canonical(noisy)[1], canonical(cases)[1])), "all nudged"
    for other in (reordered, noisy):
        assert differences(other, RECORDED[key]) == []


@pytest.mark.parametrize("key", UNIGRAM_KEYS)
def test_a_float_changed_at_one_in_a_million_is_caught(key, built):
    cases = built(key)
    count = len(canonical(cases)[1])
    for n in (0, count // 2, count - 1):  # the first float, one in the middle, the last
        for change in (lambda x: x + 1e-6 * max(abs(x), 1.0), lambda x: x - 1e-8 * abs(x) - 1e-11):
            found = differences(remade(cases, only(n, change)), RECORDED[key])
            assert len(found) == 1 and "floats beyond" in found[0], (n, found)
        assert differences(remade(cases, only(n, last_bit)), RECORDED[key]) == [], n


@pytest.mark.parametrize("key", UNIGRAM_KEYS)
def test_a_changed_added_removed_or_moved_case_is_caught(key, built):
    cases = built(key)
    first = cases[0]
    text = first.args[0]
    other_input = (text + "a" if isinstance(text, str) else {**text, "▁zz": 1},) + first.args[1:]
    other_expected = (first.expected + ["a"] if isinstance(first.expected, list)
                      else {**first.expected, "zz": 1.0})
    dropped_piece = dict(list(first.args[1].items())[:-1])
    for changed in (
        [Case(other_input, first.expected)] + cases[1:],  # another input
        [Case(first.args, other_expected)] + cases[1:],  # another expected value
        [Case((first.args[0], dropped_piece), first.expected)] + cases[1:],  # a piece less
        cases[:-1],  # a case removed
        cases + cases[:1],  # a case added
        cases[1:] + cases[:1],  # cases moved
    ):
        assert differences(changed, RECORDED[key]), changed[:2]


def test_the_canonical_form_keeps_what_repr_showed():
    """Types, the order of a dict that is not all floats, every element of a numpy array."""
    def text(value):
        return canonical([Case((value,), None)])[0]

    assert text({"b": 1, "a": 2}) != text({"a": 2, "b": 1})  # a BPE corpus's word order
    assert text({"b": 1.0, "a": 2.0}) == text({"a": 2.0, "b": 1.0})
    assert canonical([Case(({"b": 1.0, "a": 2.0},), None)])[1] == [2.0, 1.0]
    assert text([1, 2]) != text((1, 2)) != text([1.0, 2]) and text(1) != text(True)
    assert text(np.arange(2000)) != text(np.arange(2000) * (np.arange(2000) != 1000))
    assert text(np.zeros(3, dtype=np.int32)) != text(np.zeros(3, dtype=np.int64))
    assert text({1, 2, 3}) == text({3, 2, 1})
    ch04 = exercises.REGISTRY["04.vocab_size"].cases()[0]
    assert text(ch04.expected) != text(ch04.expected.value), "ch04's ExactInt is not any int"


# --- hidden cases -------------------------------------------------------------------------------

@pytest.mark.parametrize("key", KEYS)
def test_a_seed_draws_other_cases_and_the_same_ones_again(key, built):
    exercise = exercises.REGISTRY[key]
    public = fingerprint(built(key))
    drawn = [fingerprint(built(key, seed)) for seed in SEEDS]
    assert public not in drawn
    assert len(set(drawn)) == len(SEEDS), "each seed its own draw"
    assert fingerprint(exercise.cases(SEEDS[0])) == drawn[0], "a seed always gives the same cases"


@pytest.mark.parametrize("key", KEYS)
def test_reference_passes_and_the_typical_wrong_answer_fails_hidden_cases(key, built_once):
    built_once(key)
    wrong = solutions(key).WRONG_ANSWERS[exercises.REGISTRY[key].function_name]
    for seed in SEEDS:
        feedback = check(key, reference(key), seed=seed)
        assert feedback.passed, (seed, feedback.message)
        assert check(key, wrong, seed=seed).verdict == "未通过", seed


@pytest.mark.parametrize("key", KEYS)
def test_a_hard_coded_answer_passes_the_public_cases_only(key, built, built_once):
    built_once(key)
    answer = hard_coded(key, built)
    assert check(key, answer).passed, "the lookup does know every public case"
    for seed in SEEDS:
        feedback = check(key, answer, seed=seed)
        assert feedback.verdict == "未通过", (seed, feedback.message)


def test_a_seed_must_be_an_int():
    exercise = exercises.REGISTRY["00.utf8_length"]
    for bad in ("1", 1.0, True):
        with pytest.raises(TypeError, match="seed"):
            exercise.cases(bad)
        with pytest.raises(TypeError, match="seed"):
            check("00.utf8_length", len, seed=bad)


def test_hidden_cases_keep_the_hand_written_ones_and_add_drawn_ones():
    """00.utf8_length's public cases are all hand-written: its hidden cases add random texts."""
    exercise = exercises.REGISTRY["00.utf8_length"]
    public, hidden = exercise.cases(), exercise.cases(7)
    assert hidden[:len(public)] == public and len(hidden) > len(public)
    assert all(case.expected == len(case.args[0].encode("utf-8")) for case in hidden)


if __name__ == "__main__":
    if sys.argv[1:2] != ["--record"] or not sys.argv[2:] or set(sys.argv[2:]) - set(KEYS):
        sys.exit(f"usage: {RECORD_COMMAND} KEY [KEY ...]   (KEY one of {', '.join(KEYS)})")
    write_record(sys.argv[2:])
    print(f"recorded the public cases of {', '.join(sys.argv[2:])} in {RECORD}")
