"""The API server's completion of a template (gate.k8s.completion), seen through the verdict:
request defaults, LimitRange and RuntimeClass admission, rounding, pod-level resources, and
what hostNetwork defaults."""

from __future__ import annotations

import re
from typing import Any

import pytest

from gate.k8s.podlabels import revision_hash
from gate.model import NODE_PORTS, Document, HostPort, Location, Verdict
from gate.run import RunOptions, check
from gate.scheduler.framework.pods import pod_profile
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container, node
from tests.engine_support import NOT_HELPFUL, evaluate, pod_spec, preempting
from tests.test_api_validation import SUBDOMAIN
from tests.test_filters import PORTS_MISS, hp, reasons


def test_requests_default_to_limits() -> None:
    snapshot = cluster_snapshot([api_node("n", cpu="1")])
    spec = {"containers": [container(limits={"cpu": "2"})]}
    result = evaluate(snapshot, spec)
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu." + preempting(
        1, (1, NOT_HELPFUL)
    )
    assert dict(result.requests) == {"cpu": "2"}


def test_limit_range_defaults_apply_in_their_namespace() -> None:
    limit_range = {
        "kind": "LimitRange",
        "metadata": {"name": "d", "namespace": "team"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "3"}}]},
    }
    snapshot = cluster_snapshot([api_node("n", cpu="2")], limitRanges=[limit_range])
    spec = {"containers": [container()]}
    assert evaluate(snapshot, spec, namespace="team").verdict is Verdict.NO
    assert evaluate(snapshot, spec, namespace="other").verdict is Verdict.YES


def test_runtime_class_overhead_is_added() -> None:
    runtime = {
        "kind": "RuntimeClass",
        "metadata": {"name": "kata"},
        "handler": "kata",
        "overhead": {"podFixed": {"cpu": "250m"}},
    }
    snapshot = cluster_snapshot([api_node("n", cpu="1")], runtimeClasses=[runtime])
    assert evaluate(snapshot, pod_spec("800m", runtimeClassName="kata")).verdict is Verdict.NO
    assert evaluate(snapshot, pod_spec("750m", runtimeClassName="kata")).verdict is Verdict.YES


def test_default_toleration_seconds_tolerate_not_ready_no_execute() -> None:
    snapshot = cluster_snapshot(
        [api_node("n", taints=[{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}])]
    )
    assert evaluate(snapshot, pod_spec("1")).verdict is Verdict.YES


@pytest.mark.parametrize(
    ("pod_limits", "containers", "want_cpu", "verdict"),
    [
        # defaultPodRequests: the unset pod-level request takes the containers' aggregate.
        pytest.param(
            {"cpu": "2"},
            [{"cpu": "1.5"}, {"cpu": "1m"}],
            "1501m",
            Verdict.NO,
            id="aggregate-of-containers",
        ),
        # With no container request for it, the pod-level request takes the pod-level limit.
        pytest.param({"cpu": "1500m"}, [{}], "1500m", Verdict.YES, id="from-pod-limit"),
        pytest.param({"cpu": "1501m"}, [{}], "1501m", Verdict.NO, id="from-pod-limit-too-big"),
    ],
)
def test_pod_level_requests_default_as_the_api_server_defaults_them(
    pod_limits: dict[str, str], containers: list[dict[str, str]], want_cpu: str, verdict: Verdict
) -> None:
    snapshot = cluster_snapshot([api_node("n", cpu="1500m")], [], server_version="v1.34.1")
    spec = {
        "resources": {"limits": pod_limits},
        "containers": [container(requests=r) for r in containers],
    }
    result = evaluate(snapshot, spec)
    assert dict(result.requests).get("cpu") == want_cpu
    assert result.verdict is verdict


