"""What the values the JSON report writes as they are share: the msgspec base they
derive from, and the ranges a report's numbers are checked against when read back."""

from __future__ import annotations

from typing import Annotated, TypeVar

from msgspec import Meta, Struct, UnsetType

T = TypeVar("T")
D = TypeVar("D")

Count = Annotated[int, Meta(ge=0, le=2**63 - 1)]
Line = Annotated[int, Meta(ge=1, le=2**63 - 1)]
PortNumber = Annotated[int, Meta(ge=0, le=65535)]
"""The ranges a report's numbers are checked against when a report is read back (never on
construction: a Struct built in memory is not validated)."""


def given(value: T | UnsetType, absent: D) -> T | D:
    """``value``, or ``absent`` where the report leaves the field out (``UNSET``)."""
    return absent if isinstance(value, UnsetType) else value


class Reported(Struct, frozen=True, forbid_unknown_fields=True):
    """The base of the values the JSON report writes as they are: refused on a field the
    report does not have when read back, and frozen (each subclass says so again, for type
    checkers). A subclass is named as the report's schema names the object (its title),
    so some are known in memory by an alias as well (``HostPort``, ``FieldLocation``)."""
