"""Pod Security admission: the checks of a namespace's enforce level, which refuse a pod
at creation, and of its warn level, which only warn (k8s.io/pod-security-admission as of
Kubernetes v1.34, ``policy/check_*.go``, ``policy/registry.go``, ``api/helpers.go``,
``admission/admission.go``).

The plugin reads the pod's namespace's labels ``pod-security.kubernetes.io/enforce`` and
``enforce-version`` (:func:`enforce_policy`), runs the level's checks for that version in
the registry's order (:func:`checks_for`) and, when any forbids the pod, refuses it with
``violates PodSecurity "restricted:latest": reason (detail), reason (detail)``
(:func:`violation`). Its labels ``warn`` and ``warn-version`` (:func:`warn_policy`) set the
level whose checks warn ``would violate PodSecurity ...`` (:func:`would_violate`) of a pod
the enforce level took, and of a workload's template (:data:`POD_CONTROLLER_KINDS`). The
admission configuration is not recorded: its built-in defaults are assumed (every level
``privileged:latest``, no exempt namespace, user or RuntimeClass).

>>> enforce_policy({ENFORCE_LABEL: "restricted"})
LevelVersion(level='restricted', minor=None)
>>> enforce_policy({ENFORCE_LABEL: "strict", ENFORCE_VERSION_LABEL: "v1.25"}).text
'restricted:v1.25'
>>> enforce_policy({}).level
'privileged'
>>> warn_policy({ENFORCE_LABEL: "baseline", ENFORCE_VERSION_LABEL: "v1.30"}).text
'baseline:v1.30'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gate.k8s.validation import (
    APPARMOR_ANNOTATION,
    SECCOMP_CONTAINER_ANNOTATION,
    SECCOMP_POD_ANNOTATION,
    go_quote,
    host_process,
    with_apparmor_fields,
)
from gate.untyped import as_list, mapping

ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"
ENFORCE_VERSION_LABEL = "pod-security.kubernetes.io/enforce-version"
WARN_LABEL = "pod-security.kubernetes.io/warn"
WARN_VERSION_LABEL = "pod-security.kubernetes.io/warn-version"

POD_CONTROLLER_KINDS = frozenset(
    {
        "PodTemplate", "ReplicationController", "ReplicaSet", "Deployment", "DaemonSet",
        "StatefulSet", "Job", "CronJob",
    }
)  # fmt: skip
"""admission.go DefaultPodSpecExtractor's kinds besides Pod: the plugin checks their
template when they are written (ValidatePodController), at the warn level alone."""

PRIVILEGED, BASELINE, RESTRICTED = "privileged", "baseline", "restricted"
_LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)

_VERSION = re.compile(r"v1\.([0-9]|[1-9][0-9]*)")
"""api/helpers.go versionRegexp (anchored): ``v1.x``, no leading zero."""
_INT_MAX = 2**63 - 1
"""strconv.Atoi's range: a larger minor fails to parse, and reads as ``latest``."""


@dataclass(frozen=True, slots=True)
class LevelVersion:
    """A level and the policy version it is evaluated at (``minor`` of ``v1.minor``; None
    for ``latest``). ``latest``: the newest version the API server's plugin knows (its own
    minor version; None: the newest fitgate knows), which ``latest`` and any newer version
    evaluate."""

    level: str
    minor: int | None = None
    latest: int | None = field(default=None, repr=False)

    @property
    def text(self) -> str:
        """api.LevelVersion.String: ``restricted:latest``, ``baseline:v1.25``."""
        return f"{self.level}:{'latest' if self.minor is None else f'v1.{self.minor}'}"


def parse_level(value: str) -> str | None:
    """api.ParseLevel: the level, or None when the value is none of the three."""
    return value if value in _LEVELS else None


def parse_version(value: str) -> int | None:
    """api.ParseVersion: the minor of ``v1.x``; None for ``latest`` and for a value that
    does not parse (which the plugin also evaluates as ``latest``)."""
    match = _VERSION.fullmatch(value)
    if match is None:
        return None
    minor = int(match.group(1))
    return minor if minor <= _INT_MAX else None


