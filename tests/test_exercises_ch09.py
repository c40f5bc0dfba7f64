"""Chapter 09 exercises: the reference solutions pass, the typical wrong answers fail, and the cases cover
what the wrong answers get wrong."""

import pytest

from solutions import ch09
from tutorial_lib import exercises
from tutorial_lib.exercises import check

KEYS = ["09.document_mask", "09.cu_seqlens", "09.next_token_labels"]


@pytest.fixture(autouse=True)
def fresh_session():
    exercises.FAILURES.clear()
    yield
    exercises.FAILURES.clear()


@pytest.mark.parametrize("key", KEYS)
def test_reference_passes(key):
    feedback = check(key, getattr(ch09, exercises.REGISTRY[key].function_name))
    assert feedback.passed, feedback.message


@pytest.mark.parametrize("key", KEYS)
def test_typical_mistake_fails(key):
    feedback = check(key, ch09.WRONG_ANSWERS[exercises.REGISTRY[key].function_name])
    assert feedback.verdict == "未通过", feedback.message


def test_a_numpy_answer_is_told_to_convert():
    from tutorial_lib.packing import doc_masks
    feedback = check("09.document_mask", doc_masks.document_mask)
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message


def test_the_split_document_case_is_the_one_shown_for_the_one_stream_mistake():
    feedback = check("09.cu_seqlens", ch09.WRONG_ANSWERS["cu_seqlens"])
    assert "[[0, 0, 1, 1], [1, 1, 2, 2]]" in feedback.message
