"""The ``autoscaling`` section of ``.fitgate.yaml`` ->
:class:`~gate.model.autoscaling.AutoscalingConfig`.

Validated first against ``gate/schemas/config.schema.json``; here only what the schema
cannot say is checked (a quantity, a ``min:max`` whose min exceeds its max), each problem
one line naming the file and the field (exit 2). ``coresTotal`` is in cores and
``memoryTotal`` in GiB, as cluster-autoscaler's ``--cores-total`` / ``--memory-total``
take them (config/flags/flags.go, cluster-autoscaler-1.34.5).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from gate.errors import QuantityError, UsageError
from gate.k8s.quantity import NEGATIVE
from gate.k8s.resources import exact_list, to_scheduler_units
from gate.model.autoscaling import AutoscalingConfig, ConfiguredGroup, Limits, NodeTemplate
from gate.model.taints import Taint


def _range(text: str, where: str, scale: int) -> tuple[int, int]:
    least, _, most = text.partition(":")
    low, high = int(least), int(most)
    if high < low:
        raise UsageError(f"{where}: min {low} exceeds max {high}")
    return low * scale, high * scale


def _limits(data: Mapping[str, Any], where: str) -> Limits:
    default = Limits()
    cores, memory = data.get("coresTotal"), data.get("memoryTotal")
    return Limits(
        max_nodes_total=int(data.get("maxNodesTotal", 0)),
        cores=default.cores if cores is None else _range(cores, f"{where}.coresTotal", 1),
        memory=default.memory if memory is None else _range(memory, f"{where}.memoryTotal", 2**30),
    )


def _amounts(data: object, where: str) -> dict[str, Fraction]:
    """A ResourceList as a Node's status holds it: every quantity one, none negative
    (pkg/apis/core/validation ``ValidateNodeResources`` refuses a negative one)."""
    try:
        exact = exact_list(data or {})
    except QuantityError as exc:
        raise UsageError(f"{where}: {exc}") from None
    for name, amount in exact.items():
        if amount < 0:
            shown = str((data or {})[name] if isinstance(data, Mapping) else amount)[:40]
            raise UsageError(f"{where}.{name}: quantity {shown!r} {NEGATIVE}")
    return exact


def _template(data: Mapping[str, Any], where: str) -> NodeTemplate:
    """A fresh node as configured. Checked as a Node's status is, and as no kubelet
    reports one: allocatable is capacity less what is reserved, never above it."""
    exact_allocatable = _amounts(data.get("allocatable"), f"{where}.allocatable")
    exact_capacity = _amounts(data.get("capacity"), f"{where}.capacity")
    for name, amount in exact_allocatable.items():
        most = exact_capacity.get(name)
        if most is not None and amount > most:
            raise UsageError(
                f"{where}.allocatable.{name}: {str(data['allocatable'][name])[:40]} is above "
                f"capacity.{name} {str(data['capacity'][name])[:40]}: allocatable is capacity "
                "less what the node reserves"
            )
    allocatable = to_scheduler_units(exact_allocatable)
    capacity = to_scheduler_units(exact_capacity)
    if not allocatable and not capacity:
        raise UsageError(f"{where}: a template needs its allocatable or capacity")
    return NodeTemplate(
        labels=dict(data.get("labels") or {}),
        taints=tuple(
            Taint(key=t["key"], value=t.get("value", ""), effect=t["effect"])
            for t in data.get("taints") or ()
        ),
        allocatable=allocatable or capacity,
        capacity=capacity or allocatable,
    )


def _group(data: Mapping[str, Any], where: str) -> ConfiguredGroup:
    match = data.get("match")
    label = None
    if match is not None:
        key, _, value = str(match["label"]).partition("=")
        label = (key, value)
    template = data.get("template")
    return ConfiguredGroup(
        id=str(data["id"]),
        match=label,
        template=None if template is None else _template(template, f"{where}.template"),
    )


def autoscaling_config(data: Mapping[str, Any] | None, source: str) -> AutoscalingConfig:
    """The validated ``autoscaling`` section (None: absent) of the file ``source``."""
    if data is None:
        return AutoscalingConfig()
    where = f"{source}: autoscaling"
    groups = data.get("groups") or ()
    ids = [str(g["id"]) for g in groups]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise UsageError(f"{where}.groups: group {repeated[0]!r} is given twice")
    cluster = data.get("cluster")
    return AutoscalingConfig(
        groups=tuple(_group(g, f"{where}.groups[{i}]") for i, g in enumerate(groups)),
        limits=None if cluster is None else _limits(cluster, f"{where}.cluster"),
        transient_fails=data.get("transient") == "fail",
        max_new_nodes=data.get("maxNewNodes"),
    )
