"""Chapter 13 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold the holes a plausible wrong answer would
slip through, and their expected values are the library's."""

import copy
import inspect
import pickle
import textwrap
import unicodedata

import pytest

from solutions import ch13
from tutorial_lib import exercises
from tutorial_lib.exercises import check
from tutorial_lib.exercises.ch13 import HAND, PAIRINGS, corpus_lines, course_with
from tutorial_lib.tokenization import course_tokenizer
from tutorial_lib.tokenization.normalize import FORMS, normalize

KEYS = ["13.invariant_failures"]


def cases(key, seed=None):
    return exercises.REGISTRY[key].cases(seed)


def test_chapter_13_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("13.")) == KEYS
    assert set(ch13.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


def test_the_shared_tokenizer_is_the_course_tokenizer_with_another_form():
    course = course_tokenizer.load()
    for form in FORMS:
        shared = course_with(form)
        assert shared.normalization == form and form in repr(shared)
        assert (shared.vocab, shared.merges, shared.pattern) == (course.vocab, course.merges,
                                                                 course.pattern)
        assert copy.deepcopy(shared) is shared  # one per check, not one per case
        again = pickle.loads(pickle.dumps(shared))  # as the grading runner receives it
        assert again.normalization == form and again.encode("ａ，") == shared.encode("ａ，")


# --- 13.invariant_failures ------------------------------------------------------------------------

def _with_form(normalized):
    """The reference with another N(x)."""
    def failures(tokenizer, texts, form):
        return [i for i, text in enumerate(texts)
                if tokenizer.decode(tokenizer.encode_ordinary(text)) != normalized(text, form)]
    failures.__name__ = normalized.__name__
    return failures


def _nfc_for_nfkc(text, form):
    """NFC where NFKC is asked: canonical composition only, full-width forms kept."""
    return text if form == "none" else unicodedata.normalize("NFC", text)


def _nfkc_for_nfc(text, form):
    return text if form == "none" else unicodedata.normalize("NFKC", text)


def _no_second_nfkc(text, form):
    """casefold(NFKC(x)) without the last NFKC: ǰ folds to j + a combining caron."""
    if form == "NFKC_casefold":
        return unicodedata.normalize("NFKC", text).casefold()
    return normalize(text, form)


def _lower_for_casefold(text, form):
    """str.lower keeps ß and ẞ (casefold makes them ss)."""
    if form == "NFKC_casefold":
        return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).lower())
    return normalize(text, form)


def _casefold_alone(text, form):
    """Case folding without NFKC: ① and full-width forms kept."""
    return text.casefold() if form == "NFKC_casefold" else normalize(text, form)


def _normalizes_the_decoded_text(tokenizer, texts, form):
    """N(decode(encode(x))) == N(x): true whenever the tokenizer's form is at most as strong."""
    return [i for i, text in enumerate(texts)
            if normalize(tokenizer.decode(tokenizer.encode_ordinary(text)), form)
            != normalize(text, form)]


def _compares_ids(tokenizer, texts, form):
    """encode(x) == encode(N(x)): the tokenizer normalizes both alike, so a form it applies and
    the one asked for never disagree."""
    return [i for i, text in enumerate(texts)
            if tokenizer.encode_ordinary(text) != tokenizer.encode_ordinary(normalize(text, form))]


def _returns_the_texts(tokenizer, texts, form):
    return [texts[i] for i in ch13.invariant_failures(tokenizer, texts, form)]


def _from_the_bytes(tokenizer, texts, form):
    """Right, with the bytes decoded by hand and the library's normalize."""
    return [i for i, text in enumerate(texts)
            if tokenizer.decode_bytes(tokenizer.encode_ordinary(text)).decode("utf-8")
            != normalize(text, form)]


def test_a_right_answer_with_the_library_normalize_passes_unless_it_is_blocked():
    assert check("13.invariant_failures", _from_the_bytes).passed
    assert check("13.invariant_failures", _from_the_bytes, seed=7).passed
    blocked = check("13.invariant_failures", _from_the_bytes, block_library=True)
    assert "不能调用 tutorial_lib.tokenization.normalize.normalize" in blocked.message


@pytest.mark.parametrize("seed", [None, 3])
def test_invariant_cases_are_the_library_on_right_and_wrong_pairings(seed):
    found = cases("13.invariant_failures", seed)
    assert len(found) == len(HAND) + len(PAIRINGS)
    for case in found:
        tokenizer, texts, form = case.args
        assert case.expected == [i for i, x in enumerate(texts)
                                 if tokenizer.decode(tokenizer.encode(x)) != normalize(x, form)]
        if tokenizer.normalization == form:  # the right pairing: the invariant holds
            assert case.expected == []
    real = found[len(HAND):]
    for case, (ours, checked, name) in zip(real, PAIRINGS):
        tokenizer, texts, form = case.args
        assert (tokenizer.normalization, form) == (ours, checked)
        assert set(texts) <= set(corpus_lines(name)) and len(set(texts)) == len(texts) >= 4
        assert (case.expected != []) == (ours != checked)  # a wrong pairing fails somewhere
        assert len(case.expected) < len(texts)  # and holds somewhere
        assert any(normalize(x, f) != x for x in texts for f in FORMS)
    assert {(c.args[0].normalization, c.args[2]) for c in found} >= {(f, f) for f in FORMS}


def test_the_nfkc_pitfall_is_full_width_chinese_punctuation():
    case = cases("13.invariant_failures")[len(HAND)]
    tokenizer, texts, form = case.args
    assert (tokenizer.normalization, form) == ("NFKC", "none")
    for i in case.expected:
        assert set("，？！：；") & set(texts[i])
        assert tokenizer.decode(tokenizer.encode(texts[i])) == unicodedata.normalize("NFKC",
                                                                                     texts[i])


def test_invariant_hidden_cases_draw_other_lines():
    public = [c.args[1] for c in cases("13.invariant_failures")[len(HAND):]]
    hidden = [c.args[1] for c in cases("13.invariant_failures", 3)[len(HAND):]]
    assert all(set(a) != set(b) for a, b in zip(public, hidden))


# --- all of them: each plausible mistake fails; graded as the classroom grades them ---------------

PLAUSIBLE_MISTAKES = [
    ("13.invariant_failures", wrong) for wrong in (
        ch13.WRONG_ANSWERS["invariant_failures"], _with_form(_nfc_for_nfkc),
        _with_form(_nfkc_for_nfc), _with_form(_no_second_nfkc), _with_form(_lower_for_casefold),
        _with_form(_casefold_alone), _normalizes_the_decoded_text, _compares_ids,
        _returns_the_texts)
]


@pytest.mark.parametrize("key, wrong", PLAUSIBLE_MISTAKES, ids=lambda v: getattr(v, "__name__", v))
def test_public_and_hidden_cases_reject_each_plausible_mistake(key, wrong):
    assert not check(key, wrong).passed
    assert not check(key, wrong, seed=7).passed


def test_the_reference_passes_when_graded_in_another_interpreter():
    """The cases' arguments go pickled to the runner and the answers come back through the wire."""
    from tutorial_lib.classroom import grade

    for key in KEYS:
        fn = getattr(ch13, exercises.REGISTRY[key].function_name)
        namespace = {"__name__": "student_notebook"}
        exec(textwrap.dedent(inspect.getsource(fn)), namespace)  # by value, as a notebook's
        verdicts = [a["verdict"] for a in grade.run_grading(key, namespace[fn.__name__],
                                                            [None, 7])]
        assert verdicts == ["通过", "通过"], key
