"""The default profile's score plugins, one record each (apis/config/v1/default_plugins.go
v1.34: their order and weights), and what a record's kind of score promises."""

from __future__ import annotations

from typing import Any

import pytest

from gate.model import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
)
from gate.scheduler.framework.scores import ScorePlugin
from gate.scheduler.placement.copyrules import ScoreRules
from gate.scheduler.plugins import SCORES

DEFAULT_PROFILE = [
    (TAINT_TOLERATION, 3),
    (NODE_AFFINITY, 2),
    (NODE_RESOURCES_FIT, 1),
    (POD_TOPOLOGY_SPREAD, 2),
    (INTER_POD_AFFINITY, 2),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
]


def test_the_score_plugins_are_the_default_profiles_in_its_order_with_its_weights() -> None:
    assert [(plugin.name, plugin.weight) for plugin in SCORES] == DEFAULT_PROFILE


@pytest.mark.parametrize("plugin", SCORES, ids=lambda p: f"{p.name} scores one way")
def test_a_record_scores_one_way(plugin: ScorePlugin[Any, Any]) -> None:
    kinds = [
        plugin.node is not None,
        plugin.own is not None,
        plugin.score is not None,
    ]
    assert kinds.count(True) == 1


@pytest.mark.parametrize("plugin", SCORES, ids=lambda p: f"{p.name} keeps its PreScore apart")
def test_a_records_prescore_has_a_field_of_its_own(plugin: ScorePlugin[Any, Any]) -> None:
    part = plugin.part
    assert (part is None) == (plugin.prescore is None)
    if part is not None:
        assert part in ScoreRules.__dataclass_fields__
        assert [p.part for p in SCORES].count(part) == 1


@pytest.mark.parametrize(
    "plugin",
    [p for p in SCORES if p.own is not None],
    ids=lambda p: f"{p.name}, a node's own score, is never normalised",
)
def test_a_nodes_own_score_is_not_normalised(plugin: ScorePlugin[Any, Any]) -> None:
    # classes.GroupedRun lets a node's own scores decide inside a group: only sound while
    # nothing normalises them over the feasible nodes.
    assert plugin.normalize is None
