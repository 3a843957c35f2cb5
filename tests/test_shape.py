"""A template field of a type the API server's decoder refuses is an ERROR naming it: through
the workloads read, and the shapes themselves (gate.inputs.shape)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.shape import METADATA, POD_SPEC, Of, shape_problem
from gate.inputs.workloads import TEMPLATE_PATHS, Unevaluated, extract
from gate.model import Document, Location, Verdict

SPEC = "spec.template.spec"


def deployment(**spec: Any) -> Document:
    pod = {"containers": [{"name": "app", "image": "x"}], **spec}
    body = {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"template": {"spec": pod}}}
    return Document(Location("w.yaml", 1), body=body)


def refused(field: str, wanted: str, got: str) -> str:
    return f"{SPEC}.{field}: expected {wanted}, not {got} (the API server refuses it)"


TERMS = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
REQUIRED_KEY = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED_KEY = "preferredDuringSchedulingIgnoredDuringExecution"
GT_TWO = {"key": "n", "operator": "Gt", "values": [2]}
REQUIRED = {"requiredDuringSchedulingIgnoredDuringExecution": {
    "nodeSelectorTerms": [{"matchExpressions": [GT_TWO]}]}}  # fmt: skip
CASES = {
    "tolerations-bool": ({"tolerations": True}, "tolerations", "a list", "a boolean"),
    "toleration-value-number": (
        {"tolerations": [{"key": "k", "value": 1}]}, "tolerations[0].value", "a string", "a number"
    ),
    "toleration-not-mapping": ({"tolerations": ["k"]}, "tolerations[0]", "a mapping", "a string"),
    "seconds-bool": (
        {"tolerations": [{"tolerationSeconds": True}]},
        "tolerations[0].tolerationSeconds", "an integer", "a boolean",
    ),
    "selector-value-bool": (
        {"nodeSelector": {"gpu": True}}, "nodeSelector.gpu", "a string", "a boolean"
    ),
    "selector-list": ({"nodeSelector": ["gpu"]}, "nodeSelector", "a mapping", "a list"),
    "gt-value-number": (
        {"affinity": {"nodeAffinity": REQUIRED}},
        f"{TERMS}[0].matchExpressions[0].values[0]", "a string", "a number",
    ),
    "ports-bool": (
        {"containers": [{"name": "a", "ports": True}]}, "containers[0].ports", "a list", "a boolean"
    ),
    "host-port-string": (
        {"containers": [{"name": "a", "ports": [{"hostPort": "80"}]}]},
        "containers[0].ports[0].hostPort", "an integer", "a string",
    ),
    "resources-number": (
        {"containers": [{"name": "a", "resources": 1.0}]},
        "containers[0].resources", "a mapping", "a number",
    ),
    "restart-policy-list": (
        {"initContainers": [{"name": "a", "restartPolicy": ["Always"]}]},
        "initContainers[0].restartPolicy", "a string", "a list",
    ),
    "host-network-string": ({"hostNetwork": "true"}, "hostNetwork", "a boolean", "a string"),
    "volumes-string": ({"volumes": "data"}, "volumes", "a list", "a string"),
    # The inter-pod filters' fields, as core/v1's PodAffinityTerm and TopologySpreadConstraint
    # type them: `matchLabels: {version: 1}` is refused by the API server, not matched.
    "pod-affinity-required-string": (
        {"affinity": {"podAntiAffinity": {REQUIRED_KEY: "x"}}},
        f"affinity.podAntiAffinity.{REQUIRED_KEY}", "a list", "a string",
    ),
    "pod-affinity-term-string": (
        {"affinity": {"podAffinity": {REQUIRED_KEY: ["x"]}}},
        f"affinity.podAffinity.{REQUIRED_KEY}[0]", "a mapping", "a string",
    ),
    "match-labels-number": (
        {"affinity": {"podAffinity": {REQUIRED_KEY: [
            {"topologyKey": "zone", "labelSelector": {"matchLabels": {"version": 1}}}]}}},
        f"affinity.podAffinity.{REQUIRED_KEY}[0].labelSelector.matchLabels.version",
        "a string", "a number",
    ),
    "topology-key-number": (
        {"affinity": {"podAntiAffinity": {REQUIRED_KEY: [{"topologyKey": 5}]}}},
        f"affinity.podAntiAffinity.{REQUIRED_KEY}[0].topologyKey", "a string", "a number",
    ),
    "namespaces-string": (
        {"affinity": {"podAffinity": {REQUIRED_KEY: [{"namespaces": "default"}]}}},
        f"affinity.podAffinity.{REQUIRED_KEY}[0].namespaces", "a list", "a string",
    ),
    "namespace-selector-expression-values-string": (
        {"affinity": {"podAffinity": {REQUIRED_KEY: [{"namespaceSelector": {
            "matchExpressions": [{"key": "team", "operator": "In", "values": "a"}]}}]}}},
        f"affinity.podAffinity.{REQUIRED_KEY}[0].namespaceSelector.matchExpressions[0].values",
        "a list", "a string",
    ),
    "match-label-keys-number": (
        {"affinity": {"podAffinity": {REQUIRED_KEY: [{"matchLabelKeys": [1]}]}}},
        f"affinity.podAffinity.{REQUIRED_KEY}[0].matchLabelKeys[0]", "a string", "a number",
    ),
    "preferred-weight-string": (
        {"affinity": {"podAffinity": {PREFERRED_KEY: [{"weight": "1"}]}}},
        f"affinity.podAffinity.{PREFERRED_KEY}[0].weight", "an integer", "a string",
    ),
    "preferred-term-topology-key-number": (
        {"affinity": {"podAffinity": {PREFERRED_KEY: [
            {"weight": 1, "podAffinityTerm": {"topologyKey": 1}}]}}},
        f"affinity.podAffinity.{PREFERRED_KEY}[0].podAffinityTerm.topologyKey",
        "a string", "a number",
    ),
    "node-preferred-weight-float": (
        {"affinity": {"nodeAffinity": {PREFERRED_KEY: [{"weight": 1.5, "preference": {}}]}}},
        f"affinity.nodeAffinity.{PREFERRED_KEY}[0].weight", "an integer", "a number",
    ),
    "spread-item-string": (
        {"topologySpreadConstraints": ["x"]}, "topologySpreadConstraints[0]", "a mapping",
        "a string",
    ),
    "spread-max-skew-string": (
        {"topologySpreadConstraints": [{"maxSkew": "1"}]},
        "topologySpreadConstraints[0].maxSkew", "an integer", "a string",
    ),
    "spread-max-skew-bool": (
        {"topologySpreadConstraints": [{"maxSkew": True}]},
        "topologySpreadConstraints[0].maxSkew", "an integer", "a boolean",
    ),
    "spread-when-unsatisfiable-number": (
        {"topologySpreadConstraints": [{"maxSkew": 1, "whenUnsatisfiable": 1}]},
        "topologySpreadConstraints[0].whenUnsatisfiable", "a string", "a number",
    ),
    "spread-min-domains-string": (
        {"topologySpreadConstraints": [{"minDomains": "2"}]},
        "topologySpreadConstraints[0].minDomains", "an integer", "a string",
    ),
    "spread-policy-number": (
        {"topologySpreadConstraints": [{"nodeTaintsPolicy": 1}]},
        "topologySpreadConstraints[0].nodeTaintsPolicy", "a string", "a number",
    ),
    "spread-selector-string": (
        {"topologySpreadConstraints": [{"labelSelector": "app=web"}]},
        "topologySpreadConstraints[0].labelSelector", "a mapping", "a string",
    ),
    "spread-match-label-keys-string": (
        {"topologySpreadConstraints": [{"matchLabelKeys": "pod-template-hash"}]},
        "topologySpreadConstraints[0].matchLabelKeys", "a list", "a string",
    ),
}  # fmt: skip


@pytest.mark.parametrize(("spec", "field", "wanted", "got"), CASES.values(), ids=CASES.keys())
def test_a_field_of_the_wrong_type_is_named(
    spec: dict[str, Any], field: str, wanted: str, got: str
) -> None:
    extracted = extract(deployment(**spec), TEMPLATE_PATHS)
    assert isinstance(extracted, Unevaluated) and extracted.verdict is Verdict.ERROR
    assert extracted.reason == refused(field, wanted, got)


VALID = {
    "nulls-are-absent": {"tolerations": None, "nodeSelector": None},
    "unread-fields-unchecked": {"affinity": {"podAffinity": {"anything": [1]}}},
    "null-list-items": {"topologySpreadConstraints": [None, {"maxSkew": 1}]},
    "whole-pod-affinity": {"affinity": {"podAntiAffinity": {
        REQUIRED_KEY: [{"topologyKey": "kubernetes.io/hostname", "namespaces": ["a"],
                        "labelSelector": {"matchLabels": {"app": "web"}, "matchExpressions": [
                            {"key": "tier", "operator": "In", "values": ["front"]}]},
                        "namespaceSelector": {}, "matchLabelKeys": ["pod-template-hash"],
                        "mismatchLabelKeys": ["tenant"]}],
        PREFERRED_KEY: [{"weight": 100, "podAffinityTerm": {"topologyKey": "zone"}}]}}},
    "whole-spread": {"topologySpreadConstraints": [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}, "minDomains": 3,
         "nodeAffinityPolicy": "Honor", "nodeTaintsPolicy": "Ignore",
         "matchLabelKeys": ["pod-template-hash"]}]},
    "valid": {"containers": [{"name": "a", "ports": [{"hostPort": 80, "protocol": "UDP"}]}]},
}  # fmt: skip


@pytest.mark.parametrize("spec", VALID.values(), ids=VALID.keys())
def test_fields_of_the_right_type_pass(spec: dict[str, Any]) -> None:
    # Only the types: whether the values are ones the API server takes is
    # tests/test_api_validation.py's concern.
    pod = {"containers": [{"name": "app", "image": "x"}], **spec}
    assert shape_problem(pod, POD_SPEC, SPEC) is None


SHAPES: list[tuple[str, Any, Of, str | None]] = [
    ("a null is an absent field", None, POD_SPEC, None),
    (
        "a spec of the right types has no problem",
        {"nodeName": "n", "hostNetwork": True},
        POD_SPEC,
        None,
    ),
    (
        "a boolean where a list belongs is named",
        {"tolerations": True},
        POD_SPEC,
        "spec.tolerations: expected a list, not a boolean (the API server refuses it)",
    ),
    (
        "a number where a string belongs is named with its place in the list",
        {"tolerations": [{"key": "a"}, {"key": "b", "value": 1}]},
        POD_SPEC,
        "spec.tolerations[1].value: expected a string, not a number (the API server refuses it)",
    ),
    (
        "a boolean is not an integer, though Python says it is",
        {"containers": [{"ports": [{"hostPort": True}]}]},
        POD_SPEC,
        "spec.containers[0].ports[0].hostPort: expected an integer, not a boolean "
        "(the API server refuses it)",
    ),
    (
        "a float is not an integer",
        {"topologySpreadConstraints": [{"maxSkew": 1.5}]},
        POD_SPEC,
        "spec.topologySpreadConstraints[0].maxSkew: expected an integer, not a number "
        "(the API server refuses it)",
    ),
    (
        "every value of a string map is checked",
        {"nodeSelector": {"disk": "ssd", "zone": 3}},
        POD_SPEC,
        "spec.nodeSelector.zone: expected a string, not a number (the API server refuses it)",
    ),
    (
        "a list where a mapping belongs is named",
        {"affinity": []},
        POD_SPEC,
        "spec.affinity: expected a mapping, not a list (the API server refuses it)",
    ),
    (
        "fields the checks do not read are not checked",
        {"priorityClassName": 7, "containers": [{"image": 1}]},
        POD_SPEC,
        None,
    ),
    (
        "the first problem in field order is the one named",
        {"nodeName": 1, "schedulerName": 2},
        POD_SPEC,
        "spec.nodeName: expected a string, not a number (the API server refuses it)",
    ),
    (
        "metadata labels must be text",
        {"name": "w", "labels": {"app": None, "tier": 2}},
        METADATA,
        "spec.labels.tier: expected a string, not a number (the API server refuses it)",
    ),
]


@pytest.mark.parametrize(
    ("value", "shape", "expected"), [c[1:] for c in SHAPES], ids=[c[0] for c in SHAPES]
)
def test_shape_problem(value: Any, shape: Of, expected: str | None) -> None:
    assert shape_problem(value, shape, "spec") == expected