def test_a_runtime_class_selector_that_conflicts_is_refused_by_admission() -> None:
    """plugin/pkg/admission/runtimeclass: setScheduling forbids a conflicting nodeSelector."""
    runtime = {
        "kind": "RuntimeClass",
        "metadata": {"name": "rc"},
        "handler": "rc",
        "scheduling": {"nodeSelector": {"pool": "gpu"}},
    }
    nodes = [api_node("cpu-0", labels={"pool": "cpu"}), api_node("gpu-0", labels={"pool": "gpu"})]
    snapshot = cluster_snapshot(nodes, runtimeClasses=[runtime])
    conflict = evaluate(
        snapshot, pod_spec("1", runtimeClassName="rc", nodeSelector={"pool": "cpu"})
    )
    assert conflict.verdict is Verdict.ERROR
    assert conflict.reason == (
        'pods "w" is forbidden: conflict: '
        "runtimeClass.scheduling.nodeSelector[pool] = gpu; pod.spec.nodeSelector[pool] = cpu"
    )
    agreeing = evaluate(
        snapshot, pod_spec("1", runtimeClassName="rc", nodeSelector={"pool": "gpu"})
    )
    assert agreeing.fits == ("gpu-0",)
    merged = evaluate(snapshot, pod_spec("1", runtimeClassName="rc"))
    assert merged.fits == ("gpu-0",)


def test_the_api_server_rounds_each_quantity_to_thousandths_before_any_sum() -> None:
    """SetDefaults_ResourceList rounds every stored request, limit and overhead up to milli
    scale: two containers of 0.5m cpu are 1m each, 2m together."""
    snapshot = cluster_snapshot([api_node("n", cpu="1m")])
    half = container(requests={"cpu": "0.5m", "memory": "1Mi"})
    assert evaluate(snapshot, {"containers": [half]}).verdict is Verdict.YES
    two = evaluate(snapshot, {"containers": [half, {**half, "name": "b"}]})
    assert two.message == "0/1 nodes are available: 1 Insufficient cpu." + preempting(
        1, (1, NOT_HELPFUL)
    )
    assert dict(two.requests)["cpu"] == "2m"


LIMIT_RANGE = {
    "kind": "LimitRange",
    "metadata": {"name": "defaults", "namespace": "default"},
    "spec": {"limits": [{"type": "Container", "default": {"cpu": "200m"},
                         "defaultRequest": {"cpu": "100m"}}]},
}  # fmt: skip


def test_pod_level_requests_default_before_limit_range_defaults() -> None:
    """defaultPodRequests runs while the pod is decoded; LimitRanger fills the containers
    afterwards and never touches spec.resources: the pod-level request is the pod limit."""
    snapshot = cluster_snapshot(
        [api_node("n", cpu="1")], server_version="v1.34.1", limitRanges=[LIMIT_RANGE]
    )
    spec = {"containers": [{"name": "a", "image": "x"}], "resources": {"limits": {"cpu": "2"}}}
    result = evaluate(snapshot, spec)
    assert result.message == "0/1 nodes are available: 1 Insufficient cpu." + preempting(
        1, (1, NOT_HELPFUL)
    )
    assert dict(result.requests)["cpu"] == "2"


def test_pod_level_hugepages_requests_default_to_the_pod_limit() -> None:
    """Hugepages cannot be overcommitted (IsOvercommitAllowed): never from the containers."""
    node = api_node("n", cpu="4")
    node["status"]["allocatable"]["hugepages-2Mi"] = "128Mi"
    snapshot = cluster_snapshot([node], server_version="v1.34.1")
    inner = container(requests={"cpu": "100m", "memory": "512Mi"})
    inner["resources"]["limits"] = {"hugepages-2Mi": "64Mi"}
    pod_limits = {"hugepages-2Mi": "256Mi", "memory": "1Gi"}
    result = evaluate(snapshot, {"containers": [inner], "resources": {"limits": pod_limits}})
    assert result.message == "0/1 nodes are available: 1 Insufficient hugepages-2Mi." + (
        preempting(1, (1, NOT_HELPFUL))
    )


@pytest.mark.parametrize(
    ("version", "verdict"),
    [("v1.33.4", Verdict.YES), ("v1.34.0", Verdict.NO), (None, Verdict.NO)],
    ids=["1.33-gate-off", "1.34-gate-on", "unknown-version"],
)
def test_pod_level_resources_count_from_v1_34(version: str | None, verdict: Verdict) -> None:
    """PodLevelResources is off by default before v1.34: the API server drops
    spec.resources (dropDisabledPodLevelResources) and says nothing; fitgate warns."""
    snapshot = cluster_snapshot([api_node("n", cpu="2")], server_version=version)
    spec = {**pod_spec("500m"), "resources": {"requests": {"cpu": "3"}}}
    result = evaluate(snapshot, spec)
    assert result.verdict is verdict
    dropped = any("PodLevelResources off" in w.text for w in result.warnings)
    assert dropped is (verdict is Verdict.YES)


