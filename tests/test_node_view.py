"""``UnfrozenNode(...).frozen()`` builds the same frozen :class:`NodeView` the dataclass's
own constructor builds, for any fields; and it knows every field the dataclass has."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.model import NodeView, Port, Taint
from gate.model.cluster import UnfrozenNode

names = st.text(max_size=8)
pair = st.none() | st.tuples(st.integers(), st.integers())
fields = st.tuples(
    names,
    st.dictionaries(names, names, max_size=3),
    st.tuples(st.builds(Taint, names, names, st.sampled_from(["NoSchedule", "NoExecute"]))),
    st.booleans(),
    st.dictionaries(names, st.integers(), max_size=3),
    st.dictionaries(names, st.integers(), max_size=3),
    st.integers(0, 110),
    st.frozensets(st.builds(Port, st.integers(0, 65535), st.sampled_from(["TCP", "UDP"]), names)),
    pair,
    pair,
    st.none() | names,
)


@given(fields)
def test_a_built_node_is_the_dataclass_s_own(values: tuple[Any, ...]) -> None:
    built, constructed = UnfrozenNode(*values).frozen(), NodeView(*values)
    assert type(built) is NodeView
    assert built == constructed
    assert repr(built) == repr(constructed)
    assert dataclasses.astuple(built) == dataclasses.astuple(constructed)


def test_a_built_node_is_frozen() -> None:
    node = UnfrozenNode("n1", {}, (), False, {}, {}, 0, frozenset(), None, None, None).frozen()
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.name = "n2"  # type: ignore[misc]
    assert dataclasses.replace(node, name="n2").name == "n2"


def test_the_builder_has_every_field_of_the_dataclass() -> None:
    # The interpreter lays slots out by name, so their order is no matter; their names are.
    assert sorted(UnfrozenNode.__slots__) == sorted(f.name for f in dataclasses.fields(NodeView))
