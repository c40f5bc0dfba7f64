"""Root cause 4 in the packing strategies: a set or a dict has no order (a set no repeats either), so documents
or token lists given as one would be packed silently wrong; each is refused with a message."""

import pytest

from tutorial_lib.packing import strategies as S

ALL = list(S.STRATEGIES.values())

CASES = [
    # (case, documents, message)
    ("documents a set of lengths", {4, 4, 1}, "documents must be a list of token lists or a list of lengths, got set"),
    ("documents a frozenset", frozenset({4, 1}), "got frozenset"),
    ("documents a dict", {4: 1, 2: 7}, "got dict"),
    ("documents a dict's keys", {4: 1}.keys(), "got dict_keys"),
    ("documents a dict's values", {4: 1}.values(), "got dict_values"),
    ("a token list that is a set", [[1, 2], {5, 5, 6}],
     r"documents\[1\] must be a list of int in order, got a set, which has no order and keeps no repeats"),
    ("a token list that is a dict", [{5: 1, 6: 2}], r"documents\[0\] must be a list of int in order, got a dict"),
]


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize(("case", "documents", "message"), CASES, ids=[c[0] for c in CASES])
def test_unordered_containers_are_refused(strategy, case, documents, message):
    with pytest.raises(TypeError, match=message):
        strategy(documents, 8)


@pytest.mark.parametrize("strategy", ALL, ids=lambda f: f.__name__)
def test_the_same_documents_in_a_list_or_a_tuple_are_taken(strategy):
    assert strategy([4, 4, 1], 8).n_tokens == strategy((4, 4, 1), 8).n_tokens == 9
    assert strategy([(5, 5, 6)], 8).rows[0, :3].tolist() == [5, 5, 6]