def enforce_policy(labels: Mapping[str, str], latest: int | None = None) -> LevelVersion:
    """api.PolicyToEvaluate's enforce part under the default policy (``privileged:latest``):
    an enforce label that is no level fails closed, to ``restricted``; an enforce-version
    that does not parse is ``latest``. (The plugin then evaluates the pod whatever the
    errors: admission.go ValidatePod.)"""
    level, minor = PRIVILEGED, None
    if ENFORCE_LABEL in labels:
        level = parse_level(labels[ENFORCE_LABEL]) or RESTRICTED
    if ENFORCE_VERSION_LABEL in labels:
        minor = parse_version(labels[ENFORCE_VERSION_LABEL])
    return LevelVersion(level, minor, latest)


def warn_policy(labels: Mapping[str, str], latest: int | None = None) -> LevelVersion:
    """api.PolicyToEvaluate's warn part under the default policy (``privileged:latest``):
    a warn label that is no level fails open, to ``privileged``; a warn-version that does
    not parse is ``latest``. Without a warn label, an enforce label naming a stricter level
    than that is the warn level too, at the enforce version unless a warn-version is set;
    an enforce label that is no level is not (it sets no warn level)."""
    level, minor = PRIVILEGED, None
    if WARN_LABEL in labels:
        level = parse_level(labels[WARN_LABEL]) or PRIVILEGED
    if WARN_VERSION_LABEL in labels:
        minor = parse_version(labels[WARN_VERSION_LABEL])
    enforced = parse_level(labels.get(ENFORCE_LABEL, ""))
    if WARN_LABEL not in labels and enforced is not None and enforced != PRIVILEGED:
        level = enforced
        if WARN_VERSION_LABEL not in labels:
            minor = enforce_policy(labels).minor
    return LevelVersion(level, minor, latest)


@dataclass(frozen=True, slots=True)
class Forbidden:
    """A check's CheckResult when it forbids the pod: its reason, and its detail (may be
    empty)."""

    reason: str
    detail: str = ""


PodCheck = Callable[[Mapping[str, str], Mapping[str, Any]], Forbidden | None]
"""A check of the pod's annotations and spec (CheckPodFn): None when it allows the pod."""


# --- helpers.go, visitor.go ---------------------------------------------------------------


def _join_quote(items: list[str]) -> str:
    """helpers.go joinQuote: ``"a", "b"``."""
    return '"' + '", "'.join(items) + '"' if items else ""


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _containers(spec: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """visitor.go visitContainers: init containers, containers, ephemeral containers."""
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in as_list(spec.get(key)):
            yield mapping(container)


def _name(container: Mapping[str, Any]) -> str:
    name = container.get("name")
    return name if isinstance(name, str) else ""


def _context(item: Mapping[str, Any]) -> Mapping[str, Any]:
    return mapping(item.get("securityContext"))


def _windows(spec: Mapping[str, Any]) -> bool:
    return mapping(spec.get("os")).get("name") == "windows"


def _named(what: str, names: list[str]) -> str:
    """``container "a"`` or ``containers "a", "b"``."""
    return f"{_plural(what, what + 's', len(names))} {_join_quote(names)}"


def _setters(pod: bool, containers: list[str]) -> list[str]:
    """``pod`` and/or the containers named, as the checks list who sets a bad value."""
    return (["pod"] if pod else []) + ([_named("container", containers)] if containers else [])


# --- baseline -------------------------------------------------------------------------------


def host_namespaces(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_hostNamespaces.go hostNamespaces_1_0."""
    shared = [f"{k}=true" for k in ("hostNetwork", "hostPID", "hostIPC") if spec.get(k) is True]
    return Forbidden("host namespaces", ", ".join(shared)) if shared else None


def privileged(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_privileged.go privileged_1_0."""
    bad = [_name(c) for c in _containers(spec) if _context(c).get("privileged") is True]
    if not bad:
        return None
    return Forbidden(
        "privileged", f"{_named('container', bad)} must not set securityContext.privileged=true"
    )


_DEFAULT_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
        "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
    }
)  # fmt: skip
"""check_capabilities_baseline.go capabilities_allowed_1_0."""


def _added(container: Mapping[str, Any]) -> list[str]:
    return [str(c) for c in as_list(mapping(_context(container).get("capabilities")).get("add"))]


