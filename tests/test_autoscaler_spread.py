"""Copies with topology spread constraints over per-zone groups (gate/scheduler/autoscaler/
spread.py), as cluster-autoscaler-1.34.5's binpacking estimator places them one pod at a
time, the last added node first (estimator/binpacking_estimator.go
``tryToScheduleOnNewNodes``), with the scheduler's PodTopologySpread filter
(podtopologyspread/filtering.go) seeing each copy already placed."""

from __future__ import annotations

from typing import Any

import pytest

from gate.autoscaling import AutoscalingConfig, ConfiguredGroup
from gate.scheduler.autoscaler.decision import Decision, ScaleUp
from tests.autoscaler_support import Run, spec
from tests.autoscaling_objects import status_configmap, status_group
from tests.builders import api_node

ZONE = "topology.kubernetes.io/zone"
ZONES = ("a", "b", "c")
CONFIG = AutoscalingConfig(
    groups=tuple(ConfiguredGroup(f"zone-{z}", match=("pool", z)) for z in ZONES)
)
SKEW = "node(s) didn't match pod topology spread constraints"
APP = {"app": "web"}


def _run(targets: dict[str, int]) -> Run:
    nodes = [
        api_node(f"n-{z}", labels={"pool": z, ZONE: z, "kubernetes.io/hostname": f"n-{z}"})
        for z in ZONES
    ]
    groups = [status_group(f"zone-{z}", target=1, max_size=1 + targets[z]) for z in ZONES]
    return Run(nodes, [status_configmap(*groups)], config=CONFIG)


def _spread(key: str = ZONE, **constraint: Any) -> dict[str, Any]:
    rule = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule"}
    rule["labelSelector"] = {"matchLabels": APP}
    return spec(cpu="1", topologySpreadConstraints=[{**rule, **constraint}])


@pytest.mark.parametrize(
    ("headroom", "copies", "decision"),
    [
        pytest.param(
            {"a": 9, "b": 9, "c": 9},
            6,
            Decision(
                6,
                (
                    ScaleUp("zone-a", 1, 2, 1, 10),
                    ScaleUp("zone-b", 1, 2, 1, 10),
                    ScaleUp("zone-c", 1, 2, 1, 10),
                ),
                6,
            ),
            id="six copies go two to each zone, one fresh node each",
        ),
        pytest.param(
            {"a": 9, "b": 0, "c": 0},
            4,
            Decision(
                4, (ScaleUp("zone-a", 1, 1, 1, 10),), 1, {"max node group size reached": 2, SKEW: 1}
            ),
            id="one zone with headroom takes one copy; the skew stops the rest",
        ),
    ],
)
def test_zonal_spread_over_per_zone_groups(
    headroom: dict[str, int], copies: int, decision: Decision
) -> None:
    assert _run(headroom).decide(_spread(), copies, APP) == decision


def test_hostname_spread_takes_a_fresh_node_per_copy_within_its_skew() -> None:
    """maxSkew 1 on the hostname, with empty existing nodes: each fresh node takes one copy."""
    assert _run({"a": 9, "b": 0, "c": 0}).decide(
        _spread("kubernetes.io/hostname"), 3, APP
    ) == Decision(3, (ScaleUp("zone-a", 3, 3, 1, 10),), 3)
