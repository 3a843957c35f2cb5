"""Where the common custom kinds keep their pod templates: one table, one row per kind.

A row names the kind by its API group and kind (``apps.kruise.io`` ``StatefulSet`` is not the
core StatefulSet) and lists its template sites. A site is one pod template, or one per entry
of a map or list (a Kubeflow job's replica types, a RayCluster's worker groups, a JobSet's
replicated jobs, a Volcano job's tasks, an Argo workflow's templates): each becomes its own
workload, named ``Kind namespace/name [label]``, e.g. ``PyTorchJob kubeflow/train [Worker]``.

Each site also says how many pods it wants: the product of its count fields, each read from
the site's holder (the entry, or the document itself), e.g. a JobSet replicated job wants
``replicas`` x ``template.spec.parallelism`` pods and a LeaderWorkerSet's workers
``spec.replicas`` x (``size`` - 1). ``None`` is a per-node kind (a DaemonSet).

The table holds data only; :mod:`gate.inputs.workloads` checks each template it points at.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gate.inputs.counts import BadCount, read_count
from gate.model import FieldPath
from gate.untyped import at

Path = tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Count:
    """One factor of a site's pod count: the integer at ``path`` (``default`` when absent),
    minus ``less``. It must be an int32 from 0 up (:mod:`gate.inputs.counts`); for a field
    that is ``text`` by type, a string of its digits (Knative's scale annotations)."""

    path: Path
    default: int = 1
    less: int = 0
    text: bool = False


@dataclass(frozen=True, slots=True)
class Site:
    """One pod template of a kind, or one per entry of ``each``.

    ``spec`` are paths from the holder to the pod spec, the first present one wins (a
    LeaderWorkerSet's leader uses the worker template when it has none of its own).
    ``each`` is the path from the document to a map (entries named by their key) or a list
    (entries named by their ``name_key`` field) of holders; empty, the document is the holder.
    ``label`` names the template in the workload's name, before the entry's own name.
    An ``optional`` site without a template is no workload. ``argo`` sites are Argo
    Workflows templates: the pod is built from the template's container or script.
    """

    spec: tuple[Path, ...] = ()
    label: str = ""
    each: Path = ()
    name_key: str = "name"
    count: tuple[Count, ...] | None = ()
    optional: bool = False
    argo: bool = False


@dataclass(frozen=True, slots=True)
class CustomKind:
    """A kind that is not core Kubernetes but carries pod templates. ``workload_ref`` kinds
    (Argo Rollouts) may instead name a Deployment of the same namespace whose template they
    run, with their own replica count."""

    group: str
    kind: str
    sites: tuple[Site, ...]
    workload_ref: bool = False


def _path(dotted: str) -> Path:
    return tuple(dotted.split("."))


def _single(spec: str, *counts: Count) -> tuple[Site, ...]:
    return (Site(spec=(_path(spec),), count=counts),)


def _replica_types(field: str) -> tuple[Site, ...]:
    """Kubeflow training jobs: one template per replica type (``Master``, ``Worker``...)."""
    return (
        Site(
            spec=(("template", "spec"),),
            each=("spec", field),
            count=(Count(("replicas",)),),
        ),
    )


def _ray(cluster: str) -> tuple[Site, ...]:
    """A RayCluster spec at ``cluster``: the head, then each worker group (``replicas``
    defaults to 0 in the CRD; a multi-host group makes ``numOfHosts`` pods per replica)."""
    return (
        Site(spec=(_path(f"{cluster}.headGroupSpec.template.spec"),), label="head"),
        Site(
            spec=(("template", "spec"),),
            label="worker",
            each=_path(f"{cluster}.workerGroupSpecs"),
            name_key="groupName",
            count=(Count(("replicas",), default=0), Count(("numOfHosts",))),
        ),
    )


def _argo(templates: str) -> tuple[Site, ...]:
    return (Site(each=_path(templates), argo=True),)


_MIN_SCALE = Count(
    ("spec", "template", "metadata", "annotations", "autoscaling.knative.dev/min-scale"),
    text=True,
)
_REPLICAS = Count(("spec", "replicas"))

CUSTOM_KINDS: tuple[CustomKind, ...] = (
    CustomKind("argoproj.io", "Rollout", _single("spec.template.spec", _REPLICAS), True),
    CustomKind("serving.knative.dev", "Service", _single("spec.template.spec", _MIN_SCALE)),
    CustomKind("serving.knative.dev", "Configuration", _single("spec.template.spec", _MIN_SCALE)),
    CustomKind(
        "keda.sh",
        "ScaledJob",
        _single("spec.jobTargetRef.template.spec", Count(_path("spec.jobTargetRef.parallelism"))),
    ),
    CustomKind("apps.kruise.io", "CloneSet", _single("spec.template.spec", _REPLICAS)),
    CustomKind("apps.kruise.io", "StatefulSet", _single("spec.template.spec", _REPLICAS)),
    CustomKind(
        "apps.kruise.io",
        "DaemonSet",
        (Site(spec=(_path("spec.template.spec"),), count=None),),
    ),
    CustomKind("kubeflow.org", "PyTorchJob", _replica_types("pytorchReplicaSpecs")),
    CustomKind("kubeflow.org", "TFJob", _replica_types("tfReplicaSpecs")),
    CustomKind("kubeflow.org", "MPIJob", _replica_types("mpiReplicaSpecs")),
    CustomKind("kubeflow.org", "XGBoostJob", _replica_types("xgbReplicaSpecs")),
    CustomKind("kubeflow.org", "PaddleJob", _replica_types("paddleReplicaSpecs")),
    CustomKind("ray.io", "RayCluster", _ray("spec")),
    CustomKind(
        "ray.io",
        "RayJob",
        (
            *_ray("spec.rayClusterSpec"),
            Site(spec=(_path("spec.submitterPodTemplate.spec"),), label="submitter", optional=True),
        ),
    ),
    CustomKind("ray.io", "RayService", _ray("spec.rayClusterConfig")),
    CustomKind(
        "jobset.x-k8s.io",
        "JobSet",
        (
            Site(
                spec=(_path("template.spec.template.spec"),),
                each=("spec", "replicatedJobs"),
                count=(Count(("replicas",)), Count(_path("template.spec.parallelism"))),
            ),
        ),
    ),
    CustomKind(
        "leaderworkerset.x-k8s.io",
        "LeaderWorkerSet",
        (
            Site(
                spec=(
                    _path("spec.leaderWorkerTemplate.leaderTemplate.spec"),
                    _path("spec.leaderWorkerTemplate.workerTemplate.spec"),
                ),
                label="leader",
                count=(_REPLICAS,),
            ),
            Site(
                spec=(_path("spec.leaderWorkerTemplate.workerTemplate.spec"),),
                label="worker",
                count=(_REPLICAS, Count(_path("spec.leaderWorkerTemplate.size"), less=1)),
            ),
        ),
    ),
    CustomKind(
        "batch.volcano.sh",
        "Job",
        (
            Site(
                spec=(("template", "spec"),), each=("spec", "tasks"), count=(Count(("replicas",)),)
            ),
        ),
    ),
    CustomKind("argoproj.io", "Workflow", _argo("spec.templates")),
    CustomKind("argoproj.io", "WorkflowTemplate", _argo("spec.templates")),
    CustomKind("argoproj.io", "ClusterWorkflowTemplate", _argo("spec.templates")),
    CustomKind("argoproj.io", "CronWorkflow", _argo("spec.workflowSpec.templates")),
)

WORKLOAD_REF_KINDS = frozenset((row.group, row.kind) for row in CUSTOM_KINDS if row.workload_ref)
"""Kinds whose ``spec.workloadRef`` is resolved whatever template path is configured."""

KindTable = Mapping[tuple[str, str], CustomKind]


def kind_table(kinds: Sequence[CustomKind] = CUSTOM_KINDS) -> dict[tuple[str, str], CustomKind]:
    """``(group, kind) -> row``; a later row replaces an earlier one of the same kind."""
    return {(row.group, row.kind): row for row in kinds}


def api_group(api_version: object) -> str:
    """``apps.kruise.io/v1beta1`` -> ``apps.kruise.io``; ``v1`` (the core group) -> ``""``."""
    text = api_version if isinstance(api_version, str) else ""
    group, slash, _ = text.rpartition("/")
    return group if slash else ""


@dataclass(frozen=True, slots=True)
class Template:
    """One pod template found by a site: its label, the field it was read from (for error
    messages), the pod spec as found (checked later), and the pods it wants (or why a count
    field of it holds no count)."""

    label: str
    field: str
    spec: object
    replicas: int | BadCount | None


def _dotted(path: Path) -> str:
    return ".".join(path)


def _count(
    holder: object, counts: tuple[Count, ...] | None, where: FieldPath
) -> int | BadCount | None:
    """The product of the site's count fields under ``holder`` (at ``where`` in the
    document); the first field that holds no count instead."""
    if counts is None:
        return None
    total = 1
    for count in counts:
        value = read_count(holder, count.path, count.default, where=where, as_text=count.text)
        if isinstance(value, BadCount):
            return value
        total *= max(value - count.less, 0)
    return total


Holder = tuple[str, str, FieldPath, object]
"""An entry of a site: its name, its field as text and as steps, and the entry itself."""


def _holders(body: Mapping[str, Any], site: Site) -> Iterator[Holder] | str:
    """Each entry of the site, or why there is none."""
    if not site.each:
        return iter([("", "", (), body)])
    where = _dotted(site.each)
    entries = at(body, site.each)
    if isinstance(entries, Mapping) and entries:
        return (
            (str(key), f"{where}.{key}", (*site.each, str(key)), value)
            for key, value in entries.items()
        )
    if isinstance(entries, list) and entries:
        return (
            (_entry_name(item, site.name_key, i), f"{where}[{i}]", (*site.each, i), item)
            for i, item in enumerate(entries)
        )
    return f"{where}: missing or empty"


def _entry_name(item: object, key: str, index: int) -> str:
    name = item.get(key) if isinstance(item, Mapping) else None
    return str(name) if isinstance(name, (str, int)) and str(name) else f"#{index}"


def _label(site: Site, name: str) -> str:
    return " ".join(part for part in (site.label, name) if part)


def templates(body: Mapping[str, Any], row: CustomKind) -> Iterator[Template | str]:
    """Every pod template a document of ``row``'s kind carries, in document order; a string
    says why a required one cannot be found (an ERROR naming the field)."""
    for site in row.sites:
        holders = _holders(body, site)
        if isinstance(holders, str):
            if not site.argo:
                yield holders
            continue
        for name, where, steps, holder in holders:
            if site.argo:
                pod = argo_pod(body, site.each[:-1], holder)
                if pod is not None:
                    yield Template(_label(site, name), where, pod, 1)
                continue
            found = next((p for p in site.spec if at(holder, p) is not None), None)
            if found is None and site.optional:
                continue
            path = found or site.spec[0]
            field = ".".join(part for part in (where, _dotted(path)) if part)
            count = _count(holder, site.count, steps)
            yield Template(_label(site, name), field, at(holder, path), count)


# An Argo template's own field wins over the workflow's default of the same name
# (argo-workflows workflow/controller/workflowpod.go, createWorkflowPod).
_ARGO_POD_FIELDS = (
    "nodeSelector",
    "affinity",
    "tolerations",
    "priorityClassName",
    "schedulerName",
    "securityContext",
    "serviceAccountName",
)


def argo_pod(body: Mapping[str, Any], workflow: Path, template: object) -> dict[str, Any] | None:
    """The pod an Argo Workflows template runs as, or None for a template that runs no pod
    of its own (steps, dag, resource, suspend, http...).

    The main container is the template's ``container`` or ``script`` (a container with a
    ``source``), or the containers of its ``containerSet``; ``sidecars`` run beside it and
    ``initContainers`` before it. The executor's ``init`` and ``wait`` containers are not
    added: their requests come from the controller's configuration, which manifests do not
    hold.
    """
    if not isinstance(template, Mapping):
        return None
    main = template.get("container") or template.get("script")
    container_set = at(template, ("containerSet", "containers"))
    if isinstance(main, Mapping):
        # Argo names the template's container "main" (common.MainContainerName).
        container = {"name": "main", **{k: v for k, v in main.items() if k != "source"}}
        containers: list[object] = [container]
    elif isinstance(container_set, list) and container_set:
        containers = list(container_set)
    else:
        return None
    sidecars = template.get("sidecars")
    if isinstance(sidecars, list):
        containers.extend(sidecars)
    pod: dict[str, Any] = {"containers": containers}
    if isinstance(template.get("initContainers"), list):
        pod["initContainers"] = template["initContainers"]
    defaults = at(body, workflow)
    defaults = defaults if isinstance(defaults, Mapping) else {}
    for key in _ARGO_POD_FIELDS:
        value = template.get(key, defaults.get(key))
        if value is not None:
            pod[key] = value
    if defaults.get("hostNetwork") is not None:
        pod["hostNetwork"] = defaults["hostNetwork"]
    return pod


def pod_template_path(body: Mapping[str, Any], limit: int = 8) -> str | None:
    """The first field under ``spec`` that holds a pod spec (a mapping whose ``containers``
    is a non-empty list of mappings), e.g. ``spec.template.spec``; None when there is none.
    A CRD's schema names ``containers`` too, but as a mapping: it is not a pod template."""
    return _find_pod_spec(body.get("spec"), "spec", limit)


def _find_pod_spec(node: object, where: str, limit: int) -> str | None:
    if limit < 0:
        return None
    if isinstance(node, Mapping):
        containers = node.get("containers")
        if (
            isinstance(containers, list)
            and containers
            and all(isinstance(c, Mapping) for c in containers)
        ):
            return where
        for key, value in node.items():
            found = _find_pod_spec(value, f"{where}.{key}", limit - 1)
            if found:
                return found
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found = _find_pod_spec(value, f"{where}[{i}]", limit - 1)
            if found:
                return found
    return None
