"""Pod Security admission's checks, level and version (gate.k8s.podsecurity), each row
translated from k8s.io/pod-security-admission v0.34.1 (Kubernetes v1.34.1): the check's
``policy/check_*_test.go`` case of the same name, ``api/helpers_test.go`` and
``policy/registry.go`` for the order."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gate.k8s import podsecurity as psa
from gate.k8s.podsecurity import (
    BASELINE,
    ENFORCE_LABEL,
    ENFORCE_VERSION_LABEL,
    PRIVILEGED,
    RESTRICTED,
    WARN_LABEL,
    WARN_VERSION_LABEL,
    Forbidden,
    LevelVersion,
    PodCheck,
)

Spec = dict[str, Any]


def _sc(name: str, **context: Any) -> dict[str, Any]:
    """A container named ``name`` with ``context`` as its securityContext (none if empty)."""
    return {"name": name, "securityContext": context} if context else {"name": name}


def _pod(*containers: dict[str, Any], **fields: Any) -> Spec:
    return {"containers": list(containers), **fields}


_LINUX = {"os": {"name": "linux"}}
_WINDOWS = {"os": {"name": "windows"}}
_APPARMOR = "container.apparmor.security.beta.kubernetes.io/"
_SECCOMP_POD = "seccomp.security.alpha.kubernetes.io/pod"
_SECCOMP_CONTAINER = "container.seccomp.security.alpha.kubernetes.io/"
_UNCONFINED = {"type": "Unconfined"}
_RESTRICTED_CONTEXT = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "seccompProfile": {"type": "RuntimeDefault"},
}
_DEFAULT = {"type": "RuntimeDefault"}
_ALLOWED_VOLUMES = (
    "emptyDir", "secret", "persistentVolumeClaim", "downwardAPI", "configMap", "projected",
    "csi", "ephemeral", "image",
)  # fmt: skip
_RESTRICTED_VOLUMES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
    "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
    "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
    "scaleIO", "storageos",
)  # fmt: skip

CASES: list[Any] = [
    pytest.param(
        psa.host_namespaces,
        {},
        _pod(hostNetwork=True, hostIPC=True, hostPID=True),
        Forbidden("host namespaces", "hostNetwork=true, hostPID=true, hostIPC=true"),
        id="TestHostNamespaces/multiple host namespaces",
    ),
    pytest.param(
        psa.privileged,
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", privileged=False),
            _sc("d", privileged=True),
            _sc("e", privileged=True),
        ),
        Forbidden("privileged", 'containers "d", "e" must not set securityContext.privileged=true'),
        id="TestPrivileged/privileged",
    ),
    pytest.param(
        psa.capabilities_baseline,
        {},
        _pod(
            _sc("a", capabilities={"add": ["FOO", "BAR"]}),
            _sc("b", capabilities={"add": ["BAR", "BAZ"]}),
        ),
        Forbidden(
            "non-default capabilities",
            'containers "a", "b" must not include "BAR", "BAZ", "FOO" in '
            "securityContext.capabilities.add",
        ),
        id="TestCapabilitiesBaseline/multiple containers",
    ),
    pytest.param(
        psa.host_path_volumes,
        {},
        _pod(
            volumes=[
                {"name": "a", "hostPath": {}},
                {"name": "b", "hostPath": {}},
                {"name": "c", "emptyDir": {}},
            ]
        ),
        Forbidden("hostPath volumes", 'volumes "a", "b"'),
        id="TestHostPathVolumes/host path volumes",
    ),
    pytest.param(
        psa.host_ports,
        {},
        _pod(
            {"name": "a", "ports": [{"hostPort": 0}]},
            {"name": "b", "ports": [{"hostPort": 0}, {"hostPort": 20}]},
        ),
        Forbidden("hostPort", 'container "b" uses hostPort 20'),
        id="TestHostPort/one container, one host port",
    ),
    pytest.param(
        psa.host_ports,
        {},
        _pod(
            {"name": "a", "ports": [{"hostPort": 0}]},
            {"name": "b", "ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 20}]},
            {"name": "c", "ports": [{"hostPort": 0}, {"hostPort": 10}, {"hostPort": 30}]},
        ),
        Forbidden("hostPort", 'containers "b", "c" use hostPorts 10, 20, 30'),
        id="TestHostPort/multiple containers, multiple host port",
    ),
    pytest.param(
        psa.host_ports,
        {},
        _pod({"name": "a", "ports": [{"hostPort": 9000}, {"hostPort": 10000}]}),
        Forbidden("hostPort", 'container "a" uses hostPorts 10000, 9000'),
        id="hostPorts as a set of strings: in text order",
    ),
    pytest.param(
        psa.host_probes_and_lifecycle,
        {},
        _pod(
            {
                "name": "a",
                "livenessProbe": {"httpGet": {"host": "127.0.0.1"}},
                "readinessProbe": {"tcpSocket": {"host": "::1"}},
                "startupProbe": {"httpGet": {"host": "localhost"}},
            }
        ),
        Forbidden(
            "probe or lifecycle host",
            'container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"',
        ),
        id="TestCheckHostProbesAndHostLifecycle/invalid pod with local host IP as probe host",
    ),
    pytest.param(
        psa.host_probes_and_lifecycle,
        {},
        _pod({"name": "d", "lifecycle": {"postStart": {"tcpSocket": {"host": "invalid.host"}}}}),
        Forbidden(
            "probe or lifecycle host", 'container "d" uses probe or lifecycle host "invalid.host"'
        ),
        id="TestCheckHostProbesAndHostLifecycle/invalid poststart tcpsocket host",
    ),
    pytest.param(
        psa.host_probes_and_lifecycle,
        {},
        _pod(
            {"name": "valid"},
            {"name": "invalid1", "livenessProbe": {"httpGet": {"host": "a.com"}}},
            {
                "name": "invalid2",
                "lifecycle": {"preStop": {"tcpSocket": {"host": "b.com"}}},
                "readinessProbe": {"httpGet": {"host": "a.com"}},
            },
        ),
        Forbidden(
            "probe or lifecycle host",
            'containers "invalid1", "invalid2" use probe or lifecycle hosts "a.com", "b.com"',
        ),
        id="TestCheckHostProbesAndHostLifecycle/multiple containers with multiple invalid hosts",
    ),
    pytest.param(
        psa.host_probes_and_lifecycle,
        {},
        {
            "containers": [{"name": "c"}],
            "initContainers": [
                {"name": "init", "livenessProbe": {"httpGet": {"host": "invalid.init.host"}}}
            ],
        },
        Forbidden(
            "probe or lifecycle host",
            'container "init" uses probe or lifecycle host "invalid.init.host"',
        ),
        id="TestCheckHostProbesAndHostLifecycle/invalid host in initcontainer",
    ),
    pytest.param(
        psa.host_probes_and_lifecycle,
        {},
        _pod({"name": "a", "livenessProbe": {"httpGet": {"host": ""}}}),
        None,
        id="TestCheckHostProbesAndHostLifecycle/valid pod with unset hosts",
    ),
    pytest.param(
        psa.app_armor_profile,
        {},
        _pod(securityContext={"appArmorProfile": _UNCONFINED}),
        Forbidden(
            "forbidden AppArmor profile", 'pod must not set AppArmor profile type to "Unconfined"'
        ),
        id="TestCheckAppArmor_Forbidden/unconfined pod",
    ),
    pytest.param(
        psa.app_armor_profile,
        {},
        {
            "securityContext": {"appArmorProfile": _DEFAULT},
            "containers": [{"name": "foo"}],
            "initContainers": [_sc("bar", appArmorProfile=_UNCONFINED)],
        },
        Forbidden(
            "forbidden AppArmor profile",
            'container "bar" must not set AppArmor profile type to "Unconfined"',
        ),
        id="TestCheckAppArmor_Forbidden/unconfined init container",
    ),
    pytest.param(
        psa.app_armor_profile,
        {
            _APPARMOR: "bogus",
            _APPARMOR + "a": "",
            _APPARMOR + "b": "runtime/default",
            _APPARMOR + "c": "localhost/",
            _APPARMOR + "d": "localhost/foo",
            _APPARMOR + "e": "unconfined",
            _APPARMOR + "f": "unknown",
        },
        {},
        Forbidden(
            "forbidden AppArmor profiles",
            "annotations must not set AppArmor profile type to "
            f'"{_APPARMOR}="bogus"", "{_APPARMOR}e="unconfined"", "{_APPARMOR}f="unknown""',
        ),
        id="TestCheckAppArmor_Forbidden/multiple containers",
    ),
    pytest.param(
        psa.app_armor_profile,
        {_APPARMOR + "test": "localhost/sec-profile01", "env": "dev"},
        {},
        None,
        id="TestCheckAppArmor_Allowed/container with local AppArmor + extra annotations",
    ),
    pytest.param(
        psa.app_armor_profile,
        {},
        _pod(_sc("foo", appArmorProfile=_DEFAULT)),
        None,
        id="TestCheckAppArmor_Allowed/container with localhost profile",
    ),
    pytest.param(
        psa._selinux(psa._SELINUX_TYPES_1_31),
        {},
        _pod(
            *(
                _sc(n, seLinuxOptions={"type": t})
                for n, t in (
                    ("a", "container_t"),
                    ("b", "container_init_t"),
                    ("c", "container_kvm_t"),
                    ("d", "container_engine_t"),
                    ("e", "bar"),
                )
            ),
            _sc("f", seLinuxOptions={"user": "bar"}),
            _sc("g", seLinuxOptions={"role": "baz"}),
            securityContext={"seLinuxOptions": {"type": "foo", "user": "bar", "role": "baz"}},
        ),
        Forbidden(
            "seLinuxOptions",
            'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: '
            'types "bar", "foo"; user may not be set; role may not be set',
        ),
        id="TestSELinuxOptions/invalid pod and containers",
    ),
    pytest.param(
        psa._selinux(psa._SELINUX_TYPES_1_0),
        {},
        _pod(_sc("d", seLinuxOptions={"type": "container_engine_t"})),
        Forbidden(
            "seLinuxOptions",
            'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
        ),
        id="TestSELinuxOptions v1.0: container_engine_t is allowed only from v1.31",
    ),
    pytest.param(
        psa._selinux(psa._SELINUX_TYPES_1_31),
        {},
        _pod(securityContext={"seLinuxOptions": {"role": "bad"}}),
        Forbidden(
            "seLinuxOptions",
            "pod set forbidden securityContext.seLinuxOptions: role may not be set",
        ),
        id="TestSELinuxOptions/bad role",
    ),
    pytest.param(
        psa.proc_mount,
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", procMount="Default"),
            _sc("d", procMount="Unmasked"),
            _sc("e", procMount="other"),
        ),
        Forbidden(
            "procMount",
            'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"',
        ),
        id="TestProcMount/procMount",
    ),
    pytest.param(
        psa.seccomp_baseline_1_0,
        {
            _SECCOMP_POD: "unconfined",
            _SECCOMP_CONTAINER + "a": "unconfined",
            _SECCOMP_CONTAINER + "b": "unknown",
            _SECCOMP_CONTAINER + "c": "localhost/foo",
        },
        _pod({"name": "a"}, {"name": "b"}, {"name": "c"}),
        Forbidden(
            "seccompProfile",
            f'forbidden annotations {_SECCOMP_CONTAINER}a="unconfined", '
            f'{_SECCOMP_CONTAINER}b="unknown", {_SECCOMP_POD}="unconfined"',
        ),
        id="TestSeccompProfileBaseline_1_0/pod and containers seccomp invalid",
    ),
    pytest.param(
        psa._seccomp(restricted=False),
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", seccompProfile=_UNCONFINED),
            _sc("d", seccompProfile=_UNCONFINED),
            _sc("e", seccompProfile=_DEFAULT),
            securityContext={"seccompProfile": _UNCONFINED},
        ),
        Forbidden(
            "seccompProfile",
            'pod and containers "c", "d" must not set securityContext.seccompProfile.type to '
            '"Unconfined"',
        ),
        id="TestSeccompProfileBaseline_1_19/pod and containers seccomp invalid",
    ),
    pytest.param(
        psa._seccomp(restricted=False),
        {},
        _pod({"name": "a"}),
        None,
        id="seccompProfile_baseline: a profile left unset is allowed",
    ),
    pytest.param(
        psa._sysctls(psa._SYSCTLS_1_32),
        {},
        _pod(securityContext={"sysctls": [{"name": "a"}, {"name": "b"}]}),
        Forbidden("forbidden sysctls", "a, b"),
        id="TestSysctls_1_32/forbidden sysctls",
    ),
    pytest.param(
        psa._sysctls(psa._SYSCTLS_1_0),
        {},
        _pod(securityContext={"sysctls": [{"name": "net.ipv4.tcp_rmem", "value": "4096"}]}),
        Forbidden("forbidden sysctls", "net.ipv4.tcp_rmem"),
        id="TestSysctls/new supported sysctls not supported: net.ipv4.tcp_rmem",
    ),
    pytest.param(
        psa._sysctls(psa._SYSCTLS_1_32),
        {},
        _pod(securityContext={"sysctls": [{"name": "net.ipv4.tcp_rmem", "value": "4096"}]}),
        None,
        id="TestSysctls_1_32/new supported sysctls: net.ipv4.tcp_rmem",
    ),
    pytest.param(
        psa.windows_host_process,
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", windowsOptions={}),
            _sc("d", windowsOptions={"hostProcess": False}),
            _sc("e", windowsOptions={"hostProcess": True}),
            _sc("f", windowsOptions={"hostProcess": True}),
            securityContext={"windowsOptions": {"hostProcess": True}},
        ),
        Forbidden(
            "hostProcess",
            'pod and containers "e", "f" must not set '
            "securityContext.windowsOptions.hostProcess=true",
        ),
        id="TestWindowsHostProcess/host process",
    ),
    pytest.param(
        psa.restricted_volumes,
        {},
        _pod(
            volumes=[{"name": f"a{i}", k: {}} for i, k in enumerate(_ALLOWED_VOLUMES, 1)]
            + [{"name": f"b{i}", k: {}} for i, k in enumerate(_RESTRICTED_VOLUMES, 1)]
            + [{"name": "c1"}]
        ),
        Forbidden(
            "restricted volume types",
            "volumes "
            + ", ".join(f'"b{i}"' for i in range(1, 22))
            + ', "c1" use restricted volume types '
            '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", '
            '"flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "hostPath", '
            '"iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", '
            '"scaleIO", "storageos", "unknown", "vsphereVolume"',
        ),
        id="TestRestrictedVolumes/host path volumes",
    ),
    pytest.param(
        psa._not_windows(psa.allow_privilege_escalation),
        {},
        _pod(
            {"name": "a"},
            _sc("b", allowPrivilegeEscalation=None),
            _sc("c", allowPrivilegeEscalation=True),
            _sc("d", allowPrivilegeEscalation=False),
        ),
        Forbidden(
            "allowPrivilegeEscalation != false",
            'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
        ),
        id="TestAllowPrivilegeEscalation_1_25/multiple containers",
    ),
    pytest.param(
        psa._not_windows(psa.allow_privilege_escalation),
        {},
        _pod({"name": "a"}, **_WINDOWS),
        None,
        id="TestAllowPrivilegeEscalation_1_25/windows pod, admit without checking",
    ),
    pytest.param(
        psa._not_windows(psa.allow_privilege_escalation),
        {},
        _pod({"name": "a"}, **_LINUX),
        Forbidden(
            "allowPrivilegeEscalation != false",
            'container "a" must set securityContext.allowPrivilegeEscalation=false',
        ),
        id="TestAllowPrivilegeEscalation_1_25/linux pod, reject if security context is not set",
    ),
    pytest.param(
        psa.allow_privilege_escalation,
        {},
        _pod({"name": "a"}, **_WINDOWS),
        Forbidden(
            "allowPrivilegeEscalation != false",
            'container "a" must set securityContext.allowPrivilegeEscalation=false',
        ),
        id="TestAllowPrivilegeEscalation_1_8: a Windows pod is checked before v1.25",
    ),
    pytest.param(
        psa.run_as_non_root,
        {},
        _pod({"name": "a"}),
        Forbidden(
            "runAsNonRoot != true",
            'pod or container "a" must set securityContext.runAsNonRoot=true',
        ),
        id="TestRunAsNonRoot/no explicit runAsNonRoot",
    ),
    pytest.param(
        psa.run_as_non_root,
        {},
        _pod({"name": "a", "securityContext": None}, securityContext={"runAsNonRoot": False}),
        Forbidden("runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false"),
        id="TestRunAsNonRoot/pod runAsNonRoot=false",
    ),
    pytest.param(
        psa.run_as_non_root,
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", runAsNonRoot=False),
            _sc("d", runAsNonRoot=False),
            _sc("e", runAsNonRoot=True),
            _sc("f", runAsNonRoot=True),
            securityContext={"runAsNonRoot": True},
        ),
        Forbidden(
            "runAsNonRoot != true",
            'containers "c", "d" must not set securityContext.runAsNonRoot=false',
        ),
        id="TestRunAsNonRoot/containers runAsNonRoot=false",
    ),
    pytest.param(
        psa.run_as_non_root,
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("d", runAsNonRoot=True),
            _sc("e", runAsNonRoot=True),
        ),
        Forbidden(
            "runAsNonRoot != true",
            'pod or containers "a", "b" must set securityContext.runAsNonRoot=true',
        ),
        id="TestRunAsNonRoot/pod nil, container fallthrough",
    ),
    pytest.param(
        psa.run_as_user,
        {},
        _pod({"name": "a"}, securityContext={"runAsUser": 0}),
        Forbidden("runAsUser=0", "pod must not set runAsUser=0"),
        id="TestRunAsUser/pod runAsUser=0",
    ),
    pytest.param(
        psa.run_as_user,
        {},
        _pod({"name": "a"}, securityContext={"runAsUser": 1000}),
        None,
        id="TestRunAsUser/pod runAsUser=non-zero",
    ),
    pytest.param(
        psa.run_as_user,
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", runAsUser=0),
            _sc("d", runAsUser=0),
            _sc("e", runAsUser=1),
            securityContext={"runAsUser": 1000},
        ),
        Forbidden("runAsUser=0", 'containers "c", "d" must not set runAsUser=0'),
        id="TestRunAsUser/containers runAsUser=0",
    ),
    pytest.param(
        psa._not_windows(psa._seccomp(restricted=True)),
        {},
        _pod({"name": "a"}),
        Forbidden(
            "seccompProfile",
            'pod or container "a" must set securityContext.seccompProfile.type to '
            '"RuntimeDefault" or "Localhost"',
        ),
        id="TestSeccompProfileRestricted_1_25/no explicit seccomp",
    ),
    pytest.param(
        psa._not_windows(psa._seccomp(restricted=True)),
        {},
        _pod({"name": "a"}, **_WINDOWS),
        None,
        id="TestSeccompProfileRestricted_1_25/no explicit seccomp, windows Pod",
    ),
    pytest.param(
        psa._seccomp(restricted=True),
        {},
        _pod(
            {"name": "a", "securityContext": None}, securityContext={"seccompProfile": _UNCONFINED}
        ),
        Forbidden(
            "seccompProfile", 'pod must not set securityContext.seccompProfile.type to "Unconfined"'
        ),
        id="TestSeccompProfileRestricted_1_19/pod seccomp invalid",
    ),
    pytest.param(
        psa._seccomp(restricted=True),
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("c", seccompProfile=_UNCONFINED),
            _sc("d", seccompProfile=_UNCONFINED),
            _sc("e", seccompProfile=_DEFAULT),
            securityContext={"seccompProfile": _DEFAULT},
        ),
        Forbidden(
            "seccompProfile",
            'containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined"',
        ),
        id="TestSeccompProfileRestricted_1_19/containers seccomp invalid",
    ),
    pytest.param(
        psa._seccomp(restricted=True),
        {},
        _pod(
            {"name": "a", "securityContext": None},
            {"name": "b", "securityContext": {}},
            _sc("d", seccompProfile=_DEFAULT),
            _sc("e", seccompProfile=_DEFAULT),
        ),
        Forbidden(
            "seccompProfile",
            'pod or containers "a", "b" must set securityContext.seccompProfile.type to '
            '"RuntimeDefault" or "Localhost"',
        ),
        id="TestSeccompProfileRestricted_1_19/pod nil, container fallthrough",
    ),
    pytest.param(
        psa._not_windows(psa.capabilities_restricted),
        {},
        _pod(
            _sc("a", capabilities={"add": ["FOO", "BAR"]}),
            _sc("b", capabilities={"add": ["BAR", "BAZ"]}),
            _sc("c", capabilities={"add": ["NET_BIND_SERVICE", "CHOWN"], "drop": ["ALL", "FOO"]}),
        ),
        Forbidden(
            "unrestricted capabilities",
            'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; '
            'containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in '
            "securityContext.capabilities.add",
        ),
        id="TestCapabilitiesRestricted_1_25/multiple containers",
    ),
    pytest.param(
        psa._not_windows(psa.capabilities_restricted),
        {},
        _pod({"name": "a"}, **_WINDOWS),
        None,
        id="TestCapabilitiesRestricted_1_25/windows pod, admit without checking capabilities",
    ),
    pytest.param(
        psa._not_windows(psa.capabilities_restricted),
        {},
        _pod({"name": "a"}, **_LINUX),
        Forbidden(
            "unrestricted capabilities",
            'container "a" must set securityContext.capabilities.drop=["ALL"]',
        ),
        id="TestCapabilitiesRestricted_1_25/linux pod, reject if security context is not set",
    ),
]


@pytest.mark.parametrize(("check", "annotations", "spec", "expected"), CASES)
def test_check_gives_upstreams_reason_and_detail(
    check: PodCheck, annotations: dict[str, str], spec: Spec, expected: Forbidden | None
) -> None:
    assert check(annotations, spec) == expected


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param({}, LevelVersion(PRIVILEGED), id="no labels: the default, privileged"),
        pytest.param({"team": "a"}, LevelVersion(PRIVILEGED), id="other labels only"),
        pytest.param({ENFORCE_LABEL: "baseline"}, LevelVersion(BASELINE), id="baseline"),
        pytest.param(
            {ENFORCE_LABEL: "restricted", ENFORCE_VERSION_LABEL: "v1.24"},
            LevelVersion(RESTRICTED, 24),
            id="restricted at v1.24",
        ),
        pytest.param(
            {ENFORCE_LABEL: "Restricted"}, LevelVersion(RESTRICTED), id="invalid level fails closed"
        ),
        pytest.param({ENFORCE_LABEL: ""}, LevelVersion(RESTRICTED), id="empty level fails closed"),
        pytest.param(
            {ENFORCE_LABEL: "baseline", ENFORCE_VERSION_LABEL: "v1.024"},
            LevelVersion(BASELINE),
            id="a leading zero: latest",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", ENFORCE_VERSION_LABEL: "v2.0"},
            LevelVersion(BASELINE),
            id="v2: latest",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", ENFORCE_VERSION_LABEL: "v1.0"},
            LevelVersion(BASELINE, 0),
            id="v1.0",
        ),
        pytest.param(
            {ENFORCE_VERSION_LABEL: "v1.22"}, LevelVersion(PRIVILEGED, 22), id="version alone"
        ),
    ],
)
def test_enforce_policy_reads_the_labels_as_PolicyToEvaluate(
    labels: dict[str, str], expected: LevelVersion
) -> None:
    assert psa.enforce_policy(labels) == expected


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        pytest.param({}, LevelVersion(PRIVILEGED), id="no labels: the default, privileged"),
        pytest.param(
            {ENFORCE_LABEL: "baseline"},
            LevelVersion(BASELINE),
            id="TestPolicyToEvaluate/simple enforce",
        ),
        pytest.param(
            {WARN_LABEL: "restricted"},
            LevelVersion(RESTRICTED),
            id="TestPolicyToEvaluate/simple warn",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", WARN_LABEL: "restricted"},
            LevelVersion(RESTRICTED),
            id="TestPolicyToEvaluate/enforce & warn",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", ENFORCE_VERSION_LABEL: "v1.22"},
            LevelVersion(BASELINE, 22),
            id="TestPolicyToEvaluate/enforce version",
        ),
        pytest.param(
            {
                ENFORCE_LABEL: "baseline",
                ENFORCE_VERSION_LABEL: "v1.22",
                WARN_VERSION_LABEL: "latest",
            },
            LevelVersion(BASELINE),
            id="TestPolicyToEvaluate/enforce version & warn-version",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", WARN_VERSION_LABEL: "v1.23"},
            LevelVersion(BASELINE, 23),
            id="TestPolicyToEvaluate/enforce & warn-version",
        ),
        pytest.param(
            {
                ENFORCE_LABEL: "baseline",
                ENFORCE_VERSION_LABEL: "v1.20",
                WARN_LABEL: "restricted",
                WARN_VERSION_LABEL: "v1.21",
            },
            LevelVersion(RESTRICTED, 21),
            id="TestPolicyToEvaluate/fully specd",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", WARN_LABEL: "privileged"},
            LevelVersion(PRIVILEGED),
            id="TestPolicyToEvaluate/enforce no warn",
        ),
        pytest.param(
            {ENFORCE_LABEL: "baseline", WARN_LABEL: "foo"},
            LevelVersion(PRIVILEGED),
            id="TestPolicyToEvaluate/enforce warn error: fails open",
        ),
        pytest.param(
            {ENFORCE_LABEL: "foo"},
            LevelVersion(PRIVILEGED),
            id="TestPolicyToEvaluate/enforce error: no warn level from it",
        ),
        pytest.param(
            {ENFORCE_LABEL: "privileged", ENFORCE_VERSION_LABEL: "v1.22"},
            LevelVersion(PRIVILEGED),
            id="enforce privileged: not stricter, the default kept",
        ),
        pytest.param(
            {ENFORCE_VERSION_LABEL: "v1.22", WARN_LABEL: "baseline"},
            LevelVersion(BASELINE),
            id="the enforce version is not the warn label's",
        ),
        pytest.param(
            {
                ENFORCE_LABEL: "restricted",
                ENFORCE_VERSION_LABEL: "v1.22",
                WARN_VERSION_LABEL: "1.2",
            },
            LevelVersion(RESTRICTED),
            id="a warn-version that does not parse: latest, not the enforce version",
        ),
        pytest.param(
            {WARN_LABEL: "baseline", WARN_VERSION_LABEL: "v1.30"},
            LevelVersion(BASELINE, 30),
            id="warn at a version",
        ),
    ],
)
def test_warn_policy_reads_the_labels_as_PolicyToEvaluate(
    labels: dict[str, str], expected: LevelVersion
) -> None:
    assert psa.warn_policy(labels) == expected


@given(
    st.dictionaries(
        st.sampled_from([ENFORCE_LABEL, ENFORCE_VERSION_LABEL, WARN_LABEL, WARN_VERSION_LABEL]),
        st.sampled_from(["", "baseline", "restricted", "privileged", "latest", "v1.25", "x"]),
    )
)
def test_without_a_warn_label_the_warn_level_is_a_valid_enforce_level(
    labels: dict[str, str],
) -> None:
    """PolicyToEvaluate: the default warn level is ``privileged``, which a valid enforce
    level is never looser than; an invalid one sets no warn level."""
    warn, enforce = psa.warn_policy(labels), psa.enforce_policy(labels)
    valid = labels.get(ENFORCE_LABEL) in (PRIVILEGED, BASELINE, RESTRICTED)
    if WARN_LABEL not in labels:
        assert warn.level == (enforce.level if valid else PRIVILEGED)


@given(st.text(max_size=12))
def test_parse_version_never_raises_and_reads_only_v1_minor(value: str) -> None:
    minor = psa.parse_version(value)
    assert minor is None or value == f"v1.{minor}"


_BASELINE_IDS = [
    "appArmorProfile", "capabilities_baseline", "hostNamespaces", "hostPathVolumes",
    "hostPorts", "hostProbesAndHostLifecycle", "privileged", "procMount", "seLinuxOptions",
    "seccompProfile_baseline", "sysctls", "windowsHostProcess",
]  # fmt: skip


@pytest.mark.parametrize(
    ("policy", "ids"),
    [
        pytest.param(LevelVersion(PRIVILEGED), [], id="privileged: none"),
        pytest.param(LevelVersion(BASELINE), _BASELINE_IDS, id="baseline:latest"),
        pytest.param(
            LevelVersion(BASELINE, 33),
            [i for i in _BASELINE_IDS if i != "hostProbesAndHostLifecycle"],
            id="baseline:v1.33: before the probe host check",
        ),
        pytest.param(
            LevelVersion(RESTRICTED),
            [i for i in _BASELINE_IDS if i not in ("capabilities_baseline", "hostPathVolumes",
                                                   "seccompProfile_baseline")]
            + ["allowPrivilegeEscalation", "capabilities_restricted", "restrictedVolumes",
               "runAsNonRoot", "runAsUser", "seccompProfile_restricted"],
            id="restricted:latest: overridden baseline checks left out",
        ),
        pytest.param(
            LevelVersion(RESTRICTED, 7),
            [i for i in _BASELINE_IDS if i not in ("hostPathVolumes", "hostProbesAndHostLifecycle")]
            + ["restrictedVolumes", "runAsNonRoot"],
            id="restricted:v1.7: the checks of v1.0 to v1.7",
        ),
    ],
)  # fmt: skip
def test_checks_for_the_level_and_version_in_the_registrys_order(
    policy: LevelVersion, ids: list[str]
) -> None:
    assert [i for i, _ in psa.checks_for(policy)] == ids


def test_a_later_version_is_evaluated_as_the_newest() -> None:
    later = psa.checks_for(LevelVersion(RESTRICTED, 99))
    assert [i for i, _ in later] == [i for i, _ in psa.checks_for(LevelVersion(RESTRICTED))]


def test_violation_joins_reasons_and_details_as_the_admission_message() -> None:
    spec = _pod({"name": "web"}, hostNetwork=True)
    assert psa.violation(LevelVersion(BASELINE, 25), {}, spec) == (
        'violates PodSecurity "baseline:v1.25": host namespaces (hostNetwork=true)'
    )
    assert psa.violation(LevelVersion(RESTRICTED), {}, spec) == (
        'violates PodSecurity "restricted:latest": host namespaces (hostNetwork=true), '
        'allowPrivilegeEscalation != false (container "web" must set '
        "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities "
        '(container "web" must set securityContext.capabilities.drop=["ALL"]), '
        'runAsNonRoot != true (pod or container "web" must set '
        'securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must '
        'set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    )
    assert psa.violation(LevelVersion(PRIVILEGED), {}, spec) is None


@pytest.mark.parametrize(
    ("annotations", "spec", "expected"),
    [
        pytest.param(
            {_APPARMOR + "web": "unconfined"},
            _pod({"name": "web"}),
            'forbidden AppArmor profiles (container "web" and annotation must not set AppArmor '
            f'profile type to "Unconfined", "{_APPARMOR}web="unconfined"")',
            id="an unconfined annotation becomes the container's field",
        ),
        pytest.param(
            {_APPARMOR + "web": "unconfined"},
            _pod({"name": "web"}, securityContext={"appArmorProfile": _UNCONFINED}),
            "forbidden AppArmor profiles (pod and annotation must not set AppArmor profile type "
            f'to "Unconfined", "{_APPARMOR}web="unconfined"")',
            id="the pod's own profile: not copied",
        ),
        pytest.param(
            {_APPARMOR + "web": "unconfined"},
            _pod(_sc("web", appArmorProfile=_DEFAULT)),
            "forbidden AppArmor profile (annotation must not set AppArmor profile type to "
            f'"{_APPARMOR}web="unconfined"")',
            id="a container's field is kept",
        ),
        pytest.param(
            {_APPARMOR + "web": "unconfined"},
            _pod({"name": "web"}, **_WINDOWS),
            "forbidden AppArmor profile (annotation must not set AppArmor profile type to "
            f'"{_APPARMOR}web="unconfined"")',
            id="a Windows pod: not synced",
        ),
        pytest.param(
            {_APPARMOR + "web": "localhost/"},
            _pod({"name": "web"}),
            None,
            id="localhost/ names no profile: nothing copied, allowed",
        ),
    ],
)
def test_apparmor_annotations_become_fields_before_the_check(
    annotations: dict[str, str], spec: Spec, expected: str | None
) -> None:
    """pkg/registry/core/pod/strategy.go applyAppArmorVersionSkew (v1.34: annotations to
    fields only), then appArmorProfile_1_0."""
    found = psa.violation(LevelVersion(BASELINE), annotations, spec)
    prefix = 'violates PodSecurity "baseline:latest": '
    assert found == (None if expected is None else prefix + expected)


@pytest.mark.parametrize(
    ("policy", "annotations", "spec", "expected"),
    [
        pytest.param(
            LevelVersion(RESTRICTED),
            {},
            _pod(_sc("web", **_RESTRICTED_CONTEXT)),
            None,
            id="allowed: no warning",
        ),
        pytest.param(
            LevelVersion(PRIVILEGED),
            {},
            _pod({"name": "web"}, hostNetwork=True),
            None,
            id="privileged: nothing checked",
        ),
        pytest.param(
            LevelVersion(BASELINE, 30),
            {},
            _pod({"name": "web", "ports": [{"containerPort": 80}]}, hostNetwork=True),
            'would violate PodSecurity "baseline:v1.30": host namespaces (hostNetwork=true)',
            id="baseline at a version; a port without hostPort is not one",
        ),
        pytest.param(
            LevelVersion(RESTRICTED),
            {},
            _pod(_sc("web", **{**_RESTRICTED_CONTEXT, "runAsNonRoot": None})),
            'would violate PodSecurity "restricted:latest": runAsNonRoot != true (pod or '
            'container "web" must set securityContext.runAsNonRoot=true)',
            id="restricted: one check",
        ),
        pytest.param(
            LevelVersion(BASELINE),
            {_APPARMOR + "web": "unconfined"},
            _pod({"name": "web"}),
            'would violate PodSecurity "baseline:latest": forbidden AppArmor profile (annotation '
            f'must not set AppArmor profile type to "{_APPARMOR}web="unconfined"")',
            id="the spec as given: an annotation is not copied to the field",
        ),
    ],
)
def test_would_violate_is_the_warning_the_api_server_sends(
    policy: LevelVersion, annotations: dict[str, str], spec: Spec, expected: str | None
) -> None:
    """admission.go EvaluatePod: ``would violate PodSecurity %q: %s`` with the same
    ForbiddenDetail as the refusal."""
    assert psa.would_violate(policy, annotations, spec) == expected