def test_a_limit_range_default_is_a_request_no_warning_says_is_missing() -> None:
    """The zero-request warning is about what the pod will request: a LimitRange
    defaultRequest is a request (LimitRanger fills it before the scheduler sees the pod)."""
    snapshot = cluster_snapshot([api_node("n", cpu="4")], limitRanges=[LIMIT_RANGE])
    bare = {"containers": [{"name": "c", "image": "x"}]}
    defaulted = evaluate(snapshot, bare)
    assert not any("has no cpu" in w.text for w in defaulted.warnings)
    elsewhere = evaluate(snapshot, bare, namespace="other")
    assert any('container "c" has no cpu or memory request' in w.text for w in elsewhere.warnings)


def test_host_network_ports_default_to_container_ports() -> None:
    from gate.k8s.completion import complete_pod_spec
    from gate.model import AdmissionObjects

    spec, _ = complete_pod_spec(
        {"hostNetwork": True, "containers": [container(ports=[{"containerPort": 80}])]},
        "default",
        AdmissionObjects(),
    )
    pod = pod_profile(spec)
    assert pod.wanted_ports == (HostPort("0.0.0.0", "TCP", 80),)
    assert (
        reasons(NODE_PORTS, pod, node(used_ports=frozenset({hp("TCP/0.0.0.0/80")}))) == PORTS_MISS
    )


def test_pod_level_requests_default_before_limit_range_defaults_reach_the_containers() -> None:
    """defaultPodRequests (pkg/apis/core/v1/defaults.go) runs while the pod is decoded: once
    a pod-level limit is set, every overcommittable resource the containers request takes
    their aggregate as its pod-level request, limited at pod level or not, before the
    LimitRanger admission gives the other containers a default; ValidatePod then finds the
    containers requesting more than the pod (validatePodResourceConsistency)."""
    limit_range = {
        "kind": "LimitRange",
        "metadata": {"name": "d", "namespace": "default"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"cpu": "500m"}}]},
    }
    snapshot = cluster_snapshot(
        [api_node("n", cpu="400m")], limitRanges=[limit_range], server_version="v1.34.1"
    )
    spec = {
        "resources": {"limits": {"memory": "1Gi"}},
        "containers": [container("a", requests={"cpu": "100m"}), container("b")],
    }
    result = evaluate(snapshot, spec)
    assert (result.verdict, result.reason) == (
        Verdict.ERROR,
        'Pod "w" is invalid: spec.resources.requests[cpu]: Invalid '
        'value: "100m": must be greater than or equal to aggregate container requests of 600m',
    )
    written = {**spec, "resources": {"limits": {"memory": "1Gi"}, "requests": {"cpu": "1"}}}
    result = evaluate(snapshot, written)
    assert dict(result.requests).get("cpu") == "1"
    assert result.verdict is Verdict.NO


# (id, the pod spec, the error ValidatePod gives the pod after SetDefaults_Pod)
DECODED_INCONSISTENT = [
    ("a container's request defaulted from its limit above the pod-level request is refused",
     {"resources": {"requests": {"cpu": "100m"}},
      "containers": [container("a", limits={"cpu": "1"})]},
     'Pod "w" is invalid: spec.resources.requests[cpu]: Invalid value: "100m": must be greater '
     "than or equal to aggregate container requests of 1"),
    ("an init container's request defaulted from its limit is aggregated as its maximum",
     {"resources": {"requests": {"memory": "256Mi"}},
      "initContainers": [container("i", limits={"memory": "512Mi"})],
      "containers": [container("a", requests={"memory": "128Mi"})]},
     'Pod "w" is invalid: spec.resources.requests[memory]: Invalid value: "256Mi": must be '
     "greater than or equal to aggregate container requests of 512Mi"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "expected"),
    [c[1:] for c in DECODED_INCONSISTENT],
    ids=[c[0] for c in DECODED_INCONSISTENT],
)
def test_requests_defaulted_while_the_pod_is_decoded_are_held_to_the_pod_level_ones(
    spec: dict[str, object], expected: str
) -> None:
    """validatePodResourceConsistency (pkg/apis/core/validation/validation.go) runs on the
    pod after SetDefaults_Pod (pkg/apis/core/v1/defaults.go) copied each container's limits
    to its missing requests, with no LimitRange in the namespace."""
    snapshot = cluster_snapshot([api_node("n", cpu="4", memory="4Gi")], server_version="v1.34.1")
    result = evaluate(snapshot, spec)
    assert (result.verdict, result.reason) == (Verdict.ERROR, expected)


