"""The PodDisruptionBudgets a snapshot recorded, as preemption weighs them.

Kept read-only: each budget's namespace, name, ``spec.selector`` as written,
``status.disruptionsAllowed`` and the pod names in ``status.disruptedPods``
(default_preemption.go ``filterPodsWithPDBViolation`` reads nothing else of one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gate.model import DisruptionBudget

DISRUPTION_KIND = "PodDisruptionBudget"
DISRUPTION_SECTIONS: Mapping[str, str] = {"podDisruptionBudgets": DISRUPTION_KIND}
"""The array ``fitgate snapshot`` adds when it may list PodDisruptionBudgets: read whole,
as the admission objects are."""


def disruption_budgets(items: Iterable[Any]) -> tuple[DisruptionBudget, ...]:
    """The budgets among ``items`` (plain objects), in their order; anything not shaped
    like one (no name, a selector that is no object) is passed over, as the scheduler's
    lister would never hold it."""
    found = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        metadata, spec, status = (_part(item, key) for key in ("metadata", "spec", "status"))
        name, namespace = metadata.get("name"), metadata.get("namespace") or "default"
        selector = spec.get("selector")
        allowed = status.get("disruptionsAllowed", 0)
        if not isinstance(name, str) or not isinstance(namespace, str):
            continue
        if selector is not None and not isinstance(selector, Mapping):
            continue
        disrupted = status.get("disruptedPods")
        found.append(
            DisruptionBudget(
                namespace=namespace,
                name=name,
                selector=selector,
                allowed=allowed
                if isinstance(allowed, int) and not isinstance(allowed, bool)
                else 0,
                disrupted=frozenset(disrupted) if isinstance(disrupted, Mapping) else frozenset(),
            )
        )
    return tuple(found)


def _part(item: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = item.get(key)
    return value if isinstance(value, Mapping) else {}
