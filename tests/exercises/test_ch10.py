"""Chapter 10 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases come from the library and hold what the wrong
answers get wrong."""

import numpy as np

from solutions import ch10
from tutorial_lib import exercises
from tutorial_lib.packing import gpt_samples

KEYS = ["10.parse_header", "10.samples_with_document", "10.sequence_offset"]


def test_chapter_10_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("10.")) == KEYS
    assert set(ch10.WRONG_ANSWERS) == {exercises.REGISTRY[k].function_name for k in KEYS}


def test_the_sample_cases_are_the_library_on_the_stream_order():
    cases = exercises.REGISTRY["10.samples_with_document"].make_cases()
    for case in cases:
        lengths, seq_len, k = case.args
        index = gpt_samples.build_sample_index(np.array(lengths), np.arange(len(lengths)), seq_len)
        assert case.expected == gpt_samples.samples_of_document(index, k).tolist()
    # some document is reached only by the last target of a sample: the case the wrong answer misses
    wrong = ch10.WRONG_ANSWERS["samples_with_document"]
    assert any(wrong(*case.args) != case.expected for case in cases)

