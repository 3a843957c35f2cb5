"""The autoscaler objects of a snapshot -> :class:`~gate.model.autoscaling.AutoscalingState`.

A snapshot (a ``kubectl get -o json`` List or fitgate's ClusterSnapshot) may hold the
``kube-system/cluster-autoscaler-status`` ConfigMap, DaemonSets, the cluster-autoscaler
Deployment and Cluster API MachineDeployments. The readers keep those objects whole
(:mod:`gate.snapshot.stream`); this module reads each into typed values once. A value that
cannot be read is a :class:`~gate.errors.SnapshotError` of one line naming the object and
the field, never a traceback: a gate that guessed a group's size would answer wrongly.

Upstream (cluster-autoscaler-1.34.5): clusterstate/api/types.go (the YAML status),
clusterstate/utils/status.go (``ConfigMapLastUpdateFormat``), config/flags/flags.go (the
flags), cloudprovider/clusterapi/README.md (the annotations); the plain-text status of
≤ 1.29 is clusterstate/api/utils.go ``GetReadableString`` of that version.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from gate.errors import QuantityError, SnapshotError
from gate.inputs.manifests import bounded_yaml
from gate.inputs.shape import POD_SPEC, shape_problem
from gate.k8s.resources import pod_request_amounts
from gate.model import rfc3339_time
from gate.model.autoscaling import (
    INITIALIZING,
    RUNNING,
    AutoscalerStatus,
    AutoscalingState,
    DaemonSet,
    StatusGroup,
)
from gate.snapshot.fields import Fields
from gate.snapshot.flags import flags_of
from gate.snapshot.karpenter import KARPENTER_KINDS, karpenter_state
from gate.snapshot.machines import machine_deployment
from gate.snapshot.priorities import is_priority_config, priorities_of

STATUS_NAMESPACE, STATUS_NAME = "kube-system", "cluster-autoscaler-status"
MAX_CONFIGMAP_DATA = 1 << 20
"""pkg/apis/core/validation ``ValidateConfigMap``: a ConfigMap's data, all keys together, is
at most ``MaxSecretSize`` (1 MiB)."""
LAST_UPDATED = "cluster-autoscaler.kubernetes.io/last-updated"
"""clusterstate/utils/status.go ``ConfigMapLastUpdatedKey``."""
AUTOSCALING_KINDS = (
    "ConfigMap",
    "DaemonSet",
    "Deployment",
    "MachineDeployment",
    *KARPENTER_KINDS,
)
"""Every kind read whole for the autoscalers: Karpenter's too, whose fresh nodes run the
same DaemonSets (read once, here)."""

_GO_TIME = re.compile(r"(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d+))? ([+-]\d{2})(\d{2})\b")


def go_time(text: object) -> datetime | None:
    """A time in ``ConfigMapLastUpdateFormat`` (``2006-01-02 15:04:05.999999999 -0700
    MST``), or RFC 3339; None otherwise.

    >>> go_time("2026-08-16 10:00:00.5 +0000 UTC").isoformat()
    '2026-08-16T10:00:00.500000+00:00'
    """
    found = _GO_TIME.match(text) if isinstance(text, str) else None
    if found is None:
        return rfc3339_time(text)
    day, clock, fraction, hours, minutes = found.groups()
    fraction = f".{fraction}" if fraction else ""
    return rfc3339_time(f"{day}T{clock}{fraction}{hours}:{minutes}")


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def object_name(kind: str, obj: Mapping[str, Any]) -> str:
    """``ConfigMap "kube-system/cluster-autoscaler-status"``: how messages name an object."""
    meta = _meta(obj)
    return f'{kind} "{meta.get("namespace") or "default"}/{meta.get("name") or "?"}"'


def _is_status(obj: Mapping[str, Any]) -> bool:
    meta = _meta(obj)
    return meta.get("namespace") == STATUS_NAMESPACE and meta.get("name") == STATUS_NAME


class _Fields(Fields):
    """What the cluster-autoscaler's objects read: integers with a default, strings."""

    def __init__(self, where: str) -> None:
        self.where = where

    def integer(self, value: object, path: str, default: int | None = None) -> int:
        """A size or count as CA writes it: a Go ``int``, never negative."""
        if value is None and default is not None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"not an integer: {_shown(value)}")
        if not 0 <= value <= _GO_INT_MAX:
            raise self.fail(path, f"{_shown(value)}: not a size CA writes (0 to {_GO_INT_MAX})")
        return value

    def digits(self, text: str, path: str) -> int:
        """A size of the plain-text status, read as :meth:`integer` (no conversion of
        thousands of digits: Python refuses past 4,300 of them)."""
        if len(text) > _GO_INT_DIGITS:
            shown = f"{text[:20]}… ({len(text)} digits)"
            raise self.fail(path, f"{shown}: not a size CA writes (0 to {_GO_INT_MAX})")
        return self.integer(int(text), path)

    def text(self, value: object, path: str) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.fail(path, f"not a string: {value!r}")
        return value


