"""Topology spread constraints as PodTopologySpread's filter reads them, parsed once.

Upstream ``pkg/scheduler/framework/plugins/podtopologyspread/common.go``
(filterTopologySpreadConstraints) and ``pkg/registry/core/pod/strategy.go``
(applyMatchLabelKeys, merged at pod creation since v1.34's
MatchLabelKeysInPodTopologySpreadSelectorMerge). Defaults: ``minDomains`` 1,
``nodeAffinityPolicy`` Honor, ``nodeTaintsPolicy`` Ignore.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.k8s.selectors import IN, LabelSelector, label_key_requirements, parse_selector

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """topologySpreadConstraint (common.go) with the API defaults applied."""

    max_skew: int
    topology_key: str
    selector: LabelSelector
    min_domains: int = 1
    honor_node_affinity: bool = True
    honor_taints: bool = False


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def hard_constraints(
    spec: Mapping[str, Any], pod_labels: Mapping[str, str], action: str = DO_NOT_SCHEDULE
) -> tuple[SpreadConstraint, ...]:
    """filterTopologySpreadConstraints(..., DoNotSchedule): each hard constraint with its
    selector, matchLabelKeys merged as ``key In [value]`` when the pod has the key (with
    ``action`` ScheduleAnyway: the soft ones, which the score reads).

    Raises :class:`gate.k8s.selectors.SelectorError` for a selector the API refuses."""
    raw = spec.get("topologySpreadConstraints")
    found: list[SpreadConstraint] = []
    for i, item in enumerate(raw if isinstance(raw, list) else []):
        if not isinstance(item, Mapping) or item.get("whenUnsatisfiable") != action:
            continue
        extra = label_key_requirements(item.get("matchLabelKeys"), IN, pod_labels)
        where = f"topologySpreadConstraints[{i}].labelSelector"
        found.append(
            SpreadConstraint(
                max_skew=_int(item.get("maxSkew"), 1),
                topology_key=str(item.get("topologyKey") or ""),
                selector=parse_selector(item.get("labelSelector"), extra, where),
                min_domains=_int(item.get("minDomains"), 1),
                honor_node_affinity=item.get("nodeAffinityPolicy", HONOR) != IGNORE,
                honor_taints=item.get("nodeTaintsPolicy", IGNORE) == HONOR,
            )
        )
    return tuple(found)
