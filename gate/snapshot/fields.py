"""Typed reads of the objects a snapshot keeps whole (the autoscalers'), shared by their
readers: a value that cannot be read is one line naming the object and the field."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.errors import SnapshotError


class Fields:
    """Typed reads of a decoded object, each failure one line naming the object
    (``where``) and the field's dotted path."""

    where: str

    def fail(self, path: str, why: str) -> SnapshotError:
        return SnapshotError(f"{self.where}: {path}: {why}")

    def mapping(self, value: object, path: str) -> Mapping[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(path, "not a mapping")
        return value
