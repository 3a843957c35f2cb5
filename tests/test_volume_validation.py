"""A volume's source as validateVolumeSource holds it (kubernetes
``pkg/apis/core/validation/validation.go``), rows translated from ``TestValidateVolumes``
and ``TestValidateProjectedVolumeSource`` (``validation_test.go``) into the messages
``field.Error.Error()`` prints for a template at ``spec.template.spec``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.validation import pod_template_problem

P = "spec.template.spec.volumes[0]"
MODE = "must be a number between 0 and 0777 (octal), both inclusive"
SUBDOMAIN_CHARS = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
    "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def problem(volume: dict[str, Any], mounted: bool = False) -> str | None:
    container: dict[str, Any] = {"name": "a", "image": "x"}
    if mounted:
        container["volumeMounts"] = [{"name": volume["name"], "mountPath": "/v"}]
    spec = {"containers": [container], "volumes": [volume]}
    return pod_template_problem(spec, "spec.template.spec")


def token(**fields: Any) -> dict[str, Any]:
    return {"name": "t", "projected": {"sources": [{"serviceAccountToken": fields}]}}


def downward(field_path: str) -> dict[str, Any]:
    file = {"path": "f", "fieldRef": {"fieldPath": field_path}}
    return {"name": "v", "downwardAPI": {"items": [file]}}


def items(kind: str, name_key: str, *entries: dict[str, Any]) -> dict[str, Any]:
    return {"name": "v", kind: {name_key: "obj", "items": list(entries)}}


# (id, volume, the error its template is refused with, or None)
VOLUMES: list[tuple[str, dict[str, Any], str | None]] = [
    ("a volume written without a source is an emptyDir", {"name": "v"}, None),
    ("a null source is no source", {"name": "v", "secret": None}, None),
    (
        "a second source is forbidden at its own field (multiple volume types)",
        {"name": "v", "hostPath": {"path": "/a"}, "emptyDir": {}},
        f"{P}.hostPath: Forbidden: may not specify more than 1 volume type",
    ),
    (
        "only the first source in upstream's order is validated",
        {"name": "v", "configMap": {"name": ""}, "secret": {"secretName": ""}},
        f"[{P}.secret.secretName: Required value, "
        f"{P}.configMap: Forbidden: may not specify more than 1 volume type]",
    ),
    (
        "a second downwardAPI is reported at upstream's misspelt field",
        {"name": "v", "emptyDir": {}, "downwardAPI": {}},
        f"{P}.downwarAPI: Forbidden: may not specify more than 1 volume type",
    ),
    (
        "a source's errors come before its name's",
        {"name": "Bad_Name", "persistentVolumeClaim": {"claimName": ""}},
        f"[{P}.persistentVolumeClaim.claimName: Required value, {P}.name: Invalid value: "
        '"Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric '
        "characters or '-', and must start and end with an alphanumeric character (e.g. "
        "'my-name',  or '123-abc', regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')]",
    ),
    # emptyDir
    ("an emptyDir of a size limit is taken", {"name": "v", "emptyDir": {"sizeLimit": "1Gi"}}, None),
    (
        "an emptyDir of a negative size limit is forbidden",
        {"name": "v", "emptyDir": {"sizeLimit": "-1"}},
        f"{P}.emptyDir.sizeLimit: Forbidden: SizeLimit field must be a valid resource quantity",
    ),
    # hostPath
    (
        "a hostPath of a known type is taken",
        {"name": "v", "hostPath": {"path": "/a", "type": "Socket"}},
        None,
    ),
    (
        "a hostPath needs a path, and its type is not looked at without one",
        {"name": "v", "hostPath": {"path": "", "type": "Bogus"}},
        f"{P}.hostPath.path: Required value",
    ),
    (
        "a hostPath written without a path has an empty one, which is required",
        {"name": "v", "hostPath": {}},
        f"{P}.hostPath.path: Required value",
    ),
    (
        "a hostPath that steps back still has its type looked at",
        {"name": "v", "hostPath": {"path": "../b", "type": "Bogus"}},
        f"[{P}.hostPath.path: Invalid value: \"../b\": must not contain '..', {P}.hostPath.type: "
        'Unsupported value: "Bogus": supported values: "", "BlockDevice", "CharDevice", '
        '"Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"]',
    ),
    (
        "a hostPath may not step back (invalid HostPath backsteps)",
        {"name": "v", "hostPath": {"path": "/a/../../b"}},
        f"{P}.hostPath.path: Invalid value: \"/a/../../b\": must not contain '..'",
    ),
    (
        "a hostPath type not supported lists the supported, the unset one first",
        {"name": "v", "hostPath": {"path": "/a", "type": "Bogus"}},
        f'{P}.hostPath.type: Unsupported value: "Bogus": supported values: "", "BlockDevice", '
        '"CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"',
    ),
    # secret and configMap
    (
        "a secret needs its secretName",
        {"name": "v", "secret": {}},
        f"{P}.secret.secretName: Required value",
    ),
    (
        "a secret's default mode past 0777 is invalid",
        {"name": "v", "secret": {"secretName": "s", "defaultMode": 0o1000}},
        f"{P}.secret.defaultMode: Invalid value: 512: {MODE}",
    ),
    (
        "a configMap's negative default mode is invalid",
        {"name": "v", "configMap": {"name": "c", "defaultMode": -1}},
        f"{P}.configMap.defaultMode: Invalid value: -1: {MODE}",
    ),
    (
        "a default mode of 0777 is taken",
        {"name": "v", "configMap": {"name": "c", "defaultMode": 0o777}},
        None,
    ),
    (
        "an item needs a key and a path",
        items("configMap", "name", {"key": "", "path": ""}),
        f"[{P}.configMap.items[0].key: Required value, "
        f"{P}.configMap.items[0].path: Required value]",
    ),
    (
        "an item's path must be relative",
        items("secret", "secretName", {"key": "k", "path": "/etc/x"}),
        f'{P}.secret.items[0].path: Invalid value: "/etc/x": must be a relative path',
    ),
    (
        "an item's path may hold no '..' element",
        items("configMap", "name", {"key": "k", "path": "a/../b"}),
        f"{P}.configMap.items[0].path: Invalid value: \"a/../b\": must not contain '..'",
    ),
    (
        "an item's path may not start with '..' (dot dot first level dirent)",
        items("configMap", "name", {"key": "k", "path": "..a"}),
        f"{P}.configMap.items[0].path: Invalid value: \"..a\": must not start with '..'",
    ),
    (
        "an item's mode past 0777 is invalid",
        items("configMap", "name", {"key": "k", "path": "p", "mode": 1000}),
        f"{P}.configMap.items[0].mode: Invalid value: 1000: {MODE}",
    ),
    # persistentVolumeClaim, nfs, rbd, csi
    (
        "a persistentVolumeClaim needs its claimName",
        {"name": "v", "persistentVolumeClaim": {"readOnly": True}},
        f"{P}.persistentVolumeClaim.claimName: Required value",
    ),
    (
        "an nfs volume needs a server and an absolute path",
        {"name": "v", "nfs": {"server": "", "path": "share"}},
        f'[{P}.nfs.server: Required value, {P}.nfs.path: Invalid value: "share": must be an '
        "absolute path]",
    ),
    (
        "an nfs volume without a path is also not absolute",
        {"name": "v", "nfs": {"server": "s"}},
        f'[{P}.nfs.path: Required value, {P}.nfs.path: Invalid value: "": must be an '
        "absolute path]",
    ),
    (
        "an rbd volume needs monitors and an image",
        {"name": "v", "rbd": {"monitors": []}},
        f"[{P}.rbd.monitors: Required value, {P}.rbd.image: Required value]",
    ),
    (
        "a csi volume needs a driver, which is then no subdomain either",
        {"name": "v", "csi": {"driver": ""}},
        f'[{P}.csi.driver: Required value, {P}.csi.driver: Invalid value: "": {SUBDOMAIN_CHARS}]',
    ),
    (
        "a csi driver is a subdomain whatever its case",
        {"name": "v", "csi": {"driver": "Disk.CSI.io"}},
        None,
    ),
    (
        "a csi driver of more than 63 characters is too long",
        {"name": "v", "csi": {"driver": "d" * 64}},
        f"{P}.csi.driver: Too long: may not be more than 63 bytes",
    ),
    # iscsi
    (
        "an iscsi volume needs a portal and an iqn",
        {"name": "v", "iscsi": {"targetPortal": "", "iqn": "", "lun": 1}},
        f"[{P}.iscsi.targetPortal: Required value, {P}.iscsi.iqn: Required value]",
    ),
    (
        "an iqn of another prefix is refused (invalid IQN prefix)",
        {"name": "v", "iscsi": {"targetPortal": "1.2.3.4:3260", "iqn": "foo.2015-02.example"}},
        f'{P}.iscsi.iqn: Invalid value: "foo.2015-02.example": must be valid format starting with '
        "iqn, eui, or naa",
    ),
    (
        "an iqn not of its format is refused",
        {"name": "v", "iscsi": {"targetPortal": "1.2.3.4:3260", "iqn": "iqn.2015-02.example"}},
        f'{P}.iscsi.iqn: Invalid value: "iqn.2015-02.example": must be valid format',
    ),
    (
        "a lun past 255 is refused",
        {
            "name": "v",
            "iscsi": {"targetPortal": "p:1", "iqn": "iqn.2015-02.example.com:t", "lun": 256},
        },
        f"{P}.iscsi.lun: Invalid value: 256: must be between 0 and 255, inclusive",
    ),
    (
        "CHAP without a secret needs one",
        {
            "name": "v",
            "iscsi": {
                "targetPortal": "p:1",
                "iqn": "iqn.2015-02.example.com:t",
                "chapAuthSession": True,
            },
        },
        f"{P}.iscsi.secretRef: Required value",
    ),
    # downwardAPI
    (
        "a downward file of a volume field is taken",
        downward("metadata.labels"),
        None,
    ),
    (
        "a downward file of a field no volume shows is not supported",
        downward("spec.nodeName"),
        f'{P}.downwardAPI.fieldRef.fieldPath: Unsupported value: "spec.nodeName": supported '
        'values: "metadata.annotations", "metadata.labels", "metadata.name", '
        '"metadata.namespace", "metadata.uid"',
    ),
    (
        "a downward file of an unknown field cannot be converted",
        downward("spec.x"),
        f'{P}.downwardAPI.fieldRef.fieldPath: Invalid value: "spec.x": error converting fieldPath: '
        "field label not supported: spec.x",
    ),
    (
        "a downward file needs one of its references, and a path",
        {"name": "v", "downwardAPI": {"items": [{"path": ""}]}},
        f"[{P}.downwardAPI.path: Required value, {P}.downwardAPI: Required value: one of fieldRef "
        "and resourceFieldRef is required]",
    ),
    # projected
    (
        "a token of the default hour at a relative path is taken",
        token(path="token"),
        None,
    ),
    (
        "a token of less than ten minutes is refused, its path at the volume's",
        {**token(path="", expirationSeconds=599), "name": "v"},
        f"[{P}.projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: 599: "
        f"may not specify a duration less than 10 minutes, {P}.projected.path: Required value]",
    ),
    (
        "a token of more than 2^32 seconds is refused",
        {**token(path="t", expirationSeconds=(1 << 32) + 1), "name": "v"},
        f"{P}.projected.sources[0].serviceAccountToken.expirationSeconds: Invalid value: "
        "4294967297: may not specify a duration larger than 2^32 seconds",
    ),
    (
        "a token's absolute path is refused at the volume's path",
        {**token(path="/t"), "name": "v"},
        f'{P}.projected.path: Invalid value: "/t": must be a relative path',
    ),
    (
        "a projection of two kinds in one source is forbidden",
        {
            "name": "v",
            "projected": {"sources": [{"secret": {"name": "s"}, "configMap": {"name": "c"}}]},
        },
        f"{P}.projected.sources[0]: Forbidden: may not specify more than 1 volume type per source",
    ),
    (
        "a projected secret needs its name",
        {"name": "v", "projected": {"sources": [{"secret": {}}]}},
        f"{P}.projected.sources[0].secret.name: Required value",
    ),
    (
        "two projected items of one path conflict, named by the later source's object",
        {
            "name": "v",
            "projected": {
                "sources": [
                    {"secret": {"name": "s", "items": [{"key": "a", "path": "p"}]}},
                    {"configMap": {"name": "c", "items": [{"key": "b", "path": "p"}]}},
                ]
            },
        },
        f'{P}.projected: Invalid value: "c": conflicting duplicate paths',
    ),
    (
        "a projected default mode past 0777 is invalid",
        {"name": "v", "projected": {"defaultMode": 0o1000, "sources": []}},
        f"{P}.projected.defaultMode: Invalid value: 512: {MODE}",
    ),
]


@pytest.mark.parametrize(
    ("volume", "error"), [row[1:] for row in VOLUMES], ids=[row[0] for row in VOLUMES]
)
def test_a_volume_source_is_validated_as_the_api_server_does(
    volume: dict[str, Any], error: str | None
) -> None:
    assert problem(volume) == error


def test_a_mount_of_a_volume_whose_source_is_refused_finds_no_volume() -> None:
    """ValidateVolumes keeps only the volumes without an error for the mounts to name."""
    expected = (
        f"[{P}.configMap.name: Required value, "
        'spec.template.spec.containers[0].volumeMounts[0].name: Not found: "v"]'
    )
    assert problem({"name": "v", "configMap": {}}, mounted=True) == expected


@given(st.integers(min_value=-(2**31), max_value=2**31 - 1))
def test_a_default_mode_is_taken_exactly_from_0_to_0777(mode: int) -> None:
    error = problem({"name": "v", "secret": {"secretName": "s", "defaultMode": mode}})
    expected = (
        None if 0 <= mode <= 0o777 else f"{P}.secret.defaultMode: Invalid value: {mode}: {MODE}"
    )
    assert error == expected


@given(
    st.lists(st.sampled_from(["a", "b.txt", "..", ".", "..x", "x..", ""]), min_size=1, max_size=4)
)
def test_an_item_path_is_refused_exactly_for_a_dot_dot_element_or_start(parts: list[str]) -> None:
    """ValidateLocalNonReservedPath: an absolute path, a ``..`` element, or a start ``..``
    that is no element; an empty path is required."""
    path = "/".join(parts)
    error = problem(items("configMap", "name", {"key": "k", "path": path}))
    refused = ".." in parts or path.startswith(("..", "/")) or not path
    assert (error is not None) == refused
