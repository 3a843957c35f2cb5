"""The API server's validation of a container's volume mounts (subPath, subPathExpr,
mountPropagation, recursiveReadOnly), of the pod's dnsConfig, hostAliases and Windows
HostProcess containers, and of an object's ownerReferences and finalizers
(gate.k8s.validation), as kubernetes v1.34.1 refuses them: rows after
pkg/apis/core/validation/validation_test.go (TestValidateVolumeMounts,
TestValidateMountPropagation, TestValidateMountRecursiveReadOnly, TestValidatePodDNSConfig,
TestValidateHostAliases, TestValidateWindowsHostProcessPod,
TestValidateObjectMetaFinalizers) and apimachinery's
pkg/api/validation/objectmeta_test.go (TestValidateObjectMetaOwnerReferences,
TestValidateFinalizersUpdate's create half), each with the field error the API server
prints, and through the CLI."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s.ports import parsed_ip_sloppy
from gate.k8s.validation import pod_template_problem
from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot
from tests.test_api_validation import SUBDOMAIN, deployment, invalid, reason
from tests.test_validation_containers import checked_by_the_cli

P = "spec.template.spec"
C = f"{P}.containers[0]"
M = f"{C}.volumeMounts"
UNDERSCORE_SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '_', "
    "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
    "regex used for validation is "
    "'_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*[a-z0-9])?)*')"
)
IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"
PROPAGATIONS = 'supported values: "Bidirectional", "HostToContainer", "None"'
BIDIRECTIONAL = "Bidirectional mount propagation is available only to privileged containers"
READ_ONLY = "may only be specified when readOnly is true"
PROPAGATION_NONE = "may only be specified when mountPropagation is None or not specified"


def problem(container: dict[str, Any] | None = None, **pod: Any) -> str | None:
    """The errors of a template with one container carrying ``container``'s fields and an
    emptyDir volume ``data``."""
    spec = {
        "containers": [{"name": "a", "image": "x", **(container or {})}],
        "volumes": [{"name": "data", "emptyDir": {}}],
        **pod,
    }
    return pod_template_problem(spec, P)


def mount(**fields: Any) -> dict[str, Any]:
    """A container mounting ``data`` at /data with ``fields``."""
    return {"volumeMounts": [{"name": "data", "mountPath": "/data", **fields}]}


PRIVILEGED = {"securityContext": {"privileged": True}}


def dns(**config: Any) -> dict[str, Any]:
    return {"dnsConfig": config}


SEARCHES_33 = [f"s{i}.example.com" for i in range(33)]

# (id, the container's fields, the pod's fields, the aggregate the API server prints)
REFUSED: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    # ValidateVolumeMounts: validateLocalDescendingPath at the list's path, with no index
    ("an absolute subPath", mount(subPath="/etc"), {},
     f'{M}.subPath: Invalid value: "/etc": must be a relative path'),
    ("a subPath stepping out", mount(subPath="a/../../b"), {},
     f"{M}.subPath: Invalid value: \"a/../../b\": must not contain '..'"),
    ("a subPath that is both: two errors", mount(subPath="/.."), {},
     f'[{M}.subPath: Invalid value: "/..": must be a relative path, '
     f"{M}.subPath: Invalid value: \"/..\": must not contain '..']"),
    ("a subPathExpr stepping out", mount(subPathExpr="$(POD_NAME)/.."), {},
     f"{M}.subPathExpr: Invalid value: \"$(POD_NAME)/..\": must not contain '..'"),
    ("subPath and subPathExpr together, the exclusion indexed",
     mount(subPath="a", subPathExpr="$(POD_NAME)"), {},
     f'{M}[0].subPathExpr: Invalid value: "$(POD_NAME)": subPathExpr and subPath are mutually '
     "exclusive"),
    ("a second mount's subPath, named at the list all the same",
     {"volumeMounts": [{"name": "data", "mountPath": "/a"},
                       {"name": "data", "mountPath": "/b", "subPath": "/x"}]}, {},
     f'{M}.subPath: Invalid value: "/x": must be a relative path'),
    # validateMountPropagation
    ("a mount propagation of no known kind", mount(mountPropagation="Shared"), {},
     f'{M}.mountPropagation: Unsupported value: "Shared": {PROPAGATIONS}'),
    ("Bidirectional in a container that is not privileged",
     mount(mountPropagation="Bidirectional"), {},
     f"{M}.mountPropagation: Forbidden: {BIDIRECTIONAL}"),
    ("Bidirectional with privileged false",
     {**mount(mountPropagation="Bidirectional"), "securityContext": {"privileged": False}}, {},
     f"{M}.mountPropagation: Forbidden: {BIDIRECTIONAL}"),
    ("Bidirectional in an init container that is not privileged", {},
     {"initContainers": [{"name": "i", "image": "x", **mount(mountPropagation="Bidirectional")}]},
     f"{P}.initContainers[0].volumeMounts.mountPropagation: Forbidden: {BIDIRECTIONAL}"),
    # validateMountRecursiveReadOnly
    ("recursiveReadOnly Enabled on a writable mount", mount(recursiveReadOnly="Enabled"), {},
     f"{M}.recursiveReadOnly: Forbidden: {READ_ONLY}"),
    ("recursiveReadOnly IfPossible with HostToContainer propagation",
     mount(recursiveReadOnly="IfPossible", readOnly=True, mountPropagation="HostToContainer"),
     {}, f"{M}.recursiveReadOnly: Forbidden: {PROPAGATION_NONE}"),
    ("recursiveReadOnly with neither condition: both, in order",
     {**mount(recursiveReadOnly="Enabled", mountPropagation="Bidirectional"), **PRIVILEGED}, {},
     f"[{M}.recursiveReadOnly: Forbidden: {READ_ONLY}, "
     f"{M}.recursiveReadOnly: Forbidden: {PROPAGATION_NONE}]"),
    ("a recursiveReadOnly of no known kind", mount(recursiveReadOnly="Always", readOnly=True),
     {}, f'{M}.recursiveReadOnly: Unsupported value: "Always": supported values: "Disabled", '
     '"Enabled", "IfPossible"'),
    ("an empty recursiveReadOnly", mount(recursiveReadOnly=""), {},
     f'{M}.recursiveReadOnly: Unsupported value: "": supported values: "Disabled", '
     '"Enabled", "IfPossible"'),
    ("the mount's errors in ValidateVolumeMounts' order",
     mount(subPath="/a", mountPropagation="Bidirectional", recursiveReadOnly="Enabled",
           readOnly=True), {},
     f'[{M}.subPath: Invalid value: "/a": must be a relative path, '
     f"{M}.mountPropagation: Forbidden: {BIDIRECTIONAL}, "
     f"{M}.recursiveReadOnly: Forbidden: {PROPAGATION_NONE}]"),
    # validatePodDNSConfig
    ("a nameserver that is no address", {}, dns(nameservers=["1.1.1.1", "dns.local"]),
     f'{P}.dnsConfig.nameservers[1]: Invalid value: "dns.local": {IP}'),
    ("an address with a zone", {}, dns(nameservers=["fe80::1%eth0"]),
     f'{P}.dnsConfig.nameservers[0]: Invalid value: "fe80::1%eth0": {IP}'),
    ("four nameservers, then each checked", {}, dns(nameservers=["1.1.1.1", "", "2", "3"]),
     f'[{P}.dnsConfig.nameservers: Invalid value: ["1.1.1.1","","2","3"]: must not have more '
     f'than 3 nameservers, {P}.dnsConfig.nameservers[1]: Invalid value: "": {IP}, '
     f'{P}.dnsConfig.nameservers[2]: Invalid value: "2": {IP}, '
     f'{P}.dnsConfig.nameservers[3]: Invalid value: "3": {IP}]'),
    ("thirty-three search paths", {}, dns(searches=SEARCHES_33),
     f"{P}.dnsConfig.searches: Invalid value: {json.dumps(SEARCHES_33, separators=(',', ':'))}"
     ": must not have more than 32 search paths"),
    ("a search list beyond 2048 characters with its spaces", {},
     dns(searches=["a" * 63 + "." + "b" * 63] * 17),
     f"{P}.dnsConfig.searches: Invalid value: "
     f"{json.dumps(['a' * 63 + '.' + 'b' * 63] * 17, separators=(',', ':'))}: must not have more "
     "than 2048 characters (including spaces) in the search list"),
    ("a search path in capitals, shown with its trailing dot cut", {},
     dns(searches=["Example.COM."]),
     f'{P}.dnsConfig.searches[0]: Invalid value: "Example.COM": {UNDERSCORE_SUBDOMAIN}'),
    ("an empty search path", {}, dns(searches=[""]),
     f'{P}.dnsConfig.searches[0]: Invalid value: "": {UNDERSCORE_SUBDOMAIN}'),
    ("two dots are one cut to a dot", {}, dns(searches=[".."]),
     f'{P}.dnsConfig.searches[0]: Invalid value: ".": {UNDERSCORE_SUBDOMAIN}'),
    ("an option with no name", {}, dns(options=[{"name": "ndots", "value": "2"}, {"value": "1"}]),
     f"{P}.dnsConfig.options[1]: Required value: must not be empty"),
    # ValidateHostAliases, after the tolerations
    ("a host alias's ip that is no address", {},
     {"hostAliases": [{"ip": "10.0.0.256", "hostnames": ["db"]}]},
     f'{P}.hostAliases[0].ip: Invalid value: "10.0.0.256": {IP}'),
    ("a host alias without an ip", {}, {"hostAliases": [{"hostnames": ["db"]}]},
     f'{P}.hostAliases[0].ip: Invalid value: "": {IP}'),
    ("a host alias's hostname that is no subdomain", {},
     {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["db", "DB_1"]}]},
     f'{P}.hostAliases[0].hostnames[1]: Invalid value: "DB_1": {SUBDOMAIN}'),
    ("the host aliases after the tolerations, before the priority class", {},
     {"hostAliases": [{"ip": "x"}], "priorityClassName": "High",
      "tolerations": [{"key": "a b", "operator": "Exists"}]},
     f'[{P}.tolerations[0].key: Invalid value: "a b": name part must consist of alphanumeric '
     "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
     "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
     "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), "
     f'{P}.hostAliases[0].ip: Invalid value: "x": {IP}, '
     f'{P}.priorityClassName: Invalid value: "High": {SUBDOMAIN}]'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("container", "pod", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_pod_field_the_api_server_refuses_is_an_error_in_its_words(
    container: dict[str, Any], pod: dict[str, Any], expected: str
) -> None:
    assert problem(copy.deepcopy(container), **copy.deepcopy(pod)) == expected


# (id, the container's fields, the pod's fields) the API server takes
TAKEN: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("relative subPath and subPathExpr, dots inside names",
     {"volumeMounts": [{"name": "data", "mountPath": "/a", "subPath": "a/..b/c.."},
                       {"name": "data", "mountPath": "/b", "subPathExpr": "$(POD_NAME)/x"}]},
     {}),
    ("empty subPath and subPathExpr are unset", mount(subPath="", subPathExpr=""), {}),
    ("every propagation in a privileged container",
     {"volumeMounts": [{"name": "data", "mountPath": f"/{p}", "mountPropagation": p}
                       for p in ("None", "HostToContainer", "Bidirectional")], **PRIVILEGED},
     {}),
    ("recursiveReadOnly on a read-only mount, propagation None or unset",
     {"volumeMounts": [
         {"name": "data", "mountPath": "/a", "readOnly": True, "recursiveReadOnly": "Enabled"},
         {"name": "data", "mountPath": "/b", "readOnly": True, "recursiveReadOnly": "IfPossible",
          "mountPropagation": "None"},
         {"name": "data", "mountPath": "/c", "recursiveReadOnly": "Disabled",
          "mountPropagation": "HostToContainer"}]},
     {}),
    ("the None policy with three nameservers, IPv6 and leading zeros (ParseIPSloppy)", {},
     {"dnsPolicy": "None",
      **dns(nameservers=["010.000.000.010", "::ffff:1.2.3.4", "2001:DB8::1"])}),
    ("search paths with underscores, a trailing dot, and a dot alone", {},
     dns(searches=["_srv._tcp.example.com", "svc.cluster.local.", "."], options=[{"name": "a"}])),
    ("thirty-two search paths of 2048 characters with their spaces", {},
     dns(searches=["a" * 63] * 31 + ["b" * 31 + "." + "c" * 32])),
    ("host aliases of both address families", {},
     {"hostAliases": [{"ip": "127.0.0.1", "hostnames": ["foo.local", "bar"]},
                      {"ip": "::1"}]}),
]  # fmt: skip


@pytest.mark.parametrize(("container", "pod"), [r[1:] for r in TAKEN], ids=[r[0] for r in TAKEN])
def test_a_pod_field_the_api_server_takes_is_no_error(
    container: dict[str, Any], pod: dict[str, Any]
) -> None:
    assert problem(copy.deepcopy(container), **copy.deepcopy(pod)) is None


def test_the_longest_search_list_taken_is_2048_characters() -> None:
    searches = TAKEN[6][2]["dnsConfig"]["searches"]
    assert len(searches) == 32 and len(" ".join(searches)) == 2048


@given(st.lists(st.integers(0, 255), min_size=4, max_size=4), st.integers(0, 3))
def test_an_ipv4_address_with_leading_zeros_is_the_same_address(
    octets: list[int], zeros: int
) -> None:
    padded = ".".join("0" * zeros + str(o) for o in octets)
    assert parsed_ip_sloppy(padded) == parsed_ip_sloppy(".".join(map(str, octets)))
    assert parsed_ip_sloppy(padded) is not None


@given(st.text(max_size=20))
def test_any_text_is_read_as_an_address_or_refused_without_a_traceback(text: str) -> None:
    found = parsed_ip_sloppy(text)
    assert found is None or len(found) == 16


def test_the_cli_answers_a_refused_mount_with_an_error_in_the_api_server_s_words(
    tmp_path: Path,
) -> None:
    body = deployment()
    template = body["spec"]["template"]["spec"]
    template["volumes"] = [{"name": "data", "emptyDir": {}}]
    template["containers"][0]["volumeMounts"] = [
        {"name": "data", "mountPath": "/data", "subPath": "../etc"}
    ]
    template["hostAliases"] = [{"ip": "db.local", "hostnames": ["db"]}]
    code, workload = checked_by_the_cli(tmp_path, body)
    assert code == 1 and workload["verdict"] == "ERROR"
    assert workload["reason"] == (
        'Deployment.apps "web" is invalid: [spec.template.spec.containers[0].volumeMounts.subPath: '
        "Invalid value: \"../etc\": must not contain '..', spec.template.spec.hostAliases[0].ip: "
        f'Invalid value: "db.local": {IP}]'
    )


OWNER = {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-1", "uid": "1"}
OWNERS = "metadata.ownerReferences"
FINALIZERS = "metadata.finalizers"
NOT_QUALIFIED = "name is neither a standard finalizer name nor is it fully qualified"
QUALIFIED = (
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and "
    "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex "
    "used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)

# (id, the deployment's metadata fields, the API server's field errors)
META_REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("an owner without a version", {"ownerReferences": [{**OWNER, "apiVersion": "apps/"}]},
     f'{OWNERS}.apiVersion: Invalid value: "apps/": version must not be empty'),
    ("an owner with two slashes in its apiVersion",
     {"ownerReferences": [{**OWNER, "apiVersion": "a/b/c"}]},
     f'{OWNERS}.apiVersion: Invalid value: "a/b/c": version must not be empty'),
    ("an owner of nothing but a controller flag", {"ownerReferences": [{"controller": True}]},
     f'[{OWNERS}.apiVersion: Invalid value: "": version must not be empty, '
     f'{OWNERS}.kind: Invalid value: "": must not be empty, '
     f'{OWNERS}.name: Invalid value: "": must not be empty, '
     f'{OWNERS}.uid: Invalid value: "": must not be empty]'),
    ("an Event as owner",
     {"ownerReferences": [{"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "2",
                           "blockOwnerDeletion": False}]},
     f'{OWNERS}: Invalid value: {{"apiVersion":"v1","kind":"Event","name":"e","uid":"2",'
     '"blockOwnerDeletion":false}: /v1, Kind=Event is disallowed from being an owner'),
    ("two controllers, the whole list shown",
     {"ownerReferences": [{**OWNER, "controller": True}, {**OWNER, "name": "web-2"},
                          {**OWNER, "kind": "Job", "name": "j", "controller": True}]},
     f'{OWNERS}: Invalid value: [{{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1",'
     '"uid":"1","controller":true},{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-2",'
     '"uid":"1"},{"apiVersion":"apps/v1","kind":"Job","name":"j","uid":"1","controller":true}]'
     ': Only one reference can have Controller set to true. Found "true" in references for '
     "ReplicaSet/web-1 and Job/j"),
    ("a finalizer that is no qualified name, then not standard",
     {"finalizers": ["example.com/a", "bad name"]},
     f'[{FINALIZERS}: Invalid value: "bad name": {QUALIFIED}, '
     f'{FINALIZERS}[1]: Invalid value: "bad name": {NOT_QUALIFIED}]'),
    ("a finalizer of no domain that is no standard one", {"finalizers": ["cleanup"]},
     f'{FINALIZERS}[0]: Invalid value: "cleanup": {NOT_QUALIFIED}'),
    ("both orphan and foregroundDeletion",
     {"finalizers": ["orphan", "kubernetes", "foregroundDeletion"]},
     f'{FINALIZERS}: Invalid value: ["orphan","kubernetes","foregroundDeletion"]: finalizer '
     "orphan and foregroundDeletion cannot be both set"),
    ("the owners before the finalizers, after the annotations",
     {"finalizers": ["x"], "ownerReferences": [{**OWNER, "uid": ""}],
      "annotations": {"a b": "c"}},
     f'[metadata.annotations: Invalid value: "a b": {QUALIFIED}, '
     f'{OWNERS}.uid: Invalid value: "": must not be empty, '
     f'{FINALIZERS}[0]: Invalid value: "x": {NOT_QUALIFIED}]'),
]  # fmt: skip


@pytest.mark.parametrize(
    ("metadata", "expected"), [r[1:] for r in META_REFUSED], ids=[r[0] for r in META_REFUSED]
)
def test_metadata_the_api_server_refuses_is_an_error_in_its_words(
    metadata: dict[str, Any], expected: str
) -> None:
    body = deployment()
    body["metadata"].update(copy.deepcopy(metadata))
    assert reason(body) == invalid(body, expected)


def test_standard_and_qualified_finalizers_and_one_controller_are_taken() -> None:
    body = deployment()
    body["metadata"]["finalizers"] = ["kubernetes", "orphan", "example.com/cleanup"]
    body["metadata"]["ownerReferences"] = [
        {**OWNER, "controller": True},
        {**OWNER, "apiVersion": "v1", "kind": "ConfigMap", "controller": False},
    ]
    assert reason(body) is None


def test_a_bare_pod_s_metadata_is_held_to_the_same_rules() -> None:
    body: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod",
                            "metadata": {"name": "p", "finalizers": ["cleanup"]},
                            "spec": {"containers": [{"name": "a", "image": "x"}]}}  # fmt: skip
    assert reason(body) == invalid(
        body, f'{FINALIZERS}[0]: Invalid value: "cleanup": {NOT_QUALIFIED}'
    )


SECCOMP = "seccomp.security.alpha.kubernetes.io/pod"
SECCOMP_A = "container.seccomp.security.alpha.kubernetes.io/a"
APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
NOTES = "spec.template.annotations"
TYPE_MISMATCH = "type in annotation and field must match"
PROFILE_MISMATCH = "profile in annotation and field must match"


def context(**fields: Any) -> dict[str, Any]:
    return {"securityContext": fields}


# (id, the template's annotations, the container's fields, the pod's fields, the errors)
PROFILES_REFUSED: list[tuple[str, dict[str, str], dict[str, Any], dict[str, Any], str]] = [
    # ValidateSeccompPodAnnotations: named as a child of the annotations
    ("a pod seccomp annotation of no profile", {SECCOMP: "bogus"}, {}, {},
     f'{NOTES}.{SECCOMP}: Invalid value: "bogus": must be a valid seccomp profile'),
    ("a container's localhost profile stepping out", {SECCOMP_A: "localhost/../x"}, {}, {},
     f"{NOTES}.{SECCOMP_A}: Invalid value: \"../x\": must not contain '..'"),
    ("a localhost profile at an absolute path", {SECCOMP: "localhost//etc/p.json"}, {}, {},
     f'{NOTES}.{SECCOMP}: Invalid value: "/etc/p.json": must be a relative path'),
    # ValidateAppArmorPodAnnotations: named at the key
    ("an AppArmor annotation for no container", {APPARMOR + "b": "runtime/default"}, {}, {},
     f'{NOTES}[{APPARMOR}b]: Invalid value: "b": container not found'),
    ("an AppArmor annotation of no profile form", {APPARMOR + "a": "bogus"}, {}, {},
     f'{NOTES}[{APPARMOR}a]: Invalid value: "bogus": invalid AppArmor profile name: '
     '"bogus"'),
    ("both at once, in the annotation's order", {APPARMOR + "b": "docker/default"}, {}, {},
     f'[{NOTES}[{APPARMOR}b]: Invalid value: "b": container not found, '
     f'{NOTES}[{APPARMOR}b]: Invalid value: "docker/default": invalid AppArmor profile name: '
     '"docker/default"]'),
    # validateSeccompAnnotationsAndFields
    ("the pod's seccomp annotation and field of two types", {SECCOMP: "unconfined"}, {},
     context(seccompProfile={"type": "RuntimeDefault"}),
     f"{P}.securityContext.seccompProfile.type: Forbidden: seccomp {TYPE_MISMATCH}"),
    ("a container's seccomp localhost profiles differing", {SECCOMP_A: "localhost/b.json"},
     context(seccompProfile={"type": "Localhost", "localhostProfile": "a.json"}), {},
     f"{C}.securityContext.seccompProfile.localhostProfile: Forbidden: seccomp "
     f"{PROFILE_MISMATCH}"),
    # validateAppArmorAnnotationsAndFieldsMatchOnCreate: the pod's profile when none of its own
    ("a container's AppArmor annotation against the pod's profile",
     {APPARMOR + "a": "unconfined"}, {}, context(appArmorProfile={"type": "RuntimeDefault"}),
     f"{C}.securityContext.appArmorProfile.type: Forbidden: apparmor {TYPE_MISMATCH}"),
    ("init containers first, then containers",
     {APPARMOR + "a": "localhost/x", APPARMOR + "i": "runtime/default"},
     context(appArmorProfile={"type": "Localhost", "localhostProfile": "y"}),
     {"initContainers": [{"name": "i", "image": "x", **context(
         appArmorProfile={"type": "Unconfined"})}]},
     f"[{P}.initContainers[0].securityContext.appArmorProfile.type: Forbidden: apparmor "
     f"{TYPE_MISMATCH}, {C}.securityContext.appArmorProfile.localhostProfile: Forbidden: "
     f"apparmor {PROFILE_MISMATCH}]"),
]  # fmt: skip

# (id, the template's annotations, the container's fields, the pod's fields)
PROFILES_TAKEN: list[tuple[str, dict[str, str], dict[str, Any], dict[str, Any]]] = [
    ("every seccomp profile form",
     {SECCOMP: "docker/default", SECCOMP_A: "localhost/profiles/a.json",
      "container.seccomp.security.alpha.kubernetes.io/z": "unconfined"}, {}, {}),
    ("docker/default is a seccomp RuntimeDefault",
     {SECCOMP: "docker/default", SECCOMP_A: "runtime/default"},
     context(seccompProfile={"type": "RuntimeDefault"}),
     context(seccompProfile={"type": "RuntimeDefault"})),
    ("every AppArmor profile form, an empty one too",
     {APPARMOR + "a": "localhost/p", APPARMOR + "i": ""}, {},
     {"initContainers": [{"name": "i", "image": "x"}]}),
    ("matching AppArmor annotations and fields",
     {APPARMOR + "a": "localhost/p"},
     context(appArmorProfile={"type": "Localhost", "localhostProfile": "p"}),
     context(appArmorProfile={"type": "Unconfined"})),
    ("no field, nothing to match", {APPARMOR + "a": "unconfined", SECCOMP: "unconfined"}, {},
     {}),
]  # fmt: skip


def _with_notes(
    notes: dict[str, str], container: dict[str, Any], pod: dict[str, Any]
) -> dict[str, Any]:
    body = deployment()
    body["spec"]["template"]["metadata"]["annotations"] = dict(notes)
    body["spec"]["template"]["spec"]["containers"][0].update(copy.deepcopy(container))
    body["spec"]["template"]["spec"]["containers"][0]["name"] = "a"
    body["spec"]["template"]["spec"].update(copy.deepcopy(pod))
    return body


@pytest.mark.parametrize(
    ("notes", "container", "pod", "expected"),
    [r[1:] for r in PROFILES_REFUSED],
    ids=[r[0] for r in PROFILES_REFUSED],
)
def test_a_security_profile_annotation_the_api_server_refuses_is_an_error(
    notes: dict[str, str], container: dict[str, Any], pod: dict[str, Any], expected: str
) -> None:
    body = _with_notes(notes, container, pod)
    assert reason(body) == invalid(body, expected)


@pytest.mark.parametrize(
    ("notes", "container", "pod"),
    [r[1:] for r in PROFILES_TAKEN],
    ids=[r[0] for r in PROFILES_TAKEN],
)
def test_a_security_profile_annotation_the_api_server_takes_is_no_error(
    notes: dict[str, str], container: dict[str, Any], pod: dict[str, Any]
) -> None:
    assert reason(_with_notes(notes, container, pod)) is None


def _bare_pod(annotation: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "annotations": {APPARMOR + "a": annotation}},
        "spec": {
            "securityContext": {"appArmorProfile": {"type": "RuntimeDefault"}},
            "containers": [{"name": "a", "image": "x"}],
        },
    }


def test_a_pod_s_apparmor_annotation_is_its_container_s_profile_as_stored() -> None:
    """applyAppArmorVersionSkew gives a bare Pod's container the annotation's profile before
    validation, so it matches; a template is validated as written, so it does not; and a
    profile the field's validation refuses (padded) is not copied, so the pod's is compared."""
    assert reason(_bare_pod("localhost/p")) is None
    template = _with_notes(
        {APPARMOR + "a": "localhost/p"}, {}, context(appArmorProfile={"type": "RuntimeDefault"})
    )
    mismatch = f"{C}.securityContext.appArmorProfile.type: Forbidden: apparmor {TYPE_MISMATCH}"
    assert reason(template) == invalid(template, mismatch)
    padded = _bare_pod("localhost/ p")
    where = "spec.containers[0].securityContext.appArmorProfile.type"
    expected = f"{where}: Forbidden: apparmor {TYPE_MISMATCH}"
    assert reason(padded) == invalid(padded, expected)


GPU = {"name": "gpu", "resourceClaimTemplateName": "gpu-template"}
CLAIMS = f"{P}.resourceClaims"
USED = f"{C}.resources.claims"

# (id, the container's resources.claims, the pod's resourceClaims, the errors)
CLAIMS_REFUSED: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]], str]] = [
    # validatePodResourceClaims, before the containers
    ("a pod claim without a name", [], [{"resourceClaimName": "c"}],
     f"{CLAIMS}[0].name: Required value"),
    ("a pod claim named twice", [], [GPU, GPU], f'{CLAIMS}[1].name: Duplicate value: "gpu"'),
    ("a pod claim named with no DNS label", [], [{**GPU, "name": "GPU"}],
     f'{CLAIMS}[0].name: Invalid value: "GPU": a lowercase RFC 1123 label must consist of '
     "lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
     "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
    ("a pod claim of both sources", [], [{**GPU, "resourceClaimName": "c"}],
     f'{CLAIMS}[0]: Invalid value: {{"Name":"gpu","ResourceClaimName":"c",'
     '"ResourceClaimTemplateName":"gpu-template"}: at most one of `resourceClaimName` or '
     "`resourceClaimTemplateName` may be specified"),
    ("a pod claim of no source", [], [{"name": "gpu"}],
     f'{CLAIMS}[0]: Invalid value: {{"Name":"gpu","ResourceClaimName":null,'
     '"ResourceClaimTemplateName":null}: must specify one of: `resourceClaimName`, '
     "`resourceClaimTemplateName`"),
    ("a claim template name that is no subdomain", [], [{**GPU,
                                                         "resourceClaimTemplateName": "T"}],
     f'{CLAIMS}[0].resourceClaimTemplateName: Invalid value: "T": {SUBDOMAIN}'),
    # validateResourceClaimNames, last of the container's resources
    ("a container's claim the pod has not", [{"name": "fpga"}], [GPU],
     f'{USED}[0]: Not found: "fpga": must be one of the names in pod.spec.resourceClaims: gpu'),
    ("a container's claim in a pod of none", [{"name": "gpu"}], [],
     f'{USED}[0]: Not found: "gpu": must be one of the names in pod.spec.resourceClaims which '
     "is empty"),
    ("a container's claim without a name", [{"request": "r"}], [GPU], f"{USED}[0]: Required value"),
    ("a claim used twice", [{"name": "gpu"}, {"name": "gpu"}], [GPU],
     f'{USED}[1]: Duplicate value: "gpu"'),
    ("a request used twice", [{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "a"}],
     [GPU], f'{USED}[1]: Duplicate value: "gpu/a"'),
    ("the whole claim after one of its requests",
     [{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "b"}, {"name": "gpu"}], [GPU],
     f'{USED}[2]: Duplicate value: "gpu"'),
    ("a request named with no DNS label", [{"name": "gpu", "request": "A"}], [GPU],
     f'{USED}[0].request: Invalid value: "A": a lowercase RFC 1123 label must consist of lower '
     "case alphanumeric characters or '-', and must start and end with an alphanumeric "
     "character (e.g. 'my-name',  or '123-abc', regex used for validation is "
     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("used", "claims", "expected"),
    [r[1:] for r in CLAIMS_REFUSED],
    ids=[r[0] for r in CLAIMS_REFUSED],
)
def test_a_resource_claim_the_api_server_refuses_is_an_error_in_its_words(
    used: list[dict[str, Any]], claims: list[dict[str, Any]], expected: str
) -> None:
    container = {"resources": {"claims": copy.deepcopy(used)}}
    assert problem(container, resourceClaims=copy.deepcopy(claims)) == expected


def test_claims_used_by_their_requests_or_whole_are_taken() -> None:
    used = [{"name": "gpu", "request": "a"}, {"name": "gpu", "request": "b"}, {"name": "nic"}]
    claims = [GPU, {"name": "nic", "resourceClaimName": "shared-nic"}]
    assert problem({"resources": {"claims": used}}, resourceClaims=claims) is None


def test_a_pod_level_claim_is_forbidden_and_then_held_to_the_containers_rules() -> None:
    """validatePodResources: claims forbidden at pod level, then validateResourceRequirements
    checks their names all the same."""
    found = problem(resources={"claims": [{"name": "x"}]})
    assert found == (
        f"[{P}.resources.claims: Forbidden: claims may not be set for Resources at pod-level, "
        f'{P}.resources.claims[0]: Not found: "x": must be one of the names in '
        "pod.spec.resourceClaims which is empty]"
    )


def test_a_stateful_set_s_pod_is_held_to_its_annotations_matching_its_fields() -> None:
    """A StatefulSet's API checks its template's annotations but not its pod spec, so the
    match is first checked on the pod its controller creates (ValidatePodCreate), with the
    template's annotations; a container's own profile is not replaced by the annotation."""
    stateful = _with_notes(
        {APPARMOR + "a": "unconfined"}, context(appArmorProfile={"type": "RuntimeDefault"}), {}
    )
    stateful["kind"] = "StatefulSet"
    stateful["metadata"]["namespace"] = "default"
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), stateful)], snapshot, RunOptions()).results
    where = "spec.containers[0].securityContext.appArmorProfile.type"
    expected = f'Pod "web-0" is invalid: {where}: Forbidden: apparmor {TYPE_MISMATCH}'
    assert (result.verdict, result.reason) == (Verdict.ERROR, expected)


def windows_container(name: str, host_process: bool | None = None) -> dict[str, Any]:
    """A container named ``name``, its hostProcess written when given."""
    if host_process is None:
        return {"name": name, "image": "x"}
    context = {"windowsOptions": {"hostProcess": host_process}}
    return {"name": name, "image": "x", "securityContext": context}


def windows_pod(host_process: bool | None = None, **fields: Any) -> dict[str, Any]:
    """A pod spec of ``fields``, the pod-wide hostProcess written when given."""
    if host_process is None:
        return fields
    return {"securityContext": {"windowsOptions": {"hostProcess": host_process}}, **fields}


HOST_NETWORK = {"hostNetwork": True}
HOST_PROCESS_ALL = (
    f'{P}: Invalid value: "": If pod contains any hostProcess containers then all containers '
    "must be HostProcess containers"
)
HOST_PROCESS_NETWORK = (
    f"{P}.hostNetwork: Invalid value: false: hostNetwork must be true if pod contains any "
    "hostProcess containers"
)
EPHEMERAL = f"{P}.ephemeralContainers: Forbidden: ephemeral containers not allowed in pod template"


def identical(where: str, value: bool, pod: bool) -> str:
    shown, was = ("true", "false") if value else ("false", "true")
    assert pod != value
    return (
        f"{where}.securityContext.windowsOptions.hostProcess: Invalid value: {shown}: pod "
        f"hostProcess value must be identical if both are specified, was {was}"
    )


T = "TestValidateWindowsHostProcessPod"
# (id after upstream's case, the pod spec, the API server's errors or None)
HOST_PROCESS: list[tuple[str, dict[str, Any], str | None]] = [
    (f"{T}/pod-wide HostProcess=true, and HostNetwork unset should not validate",
     windows_pod(True, containers=[windows_container("a")]),
     HOST_PROCESS_NETWORK),
    (f"{T}/pod-wide HostProcess=true, and HostNetwork set should validate",
     windows_pod(True, containers=[windows_container("a")], **HOST_NETWORK),
     None),
    (f"{T}/pod-wide HostProcess=true, HostNetwork set, and containers setting HostProcess=true "
     "should validate",
     windows_pod(True, containers=[windows_container("a", True)],
                 initContainers=[windows_container("i", True)], **HOST_NETWORK),
     None),
    (f"{T}/pod-wide HostProcess=nil, HostNetwork set, and all containers setting "
     "HostProcess=true should validate",
     windows_pod(containers=[windows_container("a", True)],
                 initContainers=[windows_container("i", True)], **HOST_NETWORK),
     None),
    (f"{T}/some containers setting HostProcess=true, and others setting HostProcess=false "
     "should not validate",
     windows_pod(containers=[windows_container("a", True)],
                 initContainers=[windows_container("i", False)], **HOST_NETWORK),
     HOST_PROCESS_ALL),
    (f"{T}/some containers setting HostProcess=true, and other leaving HostProcess unset should "
     "not validate",
     windows_pod(containers=[windows_container("a", True)],
                 initContainers=[windows_container("i")], **HOST_NETWORK),
     HOST_PROCESS_ALL),
    (f"{T}/pod-wide HostProcess=true, some containers setting HostProcess=true, and init "
     "containers setting HostProcess=false should not validate",
     windows_pod(True, containers=[windows_container("a", True)],
                 initContainers=[windows_container("i", False)], **HOST_NETWORK),
     f"[{identical(f'{P}.initContainers[0]', False, True)}, {HOST_PROCESS_ALL}]"),
    (f"{T}/pod-wide HostProcess=true, some containers setting HostProcess=true, and others "
     "setting HostProcess=false should not validate",
     windows_pod(True, containers=[windows_container("a", True), windows_container("b", False)],
                 **HOST_NETWORK),
     f"[{identical(f'{P}.containers[1]', False, True)}, {HOST_PROCESS_ALL}]"),
    (f"{T}/pod-wide HostProcess=true, some containers setting HostProcess=true, and others "
     "leaving HostProcess=nil should validate",
     windows_pod(True, containers=[windows_container("a", True)],
                 initContainers=[windows_container("i")], **HOST_NETWORK),
     None),
    (f"{T}/pod-wide HostProcess=false, some containers setting HostProcess=true should not "
     "validate",
     windows_pod(False, containers=[windows_container("a", True)],
                 initContainers=[windows_container("i")], **HOST_NETWORK),
     f"[{identical(f'{P}.containers[0]', True, False)}, {HOST_PROCESS_ALL}]"),
    (f"{T}/Pod's HostProcess set to true but all containers override to false should not "
     "validate",
     windows_pod(True, containers=[windows_container("a", False)], **HOST_NETWORK),
     identical(f"{P}.containers[0]", False, True)),
    # upstream's case without allowPrivileged: that flag is the API server's to apply
    (f"{T}/Valid HostProcess pod spec validates where privileged containers are allowed",
     windows_pod(containers=[windows_container("a", True)], **HOST_NETWORK),
     None),
    (f"{T}/Non-HostProcess ephemeral container in HostProcess pod should not validate",
     windows_pod(True, containers=[windows_container("a")],
                 ephemeralContainers=[windows_container("debug", False)], **HOST_NETWORK),
     f"[{identical(f'{P}.ephemeralContainers[0]', False, True)}, {HOST_PROCESS_ALL}, "
     f"{EPHEMERAL}]"),
    (f"{T}/HostProcess ephemeral container in HostProcess pod should validate",
     windows_pod(True, containers=[windows_container("a")],
                 ephemeralContainers=[windows_container("debug")], **HOST_NETWORK),
     EPHEMERAL),
    (f"{T}/Non-HostProcess ephemeral container in Non-HostProcess pod should validate",
     windows_pod(containers=[windows_container("a")],
                 ephemeralContainers=[windows_container("debug", False)]),
     EPHEMERAL),
    (f"{T}/HostProcess ephemeral container in Non-HostProcess pod should not validate",
     windows_pod(containers=[windows_container("a")],
                 ephemeralContainers=[windows_container("debug", True)]),
     f"[{HOST_PROCESS_ALL}, {HOST_PROCESS_NETWORK}, {EPHEMERAL}]"),
    # no rule of its own ties hostProcess to os.name: a linux pod's Windows options are
    # refused after it by validateLinux
    ("a linux pod's hostProcess, then its Windows options refused",
     windows_pod(True, containers=[windows_container("a")], os={"name": "linux"}),
     f"[{HOST_PROCESS_NETWORK}, {P}.securityContext.windowsOptions: Forbidden: windows options "
     "cannot be set for a linux pod]"),
    # ValidatePodSpec's order: after topologySpreadConstraints, before validateHostUsers
    ("between the spread constraints and hostUsers",
     windows_pod(True, containers=[windows_container("a")], hostUsers=False,
                 topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "zone",
                                             "whenUnsatisfiable": "DoNotSchedule"}],
                 hostIPC=True),
     f"[{P}.topologySpreadConstraints[0].maxSkew: Invalid value: 0: must be greater than zero, "
     f"{HOST_PROCESS_NETWORK}, {P}.HostIPC: Forbidden: when `hostUsers` is false]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("spec", "expected"), [r[1:] for r in HOST_PROCESS], ids=[r[0] for r in HOST_PROCESS]
)
def test_a_host_process_pod_is_held_to_the_api_server_s_rules(
    spec: dict[str, Any], expected: str | None
) -> None:
    assert pod_template_problem(copy.deepcopy(spec), P) == expected


def test_the_cli_answers_a_host_process_pod_off_the_host_network_in_the_api_server_s_words(
    tmp_path: Path,
) -> None:
    body = deployment()
    template = body["spec"]["template"]["spec"]
    template["os"] = {"name": "windows"}
    template["securityContext"] = {"windowsOptions": {"hostProcess": True}}
    template["initContainers"] = [windows_container("setup", False)]
    code, workload = checked_by_the_cli(tmp_path, body)
    assert code == 1 and workload["verdict"] == "ERROR"
    where = "spec.template.spec"
    assert workload["reason"] == (
        f'Deployment.apps "web" is invalid: [{where}.initContainers[0].securityContext.'
        "windowsOptions.hostProcess: Invalid value: false: pod hostProcess value must be "
        f'identical if both are specified, was true, {where}: Invalid value: "": If pod '
        "contains any hostProcess containers then all containers must be HostProcess "
        f"containers, {where}.hostNetwork: Invalid value: false: hostNetwork must be true if "
        "pod contains any hostProcess containers]"
    )