def test_a_container_hugepage_limit_defaults_the_pod_level_limit_and_the_requests() -> None:
    """defaultHugePagePodLimits (pkg/apis/core/v1/defaults.go): a pod with pod-level requests
    only takes its containers' hugepage limit as its pod-level limit; defaultPodRequests then
    runs, and the unset pod-level memory request takes the containers' aggregate as it is
    decoded, before a LimitRange default reaches the other container, which then makes the
    containers request more than the pod."""
    limit_range = {
        "kind": "LimitRange",
        "metadata": {"name": "d", "namespace": "default"},
        "spec": {"limits": [{"type": "Container", "defaultRequest": {"memory": "1Gi"}}]},
    }
    node = api_node("n", cpu="4", memory="1Gi")
    node["status"]["allocatable"]["hugepages-2Mi"] = "20Mi"
    snapshot = cluster_snapshot([node], limitRanges=[limit_range], server_version="v1.34.1")
    pages = {"hugepages-2Mi": "10Mi", "memory": "100Mi"}
    spec = {
        "resources": {"requests": {"cpu": "1"}},
        "containers": [container("a", requests=pages, limits=pages), container("b")],
    }
    result = evaluate(snapshot, spec)
    assert (result.verdict, result.reason) == (
        Verdict.ERROR,
        'Pod "w" is invalid: spec.resources.requests[memory]: Invalid '
        'value: "100Mi": must be greater than or equal to aggregate container requests of '
        "1124Mi",
    )
    unlimited = {**spec, "resources": {}}
    assert evaluate(snapshot, unlimited).verdict is Verdict.NO


SPREAD = {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}
WEB = {"matchLabels": {"app": "web"}}
MERGED = "exists in both matchLabelKeys and labelSelector"
AFFINITY = "spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"

# pkg/registry/core/pod/strategy.go PrepareForCreate (mutatePodAffinity,
# mutateTopologySpreadConstraints) merges each matchLabelKey the pod's labels hold into the
# selector as `key In (value)`, before ValidatePodCreate's
# validateMatchLabelKeysAndMismatchLabelKeys: a key matchLabels names is then named twice.
MERGES = [
    pytest.param(
        {"topologySpreadConstraints": [{**SPREAD, "labelSelector": WEB,
                                        "matchLabelKeys": ["app"]}]},
        f'spec.topologySpreadConstraints[0][0]: Invalid value: "app": {MERGED}',
        id="a spread key its selector's labels name makes the created pod invalid",
    ),
    pytest.param(
        {"affinity": {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 1, "podAffinityTerm": {"topologyKey": "zone", "labelSelector": WEB,
                                              "matchLabelKeys": ["tier", "app"]}}]}},
         "topologySpreadConstraints": [{**SPREAD, "labelSelector": WEB,
                                        "matchLabelKeys": ["app"]}]},
        f'[{AFFINITY}.podAffinityTerm[1]: Invalid value: "app": {MERGED}, '
        f'spec.topologySpreadConstraints[0][0]: Invalid value: "app": {MERGED}]',
        id="the affinity term's merged key is listed before the spread constraint's",
    ),
    pytest.param(
        {"topologySpreadConstraints": [{**SPREAD, "labelSelector": WEB,
                                        "matchLabelKeys": ["tier"]}]},
        None,
        id="a spread key the pod has no label of adds nothing",
    ),
    pytest.param(
        {"topologySpreadConstraints": [{**SPREAD, "labelSelector": WEB,
                                        "matchLabelKeys": ["pod-template-hash"]}]},
        None,
        id="a spread key of the pod's template hash merges once",
    ),
]  # fmt: skip


