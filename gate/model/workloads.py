"""What a run reads and answers per workload: the verdicts, where a document stands, the
workloads and pod templates read from it, their warnings and their scaling."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from gate.model.reported import PortNumber, Reported


class Verdict(str, Enum):
    """The gate's answer for one workload (the README's "Verdicts")."""

    YES = "YES"
    SCALES = "SCALES"
    """Every copy fits, some only on nodes cluster-autoscaler would add."""
    PREEMPTS = "PREEMPTS"
    """Every copy fits, some only by evicting running pods of lower priority."""
    NO = "NO"
    ADDON_ONLY = "ADDON_ONLY"
    PARTIAL = "PARTIAL"
    ERROR = "ERROR"
    SKIPPED = "SKIPPED"

    def __str__(self) -> str:
        return self.value


VERDICT_ORDER: tuple[Verdict, ...] = tuple(Verdict)
"""YES, SCALES and PREEMPTS pass by default, then the verdicts that fail, then the
unjudged."""
DEFAULT_FAIL_ON: frozenset[Verdict] = frozenset(
    {Verdict.NO, Verdict.ADDON_ONLY, Verdict.PARTIAL, Verdict.ERROR}
)

COMMENT_LIMIT = 65_536  # GitHub: "Body is too long (maximum is 65536 characters)"
"""The longest pull-request comment GitHub takes: the markdown report is rendered within it,
and the comment poster (standard library only) refuses a longer body before sending it."""


@dataclass(frozen=True, slots=True)
class Location:
    """Where a document starts: the file as the user named it, its first line, and
    the file it was rendered from when the renderer said so (Helm's ``# Source:`` comment,
    kustomize's ``config.kubernetes.io/origin`` annotation).

    For standard input, ``document`` is the document's place in the stream (1 for the
    first), and ``origin_file`` the origin as a path of the repository when it names a file
    there: reports attach the workload to that file, since standard input is none."""

    file: str
    line: int
    origin: str | None = None
    document: int | None = field(default=None, compare=False)
    origin_file: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True, slots=True)
class Source:
    """Where a document's (or a List item's) text is, to find the lines of its fields later.

    Positions are not kept per field while reading: a run of 100,000 documents would hold
    millions of them, and only the failing workloads' few fields are ever asked for. The
    text is the file's (shared by all its documents, so keeping it costs one reference);
    ``start`` and ``end`` delimit the value, which starts at 1-based ``line`` and
    0-based ``column``; ``end`` is -1 when it is a JSON value whose end is found on demand.
    """

    text: str = field(repr=False, compare=False)
    start: int
    end: int
    line: int
    column: int = 0


@dataclass(frozen=True, slots=True)
class Document:
    """One YAML/JSON document. Exactly one of ``body``, ``error`` and ``skipped`` is set,
    except for empty documents, which have none and are dropped by the reader.
    ``skipped`` says why a file was not read at all (a named pipe or a device met while
    walking a directory): a visible ``SKIPPED``, not an error and not a silent drop."""

    location: Location
    body: Mapping[str, Any] | None = None
    error: str | None = None
    skipped: str | None = None
    source: Source | None = field(default=None, compare=False, repr=False)


class WarningKind(str, Enum):
    """What a warning is about; reports choose by kind, never by the warning's words."""

    ZERO_REQUEST = "zero-request"
    """A container requests no cpu or memory: it fits every node and is evicted later."""
    NOT_MODELLED = "not-modelled"
    """A filter fitgate does not run (or a score, which no filter checks) reads the pod."""
    ADMISSION = "admission"
    """The API server changes the pod on creation in a way fitgate could not apply, or
    warns as it takes the workload (Pod Security's warn level)."""
    SCHEDULING = "scheduling"
    """The pod is not scheduled as evaluated: gated, another scheduler's, or bound by name."""
    NO_TARGET = "no-target"
    """A DaemonSet whose selector and tolerations take no node of the snapshot."""
    ROLLOUT = "rollout"
    """The rollout proceeds only by taking running pods down before new ones start, or the
    next run starts beside the running one (a CronJob's ``concurrencyPolicy: Allow``)."""
    LOST_NODE = "lost-node"
    """If the node holding most of its pods failed, the rest of the cluster could not take
    them back (below its wanted count, or below its disruption budget)."""
    AUTOSCALING = "autoscaling"
    """What cluster-autoscaler would do that the verdict does not say: blockers that may
    pass (a group in backoff, a stale status), a scale-up it could not judge."""
    IF_SCALED_UP = "if-scaled-up"
    """A workload that wants no pods (``replicas: 0``, a Job suspended by hand): one pod of
    its template would not fit if it were scaled up, or only on add-on nodes."""
    PREEMPTION = "preemption"
    """Copies that would preempt their way in past what the verdict counts."""

    def __str__(self) -> str:
        return self.value


