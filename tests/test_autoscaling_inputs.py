"""The autoscaler's objects of a snapshot read into typed values (gate/snapshot/autoscaling.py,
flags.py, machines.py), against cluster-autoscaler-1.34.5: clusterstate/api/types.go (YAML
status), clusterstate/api/utils.go at 1.29.0 (text status), config/flags/flags.go (flags),
cloudprovider/clusterapi/clusterapi_utils.go and README.md (MachineDeployments)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from gate.errors import SnapshotError
from gate.model.autoscaling import (
    AutoscalerStatus,
    Flags,
    Limits,
    MachineDeployment,
    NodeTemplate,
    StatusGroup,
)
from gate.model.taints import Taint
from gate.snapshot.autoscaling import go_time
from gate.snapshot.load import build_snapshot, snapshot_of_document
from tests.autoscaling_objects import (
    TEXT_STATUS,
    autoscaler_deployment,
    configmap_of,
    daemonset,
    machine_deployment,
    status_configmap,
    status_group,
)
from tests.builders import api_node

STATUS_AT = 'ConfigMap "kube-system/cluster-autoscaler-status": data.status: '
T0 = datetime(2026, 8, 16, 10, 0, tzinfo=timezone.utc)


def _list(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": [api_node("a"), *items]}


def _own(**arrays: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "fitgate/v1",
        "kind": "ClusterSnapshot",
        "nodes": [api_node("a")],
        "pods": [],
        **arrays,
    }


def _both(document: dict[str, Any]) -> Any:
    """The state as the typed reader and the reference reader build it: always equal."""
    typed = snapshot_of_document(document, "s.json").autoscaling
    assert build_snapshot(document, "s.json").autoscaling == typed
    return typed


def test_a_snapshot_without_autoscaler_objects_has_no_state() -> None:
    assert _both(_list()) is None


def test_a_status_of_expanding_aliases_is_refused_in_one_line() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(9)
    )
    with pytest.raises(SnapshotError, match=r"^ConfigMap .*: data.status: neither YAML nor "):
        snapshot_of_document(_list(configmap_of(bomb)), "s.json")


def test_the_yaml_status_of_ca_1_30_and_later() -> None:
    cm = status_configmap(
        status_group("aks-user-12345678-vmss", target=3, min_size=1, max_size=10),
        status_group(
            "aks-gpu-1-vmss", target=0, max_size=4, scale_up="Backoff", backoff="QuotaExceeded"
        ),
    )
    state = _both(_list(cm))
    assert state.status == AutoscalerStatus(
        groups=(
            StatusGroup(
                "aks-user-12345678-vmss", "Healthy", 3, 1, 10, ready=3, scale_up="NoActivity"
            ),
            StatusGroup(
                "aks-gpu-1-vmss",
                "Healthy",
                0,
                0,
                4,
                scale_up="Backoff",
                backoff_code="QuotaExceeded",
            ),
        ),
        form="yaml",
        autoscaler="Running",
        updated=T0,
    )
    assert state.status.groups[1].backed_off and state.status.groups[1].healthy


def test_the_plain_text_status_of_ca_1_29_and_earlier() -> None:
    state = _both(_own(configMaps=[configmap_of(TEXT_STATUS, time="garbled")]))
    assert state.status == AutoscalerStatus(
        groups=(
            StatusGroup(
                "aks-user-12345678-vmss", "Healthy", 3, 1, 10, ready=3, scale_up="NoActivity"
            ),
            StatusGroup("aks-gpu-12345678-vmss", "Unhealthy", 2, 0, 4, ready=0, scale_up="Backoff"),
        ),
        form="text",
        updated=datetime(2023, 11, 2, 8, 15, 30, 123456, tzinfo=timezone.utc),
    )


def test_a_status_whose_time_cannot_be_read_is_refused() -> None:
    cm = status_configmap(status_group("g", target=1, max_size=3), time="yesterday")
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(cm), "s.json")
        assert str(raised.value) == (
            'ConfigMap "kube-system/cluster-autoscaler-status": metadata.annotations'
            "[cluster-autoscaler.kubernetes.io/last-updated]: neither it nor the status's own "
            "time reads as a time: how old the status is cannot be told, so what it says of the "
            "groups cannot be trusted"
        )


def test_other_configmaps_are_not_the_status() -> None:
    other = {
        **configmap_of("x"),
        "metadata": {"namespace": "default", "name": "cluster-autoscaler-status"},
    }
    assert _both(_list(other)).status is None


@pytest.mark.parametrize(
    ("status", "message"),
    [
        pytest.param(
            "nodeGroups: [{name: g, health: {cloudProviderTarget: three, maxSize: 3}}]",
            "nodeGroups[0].health.cloudProviderTarget: not an integer: 'three'",
            id="a size that is no integer names its field",
        ),
        pytest.param(
            "nodeGroups: [{health: {cloudProviderTarget: 1, maxSize: 3}}]",
            "nodeGroups[0].name: missing",
            id="a group without a name",
        ),
        pytest.param(
            "nodeGroups: {a: 1}",
            "nodeGroups: not a list",
            id="groups that are no list",
        ),
        pytest.param(
            "just words",
            "neither YAML nor CA's text form",
            id="text in neither form",
        ),
        pytest.param(
            "a: [",
            "neither YAML nor CA's text form: did not find expected node content "
            "(line 2, column 1) while parsing a flow node at line 2",
            id="broken YAML says its line",
        ),
        pytest.param(
            "Cluster-autoscaler status at now:\nCluster-wide:\n\nNodeGroups:\n"
            "  Name:        g\n  Health:      Healthy (ready=1)\n",
            'node group "g": no Health line with its sizes',
            id="a text group without sizes",
        ),
        pytest.param(
            TEXT_STATUS.replace("maxSize=10", "maxSize=" + "9" * 5000),
            'node group "aks-user-12345678-vmss": Health: maxSize: 99999999999999999999… '
            "(5000 digits): not a size CA writes (0 to 9223372036854775807)",
            id="a text maxSize of five thousand digits is one line",
        ),
        pytest.param(
            "nodeGroups: [{name: g, health: {cloudProviderTarget: -1000, maxSize: 9}}]",
            "nodeGroups[0].health.cloudProviderTarget: -1000: not a size CA writes "
            "(0 to 9223372036854775807)",
            id="a negative cloudProviderTarget is refused",
        ),
        pytest.param(
            "nodeGroups: [{name: g, health: {cloudProviderTarget: 1, maxSize: -3}}]",
            "nodeGroups[0].health.maxSize: -3: not a size CA writes (0 to 9223372036854775807)",
            id="a negative maxSize is refused",
        ),
        pytest.param(
            "nodeGroups: [{name: g, health: {cloudProviderTarget: 1, maxSize: "
            + str(2**63)
            + "}}]",
            "nodeGroups[0].health.maxSize: a number of 64 bits: not a size CA writes "
            "(0 to 9223372036854775807)",
            id="a maxSize past a Go int is refused",
        ),
        pytest.param(
            "nodeGroups: []\n" + "#" * (1 << 20),
            "1,048,591 characters: a ConfigMap holds at most 1,048,576 bytes of data (the API "
            "server refuses more)",
            id="a status longer than a ConfigMap holds is refused before it is parsed",
        ),
        pytest.param(
            "hello: world",
            "autoscalerStatus: missing, not Running or Initializing: not a cluster-autoscaler "
            "status",
            id="a mapping that is no status of CA's is refused",
        ),
        pytest.param(
            "autoscalerStatus: Running\nnodeGroups: []",
            "nodeGroups: no node group: a running cluster-autoscaler's status names each group "
            "it scales, so this status gives none to judge a scale-up by",
            id="a running CA's status without groups is refused",
        ),
        pytest.param(
            "Cluster-autoscaler status at 2023-11-02 08:15:30 +0000 UTC:\nCluster-wide:\n\n"
            "NodeGroups:\n",
            "NodeGroups: no node group: a running cluster-autoscaler's status names each group "
            "it scales, so this status gives none to judge a scale-up by",
            id="a text status without groups is refused",
        ),
    ],
)
def test_a_garbled_status_is_one_line_naming_object_and_field(status: str, message: str) -> None:
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(configmap_of(status)), "s.json")
        assert str(raised.value) == STATUS_AT + message


@pytest.mark.parametrize(
    ("args", "flags"),
    [
        pytest.param(
            (),
            Flags(
                deployment='Deployment "kube-system/cluster-autoscaler"', expander=("least-waste",)
            ),
            id="defaults",
        ),
        pytest.param(
            (
                "--max-nodes-total=20",
                "--cores-total",
                "8:64",
                "--memory-total=0:256",
                "--startup-taint=a.example/starting",
                "--startup-taint=b.example/booting",
                "--status-taint",
                "c.example/status",
                "--ignore-taint=d.example/ignored",
                "-force-ds",
                "--expendable-pods-priority-cutoff=0",
            ),
            Flags(
                limits=Limits(20, (8, 64), (0, 256 * 2**30)),
                startup_taints=("a.example/starting", "b.example/booting", "d.example/ignored"),
                status_taints=("c.example/status",),
                force_ds=True,
                expendable_cutoff=0,
                deployment='Deployment "kube-system/cluster-autoscaler"',
                expander=("least-waste",),
            ),
            id="every flag in each spelling Go's flag package reads",
        ),
    ],
)
def test_the_autoscaler_deployment_flags(args: tuple[str, ...], flags: Flags) -> None:
    assert _both(_list(autoscaler_deployment(*args))).flags == flags


def test_two_status_configmaps_are_one_line_never_the_last_winning() -> None:
    first = status_configmap(status_group("g", target=1, max_size=3))
    second = status_configmap(status_group("g", target=1, max_size=30))
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(first, second), "s.json")
        assert str(raised.value) == (
            'ConfigMap "kube-system/cluster-autoscaler-status": recorded 2 times; a cluster '
            "holds one status, and which one the autoscaler wrote last is unknown"
        )


def test_two_autoscaler_deployments_are_one_line_naming_both() -> None:
    first = autoscaler_deployment("--max-nodes-total=7")
    second = autoscaler_deployment()
    second["metadata"] = {"namespace": "other", "name": "ca"}
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(first, second), "s.json")
        assert str(raised.value) == (
            'Deployment "kube-system/cluster-autoscaler" and Deployment "other/ca" both run '
            "cluster-autoscaler: whose limits and flags decide a scale-up is unknown; record one"
        )


def test_a_deployment_that_runs_no_autoscaler_gives_no_flags() -> None:
    other = autoscaler_deployment("--max-nodes-total=3", image="nginx")
    other["spec"]["template"]["spec"]["containers"][0]["command"] = ["nginx"]
    assert _both(_list(other)).flags is None


@pytest.mark.parametrize(
    ("arg", "message"),
    [
        ("--max-nodes-total=many", "--max-nodes-total: not an integer: 'many'"),
        ("--cores-total=64", "--cores-total: not <min>:<max>: '64'"),
        ("--memory-total=9:3", "--memory-total: min must be >= 0 and <= max: '9:3'"),
        ("--force-ds=maybe", "--force-ds: not a boolean: 'maybe'"),
    ],
)
def test_a_garbled_flag_is_one_line(arg: str, message: str) -> None:
    with pytest.raises(SnapshotError) as raised:
        snapshot_of_document(_list(autoscaler_deployment(arg)), "s.json")
    assert str(raised.value) == f'Deployment "kube-system/cluster-autoscaler": {message}'


def test_daemonsets_keep_their_pod_spec_and_requests() -> None:
    ds = daemonset(
        "kube-proxy", cpu="100m", memory="64Mi", priorityClassName="system-node-critical"
    )
    (read,) = _both(_own(daemonSets=[ds])).daemon_sets
    assert (read.namespace, read.name, read.requests, read.critical) == (
        "kube-system",
        "kube-proxy",
        {"cpu": 100, "memory": 64 * 2**20},
        True,
    )


# simulator/node_info_utils.go isPreemptingSystemNodeCritical: system-node-critical, its
# preemptionPolicy unset or PreemptLowerPriority
@pytest.mark.parametrize(
    ("spec", "critical"),
    [
        pytest.param(
            {"priorityClassName": "system-node-critical"}, True, id="system-node-critical"
        ),
        pytest.param(
            {
                "priorityClassName": "system-node-critical",
                "preemptionPolicy": "PreemptLowerPriority",
            },
            True,
            id="system-node-critical preempting lower priorities",
        ),
        pytest.param(
            {"priorityClassName": "system-node-critical", "preemptionPolicy": "Never"},
            False,
            id="system-node-critical that never preempts is not put on a template",
        ),
        pytest.param(
            {"priorityClassName": "system-cluster-critical"}, False, id="system-cluster-critical"
        ),
    ],
)
def test_a_daemonset_is_critical_when_it_would_preempt_at_system_node_critical(
    spec: dict[str, Any], critical: bool
) -> None:
    (read,) = _both(_own(daemonSets=[daemonset("agent", **spec)])).daemon_sets
    assert read.critical is critical


def test_a_daemonset_request_that_is_no_quantity_names_it() -> None:
    with pytest.raises(
        SnapshotError, match=r'^DaemonSet "kube-system/bad": spec.template.spec.containers: '
    ):
        snapshot_of_document(_list(daemonset("bad", cpu="lots")), "s.json")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        pytest.param(
            {"tolerations": 5},
            "spec.template.spec.tolerations: expected a list, not a number",
            id="tolerations that are a number",
        ),
        pytest.param(
            {"containers": True},
            "spec.template.spec.containers: expected a list, not a boolean",
            id="containers that are a boolean",
        ),
        pytest.param(
            {"tolerations": [{"key": "a", "value": 5}]},
            "spec.template.spec.tolerations[0].value: expected a string, not a number",
            id="a toleration value that is a number",
        ),
    ],
)
def test_a_daemonset_the_api_server_would_refuse_is_one_line_naming_its_field(
    spec: dict[str, Any], message: str
) -> None:
    ds = daemonset("bad")
    ds["spec"]["template"]["spec"].update(spec)
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(ds), "s.json")
        assert str(raised.value) == (
            f'DaemonSet "kube-system/bad": {message} (the API server refuses it)'
        )


MIN = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size"
MAX = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"
CAP = "capacity.cluster-autoscaler.kubernetes.io/"


def test_machine_deployments_with_capacity_annotations_are_groups_from_zero() -> None:
    md = machine_deployment(
        "workers",
        0,
        **{
            MIN: "0",
            MAX: "5",
            CAP + "cpu": "8",
            CAP + "memory": "32Gi",
            CAP + "maxPods": "200",
            CAP + "labels": "pool=workers,tier=batch",
            CAP + "taints": "batch=true:NoSchedule",
        },
    )
    plain = machine_deployment("static", 2)
    amounts = {"cpu": 8000, "memory": 32 * 2**30, "pods": 200}
    assert _both(_list(md, plain)).machine_deployments == (
        MachineDeployment(
            "MachineDeployment/capi/workers",
            0,
            5,
            0,
            NodeTemplate(
                labels={"pool": "workers", "tier": "batch"},
                taints=(Taint("batch", "true", "NoSchedule"),),
                allocatable=amounts,
                capacity=amounts,
            ),
        ),
    )


@pytest.mark.parametrize(
    ("replicas", "message"),
    [
        pytest.param(
            -1000, "spec.replicas: -1000 is not from 0 to 2147483647", id="negative replicas"
        ),
        pytest.param("3", "spec.replicas: not an integer: '3'", id="replicas written as a string"),
        pytest.param(
            2**31,
            "spec.replicas: 2147483648 is not from 0 to 2147483647",
            id="replicas past an int32",
        ),
    ],
)
def test_machine_deployment_replicas_the_api_server_would_refuse_are_one_line(
    replicas: object, message: str
) -> None:
    md = machine_deployment("w", 0, **{MIN: "0", MAX: "5"})
    md["spec"]["replicas"] = replicas
    for read in (snapshot_of_document, build_snapshot):
        with pytest.raises(SnapshotError) as raised:
            read(_list(md), "s.json")
        assert str(raised.value) == f'MachineDeployment "capi/w": {message}'


def test_a_machine_deployment_taint_without_effect_names_it() -> None:
    md = machine_deployment(
        "w",
        0,
        **{MIN: "0", MAX: "5", CAP + "cpu": "8", CAP + "memory": "8Gi", CAP + "taints": "a=b"},
    )
    with pytest.raises(SnapshotError) as raised:
        snapshot_of_document(_list(md), "s.json")
    assert str(raised.value) == "MachineDeployment \"capi/w\": taint 'a=b': not key=value:Effect"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-08-16 10:00:00 +0000 UTC", T0),
        ("2026-08-16 12:00:00.000000001 +0200 CEST", T0),
        ("2026-08-16T10:00:00Z", T0),
        ("yesterday", None),
    ],
)
def test_status_times_in_go_s_format(text: str, expected: datetime | None) -> None:
    assert go_time(text) == expected
