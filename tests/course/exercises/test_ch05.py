"""Chapter 05 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch05
from tutorial_course.exercises import REGISTRY, check


def test_the_ranks_case_shows_a_short_input_and_tiktokens_ids():
    message = check("05.encode_with_ranks", ch05.WRONG_ANSWERS["encode_with_ranks"]).message
    assert "<cl100k 的 100256 个 mergeable ranks>" in message and "期望" in message


def test_the_ranks_cases_cover_twenty_texts_and_skip_the_unicode_version_gap():
    texts = [case.args[0] for case in REGISTRY["05.encode_with_ranks"].make_cases()]
    assert len(texts) == 20 and not any("\u0c5c" in text for text in texts)


def test_ties_are_broken_by_bytes_not_by_first_sight():
    """The textbook toy: after "lo" + "w", several pairs tie; first-seen picks another one."""
    text = "low low low low low lower lower newest newest newest widest widest"
    assert ch05.train(text, 266) != ch05.train_first_seen(text, 266)


def test_an_encoder_without_pre_tokenization_fails_on_a_pair_across_a_boundary():
    """The learned pairs 20 + 2 and two spaces also sit across a GPT-4 cut (120|24, x|␣|␣y)."""
    feedback = check("05.encode", ch05.encode_without_pretokenization)
    assert feedback.verdict == "未通过"
    cases = REGISTRY["05.encode"].make_cases()
    failing = [case.args[0] for case in cases
               if ch05.encode_without_pretokenization(*case.args) != case.expected]
    assert {"12024", "x  y"} <= set(failing)
    assert repr(min(failing, key=len)) in feedback.message


def test_the_boundary_cases_are_right_for_an_encoder_that_splits():
    """They catch the missing split alone: the leftmost-merge mistake still gets them right."""
    cases = [case for case in REGISTRY["05.encode"].make_cases()
             if case.args[0] in {"12024", "x  y"}]
    assert len(cases) == 2
    assert all(ch05.encode_leftmost(*case.args) == case.expected for case in cases)
