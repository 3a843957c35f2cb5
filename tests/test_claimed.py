"""What a StatefulSet's copies take as its count proceeds: the node a tracked copy lands
on, the mounts a placed copy adds to its node, the volume its claim binds."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.model.storage import Mount
from gate.scheduler.engine.claimed import chosen_node
from gate.scheduler.framework.mounts import Mounting, VolumeUse

CLAIM = Mount("data", "persistentVolumeClaim", "data-db-0")


@pytest.mark.parametrize(
    ("fitting", "copies", "node"),
    [
        pytest.param(0b110, {}, 1, id="with no copy placed the first fitting node is taken"),
        pytest.param(0b110, {1: 1}, 2, id="a node holding no copy wins over one holding one"),
        pytest.param(0b111, {0: 2, 1: 1, 2: 1}, 1, id="among equals the first node wins"),
        pytest.param(0b100, {2: 5}, 2, id="the only fitting node is taken however full"),
    ],
)
def test_a_copy_lands_where_fewest_copies_are(
    fitting: int, copies: dict[int, int], node: int
) -> None:
    assert chosen_node(fitting, copies) == node


@given(st.integers(1, 2**12 - 1), st.dictionaries(st.integers(0, 11), st.integers(0, 3)))
def test_the_chosen_node_fits_and_holds_fewest(fitting: int, copies: dict[int, int]) -> None:
    node = chosen_node(fitting, copies)
    held = [copies.get(i, 0) for i in range(12) if fitting >> i & 1]
    assert fitting >> node & 1
    assert copies.get(node, 0) == min(held)


def test_a_placed_copy_adds_its_mounts_to_its_node_alone() -> None:
    base = VolumeUse((Mounting(0, 0, "db", "other", (CLAIM,)),))
    view = base.with_pods((Mounting(-1, 1, "db", "db-0", (CLAIM,)),))
    assert (view.on(0), [p.name for p in view.on(1)]) == (base.on(0), ["db-0"])
    assert view.claims_in_use[("db", "data-db-0")] == 2
    assert (base.on(1), base.claims_in_use[("db", "data-db-0")]) == ((), 1)
    assert (view.base, view.changed) == (base, frozenset({1}))
