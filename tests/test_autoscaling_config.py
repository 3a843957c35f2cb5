"""The ``autoscaling`` section of ``.fitgate.yaml`` (gate/inputs/autoscaling.py), validated by
the shipped schema and then read by ``autoscaling_config``: groups at zero, node-to-group
matches, cluster limits in the units of cluster-autoscaler's flags (config/flags/flags.go,
cluster-autoscaler-1.34.5: cores, GiB)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gate.errors import UsageError
from gate.inputs.autoscaling import autoscaling_config
from gate.inputs.config import load_config
from gate.model.autoscaling import AutoscalingConfig, ConfiguredGroup, Limits, NodeTemplate
from gate.model.taints import Taint

FULL = """\
autoscaling:
  groups:
    - id: aks-gpu-12345678-vmss
      match: {label: "kubernetes.azure.com/agentpool=gpu"}
      template:
        labels: {pool: gpu}
        taints: [{key: nvidia.com/gpu, value: "true", effect: NoSchedule}]
        capacity: {cpu: "8", memory: 32Gi}
        allocatable: {cpu: 7800m, memory: 28Gi, nvidia.com/gpu: 1}
    - id: eks-batch-0a1b
      match: {label: "eks.amazonaws.com/nodegroup=batch"}
  cluster: {maxNodesTotal: 40, coresTotal: "0:320", memoryTotal: "0:1280"}
  transient: fail
  maxNewNodes: 5
