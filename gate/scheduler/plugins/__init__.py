"""The plugins of the default profile, one module each, and the one list of each kind.

Each module mirrors upstream ``pkg/scheduler/framework/plugins/<name>/`` and states
everything about its plugin in one :class:`~gate.scheduler.framework.runtime.Plugin` named
``PLUGIN``: its name, family, field term, SARIF rule, whether it rejects for room, its
reason strings, what it reads of the pod, its PreFilter, Filter and per-class split, and
how it explains a rejection. :data:`FILTERS` lists them in the profile's order; every
table the rest of the scheduler needs is derived here from that list, never written apart.
A score plugin is one :class:`~gate.scheduler.framework.scores.ScorePlugin` named ``SCORE`` in its
module (its name, weight, PreScore, score and normalisation); :data:`SCORES` lists them.
Adding a filter: ``docs/adding-a-filter.md``.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from gate.model import Cause, Family, FieldPath, Rule
from gate.scheduler.framework.cluster import Cluster
from gate.scheduler.framework.profile import PodProfile
from gate.scheduler.framework.runtime import CycleState, Plugin, Prepared
from gate.scheduler.framework.scores import ScorePlugin
from gate.scheduler.plugins import (
    balancedallocation,
    imagelocality,
    interpodaffinity,
    nodeaffinity,
    nodename,
    nodeports,
    noderesources,
    nodeunschedulable,
    nodevolumelimits,
    podtopologyspread,
    tainttoleration,
    volumebinding,
    volumerestrictions,
    volumezone,
)
from gate.scheduler.plugins.interpodaffinity import scoring as _interpod_scoring
from gate.scheduler.plugins.podtopologyspread import scoring as _spread_scoring

FILTERS: tuple[Plugin[Any], ...] = (
    nodeunschedulable.PLUGIN,
    nodename.PLUGIN,
    tainttoleration.PLUGIN,
    nodeaffinity.PLUGIN,
    nodeports.PLUGIN,
    noderesources.PLUGIN,
    volumerestrictions.PLUGIN,
    nodevolumelimits.PLUGIN,
    volumebinding.PLUGIN,
    volumezone.PLUGIN,
    podtopologyspread.PLUGIN,
    interpodaffinity.PLUGIN,
)
"""The filter plugins of the default profile, in its order (apis/config/v1/default_plugins.go)."""

SCORES: tuple[ScorePlugin[Any, Any], ...] = (
    tainttoleration.SCORE,
    nodeaffinity.SCORE,
    noderesources.SCORE,
    _spread_scoring.SCORE,
    _interpod_scoring.SCORE,
    balancedallocation.SCORE,
    imagelocality.SCORE,
)
"""The score plugins of the default profile with their weights, in its order
(apis/config/v1/default_plugins.go): the one list placement scores with."""

BY_NAME: dict[str, Plugin[Any]] = {plugin.name: plugin for plugin in FILTERS}
ORDER: dict[str, int] = {plugin.name: position for position, plugin in enumerate(FILTERS)}
ROOM: frozenset[str] = frozenset(plugin.name for plugin in FILTERS if plugin.room)
"""The plugins that reject a node the pod is meant for because of what already runs there
or nearby (``model.ROOM_PLUGINS``, which reports read, is held equal to it by a test)."""

FIRST_ROOM = next(i for i, plugin in enumerate(FILTERS) if plugin.room)
"""The first plugin a node's rejection for room can come from: the plugins before it read
only what a node's pods leave alone (its labels, taints, name, cordon)."""

RULES: tuple[Rule, ...] = tuple(
    sorted({p.family: p.rule for p in FILTERS}.values(), key=lambda r: list(Family).index(r.family))
)
"""The code-scanning rules of the plugins' families, in the families' order."""


def prepare(pod: PodProfile, cluster: Cluster) -> CycleState:
    """Every plugin's PreFilter for one pod, once."""
    return tuple(Prepared(plugin, plugin.prepare(pod, cluster)) for plugin in FILTERS)


def field_paths(spec: Mapping[str, Any], cause: Cause) -> list[FieldPath]:
    """The fields of pod spec ``spec`` that ``cause`` points at, best first, as the plugin
    that gave it says."""
    return BY_NAME[cause.plugin].fields(spec, cause)


def scheduling_key(pod: PodProfile, cluster: Cluster) -> Hashable | None:
    """Everything the plugins read of ``pod``: pods with equal keys get equal answers. None
    when some part cannot be hashed."""
    key = tuple(plugin.key(pod, cluster) for plugin in FILTERS)
    try:
        hash(key)
    except TypeError:
        return None
    return key