class Warning(Reported, frozen=True):  # the report's name: this module warns of nothing
    """Something the verdict does not say: its kind, and the sentence reports print."""

    kind: WarningKind
    text: str

    def __str__(self) -> str:
        return self.text


WorkloadWarning = Warning
"""A workload's :class:`Warning`, by the name the stages that raise one use."""


@dataclass(frozen=True, slots=True)
class Workload:
    """A pod template found in a document, completed as the API server would complete
    the pod (see :mod:`gate.k8s.completion`). ``pod_spec`` is the completed ``spec``;
    ``labels`` are the template's labels, which the inter-pod filters match."""

    kind: str
    namespace: str
    name: str
    location: Location
    replicas: int | None
    pod_spec: Mapping[str, Any]
    annotations: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[WorkloadWarning, ...] = ()
    labels: Mapping[str, str] = field(default_factory=dict)
    scaling: Scaling | None = None
    source: Source | None = field(default=None, compare=False, repr=False)
    template: str = ""
    claim_templates: tuple[str, ...] = ()
    """A StatefulSet's ``volumeClaimTemplates`` names: its controller gives copy i the
    claim ``<template>-<statefulset>-<i>``."""
    """The dotted field of the pod spec in its document (``spec.template.spec``), with
    ``source`` what finds the line of a field inside it."""
    overlaps: bool = False
    """Its next pods start beside its running ones, which the change then does not release
    (a CronJob whose ``concurrencyPolicy`` is ``Allow``, the default)."""
    parallel: bool = False
    """A StatefulSet whose ``podManagementPolicy`` is ``Parallel``: its controller starts
    every copy at once, not each after the one before is ready (``OrderedReady``)."""
    first_ordinal: int = 0
    """A StatefulSet's ``spec.ordinals.start``: its copies are ordinals ``first_ordinal``
    to ``first_ordinal + replicas - 1`` (stateful_set_utils.go ``getStartOrdinal``)."""
    indexed: bool = False
    """A Job (or a CronJob's Job) whose ``completionMode`` is ``Indexed``: its pod at
    position i has completion index i, which its name carries."""
    controller_labels: Mapping[str, str] = field(default_factory=dict)
    """The labels its pods carry beyond ``labels``, added by its controller
    (:mod:`gate.k8s.podlabels`)."""
    paused: bool = False
    """A Deployment whose ``spec.paused`` is true: its controller creates no ReplicaSet for a
    new template until resumed, whatever an autoscaler sets its replicas to."""
    service_name: str = ""
    """A StatefulSet's ``serviceName``: its controller makes it its pods' subdomain."""
    pod_annotations: Mapping[str, str] = field(default_factory=dict)
    """The annotations beside the pod template's ``spec`` (a Pod's own), which its pods
    carry."""


@dataclass(frozen=True, slots=True)
class AutoscalerRef:
    """An autoscaler of the run, by its kind (``HorizontalPodAutoscaler``, or KEDA's
    ``ScaledObject``) and name."""

    kind: str
    name: str


@dataclass(frozen=True, slots=True)
class Scaling:
    """What the rest of the run says of a workload's pods: an autoscaler that targets it
    (``replicas`` is then its minimum, ``maximum`` its maximum), how many new pods its
    rollout starts before old ones go (``surge``), and the pods a PodDisruptionBudget of
    the run keeps available (``must_keep``, with the budget's name)."""

    autoscaler: AutoscalerRef | None = None
    maximum: int | None = None
    surge: int = 0
    unavailable: int | None = None
    """How many old pods a rolling update may take down before new ones are ready (its
    ``maxUnavailable``); None when the rollout starts no new pod first."""
    budget: str | None = None
    must_keep: int | None = None
    rolling_update: tuple[object, object] | None = None
    """A Deployment's RollingUpdate ``maxSurge`` and ``maxUnavailable`` as written (None
    when absent): ``surge`` and ``unavailable`` are worked out from them for its replicas,
    again when an autoscaler sets those."""
    node_surge: object = None
    """A DaemonSet's RollingUpdate ``maxSurge`` as written, when it is not 0 (None
    otherwise): its controller works it out against the nodes the DaemonSet targets, and
    while it surges a node holds the new pod beside the old one."""


class Port(Reported, frozen=True):
    # A used or wanted host port, normalised: empty IP is 0.0.0.0, empty protocol TCP. (No
    # docstring: the published schema gives a cause's port no description.)
    ip: str
    protocol: str
    port: PortNumber
