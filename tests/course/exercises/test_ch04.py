"""Chapter 04 checkers, beyond what test_exercises.py checks for every exercise (reference passes,
typical wrong answer fails, stub is 未完成): the cases hold what the wrong answers get wrong."""

import pytest

from solutions import ch04
from tutorial_course import exercises
from tutorial_course.exercises import check
from tutorial_course.exercises.ch04 import _REAL_CURVES, ExactInt, _items
from tutorial_lib.bpe import embedding, vocab_size

KEYS = ["04.compression_curve", "04.embedding_bytes", "04.first_merges", "04.utilization",
        "04.vocab_size"]


def test_chapter_04_registers_exactly_these_exercises():
    assert sorted(k for k in exercises.REGISTRY if k.startswith("04.")) == KEYS


@pytest.mark.parametrize("key, wrong", [
    ("04.compression_curve", ch04.compression_curve_chars),  # a Chinese character is 3 bytes
    ("04.compression_curve", ch04.compression_curve_mean_of_texts),
    ("04.compression_curve", ch04.compression_curve_by_id),  # special tokens sit at 256
    ("04.compression_curve", ch04.compression_curve_k_from_256),
    ("04.compression_curve", ch04.compression_curve_gpt2_pattern),
    ("04.vocab_size", ch04.vocab_size_without_eow),
    ("04.first_merges", ch04.first_merges_by_id),  # special tokens sit at 256
    ("04.first_merges", ch04.first_merges_last_k),
    ("04.embedding_bytes", ch04.embedding_bytes_one_matrix),
    ("04.embedding_bytes", ch04.embedding_bytes_tied_twice),
    ("04.embedding_bytes", ch04.embedding_bytes_unpadded),
    ("04.utilization", ch04.utilization_over_tokens),  # "分母是词表大小，不是 token 数"
])
def test_other_usual_mistakes_fail(key, wrong):
    feedback = check(key, wrong)
    assert feedback.verdict == "未通过" and "输入：" in feedback.message


def test_a_float_is_not_an_int_of_bytes():
    """The hole the issue found: a float of the right value passed where an int is asked."""
    feedback = check("04.embedding_bytes", ch04.embedding_bytes_float)
    assert feedback.verdict == "未通过"
    assert "类型不对：期望 int，你返回了 float64" in feedback.message
    as_python_float = check("04.embedding_bytes",
                            lambda *args: float(ch04.embedding_bytes(*args)))
    assert "类型不对：期望 int，你返回了 float" in as_python_float.message


def test_a_float_is_not_a_vocabulary_size_either():
    feedback = check("04.vocab_size", lambda *args: float(ch04.vocab_size(*args)))
    assert feedback.verdict == "未通过" and "期望 int" in feedback.message


@pytest.mark.parametrize("got, right", [(6, True), (6.0, False), (True, False), (5, False),
                                        ("6", False), (None, False)])
def test_an_exact_int_takes_only_an_int_of_its_value(got, right):
    import numpy as np

    assert exercises.same_value(got, ExactInt(6)) is right
    assert exercises.same_value(np.int64(6), ExactInt(6))
    assert exercises.same_value(ExactInt(6), ExactInt(6))
    assert exercises.show(ExactInt(6)) == "6"


def test_bytes_cases_pad_and_hold_a_multiple_as_it_is():
    cases = exercises.REGISTRY["04.embedding_bytes"].make_cases()
    padded = [c for c in cases if embedding.padded_vocab_size(c.args[0], c.args[4]) != c.args[0]]
    exact = [c for c in cases if c.args[4] > 1 and c.args[0] % c.args[4] == 0]
    assert padded and exact and any(not c.args[2] for c in padded)


def test_first_merges_cases_are_separate_runs_equal_to_the_library_cut():
    """The expected vocabularies come from separate training runs; the prefix property says they
    are the library's cut of the long run, and the cases cover special tokens and k = 0."""
    from tutorial_lib.bpe.tokenizer import Tokenizer

    cases = exercises.REGISTRY["04.first_merges"].make_cases()
    for case in cases:
        vocab, merges, k = case.args
        specials = [t.decode() for i, t in vocab.items() if 256 <= i and len(t) > 1
                    and t not in {a + b for a, b in merges}]
        long_run = Tokenizer(vocab, merges, specials, "gpt4")
        assert vocab_size.first_merges(long_run, k).vocab == case.expected
    assert any(case.args[2] == 0 for case in cases)
    assert any(len(case.expected) > 256 + case.args[2] for case in cases), "a special token"
    assert any(len(case.args[0]) > 500 for case in cases), "a real corpus"


def test_compression_curve_cases_hold_what_each_mistake_gets_wrong():
    """Sizes below the largest (one tokenizer for all), Chinese text (characters), texts whose own
    ratios differ (a mean of ratios), a special token at 256 (a cut by id, k = size - 256), sizes
    out of order, and the two real corpora."""
    cases = exercises.REGISTRY["04.compression_curve"].make_cases()
    assert all(min(c.args[2]) < len(c.args[0]) for c in cases)
    assert any(sum(map(len, c.args[3])) < sum(len(t.encode()) for t in c.args[3]) for c in cases)
    assert any(ch04.compression_curve_mean_of_texts(*c.args) != c.expected for c in cases)
    assert any(len(c.args[0]) > 256 + len(c.args[1]) for c in cases), "a special token"
    assert any(c.args[2] != sorted(c.args[2]) for c in cases)
    assert sum(len(c.args[0]) > 500 for c in cases) == len(_REAL_CURVES)


@pytest.mark.parametrize("seed", [None, 3])
def test_a_curve_cut_from_one_run_is_the_curve_of_separate_runs(seed):
    """The prefix property behind the exercise, on the real cases: the texts are the items right
    after the run's training slice, and each size's expected value is what a run trained for that
    size alone measures on them."""
    from tutorial_lib.bpe.trainer import train_tokenizer
    from tutorial_lib.text import measure

    cases = [c for c in exercises.REGISTRY["04.compression_curve"].make_cases(seed)
             if len(c.args[0]) > 500]
    for case, (name, specials, n, m) in zip(cases, _REAL_CURVES):
        vocab, merges, sizes, texts = case.args
        items = _items(name)
        start = next(s for s in range(len(items)) if items[s + n:s + n + m] == texts)
        assert [t.decode() for i, t in vocab.items() if 256 <= i < 256 + len(specials)] == list(
            specials)
        for size, expected in zip(sizes, case.expected):
            alone = train_tokenizer(items[start:start + n], size, special_tokens=specials,
                                    pattern="gpt4")
            assert measure.compression(alone.encode_ordinary, texts).bytes_per_token == expected
