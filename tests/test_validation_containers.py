"""The API server's validation of a container's env, envFrom, volumeDevices, resizePolicy,
securityContext and sleep action, and of the pod's securityContext, hostUsers and OS
(gate.k8s.validation), as kubernetes v1.34.1 refuses them: rows translated from
pkg/apis/core/validation/validation_test.go (TestValidateEnv, TestValidateEnvFrom,
TestValidateVolumeDevices, TestValidateResizePolicy, TestValidateSecurityContext,
TestValidatePodSpec's security context and OS rows), each with the field error the API
server prints, then the same rule reached through every workload kind and through the CLI."""

from __future__ import annotations

import copy
import io
import json
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.k8s.validation import (
    config_map_key_errors,
    env_var_name_errors,
    masked_prefix,
    pod_template_problem,
)
from gate.model import Document, Location, Verdict
from gate.run import RunOptions, check
from gate.snapshot.load import build_snapshot
from tests.builders import api_node, cluster_snapshot
from tests.conftest import ROOT
from tests.report_schema import validate_report
from tests.test_api_validation import SUBDOMAIN, controller, deployment, invalid, job, reason

P = "spec.template.spec"
C = f"{P}.containers[0]"
ENV_NAME = (
    "a valid environment variable name must consist only of printable ASCII characters other "
    "than '='"
)
CONFIG_KEY = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. "
    "'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)
ENV_PATHS = (
    '"metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", '
    '"spec.serviceAccountName", "status.hostIP", "status.hostIPs", "status.podIP", '
    '"status.podIPs"'
)
BYTES = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei"
ID_RANGE = "must be between 0 and 2147483647, inclusive"
SYSCTL = (
    "must have at most 253 characters and match regex "
    "^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[\\./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$"
)


def problem(container: dict[str, Any] | None = None, **pod: Any) -> str | None:
    """The errors of a template with one container carrying ``container``'s fields."""
    spec = {"containers": [{"name": "a", "image": "x", **(container or {})}], **pod}
    return pod_template_problem(spec, P)