def capabilities_baseline(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_capabilities_baseline.go capabilitiesBaseline_1_0."""
    bad: list[str] = []
    extra: set[str] = set()
    for container in _containers(spec):
        beyond = [c for c in _added(container) if c not in _DEFAULT_CAPABILITIES]
        if beyond:
            bad.append(_name(container))
            extra.update(beyond)
    if not bad:
        return None
    detail = (
        f"{_named('container', bad)} must not include {_join_quote(sorted(extra))} in "
        "securityContext.capabilities.add"
    )
    return Forbidden("non-default capabilities", detail)


def host_path_volumes(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_hostPathVolumes.go hostPathVolumes_1_0."""
    volumes = [mapping(v) for v in as_list(spec.get("volumes"))]
    bad = [_name(v) for v in volumes if v.get("hostPath") is not None]
    return Forbidden("hostPath volumes", _named("volume", bad)) if bad else None


def _host_port(port: object) -> int:
    value = mapping(port).get("hostPort")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def host_ports(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_hostPorts.go hostPorts_1_0 (the ports a set of strings: in text order)."""
    bad: list[str] = []
    ports: set[str] = set()
    for container in _containers(spec):
        used = [str(p) for p in map(_host_port, as_list(container.get("ports"))) if p != 0]
        if used:
            bad.append(_name(container))
            ports.update(used)
    if not bad:
        return None
    detail = (
        f"{_named('container', bad)} {_plural('uses', 'use', len(bad))} "
        f"{_plural('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}"
    )
    return Forbidden("hostPort", detail)


def _handler_hosts(handler: object) -> list[str]:
    """check_hostProbesAndhostLifecycle.go getForbiddenHostProbes/Lifecycle: the hosts an
    httpGet and a tcpSocket name."""
    found = []
    for kind in ("httpGet", "tcpSocket"):
        host = mapping(mapping(handler).get(kind)).get("host")
        if isinstance(host, str) and host:
            found.append(host)
    return found


def host_probes_and_lifecycle(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_hostProbesAndhostLifecycle.go hostProbesAndHostLifecycleV1Dot34 (containers
    and hosts as sets: each in text order)."""
    bad: set[str] = set()
    hosts: set[str] = set()
    for container in _containers(spec):
        lifecycle = mapping(container.get("lifecycle"))
        handlers = [container.get(p) for p in ("livenessProbe", "readinessProbe", "startupProbe")]
        handlers += [lifecycle.get("postStart"), lifecycle.get("preStop")]
        for handler in handlers:
            found = _handler_hosts(handler)
            if found:
                bad.add(_name(container))
                hosts.update(found)
    if not bad:
        return None
    detail = (
        f"{_named('container', sorted(bad))} {_plural('uses', 'use', len(bad))} "
        f"{_plural('probe or lifecycle host', 'probe or lifecycle hosts', len(hosts))} "
        f"{_join_quote(sorted(hosts))}"
    )
    return Forbidden("probe or lifecycle host", detail)


def _apparmor_type(item: Mapping[str, Any]) -> str | None:
    """The item's securityContext.appArmorProfile.type; None when no profile is set."""
    profile = _context(item).get("appArmorProfile")
    if profile is None:
        return None
    kind = mapping(profile).get("type")
    return kind if isinstance(kind, str) else ""


def app_armor_profile(annotations: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_appArmorProfile.go appArmorProfile_1_0."""
    allowed = ("RuntimeDefault", "Localhost")
    values: set[str] = set()
    pod = _apparmor_type(spec)
    if pod is not None and pod not in allowed:
        values.add(pod)
    bad = []
    for container in _containers(spec):
        kind = _apparmor_type(container)
        if kind is not None and kind not in allowed:
            bad.append(_name(container))
            values.add(kind)
    setters = _setters(pod is not None and pod not in allowed, bad)
    listed = sorted(values)
    annotated = sorted(
        f"{key}={go_quote(value)}"
        for key, value in annotations.items()
        if key.startswith(APPARMOR_ANNOTATION)
        and not (value in ("", "runtime/default") or value.startswith("localhost/"))
    )
    if annotated:
        listed += annotated
        setters.append(_plural("annotation", "annotations", len(annotated)))
    if not setters:
        return None
    reason = _plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(listed))
    detail = f"{' and '.join(setters)} must not set AppArmor profile type to {_join_quote(listed)}"
    return Forbidden(reason, detail)


_SELINUX_TYPES_1_0 = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})
_SELINUX_TYPES_1_31 = _SELINUX_TYPES_1_0 | {"container_engine_t"}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _selinux(allowed: frozenset[str]) -> PodCheck:
    """check_seLinuxOptions.go seLinuxOptions with the version's allowed types."""

    def check(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
        types: set[str] = set()
        user = role = False

        def valid(item: Mapping[str, Any]) -> bool:
            nonlocal user, role
            options = _context(item).get("seLinuxOptions")
            if options is None:
                return True
            options = mapping(options)
            kind, ok = _text(options.get("type")), True
            if kind not in allowed:
                ok = False
                types.add(kind)
            if _text(options.get("user")):
                ok, user = False, True
            if _text(options.get("role")):
                ok, role = False, True
            return ok

        pod = not valid(spec)
        bad = [_name(c) for c in _containers(spec) if not valid(c)]
        setters = _setters(pod, bad)
        if not setters:
            return None
        data = (
            [f"{_plural('type', 'types', len(types))} {_join_quote(sorted(types))}"]
            if types
            else []
        )
        data += ["user may not be set"] * user + ["role may not be set"] * role
        detail = (
            f"{' and '.join(setters)} set forbidden securityContext.seLinuxOptions: "
            f"{'; '.join(data)}"
        )
        return Forbidden("seLinuxOptions", detail)

    return check


def proc_mount(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_procMount.go procMount_1_0 (RelaxPolicyForUserNamespacePods off: its feature
    gate UserNamespacesPodSecurityStandards is off by default)."""
    bad: list[str] = []
    kinds: set[str] = set()
    for container in _containers(spec):
        mount = _context(container).get("procMount")
        if mount is not None and mount != "Default":
            bad.append(_name(container))
            kinds.add(_text(mount))
    if not bad:
        return None
    detail = (
        f"{_named('container', bad)} must not set securityContext.procMount to "
        f"{_join_quote(sorted(kinds))}"
    )
    return Forbidden("procMount", detail)


def seccomp_baseline_1_0(
    annotations: Mapping[str, str], spec: Mapping[str, Any]
) -> Forbidden | None:
    """check_seccompProfile_baseline.go seccompProfileBaseline_1_0: the alpha annotations."""

    def valid(value: str) -> bool:
        return value in ("runtime/default", "docker/default") or value.startswith("localhost/")

    keys = [SECCOMP_POD_ANNOTATION]
    keys += [SECCOMP_CONTAINER_ANNOTATION + _name(c) for c in _containers(spec)]
    bad = {
        f"{k}={go_quote(annotations[k])}"
        for k in keys
        if k in annotations and not valid(annotations[k])
    }
    if not bad:
        return None
    detail = f"forbidden {_plural('annotation', 'annotations', len(bad))} {', '.join(sorted(bad))}"
    return Forbidden("seccompProfile", detail)


def _seccomp_type(item: Mapping[str, Any]) -> str | None:
    profile = _context(item).get("seccompProfile")
    return None if profile is None else _text(mapping(profile).get("type"))


_SECCOMP_ALLOWED = ("Localhost", "RuntimeDefault")


def _seccomp(restricted: bool) -> PodCheck:
    """check_seccompProfile_baseline.go seccompProfileBaseline_1_19 and
    check_seccompProfile_restricted.go seccompProfileRestricted_1_19 (``restricted``: a
    container that sets none must have the pod's)."""

    def check(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
        values: set[str] = set()
        pod = _seccomp_type(spec)
        pod_bad = pod is not None and pod not in _SECCOMP_ALLOWED
        if pod_bad and pod is not None:
            values.add(pod)
        explicit, implicit = [], []
        for container in _containers(spec):
            kind = _seccomp_type(container)
            if kind is not None and kind not in _SECCOMP_ALLOWED:
                explicit.append(_name(container))
                values.add(kind)
            elif kind is None and (pod is None or pod_bad):
                implicit.append(_name(container))
        setters = _setters(pod_bad, explicit)
        if setters:
            detail = (
                f"{' and '.join(setters)} must not set securityContext.seccompProfile.type to "
                f"{_join_quote(sorted(values))}"
            )
            return Forbidden("seccompProfile", detail)
        if restricted and implicit:
            detail = (
                f"pod or {_named('container', implicit)} must set "
                'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"'
            )
            return Forbidden("seccompProfile", detail)
        return None

    return check


_SYSCTLS_1_0 = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)
_SYSCTLS_1_27 = _SYSCTLS_1_0 | {"net.ipv4.ip_local_reserved_ports"}
_SYSCTLS_1_29 = _SYSCTLS_1_27 | {
    "net.ipv4.tcp_keepalive_time",
    "net.ipv4.tcp_fin_timeout",
    "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
_SYSCTLS_1_32 = _SYSCTLS_1_29 | {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"}


def _sysctls(allowed: frozenset[str]) -> PodCheck:
    """check_sysctls.go sysctls with the version's allowed names (in the pod's order)."""

    def check(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
        names = [_text(mapping(s).get("name")) for s in as_list(_context(spec).get("sysctls"))]
        bad = [n for n in names if n not in allowed]
        return Forbidden("forbidden sysctls", ", ".join(bad)) if bad else None

    return check


def windows_host_process(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_windowsHostProcess.go windowsHostProcess_1_0: the fields the API server's
    validateWindowsHostProcessPod reads (:func:`host_process`), refused when true."""
    in_pod = host_process(spec) is True
    setters = _setters(in_pod, [_name(c) for c in _containers(spec) if host_process(c) is True])
    if not setters:
        return None
    detail = f"{' and '.join(setters)} must not set securityContext.windowsOptions.hostProcess=true"
    return Forbidden("hostProcess", detail)


# --- restricted -----------------------------------------------------------------------------

_RESTRICTED_ALLOWED_VOLUMES = (
    "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image",
    "persistentVolumeClaim", "projected", "secret",
)  # fmt: skip
_RESTRICTED_VOLUME_TYPES = (
    "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi",
    "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile",
    "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume",
    "scaleIO", "storageos",
)  # fmt: skip
"""check_restrictedVolumes.go: the sources it names, in its order (the first one set)."""


def restricted_volumes(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_restrictedVolumes.go restrictedVolumes_1_0."""
    bad: list[str] = []
    kinds: set[str] = set()
    for volume in map(mapping, as_list(spec.get("volumes"))):
        if any(volume.get(k) is not None for k in _RESTRICTED_ALLOWED_VOLUMES):
            continue
        bad.append(_name(volume))
        kinds.add(
            next((k for k in _RESTRICTED_VOLUME_TYPES if volume.get(k) is not None), "unknown")
        )
    if not bad:
        return None
    detail = (
        f"{_named('volume', bad)} {_plural('uses', 'use', len(bad))} "
        f"{_plural('restricted volume type', 'restricted volume types', len(kinds))} "
        f"{_join_quote(sorted(kinds))}"
    )
    return Forbidden("restricted volume types", detail)


def _not_windows(check: PodCheck) -> PodCheck:
    """The v1.25 revision of a restricted check: a Windows pod (``spec.os.name``) passes."""

    def on_linux(annotations: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
        return None if _windows(spec) else check(annotations, spec)

    return on_linux


def allow_privilege_escalation(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_allowPrivilegeEscalation.go allowPrivilegeEscalation_1_8."""
    bad = [
        _name(c)
        for c in _containers(spec)
        if _context(c).get("allowPrivilegeEscalation") is not False
    ]
    if not bad:
        return None
    detail = f"{_named('container', bad)} must set securityContext.allowPrivilegeEscalation=false"
    return Forbidden("allowPrivilegeEscalation != false", detail)


def run_as_non_root(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_runAsNonRoot.go runAsNonRoot_1_0."""
    pod = _context(spec).get("runAsNonRoot")
    explicit, implicit = [], []
    for container in _containers(spec):
        own = _context(container).get("runAsNonRoot")
        if own is not None:
            if own is not True:
                explicit.append(_name(container))
        elif pod is not True:
            implicit.append(_name(container))
    setters = _setters(pod is not None and pod is not True, explicit)
    if setters:
        detail = f"{' and '.join(setters)} must not set securityContext.runAsNonRoot=false"
        return Forbidden("runAsNonRoot != true", detail)
    if implicit:
        detail = (
            f"pod or {_named('container', implicit)} must set securityContext.runAsNonRoot=true"
        )
        return Forbidden("runAsNonRoot != true", detail)
    return None


def _root(item: Mapping[str, Any]) -> bool:
    user = _context(item).get("runAsUser")
    return isinstance(user, int) and not isinstance(user, bool) and user == 0


def run_as_user(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_runAsUser.go runAsUser_1_23."""
    setters = _setters(_root(spec), [_name(c) for c in _containers(spec) if _root(c)])
    if not setters:
        return None
    return Forbidden("runAsUser=0", f"{' and '.join(setters)} must not set runAsUser=0")


def capabilities_restricted(_: Mapping[str, str], spec: Mapping[str, Any]) -> Forbidden | None:
    """check_capabilities_restricted.go capabilitiesRestricted_1_22."""
    undropped: list[str] = []
    adding: list[str] = []
    forbidden: set[str] = set()
    for container in _containers(spec):
        capabilities = _context(container).get("capabilities")
        if capabilities is None:
            undropped.append(_name(container))
            continue
        if "ALL" not in as_list(mapping(capabilities).get("drop")):
            undropped.append(_name(container))
        beyond = [c for c in _added(container) if c != "NET_BIND_SERVICE"]
        if beyond:
            adding.append(_name(container))
            forbidden.update(beyond)
    details = []
    if undropped:
        details.append(
            f'{_named("container", undropped)} must set securityContext.capabilities.drop=["ALL"]'
        )
    if adding:
        details.append(
            f"{_named('container', adding)} must not include {_join_quote(sorted(forbidden))} in "
            "securityContext.capabilities.add"
        )
    return Forbidden("unrestricted capabilities", "; ".join(details)) if details else None


# --- registry.go ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Revision:
    """A VersionedCheck: from policy version ``v1.minimum`` on (until the next revision),
    ``check`` runs, and the baseline checks ``overrides`` names do not."""

    minimum: int
    check: PodCheck
    overrides: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Check:
    """A check of the registry: its ID, its level, its revisions in version order."""

    id: str
    level: str
    revisions: tuple[Revision, ...]


CHECKS = (
    Check("allowPrivilegeEscalation", RESTRICTED, (
        Revision(8, allow_privilege_escalation),
        Revision(25, _not_windows(allow_privilege_escalation)),
    )),
    Check("appArmorProfile", BASELINE, (Revision(0, app_armor_profile),)),
    Check("capabilities_baseline", BASELINE, (Revision(0, capabilities_baseline),)),
    Check("capabilities_restricted", RESTRICTED, (
        Revision(22, capabilities_restricted, ("capabilities_baseline",)),
        Revision(25, _not_windows(capabilities_restricted), ("capabilities_baseline",)),
    )),
    Check("hostNamespaces", BASELINE, (Revision(0, host_namespaces),)),
    Check("hostPathVolumes", BASELINE, (Revision(0, host_path_volumes),)),
    Check("hostPorts", BASELINE, (Revision(0, host_ports),)),
    Check("hostProbesAndHostLifecycle", BASELINE, (Revision(34, host_probes_and_lifecycle),)),
    Check("privileged", BASELINE, (Revision(0, privileged),)),
    Check("procMount", BASELINE, (Revision(0, proc_mount),)),
    Check("restrictedVolumes", RESTRICTED, (
        Revision(0, restricted_volumes, ("hostPathVolumes",)),
    )),
    Check("runAsNonRoot", RESTRICTED, (Revision(0, run_as_non_root),)),
    Check("runAsUser", RESTRICTED, (Revision(23, run_as_user),)),
    Check("seLinuxOptions", BASELINE, (
        Revision(0, _selinux(_SELINUX_TYPES_1_0)),
        Revision(31, _selinux(_SELINUX_TYPES_1_31)),
    )),
    Check("seccompProfile_baseline", BASELINE, (
        Revision(0, seccomp_baseline_1_0),
        Revision(19, _seccomp(restricted=False)),
    )),
    Check("seccompProfile_restricted", RESTRICTED, (
        Revision(19, _seccomp(restricted=True), ("seccompProfile_baseline",)),
        Revision(25, _not_windows(_seccomp(restricted=True)), ("seccompProfile_baseline",)),
    )),
    Check("sysctls", BASELINE, (
        Revision(0, _sysctls(_SYSCTLS_1_0)),
        Revision(27, _sysctls(_SYSCTLS_1_27)),
        Revision(29, _sysctls(_SYSCTLS_1_29)),
        Revision(32, _sysctls(_SYSCTLS_1_32)),
    )),
    Check("windowsHostProcess", BASELINE, (Revision(0, windows_host_process),)),
)  # fmt: skip
"""The default checks of Kubernetes v1.34 (policy.DefaultChecks)."""

MAX_MINOR = max(c.revisions[-1].minimum for c in CHECKS)
"""registry.go maxVersion: ``latest``, and any later version, are evaluated as it."""


def _revision(check: Check, minor: int) -> Revision | None:
    """The check's revision in force at ``v1.minor`` (registry.go inflateVersions)."""
    return next((r for r in reversed(check.revisions) if r.minimum <= minor), None)


def checks_for(policy: LevelVersion) -> tuple[tuple[str, PodCheck], ...]:
    """registry.go EvaluatePod's checks for the level and version, by ID, in its order:
    the baseline checks' IDs sorted, then the restricted ones'; at ``restricted`` every
    baseline check too but those a restricted revision in force overrides. ``latest``, and
    a version newer than the API server's own, is the server's version (its plugin knows
    no later check)."""
    if policy.level == PRIVILEGED:
        return ()
    newest = MAX_MINOR if policy.latest is None else min(policy.latest, MAX_MINOR)
    minor = newest if policy.minor is None else min(policy.minor, newest)
    active = [(c, r) for c in CHECKS if (r := _revision(c, minor)) is not None]
    chosen = [(c, r) for c, r in active if c.level == BASELINE or policy.level == RESTRICTED]
    overridden = {o for c, r in chosen if c.level == RESTRICTED for o in r.overrides}
    kept = [(c, r) for c, r in chosen if c.id not in overridden]
    kept.sort(key=lambda pair: (pair[0].level != BASELINE, pair[0].id))
    return tuple((c.id, r.check) for c, r in kept)


def violations(
    policy: LevelVersion, annotations: Mapping[str, str], spec: Mapping[str, Any]
) -> list[Forbidden]:
    """What each check of the policy forbids of the pod, in the registry's order."""
    return [f for _, check in checks_for(policy) if (f := check(annotations, spec)) is not None]


def _forbidden(
    policy: LevelVersion, annotations: Mapping[str, str], spec: Mapping[str, Any]
) -> str | None:
    """``"LEVEL:VERSION": reason (detail), reason``, what the policy forbids of the pod
    spec as given (policy.AggregateCheckResults' ForbiddenDetail), or None when it allows
    it."""
    if policy.level == PRIVILEGED:
        return None
    found = violations(policy, annotations, spec)
    if not found:
        return None
    detail = ", ".join(f"{f.reason} ({f.detail})" if f.detail else f.reason for f in found)
    return f"{go_quote(policy.text)}: {detail}"


def violation(
    policy: LevelVersion, annotations: Mapping[str, str], spec: Mapping[str, Any]
) -> str | None:
    """admission.go EvaluatePod's refusal of the pod (after ``pods "NAME" is forbidden:``),
    or None when the policy allows it: ``violates PodSecurity "LEVEL:VERSION": reason
    (detail), reason``. The pod is checked as stored (:func:`with_apparmor_fields`)."""
    forbidden = _forbidden(policy, annotations, with_apparmor_fields(annotations, spec))
    return None if forbidden is None else f"violates PodSecurity {forbidden}"


def would_violate(
    policy: LevelVersion, annotations: Mapping[str, str], spec: Mapping[str, Any]
) -> str | None:
    """admission.go EvaluatePod's warning at the warn level, or None when it allows the pod
    spec as given: ``would violate PodSecurity "LEVEL:VERSION": reason (detail), reason``.
    The caller gives a pod as stored (:func:`with_apparmor_fields`), a template as
    written."""
    forbidden = _forbidden(policy, annotations, spec)
    return None if forbidden is None else f"would violate PodSecurity {forbidden}"
