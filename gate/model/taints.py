"""A node's taint: a value of its own so that :mod:`gate.model` and
:mod:`gate.model.autoscaling` both hold it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str
    effect: str

    def braced(self) -> str:
        """The ``{KEY: VALUE}`` form kube-scheduler printed through v1.34.1."""
        return f"{{{self.key}: {self.value}}}"

    def __str__(self) -> str:
        return (
            f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"
        )
