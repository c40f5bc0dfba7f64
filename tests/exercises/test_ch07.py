"""Chapter 07 checkers, beyond what test_exercises.py checks for every exercise (reference passes, typical
wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

from solutions import ch07
from tutorial_lib import exercises
from tutorial_lib.exercises import check

KEYS = ["07.attention_mask", "07.labels", "07.padding_share"]


def test_chapter_07_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("07.")) == KEYS
    assert set(ch07.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


def test_a_mask_from_numpy_gets_the_tolist_hint():
    import numpy as np

    feedback = check("07.attention_mask",
                     lambda lengths, width, side: np.array(ch07.attention_mask(lengths, width, side)))
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message


def test_the_cases_are_the_library_on_every_side_and_order():
    from tutorial_lib.packing import batch, masks

    exercises_ = exercises.REGISTRY
    for case in exercises_["07.attention_mask"].make_cases():
        assert case.expected == masks.attention_mask_from_lengths(*case.args).tolist()
    assert {case.args[2] for case in exercises_["07.attention_mask"].make_cases()} == set(masks.SIDES)
    for case in exercises_["07.padding_share"].make_cases():
        assert case.expected == batch.ordered_batches(*case.args).padding_share
    # the order matters: cutting in the given order is not sorting first
    assert any(case.expected != batch.sorted_batches(*case.args).padding_share
               for case in exercises_["07.padding_share"].make_cases())
