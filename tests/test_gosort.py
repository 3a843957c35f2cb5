"""Go's sort.Slice written again (gate/scheduler/plugins/defaultpreemption/gosort.py):
a true order sorts as any sort does, up to twelve elements are sorted by insertion
(stable), and a ``less`` true both ways, as MoreImportantPod is of two pods that never
started, moves each element before every one it ties with."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.scheduler.plugins.defaultpreemption.gosort import sort_slice


@given(st.lists(st.integers(-50, 50), max_size=300))
def test_a_true_order_sorts_as_any_sort(values: list[int]) -> None:
    got = list(values)
    sort_slice(got, lambda a, b: a < b)
    assert got == sorted(values)


@given(st.lists(st.tuples(st.integers(0, 3), st.integers()), max_size=12))
def test_up_to_twelve_elements_keep_the_order_of_ties(pairs: list[tuple[int, int]]) -> None:
    """insertionSort_func: pdqsort_func sorts a slice of twelve or fewer by insertion."""
    got = list(pairs)
    sort_slice(got, lambda a, b: a[0] < b[0])
    assert got == sorted(pairs, key=lambda p: p[0])


TIED_EVERY_WAY = [
    pytest.param(list(range(5)), [4, 3, 2, 1, 0], id="five elements come out reversed"),
    pytest.param(list(range(12)), list(range(11, -1, -1)), id="twelve come out reversed"),
    pytest.param(
        list(range(13)),
        [11, 10, 9, 8, 7, 0, 5, 4, 3, 2, 1, 12, 6],
        # choosePivot's median of elements 3, 6 and 9 is 6 (three swaps: no hint); partition
        # swaps it to the front, finds every element less, and puts it last, element 12
        # first; the twelve before it are then sorted by insertion, so reversed
        id="thirteen are partitioned about element 6, then the first twelve reversed",
    ),
    pytest.param(
        [(1, "a"), (0, "b"), (1, "c"), (0, "d")],
        [(1, "c"), (1, "a"), (0, "d"), (0, "b")],
        id="each class of ties is reversed in place, the classes in order",
    ),
]


@pytest.mark.parametrize(("values", "expected"), TIED_EVERY_WAY)
def test_a_less_true_both_ways_moves_each_before_its_ties(
    values: list[object], expected: list[object]
) -> None:
    got = list(values)
    sort_slice(got, lambda a, b: _rank(a) >= _rank(b))
    assert got == expected


def _rank(value: object) -> int:
    return value[0] if isinstance(value, tuple) else 0


@given(st.lists(st.tuples(st.integers(0, 2), st.integers()), min_size=13, max_size=200))
def test_past_twelve_a_less_true_both_ways_still_sorts_the_classes(
    pairs: list[tuple[int, int]],
) -> None:
    """pdqsort_func with ties that are each less than the other: every element is kept,
    and the classes come out in order (within a class, as the algorithm's steps leave it)."""
    got = list(pairs)
    sort_slice(got, lambda a, b: a[0] <= b[0])
    assert sorted(got) == sorted(pairs)
    assert [p[0] for p in got] == sorted(p[0] for p in pairs)
