"""The LimitRanger admission's validation (gate.k8s.limitranger), and the RuntimeClass
admission's overhead checks, seen through the verdict: upstream
``plugin/pkg/admission/limitranger/admission.go`` (PodValidateLimitFunc, minConstraint,
maxConstraint, limitRequestRatioConstraint; cases after its TestPodLimitFunc) and
``plugin/pkg/admission/runtimeclass/admission.go`` (setOverhead, validateOverhead)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.limitranger import accepted, limit_violations
from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot, container
from tests.engine_support import evaluate

REFUSED = 'pods "w" is forbidden: '
"""apierrors.NewForbidden's message for the pod ``w`` (limitranger/admission.go Validate)."""


def _limit_range(*items: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "LimitRange",
        "metadata": {"name": "limits", "namespace": "default"},
        "spec": {"limits": list(items)},
    }


def _judged(items: list[dict[str, Any]], spec: dict[str, Any]) -> tuple[Verdict, str | None]:
    snapshot = cluster_snapshot([api_node("n", cpu="8")], limitRanges=[_limit_range(*items)])
    result = evaluate(snapshot, spec)
    return result.verdict, result.reason


def _pod(*containers: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {"containers": list(containers), **spec}


CASES = [
    pytest.param(
        [{"type": "Container", "min": {"cpu": "100m"}}],
        _pod(container(requests={"cpu": "50m"})),
        "minimum cpu usage per Container is 100m, but request is 50m",
        id="a container requesting less than the minimum is refused",
    ),
    pytest.param(
        [{"type": "Container", "min": {"memory": "64Mi"}}],
        _pod(container(requests={"cpu": "1"})),
        None,
        id="a container without a request of a resource with a minimum takes it as its request",
    ),
    pytest.param(
        [{"type": "Pod", "min": {"memory": "64Mi"}}],
        _pod(container(requests={"cpu": "1"})),
        "minimum memory usage per Pod is 64Mi.  No request is specified",
        id="a pod without a request of a resource with a pod minimum is refused",
    ),
    pytest.param(
        [{"type": "Container", "min": {"cpu": "100m"}}],
        _pod(container(requests={"cpu": "100m"}, limits={"cpu": "200m"})),
        None,
        id="a container at the minimum is admitted",
    ),
    pytest.param(
        [{"type": "Container", "max": {"cpu": "1"}}],
        _pod(container(requests={"cpu": "500m"})),
        None,
        id="a container without a limit of a resource with a maximum takes it as its limit",
    ),
    pytest.param(
        [{"type": "Container", "max": {"cpu": "1"}}],
        _pod(container(limits={"cpu": "1500m"})),
        "maximum cpu usage per Container is 1, but limit is 1500m",
        id="a container limited above the maximum is refused",
    ),
    pytest.param(
        [{"type": "Container", "max": {"cpu": "1"}}],
        _pod(container(), initContainers=[container("init", limits={"cpu": "2"})]),
        "maximum cpu usage per Container is 1, but limit is 2",
        id="an init container is held to the container items too",
    ),
    pytest.param(
        [{"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}}],
        _pod(container(requests={"cpu": "100m"}, limits={"cpu": "250m"})),
        "cpu max limit to request ratio per Container is 2, but provided ratio is 2.500000",
        id="a limit more than the ratio times the request is refused with the ratio printed",
    ),
    pytest.param(
        [{"type": "Container", "maxLimitRequestRatio": {"cpu": "2"}}],
        _pod(container(requests={"cpu": "100m"}, limits={"cpu": "200m"})),
        None,
        id="a limit at the ratio is admitted",
    ),
    pytest.param(
        [{"type": "Container", "maxLimitRequestRatio": {"memory": "2"}}],
        _pod(container(requests={"cpu": "1"})),
        "memory max limit to request ratio per Container is 2, but no request is specified "
        "or request is 0",
        id="a ratio on a resource the container does not request is refused",
    ),
    pytest.param(
        [{"type": "Pod", "max": {"cpu": "1"}}],
        _pod(container("a", limits={"cpu": "600m"}), container("b", limits={"cpu": "600m"})),
        "maximum cpu usage per Pod is 1, but limit is 1200m",
        id="a pod item holds the containers' limits summed",
    ),
    pytest.param(
        [{"type": "Pod", "max": {"cpu": "1"}}],
        _pod(container("a", limits={"cpu": "600m"}), resources={"limits": {"cpu": "1"}}),
        None,
        id="a pod item reads the pod-level limit in place of the containers'",
    ),
    pytest.param(
        [{"type": "Pod", "min": {"cpu": "1"}}],
        _pod(
            container("a", requests={"cpu": "200m"}),
            initContainers=[container("init", requests={"cpu": "900m"})],
        ),
        "minimum cpu usage per Pod is 1, but request is 900m",
        id="a pod item reads a regular init container's peak as a floor",
    ),
    pytest.param(
        [{"type": "Container", "max": {"cpu": "1"}}],
        _pod(container("a", limits={"cpu": "2"}), container("b", limits={"cpu": "2"})),
        "maximum cpu usage per Container is 1, but limit is 2",
        id="the same error of two containers is given once",
    ),
    pytest.param(
        [{"type": "Container", "max": {"cpu": "1"}, "min": {"cpu": "100m"}}],
        _pod(container("a", limits={"cpu": "2"}), container("b", requests={"cpu": "50m"})),
        "[maximum cpu usage per Container is 1, but limit is 2, "
        "minimum cpu usage per Container is 100m, but request is 50m]",
        id="several errors are joined in brackets",
    ),
]


@pytest.mark.parametrize(("items", "spec", "error"), CASES)
def test_limit_range_bounds_refuse_a_pod_as_the_api_server_does(
    items: list[dict[str, Any]], spec: dict[str, Any], error: str | None
) -> None:
    verdict, reason = _judged(items, spec)
    if error is None:
        assert verdict is Verdict.YES
    else:
        assert (verdict, reason) == (Verdict.ERROR, REFUSED + error)


def test_limit_range_defaults_are_applied_before_the_bounds_are_checked() -> None:
    """LimitRanger's own defaults (mutating) come before its validation: a default limit
    above the maximum is the pod's limit when the maximum is checked."""
    items = [{"type": "Container", "default": {"cpu": "2"}, "max": {"cpu": "3"}}]
    assert _judged(items, _pod(container(requests={"cpu": "1"}))) == (Verdict.YES, None)
    items = [{"type": "Container", "default": {"cpu": "2"}, "defaultRequest": {"cpu": "1"}}]
    spec = _pod(container())
    assert limit_violations(spec, [{"type": "Container", "max": {"cpu": "1"}}]) == (
        "maximum cpu usage per Container is 1.  No limit is specified"
    )
    # Taken in name order ("limits" before "the-bounds"): the first range's defaults win,
    # and every range's defaults are in before any range's bounds are checked.
    ranges = [_limit_range(*items), _limit_range({"type": "Container", "max": {"cpu": "1"}})]
    ranges[1]["metadata"]["name"] = "the-bounds"
    verdict, reason = _judged_by(ranges, spec)
    assert (verdict, reason) == (
        Verdict.ERROR,
        REFUSED + "maximum cpu usage per Container is 1, but limit is 2",
    )
    # Named first, the bounds range's own defaults (its max, as SetDefaults_LimitRangeItem
    # gives a maximum without a default) are the pod's: it keeps within them.
    ranges[1]["metadata"]["name"] = "bounds"
    assert _judged_by(ranges, spec) == (Verdict.YES, None)


def _judged_by(
    limit_ranges: list[dict[str, Any]], spec: dict[str, Any]
) -> tuple[Verdict, str | None]:
    snapshot = cluster_snapshot([api_node("n", cpu="8")], limitRanges=limit_ranges)
    result = evaluate(snapshot, spec)
    return result.verdict, result.reason


def _ranges(*items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A LimitRange of each list of items, named apart."""
    found = [_limit_range(*each) for each in items]
    for index, limit_range in enumerate(found):
        limit_range["metadata"]["name"] = f"limits-{index}"
    return found


# plugin/pkg/admission/limitranger/admission.go: runLimitFunc runs PodMutateLimitFunc, then
# PodValidateLimitFunc, for each LimitRange of the namespace apart;
# defaultContainerResourceRequirements lets a later Container item of one LimitRange replace
# an earlier one's default, mergeContainerResources fills only what is still missing, and
# the first LimitRange the pod breaks refuses it with its own errors.
SEVERAL = [
    pytest.param(
        _ranges([{"type": "Container", "default": {"cpu": "2"}}, {"type": "Container",
                                                                  "max": {"cpu": "1"}}]),
        _pod(container()),
        None,
        id="a later item of one LimitRange replaces an earlier one's default (max 1 -> limit 1)",
    ),
    pytest.param(
        _ranges([{"type": "Container", "default": {"cpu": "2"}}],
                [{"type": "Container", "default": {"cpu": "1"}, "max": {"cpu": "1"}}]),
        _pod(container()),
        "maximum cpu usage per Container is 1, but limit is 2",
        id="the first LimitRange's default is the one a container takes",
    ),
    pytest.param(
        _ranges([{"type": "Container", "defaultRequest": {"cpu": "300m"}}],
                [{"type": "Container", "defaultRequest": {"memory": "64Mi"}}]),
        _pod(container(), container("b", requests={"cpu": "1"})),
        None,
        id="each LimitRange's defaults fill what the others leave",
    ),
    pytest.param(
        _ranges([{"type": "Container", "min": {"cpu": "100m"}}],
                [{"type": "Container", "max": {"cpu": "1"}}]),
        _pod(container(requests={"cpu": "50m"}, limits={"cpu": "2"})),
        "minimum cpu usage per Container is 100m, but request is 50m",
        id="only the first LimitRange the pod breaks is quoted, never two joined",
    ),
    pytest.param(
        _ranges([{"type": "Container", "max": {"memory": "1Gi"}}],
                [{"type": "Container", "min": {"cpu": "100m"}, "max": {"cpu": "1"}}]),
        _pod(container(requests={"cpu": "50m"}, limits={"cpu": "2", "memory": "512Mi"})),
        "[minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per "
        "Container is 1, but limit is 2]",
        id="a LimitRange the pod keeps is passed for the next, whose errors are all listed",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("limit_ranges", "spec", "error"), SEVERAL)
def test_several_limit_ranges_each_apply_apart(
    limit_ranges: list[dict[str, Any]], spec: dict[str, Any], error: str | None
) -> None:
    verdict, reason = _judged_by(limit_ranges, spec)
    if error is None:
        assert (verdict, reason) == (Verdict.YES, None)
    else:
        assert (verdict, reason) == (Verdict.ERROR, REFUSED + error)


def test_a_default_limit_below_the_request_makes_the_pod_invalid() -> None:
    """ValidatePod runs between the mutating and the validating admission plugins: a
    default limit below the container's request fails validateResourceRequirements."""
    items = [{"type": "Container", "default": {"cpu": "1"}}]
    verdict, reason = _judged(items, _pod(container(), container("b", requests={"cpu": "2"})))
    assert (verdict, reason) == (
        Verdict.ERROR,
        'Pod "w" is invalid: spec.containers[1].resources.requests: '
        'Invalid value: "2": must be less than or equal to cpu limit of 1',
    )
    assert _judged(items, _pod(container(requests={"cpu": "500m"}))) == (Verdict.YES, None)


def test_every_error_the_defaults_make_is_listed_in_validate_pod_s_order() -> None:
    """NewInvalid lists ValidatePod's whole ErrorList (ToAggregate): the containers' errors
    in their order, init containers after, then the pod-level resources'."""
    items = [{"type": "Container", "default": {"cpu": "1", "memory": "1Gi"}}]
    spec = _pod(
        container(requests={"cpu": "2"}),
        container("b", requests={"memory": "2Gi"}),
        initContainers=[container("i", requests={"cpu": "3"})],
    )
    verdict, reason = _judged(items, spec)
    assert (verdict, reason) == (
        Verdict.ERROR,
        'Pod "w" is invalid: [spec.containers[0].resources.requests: Invalid value: "2": must '
        "be less than or equal to cpu limit of 1, spec.containers[1].resources.requests: "
        'Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi, '
        'spec.initContainers[0].resources.requests: Invalid value: "3": must be less than or '
        "equal to cpu limit of 1]",
    )


def test_a_pod_item_gives_no_defaults() -> None:
    """SetDefaults_LimitRangeItem and mergeContainerResources read Container items only."""
    items = [{"type": "Pod", "max": {"memory": "1Gi"}}]
    verdict, reason = _judged(items, _pod(container(requests={"cpu": "1"})))
    assert (verdict, reason) == (
        Verdict.ERROR,
        REFUSED + "maximum memory usage per Pod is 1Gi.  No limit is specified",
    )


def _runtime_snapshot(overhead: dict[str, Any] | None) -> dict[str, Any]:
    runtime: dict[str, Any] = {"kind": "RuntimeClass", "metadata": {"name": "rc"}, "handler": "x"}
    if overhead is not None:
        runtime["overhead"] = {"podFixed": overhead}
    return cluster_snapshot([api_node("n", cpu="8")], runtimeClasses=[runtime])


MISMATCH = "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead"
UNDEFINED = "pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead"

OVERHEAD_CASES = [
    pytest.param(
        {"cpu": "250m"},
        {"runtimeClassName": "rc", "overhead": {"cpu": "0.25"}},
        None,
        id="an overhead written equal to the class's is admitted",
    ),
    pytest.param(
        {"cpu": "250m"},
        {"runtimeClassName": "rc", "overhead": {"cpu": "100m"}},
        REFUSED + MISMATCH,
        id="an overhead written that differs from the class's is refused",
    ),
    pytest.param(
        {"cpu": "250m"},
        {"runtimeClassName": "rc", "overhead": {"cpu": "250m", "memory": "1Mi"}},
        REFUSED + MISMATCH,
        id="an overhead written with a resource the class lacks is refused",
    ),
    pytest.param(
        None,
        {"runtimeClassName": "rc", "overhead": {"cpu": "100m"}},
        REFUSED + UNDEFINED,
        id="an overhead written under a class without one is refused",
    ),
    pytest.param(
        {"cpu": "250m"},
        {"overhead": {"cpu": "100m"}},
        REFUSED + UNDEFINED,
        id="an overhead written without a runtime class is refused",
    ),
]


@pytest.mark.parametrize(("overhead", "written", "reason"), OVERHEAD_CASES)
def test_an_overhead_the_pod_writes_must_be_its_runtime_class_s(
    overhead: dict[str, Any] | None, written: dict[str, Any], reason: str | None
) -> None:
    result = evaluate(
        _runtime_snapshot(overhead), _pod(container(requests={"cpu": "1"}), **written)
    )
    if reason is None:
        assert result.verdict is Verdict.YES
    else:
        assert (result.verdict, result.reason) == (Verdict.ERROR, reason)


@given(
    bounds=st.lists(st.integers(min_value=1, max_value=10**9), min_size=4, max_size=4),
)
def test_a_container_within_its_bounds_is_never_refused(bounds: list[int]) -> None:
    """minConstraint and maxConstraint in milli-units: min <= request <= limit <= max."""
    low, request, limit, high = sorted(bounds)
    item = {"type": "Container", "min": {"cpu": f"{low}m"}, "max": {"cpu": f"{high}m"}}
    resources = {"requests": {"cpu": f"{request}m"}, "limits": {"cpu": f"{limit}m"}}
    assert limit_violations({"containers": [{"name": "c", "resources": resources}]}, [item]) is None
    if limit < high:
        raised = {**resources, "limits": {"cpu": f"{high + 1}m"}}
        error = limit_violations({"containers": [{"name": "c", "resources": raised}]}, [item])
        assert error is not None and error.startswith("maximum cpu usage per Container is ")


def _sandboxed(runtime_class: str) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": _pod(container(requests={"cpu": "7800m"}), runtimeClassName=runtime_class),
            },
        },
    }


SHIPPED = {
    "apiVersion": "node.k8s.io/v1",
    "kind": "RuntimeClass",
    "metadata": {"name": "kata"},
    "handler": "kata",
    "overhead": {"podFixed": {"cpu": "250m"}},
}

# (id, the run's manifests, verdict, reason)
RUNTIME_RUNS: list[tuple[str, list[dict[str, Any]], Verdict, str | None]] = [
    (
        "a class neither the cluster nor the run has is refused",
        [_sandboxed("kata")],
        Verdict.ERROR,
        # RuntimeClass refuses it while mutating, before the pod's name is generated
        'pods "web-7fd4c7b98f-" is forbidden: pod rejected: RuntimeClass "kata" not found',
    ),
    (
        "a class the run ships beside its workload is known, its overhead counted",
        [SHIPPED, _sandboxed("kata")],
        Verdict.NO,
        None,
    ),
    (
        "a class the cluster has is known",
        [_sandboxed("rc")],
        Verdict.YES,
        None,
    ),
]


@pytest.mark.parametrize(
    ("manifests", "verdict", "reason"),
    [c[1:] for c in RUNTIME_RUNS],
    ids=[c[0] for c in RUNTIME_RUNS],
)
def test_a_runtime_class_must_exist_in_the_cluster_or_the_run(
    manifests: list[dict[str, Any]], verdict: Verdict, reason: str | None
) -> None:
    """plugin/pkg/admission/runtimeclass: prepareObjects forbids a class not found."""
    snapshot = build_snapshot(_runtime_snapshot(None), "s.json")
    documents = [Document(Location("m.yaml", 1 + 20 * i), b) for i, b in enumerate(manifests)]
    report = check(documents, snapshot, RunOptions())
    assert [(r.verdict, r.reason) for r in report.results][-1:] == [(verdict, reason)]


def _run_limit_range(
    *items: dict[str, Any], namespace: str = "default", name: str = "limits"
) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"limits": list(items)},
    }


