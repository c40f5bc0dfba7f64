"""The trees behind first fit and best fit: the leftmost slot holding at least n, and which row each
fit hands out, against a plain scan."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tutorial_lib.packing.fit_trees import BestFit, FirstFit, MaxTree


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 30)), max_size=40), st.integers(0, 31))
def test_leftmost_is_the_first_slot_holding_enough(updates, at_least):
    tree, values = MaxTree(21), [0] * 21
    for slot, value in updates:
        tree.set(slot, value)
        values[slot] = value
        expected = next((i for i, v in enumerate(values) if v >= at_least), -1)
        assert tree.leftmost(at_least) == expected


def test_first_fit_takes_the_oldest_row_with_room():
    rows = FirstFit(width=10, n_items=4)
    for row, room in enumerate([2, 7, 5]):
        rows.put(row, room)
    assert [rows.take(n) for n in (1, 3, 6, 8)] == [0, 1, 1, -1]  # take looks, put changes


def test_best_fit_takes_the_tightest_room_and_the_oldest_among_equals():
    rows = BestFit(width=10, n_items=4)
    for row, room in enumerate([7, 4, 4, 9]):
        rows.put(row, room)
    assert rows.take(3) == 1  # rooms 4, 4: the older row
    assert rows.take(3) == 2  # the other row with room 4
    assert rows.take(3) == 0  # then room 7
    assert rows.take(10) == -1
    rows.put(4, 0)  # a full row is forgotten
    assert rows.take(1) == 3
