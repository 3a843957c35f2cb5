"""A workload's own name, as kubernetes v1.34's ValidateObjectMeta holds it
(``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``) with its kind's name
function (``generic.go`` NameIsDNSSubdomain and NameIsDNSLabel; ValidateStatefulSetName is
a DNS label since v1.27): what the API server refuses is an ERROR in its words, before the
namespace and the labels; then the annotations' keys and size."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from gate.k8s.validation import stored_name
from tests.test_api_validation import DNS_LABEL, SUBDOMAIN, deployment, invalid, job, reason


def named(build: Callable[[], dict[str, Any]], **metadata: Any) -> Callable[[], dict[str, Any]]:
    """The workload ``build`` makes, its metadata replaced by ``metadata``."""

    def made() -> dict[str, Any]:
        body = build()
        body["metadata"] = metadata
        return body

    return made


def template_notes(
    build: Callable[[], dict[str, Any]], annotations: dict[str, str]
) -> Callable[[], dict[str, Any]]:
    """The workload ``build`` makes, its template annotated with ``annotations``."""

    def made() -> dict[str, Any]:
        body = build()
        body["spec"]["template"]["metadata"]["annotations"] = annotations
        return body

    return made


def pod() -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": "a"}]}}  # fmt: skip


# (id, the workload, the API server's field errors)
REFUSED: list[tuple[str, Callable[[], dict[str, Any]], str]] = [
    ("a Deployment named with capitals and an underscore is refused",
     named(deployment, name="Web_1"), f'metadata.name: Invalid value: "Web_1": {SUBDOMAIN}'),
    ("a Pod named with a space is refused", named(pod, name="my pod"),
     f'metadata.name: Invalid value: "my pod": {SUBDOMAIN}'),
    ("a DaemonSet named past 253 characters is refused",
     named(lambda: deployment("DaemonSet"), name="d" * 254),
     f'metadata.name: Invalid value: "{"d" * 254}": must be no more than 253 characters'),
    ("a StatefulSet named with a dot is refused (a DNS label)",
     named(lambda: deployment("StatefulSet"), name="web.v2"),
     'metadata.name: Invalid value: "web.v2": must not contain dots'),
    ("a StatefulSet named past 63 characters is refused",
     named(lambda: deployment("StatefulSet"), name="s" * 64),
     f'metadata.name: Invalid value: "{"s" * 64}": must be no more than 63 characters'),
    ("a StatefulSet named with capitals is refused as no DNS label",
     named(lambda: deployment("StatefulSet"), name="Db"),
     f'metadata.name: Invalid value: "Db": {DNS_LABEL}'),
    ("a Job named with capitals is refused", named(job, name="Nightly"),
     f'metadata.name: Invalid value: "Nightly": {SUBDOMAIN}'),
    ("a CronJob named with an underscore is refused before its spec",
     named(lambda: job("CronJob"), name="nightly_backup"),
     f'metadata.name: Invalid value: "nightly_backup": {SUBDOMAIN}'),
    ("a ReplicaSet without a name or generateName is refused", named(lambda: deployment(
        "ReplicaSet")), "metadata.name: Required value: name or generateName is required"),
    ("a generateName with capitals is refused, its trailing dash masked",
     named(deployment, name="web", generateName="Web-"),
     f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN}'),
    ("a StatefulSet's generateName is held to a DNS label",
     named(lambda: deployment("StatefulSet"), name="db", generateName="db.v1-"),
     'metadata.generateName: Invalid value: "db.v1-": must not contain dots'),
    ("a name is refused before the namespace and the labels",
     named(deployment, name="A", namespace="Team", labels={"k": "v w"}),
     f'[metadata.name: Invalid value: "A": {SUBDOMAIN}, metadata.namespace: Invalid value: '
     f'"Team": {DNS_LABEL}, metadata.labels: Invalid value: "v w": a valid label must be an '
     "empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and "
     "end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex "
     "used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')]"),
    # ValidateAnnotations (objectmeta.go): keys, then the total size, after the labels
    ("an annotation key with a space is refused", named(deployment, name="w",
                                                       annotations={"team owner": "a"}),
     'metadata.annotations: Invalid value: "team owner": name part must consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
     "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
    ("annotations past 256 KiB are too long", named(pod, name="p",
                                                   annotations={"a": "x" * 262144}),
     "metadata.annotations: Too long: may not be more than 262144 bytes"),
    ("a template's annotation key is refused after its labels (ValidatePodTemplateSpec)",
     lambda: {**deployment(), "spec": {**deployment()["spec"], "template": {
         "metadata": {"labels": {"app": "web", "v": "a b"}, "annotations": {"/x": "y"}},
         "spec": deployment()["spec"]["template"]["spec"]}}},
     '[spec.template.labels: Invalid value: "a b": a valid label must be an empty string or '
     "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
     "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
     "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'), spec.template.annotations: "
     'Invalid value: "/x": prefix part must be non-empty]'),
    ("a StatefulSet's template annotation key is refused",
     lambda: {**deployment("StatefulSet"), "spec": {
         **deployment("StatefulSet")["spec"], "template": {
             "metadata": {"labels": {"app": "web"}, "annotations": {"a/b/c": "y"}},
             "spec": deployment()["spec"]["template"]["spec"]}}},
     'spec.template.annotations: Invalid value: "a/b/c": a qualified name must consist of '
     "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
     "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and "
     "'/' (e.g. 'example.com/MyName')"),
    # ValidatePodSpecificAnnotations, after ValidateAnnotations (helpers.go
    # GetDeletionCostFromPodAnnotations: no '+', no leading zero, a 32-bit integer)
    ("a template's pod deletion cost of a leading zero is refused", template_notes(
        deployment, {"controller.kubernetes.io/pod-deletion-cost": "007"}),
     "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "
     '"007": must be a 32bit integer'),
    ("a StatefulSet's pod deletion cost past 32 bits is refused", template_notes(
        lambda: deployment("StatefulSet"),
        {"controller.kubernetes.io/pod-deletion-cost": "2147483648"}),
     "spec.template.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "
     '"2147483648": must be a 32bit integer'),
    ("a Pod's deletion cost with a plus sign is refused, after its annotation keys",
     named(pod, name="p", annotations={"controller.kubernetes.io/pod-deletion-cost": "+1",
                                       "/x": "y"}),
     '[metadata.annotations: Invalid value: "/x": prefix part must be non-empty, '
     "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]: Invalid value: "
     '"+1": must be a 32bit integer]'),
    ("a mirror pod's annotation without a node name is refused",
     template_notes(deployment, {"kubernetes.io/config.mirror": "hash"}),
     'spec.template.annotations[kubernetes.io/config.mirror]: Invalid value: "hash": must set '
     "spec.nodeName if mirror pod annotation is set"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_name_the_api_server_refuses_is_an_error_in_its_words(
    build: Callable[[], dict[str, Any]], expected: str
) -> None:
    body = build()
    assert reason(body) == invalid(body, expected, stored_name(body["metadata"]))


def test_a_cronjob_s_generated_name_is_held_to_52_characters() -> None:
    """ValidateCronJobCreate measures the name BeforeCreate generated: 48 characters of
    prefix and 5 random ones are too many for the Jobs' names."""
    found = reason(named(lambda: job("CronJob"), generateName="c" * 48)())
    assert found is not None and found.startswith(f'CronJob.batch "{"c" * 48}')
    found = found.partition(" is invalid: ")[2]
    assert found.startswith(f'metadata.name: Invalid value: "{"c" * 48}')
    assert found.endswith('": must be no more than 52 characters')
    assert reason(named(lambda: job("CronJob"), generateName="c" * 47)()) is None


