"""The ResourceQuota admission rules, case by case from upstream's tests, each cited:
``plugin/pkg/admission/resourcequota/admission_test.go`` (the admission plugin, which drives
``staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota/controller.go``),
``pkg/quota/v1/evaluator/core/pods_test.go`` (the pod evaluator) and
``staging/src/k8s.io/apiserver/pkg/quota/v1/resources_test.go`` (the arithmetic); with
property tests of the usage arithmetic."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.quantity import parse_quantity
from gate.k8s.quota import (
    Refusal,
    ResourceQuota,
    ScopeRequirement,
    check_request,
    constraints,
    pod_quota_matches,
    pretty,
    resource_quota,
    tracked_by_pods,
)
from gate.k8s.quotaledger import QuotaLedger
from gate.k8s.quotausage import Amount, pod_usage
from gate.k8s.resources import pod_requests as scheduler_requests
from tests.builders import container


def _list(**values: str) -> dict[str, Amount]:
    return {name.replace("_", "."): Amount.of(v) for name, v in values.items()}


def _quota(
    hard: dict[str, str],
    used: dict[str, str],
    scopes: tuple[ScopeRequirement, ...] = (),
    name: str = "quota",
) -> ResourceQuota:
    as_list = {k: Amount.of(v) for k, v in hard.items()}
    return ResourceQuota("test", name, as_list, {k: Amount.of(v) for k, v in used.items()}, scopes)


def _valid_pod(cpu: str = "", memory: str = "", limits: dict[str, str] | None = None) -> Any:
    """admission_test.go validPod(name, 1, getResourceRequirements(requests, limits)),
    as the API server stores it (a limit without a request is also the request)."""
    requests = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    for name, value in (limits or {}).items():
        requests.setdefault(name, value)
    return {"containers": [container(requests=requests, limits=limits or {})]}


def _admit(quotas: list[ResourceQuota], spec: Any) -> str | dict[str, dict[str, str]]:
    """One pod's admission: the error, or each matching quota's usage after it."""
    matching = [q for q in quotas if pod_quota_matches(q, spec)]
    tracked = {q.name: tracked_by_pods(q.hard) for q in matching}
    used = {q.name: dict(q.used) for q in matching}
    outcome = check_request(matching, tracked, used, pod_usage(spec), spec)
    if isinstance(outcome, Refusal):
        return outcome.error
    return {name: {k: str(v) for k, v in u.items()} for name, u in outcome.items()}


BASIC = _quota(
    {"cpu": "3", "memory": "100Gi", "pods": "5"}, {"cpu": "1", "memory": "50Gi", "pods": "3"}
)
TERMINATING = ScopeRequirement("Terminating")
NOT_TERMINATING = ScopeRequirement("NotTerminating")
BEST_EFFORT = ScopeRequirement("BestEffort")
NOT_BEST_EFFORT = ScopeRequirement("NotBestEffort")

# (id, quotas, the pod's spec, the error or each matching quota's usage after it)
ADMISSIONS: list[tuple[str, list[ResourceQuota], Any, str | dict[str, dict[str, str]]]] = [
    (
        # TestAdmitBelowQuotaLimit: the usage becomes cpu 1100m, memory 52Gi, pods 4
        "a pod below the quota's limit is added to its usage",
        [BASIC],
        _valid_pod("100m", "2Gi"),
        {"quota": {"cpu": "1100m", "memory": "52Gi", "pods": "4"}},
    ),
    (
        # TestAdmitExceedQuotaLimit
        "a pod above the quota's limit is refused",
        [BASIC],
        _valid_pod("3", "2Gi"),
        "exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3",
    ),
    (
        # TestAdmitEnforceQuotaConstraints: limits.memory tracked, the pod sets none
        "a quota tracking limits.memory refuses a pod without a memory limit",
        [
            _quota(
                {"cpu": "3", "memory": "100Gi", "limits.memory": "200Gi", "pods": "5"},
                {"cpu": "1", "memory": "50Gi", "limits.memory": "100Gi", "pods": "3"},
            )
        ],
        _valid_pod("100m", "2Gi", {"cpu": "200m"}),
        "failed quota: quota: must specify limits.memory for: c",
    ),
    (
        # TestAdmitPodInNamespaceWithoutQuota: the only quota is another namespace's
        "a namespace without a quota admits every pod",
        [],
        _valid_pod("100m", "2Gi", {"cpu": "200m"}),
        {},
    ),
    (
        # TestAdmitBelowTerminatingQuotaLimit: a pod with activeDeadlineSeconds
        "a terminating pod is counted by the Terminating quota only",
        [
            _quota(
                {"cpu": "3", "memory": "100Gi", "pods": "5"},
                {"cpu": "1", "memory": "50Gi", "pods": "3"},
                (NOT_TERMINATING,),
                "quota-non-terminating",
            ),
            _quota(
                {"cpu": "3", "memory": "100Gi", "pods": "5"},
                {"cpu": "1", "memory": "50Gi", "pods": "3"},
                (TERMINATING,),
                "quota-terminating",
            ),
        ],
        {**_valid_pod("100m", "2Gi"), "activeDeadlineSeconds": 30},
        {"quota-terminating": {"cpu": "1100m", "memory": "52Gi", "pods": "4"}},
    ),
    (
        # TestAdmitBelowBestEffortQuotaLimit: a pod without requests or limits
        "a best-effort pod is counted by the BestEffort quota only",
        [
            _quota({"pods": "5"}, {"pods": "3"}, (BEST_EFFORT,), "quota-besteffort"),
            _quota(
                {"cpu": "3", "memory": "100Gi", "pods": "5"},
                {"cpu": "1", "memory": "50Gi", "pods": "3"},
                (NOT_BEST_EFFORT,),
                "quota-not-besteffort",
            ),
        ],
        _valid_pod(),
        {"quota-besteffort": {"pods": "4"}},
    ),
    (
        # TestAdmitBestEffortQuotaLimitIgnoresBurstable
        "a burstable pod is not counted by a BestEffort quota",
        [_quota({"pods": "5"}, {"pods": "3"}, (BEST_EFFORT,))],
        _valid_pod("100m", "1Gi"),
        {},
    ),
    (
        # TestAdmitWhenUnrelatedResourceExceedsQuota: services over, the pod does not add any
        "a resource already over its limit that the pod does not use refuses nothing",
        [_quota({"services": "3", "pods": "4"}, {"services": "4", "pods": "1"})],
        _valid_pod("100m", "2Gi"),
        {"quota": {"services": "4", "pods": "2"}},
    ),
    (
        # TestAdmitBelowQuotaLimitWithUsageUnknown-like: a tracked resource never counted
        "a quota whose usage of a tracked resource is unknown refuses the pod",
        [_quota({"cpu": "3", "pods": "5"}, {"pods": "3"})],
        _valid_pod("100m", "2Gi"),
        "status unknown for quota: quota, resources: cpu,pods",
    ),
    (
        "every exceeded resource is named, sorted, each list in its own values' format",
        [
            _quota(
                {"requests.cpu": "10", "requests.memory": "1Gi", "pods": "20"},
                {"requests.cpu": "10", "requests.memory": "1024Mi", "pods": "7"},
            )
        ],
        _valid_pod("1", "512Mi"),
        "exceeded quota: quota, requested: requests.cpu=1,requests.memory=512Mi, "
        "used: requests.cpu=10,requests.memory=1Gi, limited: requests.cpu=10,requests.memory=1Gi",
    ),
    (
        "the first quota by name that a pod exceeds is the one named",
        [
            _quota({"pods": "1"}, {"pods": "1"}, name="a-pods"),
            _quota({"requests.cpu": "1"}, {"requests.cpu": "1"}, name="b-cpu"),
        ],
        _valid_pod("100m"),
        "exceeded quota: a-pods, requested: pods=1, used: pods=1, limited: pods=1",
    ),
]


@pytest.mark.parametrize(
    ("quotas", "spec", "expected"), [c[1:] for c in ADMISSIONS], ids=[c[0] for c in ADMISSIONS]
)
def test_admission_admits_or_refuses_as_upstream(
    quotas: list[ResourceQuota], spec: Any, expected: str | dict[str, dict[str, str]]
) -> None:
    outcome = _admit(quotas, spec)
    if isinstance(expected, dict) and isinstance(outcome, dict):
        # only the quotas that changed: admission leaves the others as they are
        outcome = {name: u for name, u in outcome.items() if name in expected}
    assert outcome == expected


# pods_test.go TestPodConstraintsFunc: (id, required, the pod's spec, the error or None)
CONSTRAINTS: list[tuple[str, list[str], Any, str | None]] = [
    (
        "an init container without the tracked resource is named",
        ["memory"],
        {"initContainers": [container("dummy", {"cpu": "1m"}, {"cpu": "2m"})]},
        "must specify memory for: dummy",
    ),
    (
        "several init containers are named sorted",
        ["memory"],
        {"initContainers": [container("foo", {"cpu": "1m"}), container("bar", {"cpu": "1m"})]},
        "must specify memory for: bar,foo",
    ),
    (
        "a container without the tracked resource is named",
        ["memory"],
        {"containers": [container("dummy", {"cpu": "1m"}, {"cpu": "2m"})]},
        "must specify memory for: dummy",
    ),
    (
        "several missing resources are listed sorted, each with its containers",
        ["memory", "cpu"],
        {"containers": [container("foo"), container("bar")]},
        "must specify cpu for: bar,foo; memory for: bar,foo",
    ),
    (
        "pod-level resources stand for the containers'",
        ["memory", "cpu"],
        {
            "resources": {"requests": {"cpu": "1m"}},
            "containers": [container("foo"), container("bar")],
        },
        None,
    ),
    (
        "a resource outside the validated ones asks nothing",
        ["pods", "requests.nvidia.com/gpu", "ephemeral-storage"],
        {"containers": [container("foo")]},
        None,
    ),
    (
        "limits and requests of one resource are separate demands",
        ["limits.memory", "requests.cpu"],
        {"containers": [container("web", {"memory": "1Gi"})]},
        "must specify limits.memory for: web; requests.cpu for: web",
    ),
]


@pytest.mark.parametrize(
    ("required", "spec", "error"), [c[1:] for c in CONSTRAINTS], ids=[c[0] for c in CONSTRAINTS]
)
def test_constraints_name_what_each_container_leaves_unset(
    required: list[str], spec: Any, error: str | None
) -> None:
    assert constraints(required, spec) == error


# pods_test.go TestPodEvaluatorUsage: (id, the pod's spec, its usage)
USAGES: list[tuple[str, Any, dict[str, str]]] = [
    (
        "an init container's cpu",
        {"initContainers": [container(requests={"cpu": "1m"}, limits={"cpu": "2m"})]},
        {"requests.cpu": "1m", "limits.cpu": "2m", "pods": "1", "cpu": "1m", "count/pods": "1"},
    ),
    (
        "an init container's ephemeral storage",
        {
            "initContainers": [
                container(
                    requests={"ephemeral-storage": "32Mi"}, limits={"ephemeral-storage": "64Mi"}
                )
            ]
        },
        {
            "ephemeral-storage": "32Mi",
            "requests.ephemeral-storage": "32Mi",
            "limits.ephemeral-storage": "64Mi",
            "pods": "1",
            "count/pods": "1",
        },
    ),
    (
        "a container's hugepages",
        {"containers": [container(requests={"hugepages-2Mi": "100Mi"})]},
        {
            "hugepages-2Mi": "100Mi",
            "requests.hugepages-2Mi": "100Mi",
            "pods": "1",
            "count/pods": "1",
        },
    ),
    (
        "an extended resource is counted only as requests.<name>",
        {
            "containers": [
                container(requests={"example.com/dongle": "3"}, limits={"example.com/dongle": "3"})
            ]
        },
        {"requests.example.com/dongle": "3", "pods": "1", "count/pods": "1"},
    ),
    (
        "init container maximums override the sum of containers",
        {
            "initContainers": [
                container(
                    requests={"cpu": "4", "memory": "100M"}, limits={"cpu": "8", "memory": "200M"}
                ),
                container(
                    requests={"cpu": "1", "memory": "2G"}, limits={"cpu": "2", "memory": "4G"}
                ),
            ],
            "containers": [
                container(
                    requests={"cpu": "1", "memory": "50M"}, limits={"cpu": "2", "memory": "100M"}
                ),
                container(
                    requests={"cpu": "500m", "memory": "50M"}, limits={"cpu": "1", "memory": "100M"}
                ),
            ],
        },
        {
            "requests.cpu": "4",
            "requests.memory": "2G",
            "limits.cpu": "8",
            "limits.memory": "4G",
            "cpu": "4",
            "memory": "2G",
            "pods": "1",
            "count/pods": "1",
        },
    ),
    (
        "the overhead is added to requests, and to the limits the pod sets",
        {
            "overhead": {"cpu": "1", "memory": "1Gi"},
            "containers": [container(requests={"cpu": "1", "memory": "1Gi"}, limits={"cpu": "2"})],
        },
        {
            "requests.cpu": "2",
            "requests.memory": "2Gi",
            "limits.cpu": "3",
            "cpu": "2",
            "memory": "2Gi",
            "pods": "1",
            "count/pods": "1",
        },
    ),
    (
        "restartable init containers (sidecars) add to the containers",
        {
            "initContainers": [
                container(requests={"cpu": "1"}, restartPolicy="Always"),
                container(requests={"cpu": "2"}),
            ],
            "containers": [container(requests={"cpu": "1"})],
        },
        {"requests.cpu": "3", "cpu": "3", "pods": "1", "count/pods": "1"},
    ),
    (
        "pod-level resources replace the containers' aggregate",
        {
            "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "4"}},
            "containers": [container(requests={"cpu": "1"}, limits={"cpu": "1"})],
        },
        {"requests.cpu": "2", "limits.cpu": "4", "cpu": "2", "pods": "1", "count/pods": "1"},
    ),
]


@pytest.mark.parametrize(("spec", "usage"), [c[1:] for c in USAGES], ids=[c[0] for c in USAGES])
def test_a_pod_s_usage_is_counted_as_upstream(spec: Any, usage: dict[str, str]) -> None:
    assert {name: str(amount) for name, amount in pod_usage(spec).items()} == usage


# pods_test.go TestPodEvaluatorMatchingScopes (PriorityClass and cross-namespace affinity)
SCOPES: list[tuple[str, ScopeRequirement, dict[str, Any], bool]] = [
    (
        "In matches the named class",
        ScopeRequirement("PriorityClass", "In", ("high",)),
        {"priorityClassName": "high"},
        True,
    ),
    (
        "In does not match another class",
        ScopeRequirement("PriorityClass", "In", ("high",)),
        {"priorityClassName": "low"},
        False,
    ),
    (
        "In does not match a pod without a class",
        ScopeRequirement("PriorityClass", "In", ("high",)),
        {},
        False,
    ),
    (
        "NotIn matches a pod without a class",
        ScopeRequirement("PriorityClass", "NotIn", ("high",)),
        {},
        True,
    ),
    (
        "NotIn does not match the named class",
        ScopeRequirement("PriorityClass", "NotIn", ("high",)),
        {"priorityClassName": "high"},
        False,
    ),
    (
        "Exists matches any class",
        ScopeRequirement("PriorityClass", "Exists"),
        {"priorityClassName": "low"},
        True,
    ),
    (
        "DoesNotExist matches a pod without a class",
        ScopeRequirement("PriorityClass", "DoesNotExist"),
        {},
        True,
    ),
    ("a scopes entry is Exists", ScopeRequirement("PriorityClass"), {}, False),
    (
        "a term with namespaces is cross-namespace affinity",
        ScopeRequirement("CrossNamespacePodAffinity"),
        {
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {"namespaces": ["other"], "topologyKey": "k"}
                    ]
                }
            }
        },
        True,
    ),
    (
        "a preferred term with a namespaceSelector is cross-namespace affinity",
        ScopeRequirement("CrossNamespacePodAffinity"),
        {
            "affinity": {
                "podAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 1,
                            "podAffinityTerm": {"namespaceSelector": {}, "topologyKey": "k"},
                        }
                    ]
                }
            }
        },
        True,
    ),
    (
        "a term of the pod's own namespace is not",
        ScopeRequirement("CrossNamespacePodAffinity"),
        {
            "affinity": {
                "podAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [{"topologyKey": "k"}]
                }
            }
        },
        False,
    ),
    ("an unknown scope matches nothing", ScopeRequirement("Unknown"), {}, False),
    (
        # pkg/apis/core/helper/qos/qos.go ComputePodQOS: pod-level resources, when the pod
        # has them, decide its class alone
        "a pod whose pod-level resources ask no cpu or memory is BestEffort",
        ScopeRequirement("BestEffort"),
        {"resources": {}},
        True,
    ),
    (
        "a pod whose pod-level resources ask no cpu or memory is not NotBestEffort",
        ScopeRequirement("NotBestEffort"),
        {"resources": {"requests": {"hugepages-2Mi": "2Mi"}, "limits": {"hugepages-2Mi": "2Mi"}}},
        False,
    ),
    (
        "a pod whose pod-level resources ask cpu is NotBestEffort",
        ScopeRequirement("NotBestEffort"),
        {"resources": {"requests": {"cpu": "1"}}},
        True,
    ),
    (
        "a pod without pod-level resources is classed by its containers",
        ScopeRequirement("BestEffort"),
        {"resources": None},
        False,
    ),
]


@pytest.mark.parametrize(
    ("scope", "spec", "matches"), [c[1:] for c in SCOPES], ids=[c[0] for c in SCOPES]
)
def test_scopes_match_as_upstream(
    scope: ScopeRequirement, spec: dict[str, Any], matches: bool
) -> None:
    quota = ResourceQuota("test", "q", _list(pods="5"), _list(pods="0"), (scope,))
    pod = {"containers": [container(requests={"cpu": "1"})], **spec}
    assert pod_quota_matches(quota, pod) is matches


def test_a_quota_tracking_nothing_pods_use_does_not_match() -> None:
    quota = ResourceQuota("test", "q", _list(services="5"), _list(services="0"))
    assert not pod_quota_matches(quota, _valid_pod("1"))


# resources_test.go TestAdd / quantity String(): the sum keeps its first value's format
SUMS: list[tuple[str, str, str, str]] = [
    ("cores and millicores", "1", "100m", "1100m"),
    ("binary and binary", "50Gi", "2Gi", "52Gi"),
    ("binary kept past a decimal addend", "1Gi", "1G", "2073741824"),
    ("decimal kept past a binary addend", "1G", "1Gi", "2073741824"),
    ("zero takes the addend's format", "0", "512Mi", "512Mi"),
    ("an exponent kept", "1e3", "1", "1001"),
]


@pytest.mark.parametrize(
    ("first", "second", "total"), [c[1:] for c in SUMS], ids=[c[0] for c in SUMS]
)
def test_a_sum_prints_as_go_prints_it(first: str, second: str, total: str) -> None:
    assert str(Amount.of(first).plus(Amount.of(second))) == total


def test_pretty_print_sorts_by_name() -> None:
    # controller.go prettyPrint, as TestPrettyPrint words it
    usage = _list(**{"cpu": "100m", "memory": "1Gi", "pods": "1", "count/pods": "1"})
    assert pretty(usage) == "count/pods=1,cpu=100m,memory=1Gi,pods=1"


def test_a_recorded_quota_is_read_from_its_status_and_scopes() -> None:
    item = {
        "metadata": {"name": "compute", "namespace": "web"},
        "spec": {
            "hard": {"pods": "1"},
            "scopes": ["NotBestEffort"],
            "scopeSelector": {
                "matchExpressions": [
                    {"scopeName": "PriorityClass", "operator": "In", "values": ["high"]}
                ]
            },
        },
        "status": {"hard": {"pods": "2"}, "used": {"pods": "1"}},
    }
    quota = resource_quota(item)
    assert quota == ResourceQuota(
        "web",
        "compute",
        _list(pods="2"),
        _list(pods="1"),
        (ScopeRequirement("NotBestEffort"), ScopeRequirement("PriorityClass", "In", ("high",))),
    )


def test_a_quota_the_controller_has_not_synced_yet_matches_no_pod() -> None:
    """controller.go CheckRequest and generic.Matches read ``status.hard`` alone: a quota
    whose status the quota controller has not written yet tracks nothing admission sees."""
    item = {"metadata": {"name": "new", "namespace": "test"}, "spec": {"hard": {"pods": "0"}}}
    quota = resource_quota(item)
    assert quota is not None and not pod_quota_matches(quota, _valid_pod("1"))


# --- the usage arithmetic, as properties -------------------------------------------------

_QUANTITIES = st.builds(
    lambda digits, fraction, suffix: f"{digits}{'.' + fraction if fraction else ''}{suffix}",
    st.integers(min_value=0, max_value=10**6),
    st.sampled_from(["", "5", "25", "125"]),
    st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "e3", "E"]),
)


@given(_QUANTITIES)
def test_the_printed_quantity_parses_back_to_its_value(text: str) -> None:
    amount = Amount.of(text)
    assert parse_quantity(str(amount)) == amount.value


@given(st.lists(_QUANTITIES, min_size=1, max_size=6))
def test_a_sum_is_exact_and_keeps_the_first_non_zero_format(texts: list[str]) -> None:
    amounts = [Amount.of(t) for t in texts]
    total = amounts[0]
    for amount in amounts[1:]:
        total = total.plus(amount)
    assert total.value == sum((a.value for a in amounts), Fraction(0))
    firsts = [a.format for a in amounts if a.value != 0]
    assert total.format == (firsts[0] if amounts[0].value == 0 and firsts else amounts[0].format)


_CPU = st.sampled_from(["0", "1m", "100m", "250m", "1", "1.5", "2"])


@given(
    st.lists(_CPU, min_size=1, max_size=3),
    st.lists(st.tuples(_CPU, st.booleans()), max_size=3),
    st.one_of(st.none(), _CPU),
)
def test_requests_equal_what_the_scheduler_sums(
    containers: list[str], inits: list[tuple[str, bool]], overhead: str | None
) -> None:
    """The quota counts the pod's requests with the scheduler's own PodRequests: the two
    sums are the same rule, so they agree on every pod."""
    spec: dict[str, Any] = {
        "containers": [container(f"c{i}", {"cpu": c}) for i, c in enumerate(containers)],
        "initContainers": [
            {**container(f"i{i}", {"cpu": c}), **({"restartPolicy": "Always"} if sidecar else {})}
            for i, (c, sidecar) in enumerate(inits)
        ],
    }
    if overhead is not None:
        spec["overhead"] = {"cpu": overhead}
    assert pod_usage(spec)["requests.cpu"].value == scheduler_requests(spec)["cpu"]


@given(
    st.integers(min_value=0, max_value=20),
    st.integers(min_value=1, max_value=5),
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=0, max_value=10),
)
def test_pods_are_created_while_the_quota_has_room(
    hard: int, per_pod: int, used: int, wanted: int
) -> None:
    """Pod after pod, ``used + requested <= hard``: as many as fit in what is left."""
    quota = ResourceQuota(
        "test",
        "q",
        {"requests.cpu": Amount(Fraction(hard))},
        {"requests.cpu": Amount(Fraction(used))},
    )
    ledger = QuotaLedger.of([quota])
    spec = {"containers": [container(requests={"cpu": str(per_pod)})]}
    admitted = ledger.admit_pods("test", spec, wanted, lambda i: f"p-{i}")
    assert admitted is not None
    assert admitted.created == min(wanted, max(0, (hard - used) // per_pod))
    assert (admitted.message is None) is (admitted.created == wanted)


_AMOUNTS = st.sampled_from(["0", "1", "100m", "250m", "1500m", "2", "512Mi", "1Gi", "3"])


@given(
    st.dictionaries(st.sampled_from(["requests.cpu", "pods", "limits.cpu"]), _AMOUNTS, min_size=1),
    st.dictionaries(st.sampled_from(["requests.cpu", "pods", "limits.cpu"]), _AMOUNTS),
    st.sampled_from(["100m", "250m", "1"]),
    st.integers(min_value=0, max_value=12),
)
def test_pods_taken_at_once_are_those_taken_one_by_one(
    hard: dict[str, str], used: dict[str, str], cpu: str, wanted: int
) -> None:
    """The ledger takes every pod after a workload's first at once: the count, the refusal
    and the usage left are those of asking admission pod after pod."""
    full = {name: used.get(name, "0") for name in hard}
    quota = ResourceQuota("test", "q", _list(**hard), _list(**full))
    spec = {"containers": [container(requests={"cpu": cpu}, limits={"cpu": cpu})]}
    ledger = QuotaLedger.of([quota])
    admitted = ledger.admit_pods("test", spec, wanted, lambda i: f"p-{i}")
    now: dict[str, Amount] = dict(quota.used)
    created, error = 0, None
    for _ in range(wanted):
        outcome = check_request(
            [quota], {"q": tracked_by_pods(quota.hard)}, {"q": now}, pod_usage(spec), spec
        )
        if isinstance(outcome, Refusal):
            error = outcome.error
            break
        now, created = outcome["q"], created + 1
    assert admitted is not None
    assert (admitted.created, admitted.message) == (
        created,
        None if error is None else f'pods "p-{created}" is forbidden: {error}',
    )
    assert {k: str(v) for k, v in ledger.used[("test", "q")].items()} == {
        k: str(v) for k, v in now.items()
    }


# (id, the kind created, the quota's hard and used, the refusal or None when it is created)
OBJECT_COUNTS: list[tuple[str, str, dict[str, str], dict[str, str], str | None]] = [
    (
        "a Deployment over count/deployments.apps is refused",
        "Deployment",
        {"count/deployments.apps": "1"},
        {"count/deployments.apps": "1"},
        'deployments.apps "w" is forbidden: exceeded quota: quota, requested: '
        "count/deployments.apps=1, used: count/deployments.apps=1, "
        "limited: count/deployments.apps=1",
    ),
    (
        # pkg/quota/v1/evaluator/core/registry.go legacyObjectCountAliases: a
        # ReplicationController is counted under its legacy name too
        "a ReplicationController over the legacy replicationcontrollers count is refused",
        "ReplicationController",
        {"replicationcontrollers": "2"},
        {"replicationcontrollers": "2"},
        'replicationcontrollers "w" is forbidden: exceeded quota: quota, requested: '
        "replicationcontrollers=1, used: replicationcontrollers=2, "
        "limited: replicationcontrollers=2",
    ),
    (
        "a ReplicationController is counted under both of its names at once",
        "ReplicationController",
        {"count/replicationcontrollers": "1", "replicationcontrollers": "1"},
        {"count/replicationcontrollers": "1", "replicationcontrollers": "1"},
        'replicationcontrollers "w" is forbidden: exceeded quota: quota, requested: '
        "count/replicationcontrollers=1,replicationcontrollers=1, "
        "used: count/replicationcontrollers=1,replicationcontrollers=1, "
        "limited: count/replicationcontrollers=1,replicationcontrollers=1",
    ),
    (
        "a ReplicationController within the legacy count is created",
        "ReplicationController",
        {"replicationcontrollers": "2"},
        {"replicationcontrollers": "1"},
        None,
    ),
    (
        # controller.go hasUsageStats: the quota controller has not counted the legacy name
        "a legacy count without a usage is a quota whose status is unknown",
        "ReplicationController",
        {"replicationcontrollers": "2"},
        {},
        'replicationcontrollers "w" is forbidden: status unknown for quota: quota, '
        "resources: replicationcontrollers",
    ),
]


@pytest.mark.parametrize(
    ("kind", "hard", "used", "refusal"),
    [c[1:] for c in OBJECT_COUNTS],
    ids=[c[0] for c in OBJECT_COUNTS],
)
def test_a_new_object_meets_its_object_count_quotas(
    kind: str, hard: dict[str, str], used: dict[str, str], refusal: str | None
) -> None:
    ledger = QuotaLedger.of([_quota(hard, used)])
    admitted = ledger.admit_object("test", kind, "w")
    assert admitted is not None
    assert (admitted.created, admitted.message) == (int(refusal is None), refusal)


def test_a_deployment_is_not_counted_under_the_legacy_name_of_another_kind() -> None:
    """generic/evaluator.go objectCountEvaluator.MatchingResources: only the kind's own
    names."""
    ledger = QuotaLedger.of(
        [_quota({"replicationcontrollers": "0"}, {"replicationcontrollers": "0"})]
    )
    assert ledger.admit_object("test", "Deployment", "w") is None