def _created_pod_error(fields: dict[str, Any]) -> tuple[Verdict, str | None]:
    """A Deployment's verdict, and the errors after ``Pod "<name>" is invalid: `` when its
    pod is invalid (else its reason)."""
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": WEB,
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [container(requests={"cpu": "1"})], **fields},
            },
        },
    }
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), manifest)], snapshot, RunOptions()).results
    invalid = re.fullmatch(r'Pod "web-[a-z0-9]+-[a-z0-9]{5}" is invalid: (.*)', result.reason or "")
    return result.verdict, invalid.group(1) if invalid else result.reason


@pytest.mark.parametrize(("fields", "error"), MERGES)
def test_match_label_keys_merged_at_creation_are_validated(
    fields: dict[str, Any], error: str | None
) -> None:
    expected = (Verdict.YES, None) if error is None else (Verdict.ERROR, error)
    assert _created_pod_error(fields) == expected


# ValidatePodCreate holds a created pod to what no template is held to
# (validateContainersOnlyForPod after ValidatePodSpec, then the scheduling gates): a
# Deployment taken by the API server whose every pod it refuses.
POD_ONLY = [
    pytest.param(
        {"containers": [{**container(requests={"cpu": "1"}), "image": "nginx "}],
         "initContainers": [{**container("init"), "image": "\tbusybox"}]},
        '[spec.containers[0].image: Invalid value: "nginx ": must not have leading or '
        'trailing whitespace, spec.initContainers[0].image: Invalid value: "\\tbusybox": must '
        "not have leading or trailing whitespace]",
        id="an image with spaces around it is taken in a template and refused in its pods",
    ),
    pytest.param(
        {"nodeName": "n", "schedulingGates": [{"name": "example.com/wait"}]},
        "spec.nodeName: Forbidden: cannot be set until all schedulingGates have been cleared",
        id="a node named beside scheduling gates is refused in the pods",
    ),
    pytest.param({"nodeName": "n"}, None, id="a node named without gates is no error"),
    # validateImageVolumeSource: the reference is required when opts.ResourceIsPod, and
    # validateVolumes keeps a volume of errors from the names validateVolumeMounts finds
    # (TestValidatePodSpec's image volume cases); volumes come first in ValidatePodSpec
    pytest.param(
        {"volumes": [{"name": "img", "image": {"pullPolicy": "Always"}}],
         "containers": [{**container(requests={"cpu": "1"}), "image": "nginx ",
                         "volumeMounts": [{"name": "img", "mountPath": "/img"}]}]},
        "[spec.volumes[0].image.reference: Required value, "
        'spec.containers[0].volumeMounts[0].name: Not found: "img", '
        'spec.containers[0].image: Invalid value: "nginx ": must not have leading or '
        "trailing whitespace]",
        id="an image volume without a reference is taken in a template and refused in its pods",
    ),
    pytest.param(
        {"volumes": [{"name": "img", "image": {}}],
         "topologySpreadConstraints": [{**SPREAD, "labelSelector": WEB,
                                        "matchLabelKeys": ["app"]}]},
        "[spec.volumes[0].image.reference: Required value, "
        f'spec.topologySpreadConstraints[0][0]: Invalid value: "app": {MERGED}]',
        id="an image volume's reference comes before a merged spread key: volumes come first",
    ),
    pytest.param(
        {"volumes": [{"name": "img", "image": {"reference": "example.com/data:1"}}],
         "containers": [{**container(requests={"cpu": "1"}),
                         "volumeMounts": [{"name": "img", "mountPath": "/img"}]}]},
        None,
        id="an image volume of a reference is no error in the pods",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "error"), POD_ONLY)
def test_what_only_a_pod_is_held_to_is_validated_at_creation(
    fields: dict[str, Any], error: str | None
) -> None:
    verdict, found = _created_pod_error(fields)
    assert (verdict is Verdict.ERROR, found) == (error is not None, error)


_IMAGE_VOLUME = {"name": "img", "image": {}}
_WORKLOADS = [
    pytest.param("apps/v1", "Deployment", "Always", r"web-[a-z0-9]+-[a-z0-9]{5}", id="Deployment"),
    pytest.param("apps/v1", "ReplicaSet", "Always", r"web-[a-z0-9]{5}", id="ReplicaSet"),
    pytest.param("apps/v1", "DaemonSet", "Always", r"web-[a-z0-9]{5}", id="DaemonSet"),
    pytest.param("batch/v1", "Job", "Never", r"web-[a-z0-9]{5}", id="Job"),
]


