"""``UnfrozenPod(...).frozen()`` builds the same frozen :class:`ExistingPod` the dataclass's own
constructor builds, for any fields; and it knows every field the dataclass has, so a field
added to one and not the other fails here rather than building pods without it."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.model import ExistingPod, Port, UnfrozenPod

names = st.text(max_size=8)
terms = st.tuples(st.dictionaries(names, names, max_size=2))
fields = st.tuples(
    names,
    names,
    names,
    st.dictionaries(names, names, max_size=3),
    st.tuples(st.tuples(names, names)),
    st.booleans(),
    terms,
    terms,
    st.dictionaries(names, st.integers(), max_size=3),
    st.tuples(st.builds(Port, st.integers(0, 65535), st.sampled_from(["TCP", "UDP"]), names)),
    st.none() | st.tuples(st.integers(), st.integers()),
    st.integers(),
    st.none() | names,
)


@given(fields)
def test_a_built_pod_is_the_dataclass_s_own(values: tuple[Any, ...]) -> None:
    built, constructed = UnfrozenPod(*values).frozen(), ExistingPod(*values)
    assert type(built) is ExistingPod
    assert built == constructed
    assert repr(built) == repr(constructed)
    assert dataclasses.astuple(built) == dataclasses.astuple(constructed)


def test_a_built_pod_is_frozen() -> None:
    pod = UnfrozenPod("ns", "a", "n1", {}, (), False, (), (), {}, (), None, 0, None).frozen()
    with pytest.raises(dataclasses.FrozenInstanceError):
        pod.name = "b"  # type: ignore[misc]
    assert dataclasses.replace(pod, name="b").name == "b"


def test_the_builder_has_every_field_of_the_dataclass() -> None:
    # The interpreter lays slots out by name, so their order is no matter; their names are.
    assert sorted(UnfrozenPod.__slots__) == sorted(f.name for f in dataclasses.fields(ExistingPod))
