"""Chapter 05 checkers: the reference solutions pass, the typical mistakes fail, and the stubs are 未完成."""

import pytest

from solutions import ch05
from tutorial_lib.exercises import REGISTRY, check

KEYS = ["05.train", "05.encode", "05.decode", "05.encode_with_ranks"]


@pytest.mark.parametrize("key", KEYS)
def test_reference_passes_and_typical_mistake_fails(key):
    name = key.split(".", 1)[1]
    assert check(key, getattr(ch05, name)).verdict == "通过"
    assert check(key, ch05.WRONG_ANSWERS[name]).verdict == "未通过"


@pytest.mark.parametrize("key", KEYS)
def test_the_stub_is_not_done(key):
    def stub(first, second):
        raise NotImplementedError

    assert check(key, stub).verdict == "未完成"


def test_the_ranks_case_shows_a_short_input_and_tiktokens_ids():
    message = check("05.encode_with_ranks", ch05.WRONG_ANSWERS["encode_with_ranks"]).message
    assert "<cl100k 的 100256 个 mergeable ranks>" in message and "期望" in message


def test_the_ranks_cases_cover_twenty_texts_and_skip_the_unicode_version_gap():
    texts = [case.args[0] for case in REGISTRY["05.encode_with_ranks"].make_cases()]
    assert len(texts) == 20 and not any("\u0c5c" in text for text in texts)


def test_ties_are_broken_by_bytes_not_by_first_sight():
    """The textbook toy: after "lo" + "w", several pairs tie; the first-seen rule picks another one."""
    text = "low low low low low lower lower newest newest newest widest widest"
    assert ch05.train(text, 266) != ch05.train_first_seen(text, 266)
