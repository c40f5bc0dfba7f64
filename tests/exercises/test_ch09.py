"""Chapter 09 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch09
from tutorial_lib.exercises import check

KEYS = ["09.document_mask", "09.cu_seqlens", "09.next_token_labels"]


def test_a_numpy_answer_is_told_to_convert():
    from tutorial_lib.packing import masks
    feedback = check("09.document_mask", masks.document_mask)
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message


def test_the_split_document_case_is_the_one_shown_for_the_one_stream_mistake():
    feedback = check("09.cu_seqlens", ch09.WRONG_ANSWERS["cu_seqlens"])
    assert "[[0, 0, 1, 1], [1, 1, 2, 2]]" in feedback.message


def test_the_labels_cases_are_the_library_labels_of_the_inputs():
    from tutorial_lib import exercises
    from tutorial_lib.packing.batch import next_token_labels

    for case in exercises.REGISTRY["09.next_token_labels"].make_cases():
        tokens, doc_ids = case.args
        assert len(case.expected) == max(len(tokens) - 1, 0)  # L + 1 tokens, L inputs
        assert case.expected == next_token_labels(tokens, doc_ids)[:-1].tolist()


def test_chapter_09_registers_exactly_these_exercises():
    from tutorial_lib import exercises

    assert sorted(k for k in exercises.REGISTRY if k.startswith("09.")) == sorted(KEYS)
    assert set(ch09.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}