@pytest.mark.parametrize(("api", "kind", "restart", "pod"), _WORKLOADS)
def test_a_controller_s_pods_of_an_image_volume_without_a_reference_are_refused(
    api: str, kind: str, restart: str, pod: str
) -> None:
    """validateImageVolumeSource requires the reference only when opts.ResourceIsPod: the
    workload is taken, its first pod refused."""
    spec: dict[str, Any] = {
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [container()], "volumes": [_IMAGE_VOLUME],
                     "restartPolicy": restart},
        },
    }  # fmt: skip
    if kind != "Job":
        spec["selector"] = WEB
    manifest = {"apiVersion": api, "kind": kind, "metadata": {"name": "web"}, "spec": spec}
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), manifest)], snapshot, RunOptions()).results
    assert result.verdict is Verdict.ERROR
    error = re.escape('" is invalid: spec.volumes[0].image.reference: Required value')
    assert re.fullmatch(f'Pod "{pod}{error}', result.reason or ""), result.reason


def _ported(name: str, *ports: int) -> dict[str, Any]:
    return {**container(name), "ports": [{"containerPort": p} for p in ports]}


# SetDefaults_Pod (defaultHostNetworkPorts) gives each port of a hostNetwork pod its
# containerPort as hostPort; ValidatePodCreate's checkHostPortConflicts then finds one
# protocol/IP/port twice among the regular containers, or within one init container
# (each is checked alone, indexed as the list's first).
HOST_PORTS = [
    pytest.param(
        {"hostNetwork": True, "containers": [_ported("a", 8080), _ported("b", 8080)]},
        'spec.containers[1].ports[0].hostPort: Duplicate value: "TCP//8080"',
        id="two containers of one port in a hostNetwork pod make the created pod invalid",
    ),
    pytest.param(
        {"hostNetwork": True, "containers": [_ported("a", 8080)],
         "initContainers": [_ported("i", 53, 8080, 53)]},
        'spec.initContainers[0].ports[2].hostPort: Duplicate value: "TCP//53"',
        id="an init container's port twice is found in it alone",
    ),
    pytest.param(
        {"containers": [_ported("a", 8080), _ported("b", 8080)]},
        None,
        id="without hostNetwork no host port is defaulted",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "error"), HOST_PORTS)
def test_host_ports_defaulted_at_creation_are_validated(
    fields: dict[str, Any], error: str | None
) -> None:
    expected = (Verdict.YES, None) if error is None else (Verdict.ERROR, error)
    assert _created_pod_error(fields) == expected


def _stateful_set(**fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "serviceName": "db",
            "selector": WEB,
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [container(requests={"cpu": "1"})], **fields},
            },
        },
    }


# apps/validation ValidatePodTemplateSpecForStatefulSet validates a StatefulSet's template
# labels, not its pod spec: the StatefulSet is created, and each pod it creates is refused
# by ValidatePodCreate (`create Pod db-0 in StatefulSet db failed error: Pod "db-0" is
# invalid: ...`).
STATEFUL = [
    pytest.param(
        {"containers": [container(requests={"cpu": "2"}, limits={"cpu": "1"})]},
        (Verdict.ERROR, 'Pod "db-0" is invalid: spec.containers[0].resources.requests: Invalid '
                        'value: "2": must be less than or equal to cpu limit of 1'),
        id="a StatefulSet's pod of a request above its limit is invalid when created",
    ),
    pytest.param(
        {"containers": [{**container(), "image": ""}],
         "tolerations": [{"operator": "Equal"}]},
        (Verdict.ERROR, 'Pod "db-0" is invalid: [spec.containers[0].image: Required value, '
                        'spec.tolerations[0].operator: Invalid value: "Equal": operator must '
                        'be Exists when `key` is empty, which means "match all values and all '
                        'keys"]'),
        id="every error of a StatefulSet's pod is listed, in ValidatePodCreate's order",
    ),
    pytest.param({}, (Verdict.YES, None), id="a StatefulSet's valid pod is judged"),
    pytest.param({"hostname": "Not_A_Label", "subdomain": "x.y"}, (Verdict.YES, None),
                 id="a template's hostname and subdomain are replaced by its controller's"),
    pytest.param({"serviceAccountName": "Robot_1"},
                 (Verdict.ERROR, 'Pod "db-0" is invalid: spec.serviceAccountName: Invalid '
                                 f'value: "Robot_1": {SUBDOMAIN}'),
                 id="a StatefulSet's pod of a service account that is no subdomain is invalid"),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "expected"), STATEFUL)
