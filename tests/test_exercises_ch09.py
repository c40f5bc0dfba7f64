"""Chapter 09 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch09
from tutorial_lib.exercises import check

KEYS = ["09.document_mask", "09.cu_seqlens", "09.next_token_labels"]


def test_a_numpy_answer_is_told_to_convert():
    from tutorial_lib.packing import doc_masks
    feedback = check("09.document_mask", doc_masks.document_mask)
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message


def test_the_split_document_case_is_the_one_shown_for_the_one_stream_mistake():
    feedback = check("09.cu_seqlens", ch09.WRONG_ANSWERS["cu_seqlens"])
    assert "[[0, 0, 1, 1], [1, 1, 2, 2]]" in feedback.message
