"""Chapter 09 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch09
from tutorial_course.exercises import check

KEYS = ["09.document_mask", "09.position_ids", "09.cu_seqlens", "09.same_as_alone",
        "09.next_token_labels"]


def test_a_numpy_answer_is_told_to_convert():
    import numpy as np
    feedback = check("09.document_mask", lambda ids: np.array(ch09.document_mask(ids)))
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message


def test_a_mask_of_0_and_1_ints_is_refused_and_bools_from_numpy_pass():
    import numpy as np

    as_ints = check("09.document_mask", lambda ids: [[int(x) for x in row]
                                                     for row in ch09.document_mask(ids)])
    assert as_ints.verdict == "未通过" and "[[0]]" in as_ints.message
    as_tuples = check("09.document_mask", lambda ids: [tuple(row) for row in ch09.document_mask(ids)])
    assert as_tuples.passed
    from_numpy = check("09.document_mask",
                       lambda ids: np.array(ch09.document_mask(ids), dtype=bool).tolist())
    assert from_numpy.passed


def test_the_cases_include_real_packed_rows_and_are_the_library_values():
    from tutorial_course import exercises
    from tutorial_course.exercises import ch09 as cases
    from tutorial_lib.packing import masks

    real = cases._real_rows()[1].tolist()
    positions = exercises.REGISTRY["09.position_ids"].make_cases()
    assert all(any(case.args == (row,) for case in positions) for row in real)
    assert all(case.expected == masks.position_ids(case.args[0]).tolist() for case in positions)
    batches = [case.args[0] for case in exercises.REGISTRY["09.cu_seqlens"].make_cases()]
    split = cases._real_batch()
    assert split in batches and split[1][0] == split[0][-1]  # a real document cut across two rows
    doc_masks = exercises.REGISTRY["09.document_mask"].make_cases()
    assert any(case.args == (real[0],) for case in doc_masks)


def test_same_as_alone_cases_hold_both_verdicts_for_both_heads():
    from tutorial_course import exercises
    from tutorial_lib.packing import attention

    cases = exercises.REGISTRY["09.same_as_alone"].make_cases()
    for head_type in (attention.OneHead, attention.RopeHead):
        verdicts = [v for case in cases if isinstance(case.args[0], head_type)
                    for v in case.expected]
        assert True in verdicts and False in verdicts


def test_with_rope_the_document_mask_needs_no_position_reset_and_the_absolute_head_does():
    import numpy as np

    from tutorial_course import exercises
    from tutorial_lib.packing import attention, masks

    for case in exercises.REGISTRY["09.same_as_alone"].make_cases():
        head, _, ids, mask, positions = case.args
        if np.array_equal(mask, masks.document_mask(ids)) and positions == list(range(len(ids))):
            several = len(set(ids) - {-1}) > 1  # a document with another one before it
            rope = isinstance(head, attention.RopeHead)
            assert all(case.expected) == (rope or not several)


def test_a_check_that_ignores_the_mask_or_the_positions_fails():
    import numpy as np

    def mask_ignored(head, tokens, doc_ids, mask, position_ids):
        n = len(doc_ids)
        return ch09.same_as_alone(head, tokens, doc_ids, np.tril(np.ones((n, n), dtype=bool)),
                                  position_ids)

    assert check("09.same_as_alone", mask_ignored).verdict == "未通过"
    assert check("09.same_as_alone", ch09.WRONG_ANSWERS["same_as_alone"]).verdict == "未通过"


def test_the_split_document_case_is_the_one_shown_for_the_one_stream_mistake():
    feedback = check("09.cu_seqlens", ch09.WRONG_ANSWERS["cu_seqlens"])
    assert "[[0, 0, 1, 1], [1, 1, 2, 2]]" in feedback.message


def test_the_labels_cases_are_the_library_labels_of_the_inputs():
    from tutorial_course import exercises
    from tutorial_lib.packing.batch import next_token_labels

    for case in exercises.REGISTRY["09.next_token_labels"].make_cases():
        tokens, doc_ids = case.args
        assert len(case.expected) == max(len(tokens) - 1, 0)  # L + 1 tokens, L inputs
        assert case.expected == next_token_labels(tokens, doc_ids)[:-1].tolist()


def test_chapter_09_registers_exactly_these_exercises():
    from tutorial_course import exercises

    assert sorted(k for k in exercises.REGISTRY if k.startswith("09.")) == sorted(KEYS)
    assert set(ch09.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}