def test_a_stateful_set_s_pod_is_validated_when_it_is_created(
    fields: dict[str, Any], expected: tuple[Verdict, str | None]
) -> None:
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    document = Document(Location("m.yaml", 1), _stateful_set(**fields))
    (result,) = check([document], snapshot, RunOptions()).results
    assert (result.verdict, result.reason) == expected


_SPREAD_BY_APP = {
    "maxSkew": 1,
    "topologyKey": "zone",
    "whenUnsatisfiable": "DoNotSchedule",
    "labelSelector": {"matchLabels": {"app": "web"}},
    "matchLabelKeys": ["app"],
}
_LONG = "a" * 53
_DOTS = 'Invalid value: "db.svc": must not contain dots'
_EQUAL = (
    'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when '
    '`key` is empty, which means "match all values and all keys"'
)

# newStatefulSetPod's pod (initIdentity: hostname its name, subdomain the serviceName;
# its controller's labels) is held to ValidatePodCreate whole: one message, every error in
# validatePodMetadataAndSpec's then ValidatePodSpec's order, the matchLabelKeys
# PrepareForCreate merged found in their constraint's place.
STATEFUL_POD = [
    pytest.param(
        {"spec": {"serviceName": "db.svc"}}, {"tolerations": [{"operator": "Equal"}]},
        f'Pod "db-0" is invalid: [spec.subdomain: {_DOTS}, {_EQUAL}]',
        id="a serviceName that is no DNS label is listed with the pod spec's other errors",
    ),
    pytest.param(
        {"metadata": {"name": _LONG}, "spec": {"serviceName": "db.svc"}}, {},
        f'Pod "{_LONG}-0" is invalid: [metadata.labels: Invalid value: '
        f'"{_LONG}-{revision_hash("StatefulSet", _LONG)}": must be no more than 63 characters, '
        f"spec.subdomain: {_DOTS}]",
        id="a revision label too long comes before the subdomain, both listed",
    ),
    pytest.param(
        {"spec": {"serviceName": "db.svc", "replicas": 0}}, {}, None,
        id="a StatefulSet of no replica makes no pod to refuse",
    ),
    pytest.param(
        {}, {"topologySpreadConstraints": [_SPREAD_BY_APP], "serviceAccountName": "Robot_1",
             "containers": [{**container(), "image": " busybox"}]},
        'Pod "db-0" is invalid: [spec.topologySpreadConstraints[0][0]: Invalid value: "app": '
        "exists in both matchLabelKeys and labelSelector, spec.serviceAccountName: Invalid "
        f'value: "Robot_1": {SUBDOMAIN}, spec.containers[0].image: Invalid value: " busybox": '
        "must not have leading or trailing whitespace]",
        id="a merged matchLabelKeys error comes in its constraint's place, before the pod-only",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("workload", "fields", "reason"), STATEFUL_POD)
def test_a_stateful_set_s_pod_is_refused_in_one_message(
    workload: dict[str, Any], fields: dict[str, Any], reason: str | None
) -> None:
    body = _stateful_set(**fields)
    body["metadata"].update(workload.get("metadata", {}))
    body["spec"].update(workload.get("spec", {}))
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), body)], snapshot, RunOptions()).results
    assert result.reason == reason


def test_a_stateful_set_s_pod_mounts_the_volumes_of_its_claims() -> None:
    """updateStorage gives each pod a volume per claim template, named as the template,
    before ValidatePodCreate meets the mounts (TestValidateVolumeMounts' "name not found"
    holds only for a volume no one adds)."""
    body = _stateful_set(
        containers=[{**container(), "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]
    )
    claim = {"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"]}}
    body["spec"]["volumeClaimTemplates"] = [claim]
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), body)], snapshot, RunOptions()).results
    assert result.verdict is Verdict.YES
