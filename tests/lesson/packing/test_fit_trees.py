"""The trees behind first fit and best fit: the leftmost slot holding at least n, and which row each
fit hands out, against a plain scan."""

import numpy as np
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
    rows = FirstFit(np.array([1, 3, 6, 8]))
    for row, room in enumerate([2, 7, 5]):
        rows.put(row, room)
    assert [rows.take(n) for n in (1, 3, 6, 8)] == [0, 1, 1, -1]  # take looks, put changes


def test_best_fit_takes_the_tightest_room_and_the_oldest_among_equals():
    rows = BestFit(np.array([3, 10, 1, 3]))
    for row, room in enumerate([7, 4, 4, 9]):
        rows.put(row, room)
    assert rows.take(3) == 1  # rooms 4, 4: the older row
    assert rows.take(3) == 2  # the other row with room 4
    assert rows.take(3) == 0  # then room 7
    assert rows.take(10) == -1
    rows.put(4, 0)  # a full row is forgotten
    assert rows.take(1) == 3


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=8),
       st.lists(st.tuples(st.booleans(), st.integers(0, 7), st.integers(0, 40)), max_size=60))
def test_best_fit_hands_out_the_least_room_then_the_oldest_row(lengths, calls):
    """Against a plain list of open (room, row) pairs: take(n) is the least pair with room >= n."""
    rows, open_rows, next_row = BestFit(np.array(lengths)), [], 0
    for is_take, pick, room in calls:
        if is_take:
            n = lengths[pick % len(lengths)]
            fits = [pair for pair in open_rows if pair[0] >= n]
            expected = min(fits)[1] if fits else -1
            if fits:
                open_rows.remove(min(fits))
            assert rows.take(n) == expected
        else:
            rows.put(next_row, room)
            if room >= min(lengths):  # a room shorter than every length can take nothing more
                open_rows.append((room, next_row))
            next_row += 1


def test_best_fit_has_a_slot_per_distinct_length_whatever_the_room():
    """A tree over every room 0..L would hold 2**41 slots here; one over the lengths holds 2."""
    rows = BestFit(np.array([5, 2**40, 5]))
    assert len(rows.tree.tree) <= 8
    rows.put(0, 2**62)
    rows.put(1, 2**40 + 3)
    assert (rows.take(2**40), rows.take(5), rows.take(5)) == (1, 0, -1)
