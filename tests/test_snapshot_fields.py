"""Typed reads of the objects a snapshot keeps whole (gate.snapshot.fields): a value that
cannot be read is one line naming the object and the field."""

from __future__ import annotations

from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.snapshot.fields import Fields


class _Pool(Fields):
    where = 'NodePool "default"'


READ: list[tuple[str, Any, dict[str, Any]]] = [
    ("a mapping is read as it is", {"a": 1}, {"a": 1}),
    ("a null is an empty mapping, as an absent field", None, {}),
    ("an empty mapping stays empty", {}, {}),
]


@pytest.mark.parametrize(("value", "expected"), [c[1:] for c in READ], ids=[c[0] for c in READ])
def test_mapping(value: Any, expected: dict[str, Any]) -> None:
    assert _Pool().mapping(value, "spec.limits") == expected


@pytest.mark.parametrize(
    "value", [[], "x", 0, False], ids=["a list", "a string", "a number", "a boolean"]
)
def test_anything_else_is_one_line_naming_the_object_and_the_field(value: Any) -> None:
    with pytest.raises(SnapshotError) as raised:
        _Pool().mapping(value, "spec.limits")
    assert str(raised.value) == 'NodePool "default": spec.limits: not a mapping'


def test_a_failure_is_a_snapshot_error_naming_where_and_why() -> None:
    error = _Pool().fail("spec.weight", "not an integer: 'x'")
    assert (type(error), str(error)) == (
        SnapshotError,
        "NodePool \"default\": spec.weight: not an integer: 'x'",
    )
