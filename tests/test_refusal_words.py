"""A LimitRange and a PriorityClass the run ships that the API server refuses, in the API
server's own words: ``pkg/apis/core/validation/validation.go`` ValidateLimitRange (rows after
its TestValidateLimitRange, on the items as SetDefaults_LimitRangeItem and
SetDefaults_ResourceList leave them, so a Container item's defaults are held to its bounds
too) and ``pkg/apis/scheduling/validation/validation.go`` ValidatePriorityClass (rows after
its TestValidatePriorityClass), each wrapped as apierrors.NewInvalid words it."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.k8s.limitranger import limit_range_problem
from gate.k8s.priority import class_problem
from tests.conftest import ROOT
from tests.test_run_refused_objects import WEB

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
    "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)
POD_DEFAULT = "Forbidden: may not be specified when `type` is 'Pod'"
NOT_STANDARD = "must be a standard resource type or fully qualified"
NOT_CONTAINER = "must be a standard resource for containers"


def _limit_range(*items: dict[str, Any], name: str = "abc", namespace: str = "foo") -> Any:
    return {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"limits": list(items)},
    }


def _resources(cpu: str = "", memory: str = "") -> dict[str, str]:
    """getResourceList."""
    return {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}


def _storage(storage: str = "") -> dict[str, str]:
    """getStorageResourceList."""
    return {"storage": storage} if storage else {}


def _refused(*errors: str, name: str = "abc") -> str:
    shown = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
    return f'LimitRange "{name}" is invalid: {shown}'


ALL_FIELDS_VALID = [
    {"type": "Pod", "max": _resources("100m", "10000Mi"), "min": _resources("5m", "100Mi"),
     "maxLimitRequestRatio": _resources("10")},
    {"type": "Container", "max": _resources("100m", "10000Mi"), "min": _resources("5m", "100Mi"),
     "default": _resources("50m", "500Mi"), "defaultRequest": _resources("10m", "200Mi"),
     "maxLimitRequestRatio": _resources("10")},
    {"type": "PersistentVolumeClaim", "max": _storage("10Gi"), "min": _storage("5Gi")},
]  # fmt: skip
THIRD_PARTY_STORAGE = {
    "max": _storage("10000T"), "min": _storage("100Mi"), "default": _storage("500Mi"),
    "defaultRequest": _storage("200Mi"),
}  # fmt: skip

LIMIT_RANGES = [
    pytest.param(_limit_range(*ALL_FIELDS_VALID), None, id="all-fields-valid"),
    pytest.param(_limit_range({"type": "PersistentVolumeClaim", "min": _storage("5Gi")}), None,
                 id="pvc-min-only"),
    pytest.param(_limit_range({"type": "PersistentVolumeClaim", "max": _storage("10Gi")}), None,
                 id="pvc-max-only"),
    pytest.param(_limit_range({"type": "Container", "max": _resources("100m", "10000T"),
                               "min": _resources("5m", "100Mi"),
                               "default": _resources("50m", "500Mi"),
                               "defaultRequest": _resources("10m", "200Mi"),
                               "maxLimitRequestRatio": _resources("10")}), None,
                 id="all-fields-valid-big-numbers"),
    pytest.param(_limit_range({"type": "thirdparty.com/foo", **THIRD_PARTY_STORAGE}), None,
                 id="thirdparty-fields-all-valid-storage-resources"),
    pytest.param(_limit_range(name=""),
                 _refused("metadata.name: Required value: name or generateName is required",
                          name=""),
                 id="zero-length-name"),
    pytest.param(_limit_range(name="^Invalid"),
                 _refused(f'metadata.name: Invalid value: "^Invalid": {SUBDOMAIN}',
                          name="^Invalid"),
                 id="invalid-name"),
    pytest.param(_limit_range(namespace="^Invalid"),
                 _refused(f'metadata.namespace: Invalid value: "^Invalid": {LABEL}'),
                 id="invalid-namespace"),
    pytest.param(_limit_range({"type": "Pod", "max": _resources("100m", "10000m"),
                               "min": _resources("0m", "100m")},
                              {"type": "Pod", "min": _resources("0m", "100m")}),
                 _refused('spec.limits[1].type: Duplicate value: "Pod"'),
                 id="duplicate-limit-type"),
    pytest.param(_limit_range({"type": "Pod", "max": _resources("100m", "10000m"),
                               "min": _resources("0m", "100m"),
                               "default": _resources("10m", "100m")}),
                 _refused(f"spec.limits[0].default: {POD_DEFAULT}"),
                 id="default-limit-type-pod"),
    pytest.param(_limit_range({"type": "Pod", "max": _resources("100m", "10000m"),
                               "min": _resources("0m", "100m"),
                               "defaultRequest": _resources("10m", "100m")}),
                 _refused(f"spec.limits[0].defaultRequest: {POD_DEFAULT}"),
                 id="default-request-limit-type-pod"),
    pytest.param(_limit_range({"type": "Pod", "max": _resources("10m"),
                               "min": _resources("100m")}),
                 _refused('spec.limits[0].min[cpu]: Invalid value: "100m": min value 100m is '
                          "greater than max value 10m"),
                 id="min value 100m is greater than max value 10m"),
    pytest.param(_limit_range({"type": "Container", "max": _resources("1"),
                               "min": _resources("100m"), "default": _resources("2000m")}),
                 _refused('spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default '
                          "request value 2 is greater than max value 1",
                          'spec.limits[0].default[cpu]: Invalid value: "1": default value 2 is '
                          "greater than max value 1"),
                 id="invalid spec default outside range (its default request defaulted to it)"),
    pytest.param(_limit_range({"type": "Container", "max": _resources("1"),
                               "min": _resources("100m"), "defaultRequest": _resources("2000m")}),
                 _refused('spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default '
                          "request value 2 is greater than max value 1",
                          'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default '
                          "request value 2 is greater than default limit value 1"),
                 id="invalid spec default request outside range (its default from the max)"),
    pytest.param(_limit_range({"type": "Container", "max": _resources("2"),
                               "min": _resources("100m"), "default": _resources("500m"),
                               "defaultRequest": _resources("800m")}),
                 _refused('spec.limits[0].defaultRequest[cpu]: Invalid value: "800m": default '
                          "request value 800m is greater than default limit value 500m"),
                 id="invalid spec default request more than default"),
    pytest.param(_limit_range({"type": "Pod", "maxLimitRequestRatio": _resources("800m")}),
                 _refused('spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "800m": '
                          "ratio 800m is less than 1"),
                 id="invalid spec maxLimitRequestRatio less than 1"),
    pytest.param(_limit_range({"type": "Container", "max": _resources(memory="2Gi"),
                               "min": _resources(memory="512Mi"),
                               "maxLimitRequestRatio": _resources(memory="10")}),
                 _refused('spec.limits[0].maxLimitRequestRatio[memory]: Invalid value: "10": '
                          "ratio 10 is greater than max/min = 4.000000"),
                 id="invalid spec maxLimitRequestRatio greater than max/min"),
    pytest.param(_limit_range({"type": "foo", **THIRD_PARTY_STORAGE}),
                 _refused('spec.limits[0].type: Invalid value: "foo": must be a standard limit '
                          "type or fully qualified"),
                 id="invalid non standard limit type"),
    pytest.param(_limit_range({"type": "PersistentVolumeClaim"}),
                 _refused("spec.limits[0].limits: Required value: either minimum or maximum "
                          "storage value is required, but neither was provided"),
                 id="min and max values missing, one required"),
    pytest.param(_limit_range({"type": "PersistentVolumeClaim", "min": _storage("10Gi"),
                               "max": _storage("1Gi")}),
                 _refused('spec.limits[0].min[storage]: Invalid value: "10Gi": min value 10Gi is '
                          "greater than max value 1Gi"),
                 id="invalid min greater than max"),
    # fitgate's rows: what the table above leaves out.
    pytest.param(_limit_range({"type": "Container", "max": {"gpu": "1"}}),
                 _refused(*(f'spec.limits[0].{field}[gpu]: Invalid value: "gpu": {detail}'
                            for field in ("max", "default", "defaultRequest")
                            for detail in (NOT_STANDARD, NOT_CONTAINER))),
                 id="a resource no container has, in the max and the defaults taken from it"),
    pytest.param(_limit_range({"type": "Container", "max": {"a b": "1"}}),
                 _refused(*(f'spec.limits[0].{field}[a b]: Invalid value: "a b": {detail}'
                            for field in ("max", "default", "defaultRequest")
                            for detail in ("name part must consist of alphanumeric characters, "
                                           "'-', '_' or '.', and must start and end with an "
                                           "alphanumeric character (e.g. 'MyName',  or "
                                           "'my.name',  or '123-abc', regex used for "
                                           "validation is "
                                           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
                                           NOT_CONTAINER))),
                 id="validateContainerResourceName goes on after validateResourceName's errors"),
    pytest.param(_limit_range({"type": "Container", "default": {"example.com/gpu": "2"},
                               "defaultRequest": {"example.com/gpu": "1"}}),
                 _refused('spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: "1": '
                          "default value 2 must equal to defaultRequest value 1 in "
                          "example.com/gpu"),
                 id="a resource not overcommitted has its default request equal its default"),
    pytest.param(_limit_range({"type": "Container", "min": _resources("0"),
                               "max": _resources("1"), "maxLimitRequestRatio": _resources("5")}),
                 None, id="a zero min makes max/min infinite, so any ratio is under it"),
    pytest.param(_limit_range({"type": "Container", "min": _resources("-1"),
                               "max": _resources("1"), "maxLimitRequestRatio": _resources("1")}),
                 _refused('spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "1": '
                          "ratio 1 is greater than max/min = -1.000000"),
                 id="a negative min makes max/min negative, under any ratio"),
    pytest.param(_limit_range({"type": "Container", "max": _resources("0.0005")}), None,
                 id="a quantity is rounded up to thousandths before it is compared"),
    pytest.param(_limit_range({"type": "Container", "min": _resources("0.0005"),
                               "defaultRequest": _resources("1m")}), None,
                 id="a min rounded up to its default request is not above it"),
    pytest.param(_limit_range({"max": _resources("1")}),
                 _refused(*(f'spec.limits[0].type: Invalid value: "": {detail}'
                            for detail in ("name part must be non-empty",
                                           "name part must consist of alphanumeric characters, "
                                           "'-', '_' or '.', and must start and end with an "
                                           "alphanumeric character (e.g. 'MyName',  or "
                                           "'my.name',  or '123-abc', regex used for "
                                           "validation is "
                                           "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"))),
                 id="an item without a type"),
    pytest.param(_limit_range({"type": "Container", "max": _resources("lots")}),
                 "spec.limits[0].max.cpu: invalid quantity \"lots\"",
                 id="a quantity that does not parse is refused when decoded, in fitgate's words"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "refusal"), LIMIT_RANGES)
def test_a_limit_range_is_refused_in_the_api_servers_words(
    body: dict[str, Any], refusal: str | None
) -> None:
    assert limit_range_problem(body) == refusal


def _priority_class(name: str, value: object = 100, **more: Any) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name, **more.pop("metadata", {})},
        "value": value,
        **more,
    }


def _class_refused(name: str, *errors: str) -> str:
    shown = errors[0] if len(errors) == 1 else f"[{', '.join(errors)}]"
    return f'PriorityClass.scheduling.k8s.io "{name}" is invalid: {shown}'


RESERVED = "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved "
RESERVED += "for system use only. error: "

PRIORITY_CLASSES = [
    pytest.param(_priority_class("tier1"), None, id="no description"),
    pytest.param(_priority_class("tier1", description="Used for the highest priority pods."),
                 None, id="with description"),
    pytest.param(_priority_class("system-node-critical", 2_000_001_000), None,
                 id="system node critical"),
    pytest.param(_priority_class("tier1", preemptionPolicy="PreemptLowerPriority"), None,
                 id="preemption policy PreemptLowerPriority"),
    pytest.param(_priority_class("tier1", preemptionPolicy="Never"), None,
                 id="preemption policy Never"),
    pytest.param(_priority_class("tier1", metadata={"namespace": "foo"}), None,
                 id="non-empty namespace (cleared before validation, as for any cluster object)"),
    pytest.param(_priority_class("tier&1"),
                 _class_refused("tier&1", f'metadata.name: Invalid value: "tier&1": {SUBDOMAIN}'),
                 id="invalid name"),
    pytest.param(_priority_class("system-node-critical", 1000),
                 _class_refused("system-node-critical", RESERVED + "value of system-node-critical "
                                "PriorityClass must be 2000001000"),
                 id="incorrect system class value"),
    pytest.param(_priority_class("system-cluster-critical", 2_000_000_000, globalDefault=True),
                 _class_refused("system-cluster-critical", RESERVED + "globalDefault of "
                                "system-cluster-critical PriorityClass must be false"),
                 id="incorrect system class globalDefault"),
    pytest.param(_priority_class("system-gold", 10),
                 _class_refused("system-gold",
                                RESERVED + "system-gold is not a known system priority class"),
                 id="incorrect system class name"),
    pytest.param(_priority_class("huge", 1_000_000_001),
                 _class_refused("huge", "value: Forbidden: maximum allowed value of a user "
                                "defined priority is 1000000000"),
                 id="a user class over HighestUserDefinablePriority"),
    pytest.param(_priority_class("top", 1_000_000_000), None,
                 id="a user class of HighestUserDefinablePriority"),
    pytest.param(_priority_class("tier1", preemptionPolicy=""),
                 _class_refused("tier1", "preemptionPolicy: Required value"),
                 id="empty preemption policy"),
    pytest.param(_priority_class("tier1", preemptionPolicy="Sometimes"),
                 _class_refused("tier1", 'preemptionPolicy: Unsupported value: "Sometimes": '
                                'supported values: "PreemptLowerPriority", "Never"'),
                 id="unsupported preemption policy"),
    pytest.param(_priority_class("system-x", preemptionPolicy=""),
                 _class_refused("system-x", RESERVED + "system-x is not a known system priority "
                                "class", "preemptionPolicy: Required value"),
                 id="every error, in upstream's order"),
    pytest.param(_priority_class("tier1", None), None,
                 id="a class without a value is one of value 0"),
    pytest.param(_priority_class("tier1", "100"), "value: must be a 32-bit integer",
                 id="a value not a number is refused when decoded, in fitgate's words"),
    pytest.param(_priority_class("tier1", 2**31), "value: must be a 32-bit integer",
                 id="a value past int32 is refused when decoded"),
    pytest.param(_priority_class("tier1", globalDefault="yes"), "globalDefault: must be a boolean",
                 id="a globalDefault not a boolean is refused when decoded"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "refusal"), PRIORITY_CLASSES)
def test_a_priority_class_is_refused_in_the_api_servers_words(
    body: dict[str, Any], refusal: str | None
) -> None:
    assert class_problem(body) == refusal


END_TO_END = [
    pytest.param(
        {"apiVersion": "v1", "kind": "LimitRange",
         "metadata": {"name": "limits", "namespace": "web"},
         "spec": {"limits": [{"type": "Container", "min": {"cpu": "2"}, "max": {"cpu": "1"}}]}},
        ("LimitRange", "web", "limits"),
        'LimitRange "limits" is invalid: [spec.limits[0].min[cpu]: Invalid value: "2": min '
        "value 2 is greater than max value 1, spec.limits[0].defaultRequest[cpu]: Invalid "
        'value: "1": min value 2 is greater than default request value 1, '
        'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default '
        "value 1]",
        id="a LimitRange whose min is over its max (and the defaults taken from the max)",
    ),
    pytest.param(
        {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
         "metadata": {"name": "urgent"}, "value": 1_500_000_000},
        ("PriorityClass", "", "urgent"),
        'PriorityClass.scheduling.k8s.io "urgent" is invalid: value: Forbidden: maximum '
        "allowed value of a user defined priority is 1000000000",
        id="a PriorityClass over HighestUserDefinablePriority",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("shipped", "where", "reason"), END_TO_END)
def test_fitgate_check_reports_the_refusal_in_the_api_servers_words(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shipped: dict[str, Any],
    where: tuple[str, str, str],
    reason: str,
) -> None:
    (tmp_path / "run.yaml").write_text(yaml.safe_dump_all([shipped, WEB]), encoding="utf-8")
    snapshot = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    now = datetime(2026, 8, 16, 10, 5, tzinfo=timezone.utc)
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={}, now=now)
    main(["check", ".", "--snapshot", snapshot, "--json", "-"], streams)
    report = json.loads(out.getvalue())
    refused = [w for w in report["workloads"] if w["verdict"] == "ERROR"]
    assert [(w["kind"], w["namespace"], w["name"], w["reason"]) for w in refused] == [
        (*where, reason)
    ]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_QUANTITIES = st.sampled_from(["0", "1", "-1", "100m", "0.0005", "2Gi", "1e3", "10000T"])
_ITEMS = st.fixed_dictionaries(
    {"type": st.sampled_from(["Pod", "Container", "PersistentVolumeClaim", "x.io/y", ""])},
    optional={
        field: st.dictionaries(
            st.sampled_from(["cpu", "memory", "storage", "example.com/gpu", "gpu"]),
            _QUANTITIES,
            max_size=3,
        )
        for field in ("max", "min", "default", "defaultRequest", "maxLimitRequestRatio")
    },
)


@given(items=st.lists(_ITEMS | _JSON, max_size=3), metadata=_JSON)
def test_any_limit_range_is_taken_or_refused_in_one_message(
    items: list[Any], metadata: Any
) -> None:
    """Untrusted input: whatever a LimitRange holds, it is taken or refused with one line
    naming the object or the field that does not decode, never a traceback."""
    body = {"kind": "LimitRange", "metadata": metadata, "spec": {"limits": items}}
    problem = limit_range_problem(body)
    assert problem is None or problem.startswith(('LimitRange "', "spec.limits["))


@given(
    fields=st.dictionaries(
        st.sampled_from(["metadata", "value", "globalDefault", "preemptionPolicy"]), _JSON
    )
)
def test_any_priority_class_is_taken_or_refused_in_one_message(fields: dict[str, Any]) -> None:
    """Untrusted input, as for a LimitRange."""
    problem = class_problem({"kind": "PriorityClass", **fields})
    assert problem is None or problem.startswith(
        ('PriorityClass.scheduling.k8s.io "', "value: ", "globalDefault: ", "preemptionPolicy: ")
    )