"""


def _load(tmp_path: Path, text: str) -> AutoscalingConfig:
    (tmp_path / ".fitgate.yaml").write_text(text, encoding="utf-8")
    return load_config(None, tmp_path).autoscaling


def test_every_key_of_the_section_is_read(tmp_path: Path) -> None:
    assert _load(tmp_path, FULL) == AutoscalingConfig(
        groups=(
            ConfiguredGroup(
                "aks-gpu-12345678-vmss",
                ("kubernetes.azure.com/agentpool", "gpu"),
                NodeTemplate(
                    labels={"pool": "gpu"},
                    taints=(Taint("nvidia.com/gpu", "true", "NoSchedule"),),
                    allocatable={"cpu": 7800, "memory": 28 * 2**30, "nvidia.com/gpu": 1},
                    capacity={"cpu": 8000, "memory": 32 * 2**30},
                ),
            ),
            ConfiguredGroup("eks-batch-0a1b", ("eks.amazonaws.com/nodegroup", "batch")),
        ),
        limits=Limits(40, (0, 320), (0, 1280 * 2**30)),
        transient_fails=True,
        max_new_nodes=5,
    )


def test_no_section_is_the_empty_policy(tmp_path: Path) -> None:
    assert _load(tmp_path, "failOn: [ERROR]\n") == AutoscalingConfig()


def test_a_template_with_capacity_only_allocates_its_capacity(tmp_path: Path) -> None:
    text = "autoscaling: {groups: [{id: g, template: {capacity: {cpu: '2', memory: 4Gi}}}]}\n"
    (group,) = _load(tmp_path, text).groups
    assert group.template is not None
    assert (
        group.template.allocatable == group.template.capacity == {"cpu": 2000, "memory": 4 * 2**30}
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            "autoscaling: {cluster: {coresTotal: '64'}}",
            ".fitgate.yaml: autoscaling.cluster.coresTotal: '64' does not match "
            "'^[0-9]{1,9}:[0-9]{1,9}$'",
            id="a limit that is no min:max",
        ),
        pytest.param(
            "autoscaling: {cluster: {memoryTotal: '9:3'}}",
            ".fitgate.yaml: autoscaling.cluster.memoryTotal: min 9 exceeds max 3",
            id="a min above its max",
        ),
        pytest.param(
            "autoscaling: {transient: ignore}",
            ".fitgate.yaml: autoscaling.transient: 'ignore' is not one of ['warn', 'fail']",
            id="an unknown transient policy",
        ),
        pytest.param(
            "autoscaling: {groups: [{id: g, match: {label: pool}}]}",
            ".fitgate.yaml: autoscaling.groups[0].match.label: 'pool' does not match "
            "'^[^=\\\\s]+=[^=\\\\s]*$'",
            id="a match that is no key=value",
        ),
        pytest.param(
            "autoscaling: {groups: [{id: g, template: {labels: {a: b}}}]}",
            ".fitgate.yaml: autoscaling.groups[0].template: "
            "a template needs its allocatable or capacity",
            id="a template without resources",
        ),
        pytest.param(
            "autoscaling: {groups: [{id: g, template: {allocatable: {cpu: lots}}}]}",
            ".fitgate.yaml: autoscaling.groups[0].template.allocatable: ",
            id="a quantity that is none",
        ),
        pytest.param(
            "autoscaling: {groups: [{id: g}, {id: g}]}",
            ".fitgate.yaml: autoscaling.groups: group 'g' is given twice",
            id="a group given twice",
        ),
        pytest.param(
            'autoscaling: {groups: [{id: g, template: {capacity: {cpu: "-1000"}}}]}',
            ".fitgate.yaml: autoscaling.groups[0].template.capacity.cpu: quantity '-1000' must "
            "be greater than or equal to 0",
            id="a negative capacity, which would get past coresTotal",
        ),
        pytest.param(
            'autoscaling: {groups: [{id: g, template: {allocatable: {memory: "-1Gi"}}}]}',
            ".fitgate.yaml: autoscaling.groups[0].template.allocatable.memory: quantity '-1Gi' "
            "must be greater than or equal to 0",
            id="a negative allocatable",
        ),
        pytest.param(
            "autoscaling: {groups: [{id: g, template: {capacity: {cpu: '8'}, "
            "allocatable: {cpu: '1e15'}}}]}",
            ".fitgate.yaml: autoscaling.groups[0].template.allocatable.cpu: 1e15 is above "
            "capacity.cpu 8: allocatable is capacity less what the node reserves",
            id="allocatable above capacity, 100,000 replicas on one node",
        ),
    ],
)
def test_a_wrong_section_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UsageError) as raised:
        _load(tmp_path, text + "\n")
    assert str(raised.value).startswith(message)
    assert "\n" not in str(raised.value)


GI = 2**30

READ: list[tuple[str, dict[str, Any] | None, AutoscalingConfig]] = [
    ("an absent section is the empty policy", None, AutoscalingConfig()),
    (
        "a match splits at its first equals sign",
        {"groups": [{"id": "g", "match": {"label": "a=b=c"}}]},
        AutoscalingConfig(groups=(ConfiguredGroup("g", ("a", "b=c")),)),
    ),
    (
        "a template's allocatable stands for its capacity when that is not given",
        {"groups": [{"id": "g", "template": {"allocatable": {"cpu": "2"}}}]},
        AutoscalingConfig(
            groups=(
                ConfiguredGroup(
                    "g", None, NodeTemplate(allocatable={"cpu": 2000}, capacity={"cpu": 2000})
                ),
            )
        ),
    ),
    (
        "a taint without a value has the empty one",
        {
            "groups": [
                {
                    "id": "g",
                    "template": {
                        "capacity": {"cpu": "1"},
                        "taints": [{"key": "a", "effect": "NoSchedule"}],
                    },
                }
            ]
        },
        AutoscalingConfig(
            groups=(
                ConfiguredGroup(
                    "g",
                    None,
                    NodeTemplate(
                        taints=(Taint("a", "", "NoSchedule"),),
                        allocatable={"cpu": 1000},
                        capacity={"cpu": 1000},
                    ),
                ),
            )
        ),
    ),
    (
        "cluster totals in cores and GiB, a total left out at CA's default",
        {"cluster": {"memoryTotal": "2:8"}, "transient": "fail", "maxNewNodes": 3},
        AutoscalingConfig(
            limits=Limits(0, Limits().cores, (2 * GI, 8 * GI)),
            transient_fails=True,
            max_new_nodes=3,
        ),
    ),
]


@pytest.mark.parametrize(("data", "expected"), [c[1:] for c in READ], ids=[c[0] for c in READ])
def test_autoscaling_config(data: dict[str, Any] | None, expected: AutoscalingConfig) -> None:
    assert autoscaling_config(data, "c.yaml") == expected


UNREADABLE: list[tuple[str, dict[str, Any], str]] = [
    (
        "a group given twice",
        {"groups": [{"id": "b"}, {"id": "a"}, {"id": "b"}]},
        "c.yaml: autoscaling.groups: group 'b' is given twice",
    ),
    (
        "a total whose min exceeds its max",
        {"cluster": {"coresTotal": "9:8"}},
        "c.yaml: autoscaling.cluster.coresTotal: min 9 exceeds max 8",
    ),
    (
        "a template without amounts",
        {"groups": [{"id": "g", "template": {"labels": {"a": "b"}}}]},
        "c.yaml: autoscaling.groups[0].template: a template needs its allocatable or capacity",
    ),
    (
        "a template amount that is no quantity",
        {"groups": [{"id": "g", "template": {"capacity": {"cpu": "lots"}}}]},
        "c.yaml: autoscaling.groups[0].template.capacity: ",
    ),
]


@pytest.mark.parametrize(
    ("data", "message"), [c[1:] for c in UNREADABLE], ids=[c[0] for c in UNREADABLE]
)
def test_what_the_schema_cannot_say_is_one_line(data: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as raised:
        autoscaling_config(data, "c.yaml")
    assert str(raised.value).startswith(message)
