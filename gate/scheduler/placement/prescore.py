"""What the score plugins read of one workload's pod, worked out once (their PreScore).

Each score plugin's record (``gate.scheduler.plugins.SCORES``) works out its part of
:class:`gate.scheduler.placement.copies.ScoreRules`: the non-zero and the written cpu and memory
requests (NodeResourcesFit, BalancedAllocation), the PreferNoSchedule tolerations
(TaintToleration), the preferred node affinity terms (NodeAffinity), the scoring spread
constraints with the matching pods they count (PodTopologySpread) and the preferred pod
(anti-)affinity terms with the pods they match (InterPodAffinity).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from gate.scheduler.framework.nodeindex import NodeIndex
from gate.scheduler.framework.podindex import PodIndex
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.scores import Earlier, Incoming, Workload
from gate.scheduler.placement.copies import ScoreRules
from gate.scheduler.plugins import SCORES


class PreScoreFailed(ValueError):
    """A PreScore plugin failed for the pod: its scheduling cycle fails wherever scores
    run, the pod left Pending with the message (the argument)."""


def prescore_error(profile: PodProfile) -> str | None:
    """Why the score plugins' PreScore fails for the pod, in RunPreScorePlugins' words
    (framework/runtime/framework.go): the first plugin to fail, in the profile's order;
    None when none does."""
    for plugin in SCORES:
        failed = None if plugin.fails is None else plugin.fails(profile)
        if failed is not None:
            return f'running PreScore plugin "{plugin.name}": {failed}'
    return None


def score_rules(
    kind: str,
    profile: PodProfile,
    nodes: NodeIndex,
    pods: PodIndex,
    namespaces: Mapping[str, Mapping[str, str]] | None = None,
) -> ScoreRules:
    """The score plugins' inputs for the pod of a workload of ``kind`` (module doc).
    Raises SelectorError on template labels that cannot be read as the default spread
    selector, or on a ScheduleAnyway constraint's selector the API server refuses."""
    workload = Workload(kind, profile, nodes, pods, namespaces)
    parts = {
        plugin.part: plugin.prescore(workload)
        for plugin in SCORES
        if plugin.part is not None and plugin.prescore is not None
    }
    own = None if namespaces is None else namespaces.get(profile.namespace, {})
    return ScoreRules(**parts, incoming=Incoming(profile.namespace, profile.labels, own))


def scores_beside(scores: ScoreRules, namespace: str, earlier: Earlier) -> ScoreRules:
    """``scores`` of a pod of ``namespace`` with the run's earlier copies counted where a
    PreScore reads the snapshot's pods (each plugin's ``beside``)."""
    incoming = scores.incoming or Incoming(namespace)
    changed = {
        plugin.part: plugin.beside(getattr(scores, plugin.part), incoming, earlier)
        for plugin in SCORES
        if plugin.part is not None and plugin.beside is not None
    }
    return replace(scores, **changed)