_GO_INT_MAX = 2**63 - 1
_GO_INT_DIGITS = len(str(_GO_INT_MAX))


def _shown(value: object) -> str:
    """A value as a message shows it: its ``repr`` cut to 40 characters (an integer past
    a Go ``int`` by its size alone, which Python cannot print past 4,300 digits)."""
    if isinstance(value, int) and abs(value) > _GO_INT_MAX:
        return f"a number of {value.bit_length()} bits"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _yaml_group(item: object, at: str, read: _Fields) -> StatusGroup:
    group = read.mapping(item, at)
    name = read.text(group.get("name"), f"{at}.name")
    if not name:
        raise read.fail(f"{at}.name", "missing")
    health = read.mapping(group.get("health"), f"{at}.health")
    counts = read.mapping(health.get("nodeCounts"), f"{at}.health.nodeCounts")
    registered = read.mapping(counts.get("registered"), f"{at}.health.nodeCounts.registered")
    scale_up = read.mapping(group.get("scaleUp"), f"{at}.scaleUp")
    backoff = read.mapping(scale_up.get("backoffInfo"), f"{at}.scaleUp.backoffInfo")
    return StatusGroup(
        name=name,
        health=read.text(health.get("status"), f"{at}.health.status"),
        target=read.integer(health.get("cloudProviderTarget"), f"{at}.health.cloudProviderTarget"),
        min_size=read.integer(health.get("minSize"), f"{at}.health.minSize", 0),
        max_size=read.integer(health.get("maxSize"), f"{at}.health.maxSize"),
        ready=read.integer(registered.get("ready"), f"{at}.health.nodeCounts.registered.ready", 0),
        scale_up=read.text(scale_up.get("status"), f"{at}.scaleUp.status"),
        backoff_code=read.text(backoff.get("errorCode"), f"{at}.scaleUp.backoffInfo.errorCode"),
    )


def _yaml_status(body: Mapping[str, Any], read: _Fields) -> AutoscalerStatus:
    """clusterstate/api/types.go ``ClusterAutoscalerStatus``: CA writes ``autoscalerStatus``
    (``Running`` or ``Initializing``) and ``nodeGroups`` every time. A mapping without
    them is no status of CA's (``hello: world``), and a running CA's status naming no
    group gives no group to judge a scale-up by: both are refused, not read as a CA that
    scales nothing."""
    groups = body.get("nodeGroups")
    if groups is not None and not isinstance(groups, list):
        raise read.fail("data.status: nodeGroups", "not a list")
    status = AutoscalerStatus(
        groups=tuple(
            _yaml_group(g, f"data.status: nodeGroups[{i}]", read)
            for i, g in enumerate(groups or [])
        ),
        form="yaml",
        autoscaler=read.text(body.get("autoscalerStatus"), "data.status: autoscalerStatus"),
        updated=go_time(body.get("time")),
    )
    if status.autoscaler not in _CONDITIONS:
        shown = f"{status.autoscaler[:40]!r}" if status.autoscaler else "missing"
        raise read.fail(
            "data.status: autoscalerStatus",
            f"{shown}, not {' or '.join(_CONDITIONS)}: not a cluster-autoscaler status",
        )
    if not status.groups and status.autoscaler != INITIALIZING:
        raise read.fail("data.status: nodeGroups", _NO_GROUP)
    return status


