"""A template field of a type the API server's decoder refuses is an ERROR naming it."""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.workloads import TEMPLATE_PATHS, Unevaluated, extract
from gate.model import Document, Location, Verdict, Workload

SPEC = "spec.template.spec"


def deployment(**spec: Any) -> Document:
    pod = {"containers": [{"name": "app", "image": "x"}], **spec}
    body = {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"template": {"spec": pod}}}
    return Document(Location("w.yaml", 1), body=body)


def refused(field: str, wanted: str, got: str) -> str:
    return f"{SPEC}.{field}: expected {wanted}, not {got} (the API server refuses it)"


TERMS = "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms"
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
    "any-list-items": {"topologySpreadConstraints": [True, 1, "x", None, {"maxSkew": 1}]},
    "valid": {"containers": [{"name": "a", "ports": [{"hostPort": 80, "protocol": "UDP"}]}]},
}


@pytest.mark.parametrize("spec", VALID.values(), ids=VALID.keys())
def test_fields_of_the_right_type_pass(spec: dict[str, Any]) -> None:
    assert isinstance(extract(deployment(**spec), TEMPLATE_PATHS), Workload)