def _deployment(*containers: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": _pod(*containers)},
        },
    }


RECORDED_BOUND = _limit_range({"type": "Container", "max": {"cpu": "1"}})
FORBIDDEN = re.compile(r'pods "web-[a-z0-9]+-[a-z0-9]{5}" is forbidden: (.*)')

# (id, the recorded LimitRanges, the run's manifests, verdict, the error after the pod name)
Objects = list[dict[str, Any]]
LIMIT_RANGE_RUNS: list[tuple[str, Objects, Objects, Verdict, str | None]] = [
    ("a LimitRange the run ships beside its workload bounds the pods created after it", [],
     [_run_limit_range({"type": "Container", "max": {"cpu": "1"}}),
      _deployment(container(requests={"cpu": "500m"}, limits={"cpu": "2"}))],
     Verdict.ERROR, "maximum cpu usage per Container is 1, but limit is 2"),
    ("a LimitRange the run ships gives its defaults to the pods created after it", [],
     [_run_limit_range({"type": "Container", "defaultRequest": {"cpu": "9"}}),
      _deployment(container())],
     Verdict.NO, None),
    ("a LimitRange the run ships in another namespace leaves the pods alone", [],
     [_run_limit_range({"type": "Container", "max": {"cpu": "1"}}, namespace="other"),
      _deployment(container(requests={"cpu": "500m"}, limits={"cpu": "2"}))],
     Verdict.YES, None),
    ("a LimitRange the run ships replaces the recorded one of its name", [RECORDED_BOUND],
     [_run_limit_range({"type": "Container", "max": {"cpu": "4"}}),
      _deployment(container(requests={"cpu": "500m"}, limits={"cpu": "2"}))],
     Verdict.YES, None),
    ("a LimitRange the run ships of another name stands beside the recorded one",
     [RECORDED_BOUND],
     [_run_limit_range({"type": "Container", "max": {"cpu": "4"}}, name="more"),
      _deployment(container(requests={"cpu": "500m"}, limits={"cpu": "2"}))],
     Verdict.ERROR, "maximum cpu usage per Container is 1, but limit is 2"),
    # The recorded "limits" defaults a limit of 2 cpu; the run's "defaults" sorts before it by
    # name, so its default of 1 cpu is the one the pod takes, wherever the run lists it.
    ("a LimitRange the run ships defaults before a recorded one it precedes by name",
     [_limit_range({"type": "Container", "default": {"cpu": "2"}, "max": {"cpu": "3"}})],
     [_deployment(container(requests={"cpu": "500m"})),
      _run_limit_range({"type": "Container", "default": {"cpu": "1"}, "max": {"cpu": "1"}},
                       name="defaults")],
     Verdict.YES, None),
]  # fmt: skip