_CONDITIONS = (RUNNING, INITIALIZING)
"""clusterstate/api/types.go ``ClusterAutoscalerStatusCondition``'s values."""
_NO_GROUP = (
    "no node group: a running cluster-autoscaler's status names each group it scales, so "
    "this status gives none to judge a scale-up by"
)


_TEXT_HEAD = re.compile(r"Cluster-autoscaler status at ([^\n]*):\n")
_NAME = re.compile(r"^  Name:\s+(\S+)\s*$", re.M)
_HEALTH = re.compile(
    r"^  Health:\s+(\w+) \(ready=(\d+) .*cloudProviderTarget=(\d+) "
    r"\(minSize=(\d+), maxSize=(\d+)\)\)",
    re.M,
)
_SCALE_UP = re.compile(r"^  ScaleUp:\s+(\w+)", re.M)


def _text_group(block: str, name: str, read: _Fields) -> StatusGroup:
    health, scale_up = _HEALTH.search(block), _SCALE_UP.search(block)
    if health is None:
        raise read.fail(f'data.status: node group "{name}"', "no Health line with its sizes")
    status, ready, target, least, most = health.groups()
    at = f'data.status: node group "{name}": Health'
    return StatusGroup(
        name=name,
        health=status,
        target=read.digits(target, f"{at}: cloudProviderTarget"),
        min_size=read.digits(least, f"{at}: minSize"),
        max_size=read.digits(most, f"{at}: maxSize"),
        ready=read.digits(ready, f"{at}: ready"),
        scale_up=scale_up.group(1) if scale_up else "",
    )


def _text_status(text: str, read: _Fields) -> AutoscalerStatus:
    """The plain text of CA ≤ 1.29: ``Cluster-autoscaler status at <time>:``, a
    ``Cluster-wide:`` block, then ``NodeGroups:`` with a ``Name:`` block per group."""
    head = _TEXT_HEAD.match(text)
    assert head is not None
    _, _, groups_text = text.partition("\nNodeGroups:\n")
    names = list(_NAME.finditer(groups_text))
    groups = []
    for i, found in enumerate(names):
        end = names[i + 1].start() if i + 1 < len(names) else len(groups_text)
        groups.append(_text_group(groups_text[found.end() : end], found.group(1), read))
    if not groups:
        raise read.fail("data.status: NodeGroups", _NO_GROUP)
    return AutoscalerStatus(groups=tuple(groups), form="text", updated=go_time(head.group(1)))


def autoscaler_status(obj: Mapping[str, Any]) -> AutoscalerStatus:
    """The status ConfigMap read: its ``data.status`` in either form, and the time of its
    last update (the annotation when it reads as a time)."""
    read = _Fields(object_name("ConfigMap", obj))
    data = read.mapping(obj.get("data"), "data")
    text = data.get("status")
    if not isinstance(text, str) or not text.strip():
        raise read.fail("data.status", "missing: not a cluster-autoscaler status")
    if len(text) > MAX_CONFIGMAP_DATA:  # before any parse: the YAML of 16 MB took 2.5 GB
        raise read.fail(
            "data.status",
            f"{len(text):,} characters: a ConfigMap holds at most {MAX_CONFIGMAP_DATA:,} bytes "
            "of data (the API server refuses more)",
        )
    if _TEXT_HEAD.match(text):
        status = _text_status(text, read)
    else:
        try:  # bounded as a manifest is: aliases cannot blow it up
            body = bounded_yaml(text)
        except ValueError as exc:
            raise read.fail("data.status", f"neither YAML nor CA's text form: {exc}") from None
        if not isinstance(body, Mapping):
            raise read.fail("data.status", "neither YAML nor CA's text form")
        status = _yaml_status(body, read)
    annotations = read.mapping(_meta(obj).get("annotations"), "metadata.annotations")
    updated = go_time(annotations.get(LAST_UPDATED)) or status.updated
    if updated is None:  # a status of unknown age is no fresh one
        raise read.fail(
            f"metadata.annotations[{LAST_UPDATED}]",
            "neither it nor the status's own time reads as a time: how old the status is "
            "cannot be told, so what it says of the groups cannot be trusted",
        )
    return AutoscalerStatus(status.groups, status.form, status.autoscaler, updated)


