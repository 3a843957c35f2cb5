"""The API server's validation of a generic ephemeral volume (kubernetes v1.34
``pkg/apis/core/validation/validation.go``: ``validateVolumeSource``,
``validateEphemeralVolumeSource``, ``ValidatePersistentVolumeClaimTemplate``,
``ValidatePersistentVolumeClaimSpec``, ``validateDataSource``, ``ValidateVolumes``): each
rule a template can break, in upstream's words and order."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.validation import pod_template_problem, workload_problem

P = "spec.template.spec"
V = f"{P}.volumes[0].ephemeral.volumeClaimTemplate"
SUBDOMAIN_TAIL = (
    "regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
GOOD_SPEC: dict[str, Any] = {
    "accessModes": ["ReadWriteOnce"],
    "resources": {"requests": {"storage": "1Gi"}},
}
CONTAINER = {"name": "app", "image": "a", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}


def _spec(template: object = None, **source: Any) -> dict[str, Any]:
    ephemeral = {"volumeClaimTemplate": template, **source} if template is not None else source
    return {"containers": [CONTAINER], "volumes": [{"name": "v", "ephemeral": ephemeral}]}


def _template(metadata: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    return {"metadata": metadata or {}, "spec": {**GOOD_SPEC, **spec}}


def _without(key: str) -> dict[str, Any]:
    return {"spec": {k: v for k, v in GOOD_SPEC.items() if k != key}}


NOT_FOUND = f'{P}.containers[0].volumeMounts[0].name: Not found: "v"'
CASES = [
    pytest.param(_spec(_template()), None, id="a template with access modes and storage is taken"),
    pytest.param(
        _spec(),
        f"[{P}.volumes[0].ephemeral.volumeClaimTemplate: Required value, {NOT_FOUND}]",
        id="an ephemeral volume without a claim template is refused and mounts nothing",
    ),
    pytest.param(
        _spec(_without("accessModes")),
        f"[{V}.spec.accessModes: Required value: at least 1 access mode is required, {NOT_FOUND}]",
        id="a template without access modes is refused",
    ),
    pytest.param(
        _spec(_without("resources")),
        f"[{V}.spec.resources[storage]: Required value, {NOT_FOUND}]",
        id="a template without a storage request is refused at resources[storage]",
    ),
    pytest.param(
        _spec(_template(resources={"requests": {"storage": "0"}})),
        f'[{V}.spec.resources[storage]: Invalid value: "0": must be greater than zero, '
        f"{NOT_FOUND}]",
        id="a storage request of zero is refused",
    ),
    pytest.param(
        _spec(_template(resources={"requests": {"storage": "-1Gi"}})),
        f'[{V}.spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero, '
        f"{NOT_FOUND}]",
        id="a negative storage request is refused",
    ),
    pytest.param(
        _spec(_template(accessModes=["ReadWriteOnce", "Sometimes"])),
        f'[{V}.spec.accessModes: Unsupported value: "Sometimes": supported values: '
        '"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod", '
        f"{NOT_FOUND}]",
        id="an unknown access mode is refused with the supported ones sorted",
    ),
    pytest.param(
        _spec(_template(accessModes=["ReadWriteOncePod", "ReadOnlyMany"])),
        f"[{V}.spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access "
        f"modes, {NOT_FOUND}]",
        id="read write once pod beside another mode is refused",
    ),
    pytest.param(
        _spec(_template(volumeMode="Raw")),
        f'[{V}.spec.volumeMode: Unsupported value: "Raw": supported values: "Block", '
        f'"Filesystem", {NOT_FOUND}]',
        id="an unknown volume mode is refused",
    ),
    pytest.param(
        _spec(_template(volumeMode=None)), None, id="a null volume mode is unset, not refused"
    ),
    pytest.param(
        _spec(_template(storageClassName="Fast_SSD")),
        f'[{V}.spec.storageClassName: Invalid value: "Fast_SSD": a lowercase RFC 1123 subdomain '
        "must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
        f"with an alphanumeric character (e.g. 'example.com', {SUBDOMAIN_TAIL}, {NOT_FOUND}]",
        id="a class name that is no DNS subdomain is refused",
    ),
    pytest.param(
        _spec(_template(selector={"matchLabels": {"a": "b c"}})),
        "must be an empty string or consist of alphanumeric characters",
        id="a selector's label value is checked",
    ),
    pytest.param(
        _spec(_template(dataSource={"kind": "VolumeSnapshot", "name": "s"})),
        f"[{V}.spec.dataSource: Invalid value: \"VolumeSnapshot\": must be 'PersistentVolumeClaim' "
        f"when referencing the default apiGroup, {NOT_FOUND}]",
        id="a data source of another kind in the core group is refused",
    ),
    pytest.param(
        _spec(_template(dataSource={"apiGroup": "snapshot.storage.k8s.io"})),
        f"[{V}.spec.dataSource.name: Required value, {V}.spec.dataSource.kind: Required value, "
        f"{NOT_FOUND}]",
        id="a data source needs a name and a kind",
    ),
    pytest.param(
        _spec(
            _template(
                dataSourceRef={
                    "apiGroup": "snapshot.storage.k8s.io",
                    "kind": "VolumeSnapshot",
                    "name": "s",
                    "namespace": "Other",
                }
            )
        ),
        f'{V}.spec.dataSourceRef.namespace: Invalid value: "Other": a lowercase RFC 1123 label',
        id="a data source reference's namespace is a namespace's name",
    ),
    pytest.param(
        _spec(
            _template(
                dataSource={"kind": "PersistentVolumeClaim", "name": "a"},
                dataSourceRef={"kind": "PersistentVolumeClaim", "name": "b"},
            )
        ),
        f"[{V}.spec: Invalid value: {{}}: must match dataSourceRef, {NOT_FOUND}]",
        id="a data source that is not its reference's object is refused",
    ),
    pytest.param(
        _spec(
            _template(
                dataSource={"kind": "PersistentVolumeClaim", "name": "a"},
                dataSourceRef={"kind": "PersistentVolumeClaim", "name": "a"},
            )
        ),
        None,
        id="a data source naming its reference's object is taken",
    ),
    pytest.param(
        _spec(
            _template(
                dataSource={"kind": "PersistentVolumeClaim", "name": "a"},
                dataSourceRef={"kind": "PersistentVolumeClaim", "name": "a", "namespace": "b"},
            )
        ),
        f"[{V}.spec: Invalid value: {{}}: may not be specified when dataSourceRef.namespace is "
        f"specified, {NOT_FOUND}]",
        id="a data source beside a reference to another namespace is refused",
    ),
    pytest.param(
        _spec(_template({"name": "x", "uid": "u", "labels": {"a": "b"}})),
        f"[{V}.metadata.name: Forbidden: cannot be set, {V}.metadata.uID: Forbidden: cannot be "
        f"set, {NOT_FOUND}]",
        id="template metadata beyond labels and annotations cannot be set",
    ),
    pytest.param(
        _spec(_template({"creationTimestamp": None, "generation": 0})),
        None,
        id="template metadata at its zero value is unset",
    ),
    pytest.param(
        {
            "containers": [CONTAINER],
            "volumes": [{"name": "v", "emptyDir": {}, "ephemeral": {"volumeClaimTemplate": {}}}],
        },
        f"[{P}.volumes[0].ephemeral: Forbidden: may not specify more than 1 volume type, "
        f"{NOT_FOUND}]",
        id="an ephemeral source beside another is refused",
    ),
]


@pytest.mark.parametrize(("spec", "problem"), CASES)
def test_an_ephemeral_volume_s_claim_template_is_validated(
    spec: dict[str, Any], problem: str | None
) -> None:
    found = pod_template_problem(spec, P)
    if problem is None or problem.startswith("["):
        assert found == problem
    else:
        assert problem in (found or "")


def _pod(name: str, volumes: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "app", "image": "a"}], "volumes": volumes},
    }


EPHEMERAL = {"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": GOOD_SPEC}}}
LONG = "p" * 252
POD_CASES = [
    pytest.param(_pod("p", [EPHEMERAL]), None, id="a pod's ephemeral claim named p-v is taken"),
    pytest.param(
        _pod(LONG, [EPHEMERAL]),
        f'spec.volumes[0].name: Invalid value: "v": PVC name "{LONG}-v": must be no more than '
        "253 characters",
        id="a pod whose ephemeral claim's name is too long is refused",
    ),
    pytest.param(
        _pod("p", [EPHEMERAL, {"name": "w", "persistentVolumeClaim": {"claimName": "p-v"}}]),
        'spec.volumes[1].persistentVolumeClaim.claimName: Invalid value: "p-v": must not '
        "reference a PVC that gets created for an ephemeral volume",
        id="a pod may not mount its ephemeral volume's claim as a claim",
    ),
]


@pytest.mark.parametrize(("body", "problem"), POD_CASES)
def test_a_pod_s_ephemeral_claims_are_named_by_the_pod(
    body: dict[str, Any], problem: str | None
) -> None:
    found = workload_problem("Pod", body, body["spec"])
    name = body["metadata"]["name"]
    assert found == (problem and f'Pod "{name}" is invalid: {problem}')