@pytest.mark.parametrize(
    ("recorded", "manifests", "verdict", "error"),
    [c[1:] for c in LIMIT_RANGE_RUNS],
    ids=[c[0] for c in LIMIT_RANGE_RUNS],
)
def test_a_limit_range_the_run_ships_is_in_force_for_its_workloads(
    recorded: list[dict[str, Any]],
    manifests: list[dict[str, Any]],
    verdict: Verdict,
    error: str | None,
) -> None:
    """limitranger's GetLimitRanges lists the namespace's LimitRanges when the pod is
    created, after the apply that created the run's own."""
    recording = cluster_snapshot([api_node("n", cpu="8")], limitRanges=recorded)
    snapshot = build_snapshot(recording, "s.json")
    documents = [Document(Location("m.yaml", 1 + 20 * i), b) for i, b in enumerate(manifests)]
    (result,) = check(documents, snapshot, RunOptions()).results
    found = FORBIDDEN.fullmatch(result.reason or "")
    assert (result.verdict, found.group(1) if found else result.reason) == (verdict, error)


def _cpu(**bounds: str) -> dict[str, dict[str, str]]:
    return {field: {"cpu": value} for field, value in bounds.items()}


# pkg/apis/core/validation/validation.go ValidateLimitRange (cases after its
# TestValidateLimitRange), on the items as SetDefaults_LimitRangeItem leaves them: a run's
# LimitRange the API server refuses is never created, so it bounds nothing.
LIMIT_RANGE_OBJECTS = [
    pytest.param([{"type": "Container", **_cpu(min="100m", max="1", default="500m",
                                               defaultRequest="200m")}], True,
                 id="bounds in order are taken"),
    pytest.param([{"type": "Container", **_cpu(min="100m")},
                  {"type": "Pod", **_cpu(max="2")}], True,
                 id="one Container and one Pod item are taken"),
    pytest.param([{"type": "example.com/thing", "max": {"example.com/thing": "3"}}], True,
                 id="a qualified type of its own is taken"),
    pytest.param([{"type": "PersistentVolumeClaim", "max": {"storage": "10Gi"}}], True,
                 id="a claim item with a storage maximum is taken"),
    pytest.param([{"type": "Nodes", **_cpu(max="1")}], False,
                 id="a type neither standard nor qualified is refused"),
    pytest.param([{"type": "Container", **_cpu(max="1")},
                  {"type": "Container", **_cpu(min="1m")}], False,
                 id="one type twice is refused"),
    pytest.param([{"type": "Pod", **_cpu(default="1")}], False,
                 id="a Pod item's default is refused"),
    pytest.param([{"type": "Container", **_cpu(min="2", max="1")}], False,
                 id="a min above the max is refused"),
    pytest.param([{"type": "Container", **_cpu(min="200m")}, ], True,
                 id="a min alone becomes the default request and is taken"),
    pytest.param([{"type": "Container", **_cpu(min="200m", defaultRequest="100m")}], False,
                 id="a default request below the min is refused"),
    pytest.param([{"type": "Container", **_cpu(max="1", default="2")}], False,
                 id="a default above the max is refused"),
    pytest.param([{"type": "Container", **_cpu(min="2", default="1")}], False,
                 id="a default limit below the min, its default request from it, is refused"),
    pytest.param([{"type": "Container", **_cpu(default="1", defaultRequest="2")}], False,
                 id="a default request above the default limit is refused"),
    pytest.param([{"type": "Container", **_cpu(maxLimitRequestRatio="0.5")}], False,
                 id="a ratio below 1 is refused"),
    pytest.param([{"type": "Container", **_cpu(min="1", max="2", maxLimitRequestRatio="3")}],
                 False, id="a ratio above max/min is refused"),
    pytest.param([{"type": "Container", **_cpu(min="1", max="2", maxLimitRequestRatio="2")}],
                 True, id="a ratio of max/min is taken"),
    pytest.param([{"type": "Container", "default": {"example.com/gpu": "2"},
                   "defaultRequest": {"example.com/gpu": "1"}}], False,
                 id="an extended resource's default request other than its default is refused"),
    pytest.param([{"type": "Container", "max": {"gpu": "1"}}], False,
                 id="a resource no container may have is refused"),
    pytest.param([{"type": "PersistentVolumeClaim", "max": {"cpu": "1"}}], False,
                 id="a claim item without a storage bound is refused"),
    pytest.param([{"type": "Container", **_cpu(max="lots")}], False,
                 id="a quantity that does not parse is refused"),
]  # fmt: skip


@pytest.mark.parametrize(("items", "taken"), LIMIT_RANGE_OBJECTS)
def test_a_limit_range_is_created_only_as_the_api_server_validates_it(
    items: list[dict[str, Any]], taken: bool
) -> None:
    assert accepted(_run_limit_range(*items)) is taken


def test_a_limit_range_the_api_server_refuses_bounds_nothing() -> None:
    refused = _run_limit_range({"type": "Container", **_cpu(min="2", max="1")})
    deployment = _deployment(container(requests={"cpu": "500m"}, limits={"cpu": "3"}))
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="8")]), "s.json")
    documents = [
        Document(Location("m.yaml", 1 + 20 * i), b) for i, b in enumerate([refused, deployment])
    ]
    (range_result, result) = check(documents, snapshot, RunOptions()).results
    assert (range_result.kind, range_result.verdict) == ("LimitRange", Verdict.ERROR)
    assert (result.verdict, result.reason) == (Verdict.YES, None)
