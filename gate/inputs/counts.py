"""A replica-like field as the API server means it: an int32 that is not negative.

Every count a workload's pods are read from (a Deployment's ``replicas``, a Job's
``parallelism`` and ``completions``, an HPA's ``minReplicas`` and ``maxReplicas``, a KEDA
ScaledObject's ``minReplicaCount`` and ``maxReplicaCount``, a custom kind's replica fields)
is an ``int32`` in its Go type, and the apps and batch validations refuse a negative one
(pkg/apis/apps/validation/validation.go and pkg/apis/batch/validation/validation.go,
``ValidateNonnegativeField``). The value is what YAML 1.1 reads (PyYAML's safe loader, as
the manifests are read): ``1000.0`` is a float, ``1e+06`` and ``0X3E8`` are strings (YAML 1.1
wants a dot in a float and a lower-case ``0x``), ``true`` is a boolean. None of them is a
count, and a workload that gives one is an ERROR naming the field and the value, never a
guess at what was meant; a negative integer in a field the API server validates (a built-in
kind's) is refused in its words (``ValidateNonnegativeField``).

>>> count_or_problem(3, ("spec", "replicas"))
3
>>> print(count_or_problem("2", ("spec", "replicas")))
spec.replicas: expected an integer from 0 to 2147483647, not "2" (a string)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass

from gate.k8s.quantity import NEGATIVE
from gate.model import FieldPath

INT32_MAX = 2**31 - 1
"""The largest value of an ``int32`` field."""
INT32_MIN = -(2**31)

_DIGITS = re.compile(r"[0-9]+")
_SHOWN = 40


@dataclass(frozen=True, slots=True)
class BadCount:
    """A replica-like field whose value is no count: where it is (from the document's root)
    and what it holds."""

    path: FieldPath
    """From the document's root: ``("spec", "replicatedJobs", 0, "replicas")``."""
    value: object
    as_text: bool = False
    """The field is text by type (an annotation, such as Knative's ``min-scale``): its
    digits are the count."""
    validated: bool = False
    """The API server validates the field (a built-in kind's replicas, a Job's
    parallelism and completions): a negative integer is refused in its words."""

    @property
    def field(self) -> str:
        """``spec.replicatedJobs[0].replicas``."""
        text = ""
        for step in self.path:
            text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
        return text

    def __str__(self) -> str:
        if self.validated and _negative_int32(self.value):
            return f"{self.field}: Invalid value: {self.value}: {NEGATIVE}"
        expected = f"an integer from 0 to {INT32_MAX}" + (" as text" if self.as_text else "")
        return f"{self.field}: expected {expected}, not {shown(self.value)}{_kind(self.value)}"


def shown(value: object) -> str:
    """The value as a manifest would write it (JSON's spelling), at most 40 characters."""
    try:
        text = json.dumps(value, ensure_ascii=False, default=str)
    except ValueError:  # an integer of more digits than Python prints
        return "a very large integer"
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def _negative_int32(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and INT32_MIN <= value < 0


def _kind(value: object) -> str:
    if isinstance(value, bool):
        return " (a boolean)"
    if isinstance(value, float):
        return " (a float)"
    if isinstance(value, str):
        return " (a string)"
    if isinstance(value, list):
        return " (a list)"
    if isinstance(value, Mapping):
        return " (a mapping)"
    return ""


def count_or_problem(
    value: object, path: FieldPath, *, as_text: bool = False, validated: bool = False
) -> int | BadCount:
    """``value`` as a count, or why it is none. A field that is text by type (``as_text``)
    holds its digits, and only them (an annotation that is a number is refused too);
    ``validated``: see :attr:`BadCount.validated`."""
    if as_text:
        digits = value.strip() if isinstance(value, str) else ""
        if _DIGITS.fullmatch(digits) and len(digits) <= len(str(INT32_MAX)):
            number = int(digits)
            if number <= INT32_MAX:
                return number
    elif isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT32_MAX:
        return value
    return BadCount(path, value, as_text, validated)


def read_count(
    holder: object,
    path: FieldPath,
    default: int,
    *,
    where: FieldPath = (),
    as_text: bool = False,
    validated: bool = False,
) -> int | BadCount:
    """The count at ``path`` under ``holder`` (``default`` when absent or null); ``where``
    is the holder's own path from the document's root, for the message."""
    value = holder
    for step in path:
        value = value.get(step) if isinstance(value, Mapping) else None
    if value is None:
        return default
    return count_or_problem(value, (*where, *path), as_text=as_text, validated=validated)
