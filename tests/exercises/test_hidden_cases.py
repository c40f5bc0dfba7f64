"""Hidden cases: `Exercise.cases(seed)` and `check(..., seed=...)`.

The public cases (seed None) are the ones every notebook output and test was made with, so they
must not change at all: PUBLIC_DIGESTS holds the SHA-256 (first 16 hex digits) of repr(cases) of
every exercise, computed once by running the code as it was before seeds existed (commit a92c401,
numpy printing whole arrays), under PYTHONHASHSEED 0 and 123 alike. An int seed draws other cases,
so a function that only knows the public answers fails.
"""

import ast
import hashlib
import importlib
import sys

import numpy as np
import pytest

from tutorial_course import exercises
from tutorial_course.exercises import check

KEYS = sorted(exercises.REGISTRY)
SEEDS = (1, 2, 3)

PUBLIC_DIGESTS = {
    "00.utf8_length": "c88bc6c16c0c3167",
    "01.build_vocab": "70a7337a2ebab391",
    "01.clean_line": "8a6f65fe3becccfa",
    "01.oov_rate": "70778daccd3d5229",
    "02.count_pairs": "581664ce9f4b9693",
    "02.encode_word": "28632028a400b201",
    "02.merge_pair": "1ab9a49617b146e0",
    "02.train": "935f031f070e47a5",
    "03.bytes_per_token": "030adc30af6bba34",
    "03.chars_for_coverage": "534188d4e2da2d0a",
    "03.count_cut_characters": "84686be9958a559d",
    "04.embedding_bytes": "8df8534e8417e348",
    "04.first_merges": "908d8e8da933f119",
    "04.utilization": "81c0028f440ade36",
    "04.vocab_size": "6eb2231190e5ecf2",
    "05.decode": "754bd4fa82bcc0a3",
    "05.encode": "7400dd009bfea8e9",
    "05.encode_with_ranks": "fcce97e30471c097",
    "05.train": "290f51737545765c",
    "06.pop_best": "90bf7f75e05a69f7",
    "06.train_incremental": "f4b3c484226b861f",
    "06.update_pair_counts": "b23839817b18ce29",
    "07.attention_mask": "7777bf17220419e5",
    "07.bucketed_batches": "f3fe889870ed36ae",
    "07.labels": "3e7b71005e0e24d9",
    "07.pad": "81dfa4d95ce1cc07",
    "07.padding_share": "98343fe893613e71",
    "08.bestfit_crop_rows": "c7157c252b1cee45",
    "08.bfd_rows": "a13a30af9eed6125",
    "08.ffd_rows": "4e30d61040219cba",
    "08.greedy_rows": "20bf570f140e245f",
    "08.pad_utilization": "680b5fc39e322188",
    "09.cu_seqlens": "bc797d70548c238b",
    "09.document_mask": "a116aadb3347a891",
    "09.next_token_labels": "6ae225e2c795961f",
    "09.position_ids": "5f84001e1c34f115",
    "09.same_as_alone": "3bde9d34b28a0e08",
    "10.idx_bytes": "7119489679d574fd",
    "10.parse_header": "c8f56d8ff25885e1",
    "10.sample_index": "129362947d926f2d",
    "10.samples_with_document": "8d9e85a7fb17df75",
    "10.sequence_offset": "9cb09281728f985d",
    "11.encode_word": "be6e3bf619291091",
    "11.expected_counts": "5020e4dac5edb708",
    "11.viterbi": "dd34c17b91fd6def",
    "11.wordpiece_score": "c56d41ca0c733156",
    "12.bits_per_byte": "df9289b01d5db632",
    "12.premium_summary": "c575e7afa3dc4dc9",
    "12.token_script": "cc292826d35309ee",
    "13.golden_vector": "ef60d906519e1ffb",
    "13.invariant_failures": "83d4f302b74db9a5",
    "13.token_offsets": "7722f722c6e0b048",
}


def digest(cases) -> str:
    with np.printoptions(threshold=sys.maxsize):
        return hashlib.sha256(repr(cases).encode()).hexdigest()[:16]


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


def hard_coded(key: str):
    """A "solution" that looks its input up among the public cases and returns their answer, as a
    learner would type it (a plain int for ch04's ExactInt, a list for ch09's _Bools)."""
    table = {repr(case.args): plain(case.expected) for case in exercises.REGISTRY[key].cases()}

    def answer(*args):
        return table[repr(args)]  # a KeyError for an input it has not seen
    return answer


def test_every_exercise_has_a_recorded_digest():
    assert sorted(PUBLIC_DIGESTS) == KEYS


@pytest.mark.parametrize("key", KEYS)
def test_public_cases_are_the_ones_from_before_seeds(key):
    exercise = exercises.REGISTRY[key]
    assert digest(exercise.cases()) == PUBLIC_DIGESTS[key]
    assert digest(exercise.cases(None)) == digest(exercise.make_cases()) == PUBLIC_DIGESTS[key]


@pytest.mark.parametrize("key", KEYS)
def test_a_seed_draws_other_cases_and_the_same_ones_again(key):
    exercise = exercises.REGISTRY[key]
    public = digest(exercise.cases())
    drawn = [digest(exercise.cases(seed)) for seed in SEEDS]
    assert public not in drawn
    assert len(set(drawn)) == len(SEEDS), "each seed its own draw"
    assert digest(exercise.cases(SEEDS[0])) == drawn[0], "a seed always gives the same cases"


@pytest.mark.parametrize("key", KEYS)
def test_reference_passes_and_the_typical_wrong_answer_fails_hidden_cases(key):
    wrong = solutions(key).WRONG_ANSWERS[exercises.REGISTRY[key].function_name]
    for seed in SEEDS:
        feedback = check(key, reference(key), seed=seed)
        assert feedback.passed, (seed, feedback.message)
        assert check(key, wrong, seed=seed).verdict == "未通过", seed


@pytest.mark.parametrize("key", KEYS)
def test_a_hard_coded_answer_passes_the_public_cases_only(key):
    answer = hard_coded(key)
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
