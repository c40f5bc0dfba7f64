"""Cases built once per process, for the tests that look at the same cases many times.

Some exercises build their cases by training a model or a tokenizer (ch11's Unigram cases, ch04's
BPE runs, ch12's bits per byte): a build costs a second or more, and a test file that checks many
functions against them built them again for every `check`. `built` gives a copy of the cases of
(key, seed), built once per process; `built_once` makes the registry's exercises build through it
while a test runs, so that `check` itself runs as it is, on the same cases. That a build gives the
same cases again, for the public cases and for a seed, is proved with fresh builds in
test_hidden_cases.py.
"""

import copy
import dataclasses
import functools

import pytest

from tutorial_course import exercises

EXERCISES = dict(exercises.REGISTRY)  # as registered: `built_once` puts others in for a test


@functools.lru_cache(maxsize=None)
def _built(key: str, seed: int | None) -> list:
    return EXERCISES[key].cases(seed)


def built_cases(key: str, seed: int | None = None) -> list:
    """A copy of `exercises.REGISTRY[key].cases(seed)`, built once in this process."""
    return copy.deepcopy(_built(key, seed))


@pytest.fixture(scope="session")
def built():
    return built_cases


@pytest.fixture
def built_once(monkeypatch):
    """Call it with exercise keys: until the test ends, those exercises build their cases (for any
    seed) through `built_cases`."""
    def use(*keys: str) -> None:
        for key in keys:
            monkeypatch.setitem(exercises.REGISTRY, key, dataclasses.replace(
                EXERCISES[key], make_cases=functools.partial(built_cases, key)))
    return use
