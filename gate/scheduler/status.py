"""A plugin's "no" for one node: its status code and reason (framework/interface.go).

kube-scheduler distinguishes ``Unschedulable`` (preemption might help) from
``UnschedulableAndUnresolvable`` (it cannot); the FitError text shows only the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.model import Code

UNSCHEDULABLE: str = Code.UNSCHEDULABLE
UNRESOLVABLE: str = Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@dataclass(frozen=True, slots=True)
class Failure:
    """One plugin's rejection of one node: ``plugin``, status ``code`` and ``reason``."""

    plugin: str
    code: str
    reason: str
