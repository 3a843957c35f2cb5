"""Outcome tuples gathered from bitsets equal the naive per-node construction."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from gate.model import Code, NodeOutcome, NodeOutcomes, NodeView, Taint
from gate.scheduler.engine.outcomes import OutcomeTables
from gate.scheduler.framework.runtime import Rejection


def nodes(count: int) -> tuple[NodeView, ...]:
    return tuple(NodeView(f"n{i}", {}, (), False, {}, {}, 0, frozenset()) for i in range(count))


def naive(count: int, groups: dict[Rejection, int]) -> tuple[NodeOutcome, ...]:
    built = []
    for index in range(count):
        rejection = next((r for r, bits in groups.items() if bits >> index & 1), None)
        if rejection is None:
            built.append(NodeOutcome(f"n{index}", ()))
        else:
            r = rejection
            built.append(NodeOutcome(f"n{index}", r.reasons, r.taint, r.plugin, r.code))
    return tuple(built)


def rejection(number: int) -> Rejection:
    taint = Taint(f"k{number}", "v", "NoSchedule") if number % 2 else None
    return Rejection(f"Plugin{number % 3}", Code.UNSCHEDULABLE, (f"reason {number}",), taint)


@st.composite
def workloads(draw: st.DrawFn, count: int) -> dict[Rejection, int]:
    """Disjoint groups of nodes, each with one of 300 rejections (more than a byte holds)."""
    owner = draw(st.lists(st.integers(-1, 5), min_size=count, max_size=count))
    labels = draw(st.lists(st.integers(0, 299), min_size=6, max_size=6, unique=True))
    groups: dict[Rejection, int] = {}
    for index, group in enumerate(owner):
        if group >= 0:
            key = rejection(labels[group])
            groups[key] = groups.get(key, 0) | 1 << index
    return groups


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 40).flatmap(lambda n: st.tuples(st.just(n), st.lists(workloads(n), max_size=60)))
)
def test_gathered_outcomes_equal_the_naive_ones(
    case: tuple[int, list[dict[Rejection, int]]],
) -> None:
    count, many = case
    tables = OutcomeTables(nodes(count))
    for groups in many:
        assert tables.outcomes(groups) == naive(count, groups)


def test_more_rejections_than_a_byte_numbers_still_gather_exactly() -> None:
    tables = OutcomeTables(nodes(9))
    for number in range(300):
        groups = {rejection(number): 1 << (number % 9)}
        assert tables.outcomes(groups) == naive(9, groups)
    groups = {rejection(299): 0b11, rejection(1): 0b100}
    assert tables.outcomes(groups) == naive(9, groups)
    assert tables.outcomes(dict(groups)) is tables.outcomes(groups)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 300).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.booleans(), min_size=n, max_size=n).map(
                lambda flags: sum(1 << i for i, flag in enumerate(flags) if flag)
            ),
            st.one_of(st.none(), st.integers(0, 70), st.integers(0, 300)),
        )
    )
)
@example((300, (1 << 300) - 1, 100))  # many, picked out of the expansion and cut short
@example((300, (1 << 300) - 1 ^ 1 << 7, None))  # many, every one
@example((300, 1 << 299 | 1 << 3, 80))  # few, a bit at a time
def test_the_names_of_a_set_of_nodes_are_its_bits_in_node_order_whether_few_or_many(
    case: tuple[int, int, int | None],
) -> None:
    """Read a bit at a time or picked out of the whole expansion, as many as asked."""
    count, bits, limit = case
    names = tuple(f"n{i}" for i in range(count))
    every = [name for i, name in enumerate(names) if bits >> i & 1]
    expected = tuple(every if limit is None else every[:limit])
    assert NodeOutcomes(names, ()).nodes_in(bits, limit) == expected