def checked_by_the_cli(tmp_path: Path, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """``fitgate check`` of ``body`` against the six-node fixture, as a user runs it: the
    exit code and the JSON report's one workload (the report checked against its schema)."""
    manifest = tmp_path / "workload.yaml"
    manifest.write_text(json.dumps(body))
    out, err = io.StringIO(), io.StringIO()
    now = datetime(2026, 8, 16, 13, 5, tzinfo=timezone.utc)
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=err, env={}, now=now)
    snapshot = str(ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json")
    code = main(["check", str(manifest), "--snapshot", snapshot, "--json", "-"], streams)
    report = json.loads(out.getvalue())
    validate_report(report)
    [workload] = report["workloads"]
    return code, workload


def env(*items: dict[str, Any]) -> dict[str, Any]:
    return {"env": list(items)}


def source(**sources: Any) -> dict[str, Any]:
    return {"name": "abc", "valueFrom": sources}


FIELD_REF = {"apiVersion": "v1", "fieldPath": "metadata.name"}
VOLUMES = [
    {"name": "block", "persistentVolumeClaim": {"claimName": "disk"}},
    {"name": "scratch", "emptyDir": {}},
]

# (id, the container's fields, the pod's fields, the API server's field errors)
REFUSED: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    # TestValidateEnv
    ("zero-length name", env({"name": ""}), {}, f"{C}.env[0].name: Required value"),
    ("a name with '='", env({"name": "a=b"}), {},
     f'{C}.env[0].name: Invalid value: "a=b": {ENV_NAME}'),
    ("a name with a tab", env({"name": "a\tb"}), {},
     f'{C}.env[0].name: Invalid value: "a\\tb": {ENV_NAME}'),
    ("a name beyond ASCII", env({"name": "naïve"}), {},
     f'{C}.env[0].name: Invalid value: "naïve": {ENV_NAME}'),
    ("value and valueFrom specified",
     env({**source(fieldRef=FIELD_REF), "value": "foo"}), {},
     f'{C}.env[0].valueFrom: Invalid value: "": may not be specified when `value` is not '
     "empty"),
    ("valueFrom without a source", env(source()), {},
     f'{C}.env[0].valueFrom: Invalid value: "": must specify one of: `fieldRef`, '
     "`resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"),
    ("valueFrom.fieldRef and valueFrom.secretKeyRef specified",
     env(source(fieldRef=FIELD_REF, secretKeyRef={"name": "a-secret", "key": "a-key"})), {},
     f'{C}.env[0].valueFrom: Invalid value: "": may not have more than one field specified '
     "at a time"),
    ("valueFrom.secretKeyRef.name invalid",
     env(source(secretKeyRef={"name": "$%^&*#", "key": "a-key"})), {},
     f'{C}.env[0].valueFrom.secretKeyRef.name: Invalid value: "$%^&*#": {SUBDOMAIN}'),
    ("valueFrom.configMapKeyRef.name empty is invalid, not missing",
     env(source(configMapKeyRef={"key": "some-key"})), {},
     f'{C}.env[0].valueFrom.configMapKeyRef.name: Invalid value: "": {SUBDOMAIN}'),
    ("valueFrom.configMapKeyRef.key missing",
     env(source(configMapKeyRef={"name": "cm"})), {},
     f"{C}.env[0].valueFrom.configMapKeyRef.key: Required value"),
    ("valueFrom.secretKeyRef.key not a config key",
     env(source(secretKeyRef={"name": "s", "key": "a b"})), {},
     f'{C}.env[0].valueFrom.secretKeyRef.key: Invalid value: "a b": {CONFIG_KEY}'),
    ("valueFrom.configMapKeyRef.key '..'",
     env(source(configMapKeyRef={"name": "cm", "key": ".."})), {},
     f"{C}.env[0].valueFrom.configMapKeyRef.key: Invalid value: \"..\": must not be '..'"),
    ("missing FieldPath on ObjectFieldSelector", env(source(fieldRef={"apiVersion": "v1"})), {},
     f"{C}.env[0].valueFrom.fieldRef.fieldPath: Required value"),
    ("invalid fieldPath",
     env(source(fieldRef={"apiVersion": "v1", "fieldPath": "metadata.whoops"})), {},
     f'{C}.env[0].valueFrom.fieldRef.fieldPath: Invalid value: "metadata.whoops": error '
     "converting fieldPath: field label not supported: metadata.whoops"),
    ("metadata.name with subscript",
     env(source(fieldRef={"fieldPath": "metadata.name['key']"})), {},
     f"{C}.env[0].valueFrom.fieldRef.fieldPath: Invalid value: \"metadata.name['key']\": "
     "error converting fieldPath: field label does not support subscript: "
     "metadata.name['key']"),
    ("metadata.labels without subscript",
     env(source(fieldRef={"fieldPath": "metadata.labels"})), {},
     f'{C}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "metadata.labels": '
     f"supported values: {ENV_PATHS}"),
    ("unsupported fieldPath", env(source(fieldRef={"fieldPath": "status.phase"})), {},
     f'{C}.env[0].valueFrom.fieldRef.fieldPath: Unsupported value: "status.phase": '
     f"supported values: {ENV_PATHS}"),
    ("metadata.labels with invalid key",
     env(source(fieldRef={"fieldPath": "metadata.labels['Www.k8s.io/test']"})), {},
     f'{C}.env[0].valueFrom.fieldRef: Invalid value: "Www.k8s.io/test": prefix part a '
     "lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
     "or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
     "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*"
     "[a-z0-9])?)*')"),
    ("resourceFieldRef without a resource", env(source(resourceFieldRef={})), {},
     f"{C}.env[0].valueFrom.resourceFieldRef.resource: Required value"),
    ("resourceFieldRef of an unsupported resource",
     env(source(resourceFieldRef={"resource": "limits.nvidia.com/gpu"})), {},
     f'{C}.env[0].valueFrom.resourceFieldRef.resource: Unsupported value: '
     '"limits.nvidia.com/gpu": supported values: "limits.cpu", "limits.ephemeral-storage", '
     '"limits.memory", "requests.cpu", "requests.ephemeral-storage", "requests.memory"'),
    ("a cpu divisor of 2",
     env(source(resourceFieldRef={"resource": "limits.cpu", "divisor": "2"})), {},
     f'{C}.env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.cpu": only '
     "divisor's values 1m and 1 are supported with the cpu resource"),
    ("a memory divisor of 1024 (not 1Ki)",
     env(source(resourceFieldRef={"resource": "requests.memory", "divisor": "1024"})), {},
     f'{C}.env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "requests.memory": only '
     f"divisor's values {BYTES} are supported with the memory resource"),
    ("an ephemeral-storage divisor of 2Ki",
     env(source(resourceFieldRef={"resource": "limits.ephemeral-storage", "divisor": "2Ki"})),
     {},
     f'{C}.env[0].valueFrom.resourceFieldRef.divisor: Invalid value: '
     f"\"limits.ephemeral-storage\": only divisor's values {BYTES} are supported with the "
     "local ephemeral storage resource"),
    ("a hugepages divisor of 3",
     env(source(resourceFieldRef={"resource": "limits.hugepages-2Mi", "divisor": 3})), {},
     f'{C}.env[0].valueFrom.resourceFieldRef.divisor: Invalid value: "limits.hugepages-2Mi": '
     f"only divisor's values {BYTES} are supported with the hugepages resource"),
    # TestValidateEnvFrom
    ("envFrom zero-length configMapRef name", {"envFrom": [{"configMapRef": {"name": ""}}]}, {},
     f"{C}.envFrom[0].configMapRef.name: Required value"),
    ("envFrom invalid secretRef name", {"envFrom": [{"secretRef": {"name": "$%^&*#"}}]}, {},
     f'{C}.envFrom[0].secretRef.name: Invalid value: "$%^&*#": {SUBDOMAIN}'),
    ("envFrom invalid prefix",
     {"envFrom": [{"prefix": "a=b", "configMapRef": {"name": "abc"}}]}, {},
     f'{C}.envFrom[0].prefix: Invalid value: "a=b": {ENV_NAME}'),
    ("envFrom no refs", {"envFrom": [{}]}, {},
     f'{C}.envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`'),
    ("envFrom multiple refs",
     {"envFrom": [{"secretRef": {"name": "abc"}, "configMapRef": {"name": "abc"}}]}, {},
     f'{C}.envFrom: Invalid value: "": may not have more than one field specified at a time'),
    # TestValidateResizePolicy
    ("resizePolicy of an unsupported resource",
     {"resizePolicy": [{"resourceName": "storage", "restartPolicy": "NotRequired"}]}, {},
     f'{C}.resizePolicy: Unsupported value: "storage": supported values: "cpu", "memory"'),
    ("resizePolicy of an unsupported policy",
     {"resizePolicy": [{"resourceName": "cpu", "restartPolicy": "Rolling"}]}, {},
     f'{C}.resizePolicy: Unsupported value: "Rolling": supported values: "NotRequired", '
     '"RestartContainer"'),
    ("resizePolicy without a resource",
     {"resizePolicy": [{"resourceName": "", "restartPolicy": "NotRequired"}]}, {},
     f"{C}.resizePolicy: Required value"),
    ("resizePolicy naming cpu twice",
     {"resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                       {"resourceName": "cpu", "restartPolicy": "NotRequired"}]}, {},
     f'{C}.resizePolicy[1]: Duplicate value: "cpu"'),
    ("resizePolicy restarting a container of a pod that never restarts",
     {"resizePolicy": [{"resourceName": "memory", "restartPolicy": "RestartContainer"}]},
     {"restartPolicy": "Never"},
     f'{C}.resizePolicy: Invalid value: "RestartContainer": must be \'NotRequired\' when '
     "`restartPolicy` is 'Never'"),
    # TestValidateSecurityContext
    ("negative RunAsUser", {"securityContext": {"runAsUser": -1}}, {},
     f"{C}.securityContext.runAsUser: Invalid value: -1: {ID_RANGE}"),
    ("negative RunAsGroup", {"securityContext": {"runAsGroup": -1}}, {},
     f"{C}.securityContext.runAsGroup: Invalid value: -1: {ID_RANGE}"),
    ("an unknown procMount", {"securityContext": {"procMount": "Masked"}}, {},
     f'{C}.securityContext.procMount: Unsupported value: "Masked": supported values: '
     '"Default", "Unmasked"'),
    ("an unmasked procMount in the host's user namespace",
     {"securityContext": {"procMount": "Unmasked"}}, {},
     f'{C}.securityContext.procMount: Invalid value: "Unmasked": `hostUsers` must be false '
     "to use `Unmasked`"),
    ("no privilege escalation while privileged",
     {"securityContext": {"privileged": True, "allowPrivilegeEscalation": False}}, {},
     f'{C}.securityContext: Invalid value: {{"Capabilities":null,"Privileged":true,'
     '"SELinuxOptions":null,"WindowsOptions":null,"RunAsUser":null,"RunAsGroup":null,'
     '"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,"AllowPrivilegeEscalation":false,'
     '"ProcMount":null,"SeccompProfile":null,"AppArmorProfile":null}: cannot set '
     "`allowPrivilegeEscalation` to false and `privileged` to true"),
    ("no privilege escalation while adding CAP_SYS_ADMIN",
     {"securityContext": {"allowPrivilegeEscalation": False, "runAsUser": 1000,
                          "capabilities": {"add": ["CAP_SYS_ADMIN"]},
                          "seccompProfile": {"type": "RuntimeDefault"}}}, {},
     f'{C}.securityContext: Invalid value: {{"Capabilities":{{"Add":["CAP_SYS_ADMIN"],'
     '"Drop":null},"Privileged":null,"SELinuxOptions":null,"WindowsOptions":null,'
     '"RunAsUser":1000,"RunAsGroup":null,"RunAsNonRoot":null,"ReadOnlyRootFilesystem":null,'
     '"AllowPrivilegeEscalation":false,"ProcMount":null,"SeccompProfile":{"Type":'
     '"RuntimeDefault","LocalhostProfile":null},"AppArmorProfile":null}: cannot set '
     "`allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN"),
    ("a seccomp profile without a type", {"securityContext": {"seccompProfile": {}}}, {},
     f"{C}.securityContext.seccompProfile.type: Required value: type is required when "
     "seccompProfile is set"),
    ("a seccomp profile of an unknown type",
     {"securityContext": {"seccompProfile": {"type": "Default"}}}, {},
     f'{C}.securityContext.seccompProfile.type: Unsupported value: "Default": supported '
     'values: "Localhost", "RuntimeDefault", "Unconfined"'),
    ("a Localhost seccomp profile without its path",
     {"securityContext": {"seccompProfile": {"type": "Localhost"}}}, {},
     f"{C}.securityContext.seccompProfile.localhostProfile: Required value: must be set "
     "when seccomp type is Localhost"),
    ("a Localhost seccomp profile at an absolute path",
     {"securityContext": {"seccompProfile": {"type": "Localhost",
                                             "localhostProfile": "/a.json"}}}, {},
     f'{C}.securityContext.seccompProfile.localhostProfile: Invalid value: "/a.json": must '
     "be a relative path"),
    ("a localhost profile beside another seccomp type",
     {"securityContext": {"seccompProfile": {"type": "Unconfined",
                                             "localhostProfile": "a.json"}}}, {},
     f'{C}.securityContext.seccompProfile.localhostProfile: Invalid value: {{"Type":'
     '"Unconfined","LocalhostProfile":"a.json"}: can only be set when seccomp type is '
     "Localhost"),
    ("an AppArmor profile without a type", {"securityContext": {"appArmorProfile": {}}}, {},
     f"{C}.securityContext.appArmorProfile.type: Required value: type is required when "
     "appArmorProfile is set"),
    ("an AppArmor profile of an unknown type",
     {"securityContext": {"appArmorProfile": {"type": "Default"}}}, {},
     f'{C}.securityContext.appArmorProfile.type: Unsupported value: "Default": supported '
     'values: "Localhost", "RuntimeDefault", "Unconfined"'),
    ("a Localhost AppArmor profile padded with whitespace",
     {"securityContext": {"appArmorProfile": {"type": "Localhost",
                                              "localhostProfile": " p "}}}, {},
     f'{C}.securityContext.appArmorProfile.localhostProfile: Invalid value: " p ": must not '
     "be padded with whitespace"),
    ("an empty Localhost AppArmor profile",
     {"securityContext": {"appArmorProfile": {"type": "Localhost", "localhostProfile": ""}}},
     {},
     f"{C}.securityContext.appArmorProfile.localhostProfile: Required value: must be set "
     "when AppArmor type is Localhost"),
    ("a Localhost AppArmor profile of 4096 bytes",
     {"securityContext": {"appArmorProfile": {"type": "Localhost",
                                              "localhostProfile": "p" * 4096}}}, {},
     f"{C}.securityContext.appArmorProfile.localhostProfile: Too long: may not be more than "
     "4095 bytes"),
    ("a localhost profile beside another AppArmor type",
     {"securityContext": {"appArmorProfile": {"type": "RuntimeDefault",
                                              "localhostProfile": "p"}}}, {},
     f'{C}.securityContext.appArmorProfile.localhostProfile: Invalid value: "p": can only be '
     "set when AppArmor type is Localhost"),
    # validateWindowsSecurityContextOptions
    ("a credential spec resource that is no DNS subdomain",
     {"securityContext": {"windowsOptions": {"gmsaCredentialSpecName": "Spec_1"}}}, {},
     f'{C}.securityContext.windowsOptions.gmsaCredentialSpecName: Invalid value: "Spec_1": '
     f"{SUBDOMAIN}"),
    ("an empty credential spec",
     {"securityContext": {"windowsOptions": {"gmsaCredentialSpec": ""}}}, {},
     f'{C}.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: "": '
     "gmsaCredentialSpec cannot be an empty string"),
    ("a credential spec over 64 KiB",
     {"securityContext": {"windowsOptions": {"gmsaCredentialSpec": "x" * (64 * 1024 + 1)}}}, {},
     f'{C}.securityContext.windowsOptions.gmsaCredentialSpec: Invalid value: '
     f'"{"x" * (64 * 1024 + 1)}": gmsaCredentialSpec size must be under 64 KiB'),
    ("a user name with a control character",
     {"securityContext": {"windowsOptions": {"runAsUserName": "a\x07b"}}}, {},
     f'{C}.securityContext.windowsOptions.runAsUserName: Invalid value: "a\\u0007b": '
     "runAsUserName cannot contain control characters"),
    ("a user name with two backslashes",
     {"securityContext": {"windowsOptions": {"runAsUserName": "a\\b\\c"}}}, {},
     f'{C}.securityContext.windowsOptions.runAsUserName: Invalid value: "a\\\\b\\\\c": '
     "runAsUserName cannot contain more than one backslash"),
    ("a pod's user name of a bad domain and a user of dots",
     {}, {"securityContext": {"windowsOptions": {"runAsUserName": ".dom*ain\\.."}}},
     f'[{P}.securityContext.windowsOptions.runAsUserName: Invalid value: '
     f'".dom*ain\\\\..": runAsUserName\'s Domain doesn\'t match the NetBios nor the DNS '
     f'format, {P}.securityContext.windowsOptions.runAsUserName: Invalid value: '
     f'".dom*ain\\\\..": runAsUserName\'s User cannot contain only periods or spaces]'),
    ("a user name of a forbidden character and without a user",
     {"securityContext": {"windowsOptions": {"runAsUserName": "a@b"}}}, {},
     f'{C}.securityContext.windowsOptions.runAsUserName: Invalid value: "a@b": '
     "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"),
    ("a user name of 105 bytes",
     {"securityContext": {"windowsOptions": {"runAsUserName": "u" * 105}}}, {},
     f'{C}.securityContext.windowsOptions.runAsUserName: Invalid value: "{"u" * 105}": '
     "runAsUserName's User length must not be longer than 104 characters"),
    ("a user name with an empty user",
     {"securityContext": {"windowsOptions": {"runAsUserName": "dom\\"}}}, {},
     f'{C}.securityContext.windowsOptions.runAsUserName: Invalid value: "dom\\\\": '
     "runAsUserName's User cannot be empty"),
    # validateSleepAction, PodLifecycleSleepActionAllowZero GA
    ("a sleep longer than the default grace period",
     {"lifecycle": {"preStop": {"sleep": {"seconds": 31}}}}, {},
     f"{C}.lifecycle.preStop.sleep: Invalid value: 31: must be non-negative and less than "
     "terminationGracePeriodSeconds (30)"),
    ("a negative sleep", {"lifecycle": {"postStart": {"sleep": {"seconds": -1}}}},
     {"terminationGracePeriodSeconds": 5},
     f"{C}.lifecycle.postStart.sleep: Invalid value: -1: must be non-negative and less than "
     "terminationGracePeriodSeconds (5)"),
    # validatePodSpecSecurityContext
    ("a negative fsGroup", {}, {"securityContext": {"fsGroup": -1}},
     f"{P}.securityContext.fsGroup: Invalid value: -1: {ID_RANGE}"),
    ("a pod's negative runAsUser", {}, {"securityContext": {"runAsUser": -1}},
     f"{P}.securityContext.runAsUser: Invalid value: -1: {ID_RANGE}"),
    ("a runAsGroup beyond int32", {}, {"securityContext": {"runAsGroup": 2**31}},
     f"{P}.securityContext.runAsGroup: Invalid value: 2147483648: {ID_RANGE}"),
    ("a negative supplemental group", {}, {"securityContext": {"supplementalGroups": [1, -1]}},
     f"{P}.securityContext.supplementalGroups[1]: Invalid value: -1: {ID_RANGE}"),
    ("a shared process namespace with the host's PID", {},
     {"hostPID": True, "shareProcessNamespace": True},
     f"{P}.securityContext.shareProcessNamespace: Invalid value: true: ShareProcessNamespace "
     "and HostPID cannot both be enabled"),
    ("a sysctl without a name", {}, {"securityContext": {"sysctls": [{"name": ""}]}},
     f"{P}.securityContext.sysctls[0].name: Required value"),
    ("a sysctl of an invalid name", {}, {"securityContext": {"sysctls": [{"name": "Foo"}]}},
     f'{P}.securityContext.sysctls[0].name: Invalid value: "Foo": {SYSCTL}'),
    ("a sysctl given twice", {},
     {"securityContext": {"sysctls": [{"name": "kernel.msgmax", "value": "1"},
                                      {"name": "kernel.msgmax", "value": "2"}]}},
     f'{P}.securityContext.sysctls[1].name: Duplicate value: "kernel.msgmax"'),
    ("an unknown fsGroupChangePolicy", {}, {"securityContext": {"fsGroupChangePolicy": "x"}},
     f'{P}.securityContext.fsGroupChangePolicy: Unsupported value: "x": supported values: '
     '"Always", "OnRootMismatch"'),
    ("an unknown supplementalGroupsPolicy", {},
     {"securityContext": {"supplementalGroupsPolicy": "Loose"}},
     f'{P}.securityContext.supplementalGroupsPolicy: Unsupported value: "Loose": supported '
     'values: "Merge", "Strict"'),
    ("a pod's seccomp profile of an unknown type", {},
     {"securityContext": {"seccompProfile": {"type": "Default"}}},
     f'{P}.securityContext.seccompProfile.type: Unsupported value: "Default": supported '
     'values: "Localhost", "RuntimeDefault", "Unconfined"'),
    ("a pod's AppArmor profile without a type", {},
     {"securityContext": {"appArmorProfile": {}}},
     f"{P}.securityContext.appArmorProfile.type: Required value: type is required when "
     "appArmorProfile is set"),
    ("a namespaced sysctl in the host's network namespace", {},
     {"hostNetwork": True, "securityContext": {"sysctls": [{"name": "net/ipv4/ip_forward"}]}},
     f'{P}.securityContext.sysctls[0].name: Invalid value: "net/ipv4/ip_forward": may not be '
     "specified when 'hostNetwork' is true"),
    ("a namespaced sysctl in the host's IPC namespace", {},
     {"hostIPC": True, "securityContext": {"sysctls": [{"name": "fs.mqueue.msg_max"}]}},
     f'{P}.securityContext.sysctls[0].name: Invalid value: "fs.mqueue.msg_max": may not be '
     "specified when 'hostIPC' is true"),
    ("a seLinuxChangePolicy other than Recursive while SELinuxMount is off", {},
     {"securityContext": {"seLinuxChangePolicy": "MountOption"}},
     f'{P}.securityContext.seLinuxChangePolicy: Unsupported value: "MountOption": supported '
     'values: "Recursive"'),
    # ValidateVolumeDevices and ValidateVolumeMounts' overlap with them
    ("a device of a volume that is no claim",
     {"volumeDevices": [{"name": "scratch", "devicePath": "/dev/xvda"}]}, {"volumes": VOLUMES},
     f'{C}.volumeDevices[0].name: Invalid value: "scratch": can only use volume source type '
     "of PersistentVolumeClaim or Ephemeral for block mode"),
    ("a device of no volume",
     {"volumeDevices": [{"name": "nope", "devicePath": "/dev/xvda"}]}, {"volumes": VOLUMES},
     f'{C}.volumeDevices[0].name: Not found: "nope"'),
    ("a device without a name or path", {"volumeDevices": [{"name": "", "devicePath": ""}]},
     {"volumes": VOLUMES},
     f'[{C}.volumeDevices[0].name: Required value, {C}.volumeDevices[0].name: Not found: "", '
     f"{C}.volumeDevices[0].devicePath: Required value]"),
    ("a device path with backsteps",
     {"volumeDevices": [{"name": "block", "devicePath": "/dev/../xvda"}]}, {"volumes": VOLUMES},
     f'{C}.volumeDevices[0].devicePath: Invalid value: "/dev/../xvda": can not contain '
     "backsteps ('..')"),
    ("a device twice",
     {"volumeDevices": [{"name": "block", "devicePath": "/dev/a"},
                        {"name": "block", "devicePath": "/dev/a"}]}, {"volumes": VOLUMES},
     f'[{C}.volumeDevices[1].name: Invalid value: "block": must be unique, '
     f'{C}.volumeDevices[1].devicePath: Invalid value: "/dev/a": must be unique]'),
    ("a volume both mounted and a device at one path",
     {"volumeMounts": [{"name": "block", "mountPath": "/data"}],
      "volumeDevices": [{"name": "block", "devicePath": "/data"}]}, {"volumes": VOLUMES},
     f'[{C}.volumeMounts[0].name: Invalid value: "block": must not already exist in '
     f'volumeDevices, {C}.volumeMounts[0].mountPath: Invalid value: "/data": must not already '
     f'exist as a path in volumeDevices, {C}.volumeDevices[0].name: Invalid value: "block": '
     f'must not already exist in volumeMounts, {C}.volumeDevices[0].devicePath: Invalid '
     'value: "/data": must not already exist as a path in volumeMounts]'),
    # validateHostUsers
    ("a user namespace of its own beside the host's namespaces and a device",
     {"volumeDevices": [{"name": "block", "devicePath": "/dev/a"}]},
     {"volumes": VOLUMES, "hostUsers": False, "hostNetwork": True, "hostPID": True,
      "hostIPC": True},
     f"[{P}.hostNetwork: Forbidden: when `hostUsers` is false, {P}.HostPID: Forbidden: when "
     f"`hostUsers` is false, {P}.HostIPC: Forbidden: when `hostUsers` is false, "
     f"{C}.volumeDevices: Forbidden: when `hostUsers` is false]"),
    # validateLinux, validateWindows
    ("Windows options in a linux pod",
     {"securityContext": {"windowsOptions": {"runAsUserName": "app"}}},
     {"os": {"name": "linux"}, "securityContext": {"windowsOptions": {}}},
     f"[{P}.securityContext.windowsOptions: Forbidden: windows options cannot be set for a "
     f"linux pod, {C}.securityContext.windowsOptions: Forbidden: windows options cannot be set "
     "for a linux pod]"),
    ("Linux fields in a windows pod, an init container's first",
     {"securityContext": {"runAsUser": 1, "privileged": False}},
     {"os": {"name": "windows"}, "hostPID": False, "hostIPC": True,
      "shareProcessNamespace": False,
      "securityContext": {"sysctls": [], "fsGroup": 1, "supplementalGroups": []},
      "initContainers": [{"name": "i", "image": "x", "securityContext": {"procMount": "Default"}}]},
     f"[{P}.hostIPC: Forbidden: cannot be set for a windows pod, {P}.securityContext.fsGroup: "
     f"Forbidden: cannot be set for a windows pod, {P}.shareProcessNamespace: Forbidden: "
     f"cannot be set for a windows pod, {P}.securityContext.supplementalGroups: Forbidden: "
     f"cannot be set for a windows pod, {P}.initContainers[0].securityContext.procMount: "
     f"Forbidden: cannot be set for a windows pod, {C}.securityContext.privileged: Forbidden: "
     f"cannot be set for a windows pod, {C}.securityContext.runAsUser: Forbidden: cannot be "
     "set for a windows pod]"),
    # upstream's order: env before envFrom before the resize policy and security context,
    # the containers before the pod's security context
    ("errors in validateContainerCommon's order, then the pod's",
     {"securityContext": {"runAsUser": -1}, "envFrom": [{}], "env": [{"name": ""}],
      "resizePolicy": [{"resourceName": "gpu", "restartPolicy": "NotRequired"}]},
     {"securityContext": {"fsGroup": -1}},
     f"[{C}.env[0].name: Required value, "
     f'{C}.envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`, '
     f'{C}.resizePolicy: Unsupported value: "gpu": supported values: "cpu", "memory", '
     f"{C}.securityContext.runAsUser: Invalid value: -1: {ID_RANGE}, "
     f"{P}.securityContext.fsGroup: Invalid value: -1: {ID_RANGE}]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("container", "pod", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_container_field_the_api_server_refuses_is_an_error_in_its_words(
    container: dict[str, Any], pod: dict[str, Any], expected: str
) -> None:
    assert problem(copy.deepcopy(container), **copy.deepcopy(pod)) == expected


# (id, the container's fields, the pod's fields) the API server takes
TAKEN: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("relaxed names: '!', a leading digit, dots, spaces",
     env({"name": "a!b"}, {"name": "1a"}, {"name": ".."}, {"name": "..abc"}, {"name": "a b"}),
     {}),
    ("each downward field an env var may show",
     env(*({"name": f"v{i}", "valueFrom": {"fieldRef": {"fieldPath": path}}}
           for i, path in enumerate(("metadata.name", "metadata.namespace", "metadata.uid",
                                     "spec.nodeName", "spec.serviceAccountName",
                                     "status.hostIP", "status.hostIPs", "status.podIP",
                                     "status.podIPs", "metadata.labels['app']",
                                     "metadata.annotations['a.b/c']", "spec.host")))), {}),
    ("resource fields with the divisors each resource takes",
     env(source(resourceFieldRef={"resource": "limits.cpu", "divisor": "1000m"}),
         source(resourceFieldRef={"resource": "requests.cpu", "divisor": "1m"}),
         source(resourceFieldRef={"resource": "limits.memory", "divisor": "1Mi"}),
         source(resourceFieldRef={"resource": "requests.hugepages-1Gi", "divisor": "1Gi"}),
         source(resourceFieldRef={"resource": "limits.memory", "divisor": "0"}),
         source(resourceFieldRef={"resource": "requests.ephemeral-storage",
                                  "containerName": "other"})), {}),
    ("an empty value beside a source", env({**source(fieldRef=FIELD_REF), "value": ""}), {}),
    ("keys and names of ConfigMaps and Secrets",
     env(source(configMapKeyRef={"name": "cm", "key": "a.b-c_D", "optional": True}),
         source(secretKeyRef={"name": "s.x", "key": ".dotfile"})), {}),
    ("a fileKeyRef is the EnvFiles gate's, off by default",
     env(source(fileKeyRef={"volumeName": "v", "path": "p", "key": "k"})), {}),
    ("envFrom prefixes, a name with a trailing dash",
     {"envFrom": [{"prefix": "pre_", "configMapRef": {"name": "abc"}},
                  {"prefix": "a.b", "secretRef": {"name": "abc-"}}]}, {}),
    ("resize policies, NotRequired in a pod that never restarts",
     {"resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"},
                       {"resourceName": "memory", "restartPolicy": "NotRequired"}]},
     {"restartPolicy": "Never"}),
    ("a restricted security context",
     {"securityContext": {"runAsUser": 0, "runAsGroup": 2147483647, "runAsNonRoot": True,
                          "allowPrivilegeEscalation": False, "privileged": False,
                          "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
                          "procMount": "Default", "readOnlyRootFilesystem": True,
                          "seccompProfile": {"type": "Localhost", "localhostProfile": "a.json"},
                          "appArmorProfile": {"type": "Localhost", "localhostProfile": "p"}}},
     {}),
    ("an unmasked procMount in a user namespace of its own",
     {"securityContext": {"procMount": "Unmasked"}}, {"hostUsers": False}),
    ("a privileged container that may escalate",
     {"securityContext": {"privileged": True, "allowPrivilegeEscalation": True}}, {}),
    ("a sleep of zero seconds and of the whole grace period",
     {"lifecycle": {"postStart": {"sleep": {"seconds": 0}},
                    "preStop": {"sleep": {"seconds": 60}}}},
     {"terminationGracePeriodSeconds": 60}),
    ("block devices of a claim and of an ephemeral volume",
     {"volumeDevices": [{"name": "block", "devicePath": "/dev/a"},
                        {"name": "eph", "devicePath": "/dev/b"}],
      "volumeMounts": [{"name": "scratch", "mountPath": "/tmp"}]},
     {"volumes": [*VOLUMES, {"name": "eph", "ephemeral": {"volumeClaimTemplate": {"spec": {
         "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}}}],
      "hostUsers": True, "hostNetwork": True}),
    ("namespaced sysctls without the host's namespaces, others with them", {},
     {"hostNetwork": True, "securityContext": {"sysctls": [{"name": "kernel.shm_rmid_forced"}]},
      "hostIPC": False}),
    ("a Recursive seLinuxChangePolicy", {},
     {"securityContext": {"seLinuxChangePolicy": "Recursive"}}),
    ("Windows user names with a NetBIOS or DNS domain",
     {"securityContext": {"windowsOptions": {"runAsUserName": "NT AUTHORITY\\NETWORK SERVICE",
                                             "gmsaCredentialSpecName": "webapp1",
                                             "gmsaCredentialSpec": "{}"}}},
     {"securityContext": {"windowsOptions": {"runAsUserName": "corp.example.com\\app"}}}),
    ("a windows pod with Windows options",
     {"securityContext": {"windowsOptions": {"runAsUserName": "app"}}},
     {"os": {"name": "windows"}, "securityContext": {"runAsNonRoot": True}}),
    ("a linux pod with Linux fields",
     {"securityContext": {"runAsUser": 1, "procMount": "Default"}},
     {"os": {"name": "linux"}, "securityContext": {"fsGroup": 1, "sysctls": [{"name": "a.b"}]}}),
    ("a pod security context with every field it may hold",
     {}, {"securityContext": {"fsGroup": 0, "runAsUser": 1, "runAsGroup": 2,
                              "supplementalGroups": [3], "fsGroupChangePolicy": "OnRootMismatch",
                              "supplementalGroupsPolicy": "Strict",
                              "sysctls": [{"name": "net.ipv4.ip_forward", "value": "1"},
                                          {"name": "net/ipv4/conf/eno2.100/rp_filter",
                                           "value": "1"}],
                              "seccompProfile": {"type": "RuntimeDefault"},
                              "appArmorProfile": {"type": "Unconfined"}},
          "shareProcessNamespace": True}),
]  # fmt: skip


@pytest.mark.parametrize(("container", "pod"), [r[1:] for r in TAKEN], ids=[r[0] for r in TAKEN])
def test_a_container_field_the_api_server_takes_is_no_error(
    container: dict[str, Any], pod: dict[str, Any]
) -> None:
    assert problem(copy.deepcopy(container), **copy.deepcopy(pod)) is None


def _env_edit(spec: dict[str, Any]) -> None:
    """Name the first container's variable with an ``=``, which no name may hold."""
    spec["containers"][0]["env"] = [{"name": "A=B", "value": "x"}]


@pytest.mark.parametrize(
    ("build", "path"),
    [
        (deployment, "spec.template.spec"),
        (lambda: deployment("ReplicaSet"), "spec.template.spec"),
        (lambda: deployment("DaemonSet"), "spec.template.spec"),
        (controller, "spec.template.spec"),
        (job, "spec.template.spec"),
        (lambda: job("CronJob"), "spec.jobTemplate.spec.template.spec"),
    ],
    ids=["Deployment", "ReplicaSet", "DaemonSet", "ReplicationController", "Job", "CronJob"],
)
def test_every_workload_kind_s_template_is_held_to_the_env_rules(
    build: Callable[[], dict[str, Any]], path: str
) -> None:
    body = build()
    spec = body
    for key in path.split("."):
        spec = spec[key]
    _env_edit(spec)
    detail = f'{path}.containers[0].env[0].name: Invalid value: "A=B": {ENV_NAME}'
    assert reason(body) == invalid(body, detail)


def test_a_stateful_set_s_pods_and_a_bare_pod_are_held_to_them() -> None:
    """A StatefulSet's template is checked when its pods are created (its pod spec at
    ``spec``: ``Pod "web-0" is invalid``), and so is a bare Pod's spec."""
    detail = f'spec.containers[0].env[0].name: Invalid value: "A=B": {ENV_NAME}'
    stateful = deployment("StatefulSet")
    stateful["metadata"]["namespace"] = "default"
    _env_edit(stateful["spec"]["template"]["spec"])
    snapshot = build_snapshot(cluster_snapshot([api_node("n", cpu="2")]), "s.json")
    (result,) = check([Document(Location("m.yaml", 1), stateful)], snapshot, RunOptions()).results
    assert (result.verdict, result.reason) == (Verdict.ERROR, f'Pod "web-0" is invalid: {detail}')
    bare: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": "x"}]}}  # fmt: skip
    _env_edit(bare["spec"])
    assert reason(bare) == invalid(bare, detail)


def test_the_cli_answers_a_refused_env_with_an_error_in_the_api_server_s_words(
    tmp_path: Path,
) -> None:
    body = deployment()
    body["spec"]["template"]["spec"]["containers"][0]["env"] = [
        {"name": "TOKEN", "value": "x", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}
    ]
    code, workload = checked_by_the_cli(tmp_path, body)
    assert code == 1 and workload["verdict"] == "ERROR"
    assert workload["reason"] == (
        'Deployment.apps "web" is invalid: spec.template.spec.containers[0].env[0].valueFrom: '
        'Invalid value: "": may not be specified when `value` is not empty'
    )


@given(st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="=")))
def test_every_printable_ascii_name_but_for_an_equals_sign_is_an_env_name(name: str) -> None:
    """IsRelaxedEnvVarName: unicode.IsPrint of an ASCII rune is 0x20-0x7E."""
    assert env_var_name_errors(name) == (
        [] if name else ["environment variable name must be non-empty"]
    )


@given(st.text(min_size=1), st.sampled_from(["=", "\x7f", "\x1f", "é", "\u2028"]))
def test_a_name_with_an_equals_sign_or_beyond_printable_ascii_is_refused_once(
    name: str, bad: str
) -> None:
    assert env_var_name_errors(name + bad).count(ENV_NAME) == 1


@given(st.text(alphabet="-._aZ09 /", max_size=260))
def test_a_config_key_is_its_charset_within_253_and_no_parent_directory(key: str) -> None:
    ok = (
        0 < len(key) <= 253
        and all(c in "-._aZ09" for c in key)
        and key not in (".", "..")
        and not key.startswith("..")
    )
    assert (config_map_key_errors(key) == []) is ok


@pytest.mark.parametrize(
    ("prefix", "masked"), [("abc-", "aba"), ("a-", "a"), ("-", "-"), ("abc", "abc"), ("", "")]
)
def test_a_name_prefix_is_checked_with_its_trailing_dash_masked(prefix: str, masked: str) -> None:
    """maskTrailingDash drops the dash and the character before it for an ``a``."""
    assert masked_prefix(prefix) == masked