def daemon_set(obj: Mapping[str, Any]) -> DaemonSet:
    """A DaemonSet's pod template: its spec and requests (what a fresh node gives it)."""
    read = _Fields(object_name("DaemonSet", obj))
    spec = read.mapping(obj.get("spec"), "spec")
    template = read.mapping(spec.get("template"), "spec.template")
    pod = read.mapping(template.get("spec"), "spec.template.spec")
    problem = shape_problem(pod, POD_SPEC, "spec.template.spec")
    if problem is not None:  # the API server would not hold it; a fresh node never runs it
        raise SnapshotError(f"{read.where}: {problem}")
    try:
        requests = pod_request_amounts(pod)
    except QuantityError as exc:
        raise read.fail("spec.template.spec.containers", str(exc)) from None
    meta = _meta(obj)
    return DaemonSet(
        namespace=str(meta.get("namespace") or "default"),
        name=str(meta.get("name") or ""),
        pod_spec=pod,
        requests=requests,
        # node_info_utils.go isPreemptingSystemNodeCritical
        critical=pod.get("priorityClassName") == "system-node-critical"
        and pod.get("preemptionPolicy") in (None, "PreemptLowerPriority"),
    )


def autoscaling_state(objects: Mapping[str, Iterable[Any]]) -> AutoscalingState | None:
    """The autoscaler state of a snapshot's objects by kind (``AUTOSCALING_KINDS``); None
    when it recorded none of them."""
    by_kind = {
        k: [o for o in objects.get(k, ()) if isinstance(o, Mapping)] for k in AUTOSCALING_KINDS
    }
    if not any(by_kind.values()):
        return None
    status_maps = [o for o in by_kind["ConfigMap"] if _is_status(o)]
    if len(status_maps) > 1:  # one name, one object: the API server holds one
        raise SnapshotError(
            f"{object_name('ConfigMap', status_maps[0])}: recorded {len(status_maps)} times; "
            "a cluster holds one status, and which one the autoscaler wrote last is unknown"
        )
    statuses = [autoscaler_status(o) for o in status_maps]
    priority_maps = [o for o in by_kind["ConfigMap"] if is_priority_config(o)]
    if len(priority_maps) > 1:
        raise SnapshotError(
            f"{object_name('ConfigMap', priority_maps[0])}: recorded {len(priority_maps)} "
            "times; a cluster holds one, and which one the expander reads is unknown"
        )
    flags = [f for f in map(flags_of, by_kind["Deployment"]) if f is not None]
    if len(flags) > 1:
        raise SnapshotError(
            f"{flags[0].deployment} and {flags[1].deployment} both run cluster-autoscaler: "
            "whose limits and flags decide a scale-up is unknown; record one"
        )
    machines = [m for m in map(machine_deployment, by_kind["MachineDeployment"]) if m is not None]
    karpenter = karpenter_state(by_kind)
    if karpenter is None and not any(
        by_kind[k] for k in AUTOSCALING_KINDS if k not in KARPENTER_KINDS
    ):
        return None  # only another group's kinds of Karpenter's names
    return AutoscalingState(
        status=statuses[-1] if statuses else None,
        flags=flags[0] if flags else None,
        daemon_sets=tuple(map(daemon_set, by_kind["DaemonSet"])),
        machine_deployments=tuple(machines),
        karpenter=karpenter,
        priorities=priorities_of(priority_maps[0]) if priority_maps else None,
    )
