"""Chapter 07 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

import pytest

from solutions import ch07
from tutorial_course import exercises
from tutorial_course.exercises import check
from tutorial_lib.packing import batch, masks

KEYS = ["07.attention_mask", "07.bucketed_batches", "07.labels", "07.pad", "07.padding_share"]


def cases(key):
    return exercises.REGISTRY[key].make_cases()


def test_chapter_07_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("07.")) == KEYS
    assert set(ch07.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


def test_a_mask_from_numpy_gets_the_tolist_hint():
    import numpy as np

    def as_array(lengths, width, side):
        return np.array(ch07.attention_mask(lengths, width, side))

    feedback = check("07.attention_mask", as_array)
    assert feedback.verdict == "未通过" and ".tolist()" in feedback.message


def test_the_cases_are_the_library_on_every_side_and_order():
    for case in cases("07.attention_mask"):
        assert case.expected == masks.attention_mask_from_lengths(*case.args).tolist()
    assert {case.args[2] for case in cases("07.attention_mask")} == set(masks.SIDES)
    for case in cases("07.padding_share"):
        assert case.expected == batch.ordered_batches(*case.args).padding_share
    # the order matters: cutting in the given order is not sorting first
    assert any(case.expected != batch.sorted_batches(*case.args).padding_share
               for case in cases("07.padding_share"))


# --- 07.pad ---------------------------------------------------------------------------------------


def test_pad_cases_are_batch_pad_on_real_rows_with_every_switch():
    found = cases("07.pad")
    for case in found:
        rows, pad_id, side, max_length, multiple, cut_side = case.args
        b = batch.pad(rows, pad_id, padding_side=side, max_length=max_length,
                      pad_to_multiple_of=multiple, truncation=max_length is not None,
                      truncation_side=cut_side)
        assert case.expected == (b.input_ids, b.attention_mask, b.num_truncated_tokens)
    assert {(c.args[2], c.args[5]) for c in found if c.expected[2]} == {
        (p, t) for p in masks.SIDES for t in masks.SIDES}, "cuts on both ends, padded on both sides"
    real = [c for c in found if max(map(len, c.args[0])) > 10]
    assert len(real) >= 10 and any(c.expected[2] for c in real) and any(c.args[4] for c in real)
    assert any(c.args[3] and len(c.expected[0][0]) > c.args[3] for c in found), \
        "a case where rounding to the multiple takes the width past max_length"


@pytest.mark.parametrize("wrong", ["pad_cuts_the_end", "pad_rounds_the_longest_row",
                                   "pad_counts_cut_rows"])
def test_other_typical_wrong_paddings_fail(wrong):
    feedback = check("07.pad", getattr(ch07, wrong))
    assert feedback.verdict == "未通过" and "输入：pad(" in feedback.message


def test_pad_by_the_library_without_truncation_fails_on_the_cut_cases():
    """A learner who forwards to batch.pad but forgets that a max_length here means truncation."""
    def forwards(rows, pad_id, side, max_length, multiple, cut_side):
        try:
            b = batch.pad(rows, pad_id, padding_side=side, max_length=max_length,
                          pad_to_multiple_of=multiple)
        except ValueError:
            return None
        return b.input_ids, b.attention_mask, b.num_truncated_tokens

    assert check("07.pad", forwards).verdict == "未通过"


# --- 07.labels ------------------------------------------------------------------------------------


def test_labels_cases_hold_real_rows_padded_with_their_own_end_of_text():
    eot_cases = [c for c in cases("07.labels")
                 if max((i for row in c.args[0] for i in row), default=0) > 255]
    assert len(eot_cases) >= 4
    for case in eot_cases:
        ids, mask = case.args
        eot = ids[0][-1] if mask[0][-1] == 0 else ids[0][mask[0].index(1) - 1]
        # a real end-of-text (mask 1) with the pad id keeps its label
        assert any(i == eot and m == 1 and lab == eot for row_i, row_m, row_l in
                   zip(ids, mask, case.expected) for i, m, lab in zip(row_i, row_m, row_l))


@pytest.mark.parametrize("wrong", ["labels_shifted", "labels_pad_is_the_last_id"])
def test_other_typical_wrong_labels_fail(wrong):
    assert check("07.labels", getattr(ch07, wrong)).verdict == "未通过"


# --- 07.bucketed_batches --------------------------------------------------------------------------


def test_bucket_cases_are_the_library_row_for_row_on_real_lengths():
    found = cases("07.bucketed_batches")
    for case in found:
        assert case.expected == batch.bucketed_batches(*case.args).batches
    assert any(len(c.args[0]) == 1727 for c in found), "the whole of TinyStories"
    assert any(len(c.args[0]) == 0 for c in found)
    # a boundary: a length that is an exact multiple of the width opens the next bucket
    assert any(any(n % c.args[2] == 0 and n for n in c.args[0]) for c in found if c.args[2] > 1)


def test_other_typical_wrong_batchers_fail():
    """(random.seed + random.shuffle draws exactly as random.Random(seed) does: not a mistake.)"""
    assert check("07.bucketed_batches", ch07.buckets_shuffled_once).verdict == "未通过"

    def ceil_buckets(lengths, batch_size, bucket_width, seed):  # (n - 1) // w: [1, w], not [0, w)
        return ch07.bucketed_batches([max(0, n - 1) for n in lengths], batch_size, bucket_width,
                                     seed)

    assert check("07.bucketed_batches", ceil_buckets).verdict == "未通过"
