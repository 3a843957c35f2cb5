"""The node index's thresholds (``short_of``, ``smaller_than``, ``largest_free``) answer as
a walk over the nodes would, for any amounts: a prefix's bitset kept only at every few
lengths is made up the same whatever its length (``nodeindex._STRIDE``)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from gate.scheduler.framework.nodeindex import _STRIDE, _Threshold

amounts = st.lists(st.integers(0, 40), max_size=3 * _STRIDE + 5)


@given(amounts, st.integers(-1, 42))
@example([], 0)
@example(list(range(2 * _STRIDE, 0, -1)), _STRIDE + 1)
def test_the_nodes_below_an_amount_are_those_a_walk_finds(found: list[int], wanted: int) -> None:
    walked = sum(1 << i for i, amount in enumerate(found) if amount < wanted)
    assert _Threshold.of(found).below(wanted) == walked


@given(amounts)
def test_every_prefix_is_the_nodes_with_the_smallest_amounts(found: list[int]) -> None:
    threshold = _Threshold.of(found)
    for count in range(len(found) + 1):
        expected = sum(1 << i for i in threshold.order[:count])
        assert threshold.prefix(count) == expected
        assert sorted(found[i] for i in threshold.order[:count]) == sorted(found)[:count]