def test_a_generated_name_past_its_prefix_is_validated_as_generated() -> None:
    """rest.BeforeCreate generates the name (the prefix and 5 random characters) before
    ValidateObjectMeta: both are refused, the name's random part being the API server's."""
    found = reason(named(deployment, generateName="Web-")())
    assert found is not None and found.startswith('Deployment.apps "Web-')
    found = found.partition(" is invalid: ")[2]
    generate, name = found[1:-1].split(", metadata.name: ")
    assert generate == f'metadata.generateName: Invalid value: "Web-": {SUBDOMAIN}'
    assert name.startswith('Invalid value: "Web-') and name.endswith(f'": {SUBDOMAIN}')


# (id, the workload the API server takes)
TAKEN: list[tuple[str, Callable[[], dict[str, Any]]]] = [
    ("a Deployment named with dots is taken", named(deployment, name="web.v2")),
    ("a Deployment of a generateName alone is taken", named(deployment, generateName="web-")),
    ("a StatefulSet named a 52-character label is taken (its pods' labels fit)",
     named(lambda: deployment("StatefulSet"), name="s" * 52)),
    ("a Pod named a 253-character subdomain is taken", named(pod, name="p" * 253)),
    ("a generateName of one dash is taken (nothing to mask)",
     named(deployment, name="web", generateName="a-")),
    ("pod deletion costs of 32 bits are taken, negative or 0", template_notes(
        deployment, {"controller.kubernetes.io/pod-deletion-cost": "-2147483648"})),
    ("a pod deletion cost of 0 is taken", template_notes(
        lambda: deployment("DaemonSet"), {"controller.kubernetes.io/pod-deletion-cost": "0"})),
    ("an annotation key in capitals, of any value, is taken (case does not matter)",
     named(deployment, name="w", annotations={"Example.COM/Owner": "<b>\u2028 anything"})),
]  # fmt: skip


@pytest.mark.parametrize("build", [t[1] for t in TAKEN], ids=[t[0] for t in TAKEN])
def test_a_name_the_api_server_takes_is_a_workload(build: Callable[[], dict[str, Any]]) -> None:
    assert reason(build()) is None
