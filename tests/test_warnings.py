"""Warnings for what a template asks of the scheduler that fitgate does not filter on
(gate.k8s.warnings): a template using one is never a silent YES. Each case asserts the
whole list, kinds and sentences, in its fixed order."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.warnings import (
    CLAIMS_PARTLY,
    NOT_JUDGED,
    RECORD_LIMITS,
    RECORD_STORAGE,
    unchecked_warnings,
)
from gate.model import WarningKind, WorkloadWarning
from tests.builders import container

ZERO = WarningKind.ZERO_REQUEST
NOT_MODELLED = WarningKind.NOT_MODELLED
SCHEDULING = WarningKind.SCHEDULING
REQUESTED = {"cpu": "100m", "memory": "64Mi"}
EVICTED = "a zero request fits every node and is evicted later"
BOUND = "spec.nodeName is set: such a pod bypasses kube-scheduler and the kubelet admits it"


def _spec(**spec: Any) -> dict[str, Any]:
    return {"containers": [container("app", requests=REQUESTED)], **spec}


def _preferred(kind: str) -> dict[str, Any]:
    return {kind: {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1}]}}


def _required_in(kind: str, namespace_selector: dict[str, Any]) -> dict[str, Any]:
    term = {"topologyKey": "zone", "namespaceSelector": namespace_selector}
    return {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


WARNINGS: list[tuple[str, dict[str, Any], list[tuple[WarningKind, str]]]] = [
    ("a template asking only what the filters check warns of nothing", _spec(), []),
    (
        "a container naming neither request warns of both",
        {"containers": [container("app")]},
        [(ZERO, f'container "app" has no cpu or memory request: {EVICTED}')],
    ),
    (
        "a limit stands for its request",
        {"containers": [container("app", requests={"cpu": "1"}, limits={"memory": "1Gi"})]},
        [],
    ),
    (
        "a pod-level request covers every container",
        {"containers": [container("app")], "resources": {"requests": REQUESTED}},
        [],
    ),
    (
        "a container without a name is called ?",
        {"containers": [{"resources": {"requests": {"cpu": "1"}}}]},
        [(ZERO, f'container "?" has no memory request: {EVICTED}')],
    ),
    (
        "a sidecar init container is judged, a plain init container is not",
        _spec(
            initContainers=[
                container("init"),
                container("proxy", restartPolicy="Always"),
            ]
        ),
        [(ZERO, f'container "proxy" has no cpu or memory request: {EVICTED}')],
    ),
    (
        "preferred node affinity is a score",
        _spec(affinity=_preferred("nodeAffinity")),
        [(NOT_MODELLED, "preferred node affinity is a score, not a filter: not evaluated")],
    ),
    (
        "preferred pod affinity and anti-affinity are scores, in that order",
        _spec(affinity=_preferred("podAntiAffinity") | _preferred("podAffinity")),
        [
            (NOT_MODELLED, "preferred pod affinity is a score, not a filter: not evaluated"),
            (NOT_MODELLED, "preferred pod anti-affinity is a score, not a filter: not evaluated"),
        ],
    ),
    (
        "ScheduleAnyway spreads are a score, their keys sorted and named once",
        _spec(
            topologySpreadConstraints=[
                {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
                {"topologyKey": "host", "whenUnsatisfiable": "ScheduleAnyway"},
                {"topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
                {"topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule"},
            ]
        ),
        [
            (
                NOT_MODELLED,
                "topology spread over host, zone with ScheduleAnyway is a score, "
                "not a filter: not evaluated",
            )
        ],
    ),
    (
        "volumes the volume filters act on are named, sorted; others are not",
        _spec(
            volumes=[
                {"name": "d", "persistentVolumeClaim": {"claimName": "d"}},
                {"name": "c", "csi": {"driver": "x"}},
                {"name": "e", "emptyDir": {}},
                {"name": "s", "secret": {"secretName": "s"}},
            ]
        ),
        [
            (
                NOT_MODELLED,
                "volumes (persistentVolumeClaim) not checked "
                "(VolumeBinding, VolumeZone, NodeVolumeLimits, VolumeRestrictions need the "
                "claims); " + RECORD_STORAGE,
            ),
            (NOT_MODELLED, NOT_JUDGED.format(kinds="csi")),
        ],
    ),
    (
        "resource claims are not checked",
        _spec(resourceClaims=[{"name": "gpu"}]),
        [(NOT_MODELLED, "resource claims not checked (DynamicResources filter not modelled)")],
    ),
    (
        "scheduling gates are no warning: the result names them",
        _spec(schedulingGates=[{"name": "wait"}]),
        [],
    ),
    (
        "another scheduler is named",
        _spec(schedulerName="volcano"),
        [(SCHEDULING, 'schedulerName "volcano": evaluated with default-scheduler rules')],
    ),
    ("the default scheduler named is no warning", _spec(schedulerName="default-scheduler"), []),
    (
        "a pod bound by name bypasses the scheduler",
        _spec(nodeName="n1"),
        [
            (
                SCHEDULING,
                BOUND,
            )
        ],
    ),
    (
        "several warnings come in a fixed order",
        {
            "containers": [container("app")],
            "nodeName": "n1",
            "schedulerName": "volcano",
            "affinity": _preferred("nodeAffinity"),
        },
        [
            (ZERO, f'container "app" has no cpu or memory request: {EVICTED}'),
            (NOT_MODELLED, "preferred node affinity is a score, not a filter: not evaluated"),
            (SCHEDULING, 'schedulerName "volcano": evaluated with default-scheduler rules'),
            (
                SCHEDULING,
                BOUND,
            ),
        ],
    ),
]


@pytest.mark.parametrize(
    ("spec", "expected"), [c[1:] for c in WARNINGS], ids=[c[0] for c in WARNINGS]
)
def test_unchecked_warnings(spec: dict[str, Any], expected: list[tuple[WarningKind, str]]) -> None:
    assert unchecked_warnings(spec) == [WorkloadWarning(k, t) for k, t in expected]


CLAIM_VOLUME = {"name": "d", "persistentVolumeClaim": {"claimName": "d"}}
STORAGE_KNOWN = [
    (
        "a claim is checked, in part, when the snapshot recorded storage",
        _spec(volumes=[CLAIM_VOLUME]),
        [(NOT_MODELLED, CLAIMS_PARTLY)],
    ),
    (
        "the other volumes stay unchecked beside a claim checked in part",
        _spec(volumes=[CLAIM_VOLUME, {"name": "c", "csi": {"driver": "x"}}]),
        [(NOT_MODELLED, NOT_JUDGED.format(kinds="csi")), (NOT_MODELLED, CLAIMS_PARTLY)],
    ),
    ("a pod without volumes has no volume warning", _spec(), []),
]


@pytest.mark.parametrize(
    ("spec", "expected"), [c[1:] for c in STORAGE_KNOWN], ids=[c[0] for c in STORAGE_KNOWN]
)
def test_volume_warnings_with_storage_recorded(
    spec: dict[str, Any], expected: list[tuple[WarningKind, str]]
) -> None:
    assert unchecked_warnings(spec, storage_known=True) == [
        WorkloadWarning(k, t) for k, t in expected
    ]


EBS = {"name": "e", "awsElasticBlockStore": {"volumeID": "vol-1"}}
RBD = {"name": "r", "rbd": {"monitors": ["m"], "image": "i"}}
LIMITS_KNOWN = [
    pytest.param(
        _spec(volumes=[CLAIM_VOLUME]), True, [], id="a claim is checked in full with the CSINodes"
    ),
    pytest.param(
        _spec(volumes=[EBS, RBD]),
        False,
        [RECORD_LIMITS.format(kinds="awsElasticBlockStore")],
        id="an in-tree disk's conflicts are checked, its attach limit needs the CSINodes",
    ),
    pytest.param(
        _spec(volumes=[EBS, RBD]),
        True,
        [],
        id="in-tree disks are checked in full with the CSINodes",
    ),
    pytest.param(
        _spec(volumes=[{"name": "x", "ephemeral": {}}]),
        True,
        [],
        id="a generic ephemeral volume is judged in full as its claim with the CSINodes",
    ),
    pytest.param(
        _spec(volumes=[{"name": "x", "ephemeral": {}}]),
        False,
        [RECORD_LIMITS.format(kinds="ephemeral")],
        id="a generic ephemeral volume's attach limit needs the CSINodes",
    ),
]


def test_a_generic_ephemeral_volume_is_not_checked_without_the_claims() -> None:
    found = unchecked_warnings(_spec(volumes=[{"name": "x", "ephemeral": {}}]))
    assert found == [WorkloadWarning(NOT_MODELLED, NOT_JUDGED.format(kinds="ephemeral"))]


@pytest.mark.parametrize(("spec", "limits_known", "expected"), LIMITS_KNOWN)
def test_volume_warnings_say_what_the_csi_nodes_add(
    spec: dict[str, Any], limits_known: bool, expected: list[str]
) -> None:
    found = unchecked_warnings(spec, storage_known=True, limits_known=limits_known)
    assert found == [WorkloadWarning(NOT_MODELLED, t) for t in expected]


def test_requests_are_judged_on_the_completed_spec_where_a_limitrange_default_is_a_request() -> (
    None
):
    written = {"containers": [container("app")]}
    completed = {"containers": [container("app", requests=REQUESTED)]}
    assert unchecked_warnings(written, completed) == []
    assert unchecked_warnings(completed, written) == [
        WorkloadWarning(ZERO, f'container "app" has no cpu or memory request: {EVICTED}')
    ]


NAMESPACES: list[tuple[str, dict[str, Any], bool, list[str]]] = [
    (
        "a namespaceSelector with the namespaces unknown selects none, and says so",
        _spec(affinity=_required_in("podAntiAffinity", {"matchLabels": {"team": "a"}})),
        True,
        [
            "pod anti-affinity namespaceSelector: the snapshot recorded no namespaces, "
            "so it selects none"
        ],
    ),
    (
        "a namespaceSelector with the namespaces recorded is evaluated",
        _spec(affinity=_required_in("podAffinity", {"matchLabels": {"team": "a"}})),
        False,
        [],
    ),
    (
        "an empty namespaceSelector reads no namespace labels",
        _spec(affinity=_required_in("podAffinity", {})),
        True,
        [],
    ),
]


@pytest.mark.parametrize(
    ("spec", "unknown", "expected"), [c[1:] for c in NAMESPACES], ids=[c[0] for c in NAMESPACES]
)
def test_namespace_selectors_without_recorded_namespaces(
    spec: dict[str, Any], unknown: bool, expected: list[str]
) -> None:
    warnings = unchecked_warnings(spec, namespaces_unknown=unknown)
    assert warnings == [WorkloadWarning(NOT_MODELLED, text) for text in expected]
