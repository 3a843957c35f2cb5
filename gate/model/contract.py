"""The JSON report's one definition (schemaVersion 3): the writer encodes these types,
``fitgate merge`` and ``--baseline`` decode into them, and ``gate/schemas/report.schema.json``
is generated from them (:func:`report_schema`; a test holds the shipped file to it).

The parts of a workload's result that the model holds as the report writes them (its cause
and field, warnings, autoscale, and the run's read and policy) are the model's own types
(:class:`gate.model.Reported`), used here as they are: nothing converts them either way.
The types defined here are the report's envelope, and the two parts the model holds
otherwise (:class:`Replicas`, :class:`Snapshot`), each with its one conversion beside it.

The report is lossless: every fact a reader needs is a field of its own -- an outcome group's
``plugin`` and ``code`` beside its reasons, a warning's ``kind`` beside its text, an
autoscaler's ``kind`` and ``name`` -- so no reader recovers meaning from wording.

Every object is frozen and refused on a field the contract does not have; the envelope's
are built by keyword.
Field order is the order written. A field that is absent unless it applies (``baseline``
without ``--baseline``, ``shard`` outside ``check --shard``, ``policy`` for the default
policy, ``summary.nothingJudged`` when a workload was judged) defaults to ``UNSET``, which
msgspec leaves out; every other field is always written, ``null`` included. Readers decode
with the same types, so a report whose fields do not fit them is refused while decoding,
naming the JSON path; what ties fields together is checked by each reader.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from gate.model import (
    SNAPSHOT_CAVEAT,
    AllowedAddonOnly,
    Autoscale,
    AutoscalerRef,
    AutoscalingInput,
    Blocked,
    Cause,
    Change,
    Code,
    Count,
    Evicted,
    Excluded,
    Field,
    Line,
    Policy,
    PoolRefusal,
    Port,
    PortNumber,
    Preemption,
    Quota,
    Read,
    ReplicaFit,
    ScaleUp,
    Skip,
    SnapshotInfo,
    Unchecked,
    Verdict,
    Warning,
    given,
)

__all__ = [  # the report's parts the model defines, read from here as the rest
    "AllowedAddonOnly",
    "Autoscale",
    "AutoscalingInput",
    "Blocked",
    "Cause",
    "Count",
    "Evicted",
    "Excluded",
    "Field",
    "Line",
    "Policy",
    "PoolRefusal",
    "Port",
    "PortNumber",
    "Preemption",
    "Read",
    "ScaleUp",
    "Skip",
    "Unchecked",
    "Warning",
    "given",
]
SCHEMA_VERSION: Final = 3
MAX_SHARDS = 10_000
"""The largest N of ``--shard K/N`` (and of a report that ``fitgate merge`` reads): far
past any CI matrix (GitHub's allows 256 jobs), and a bound on what a merge walks."""

GroupSize = Annotated[int, Meta(ge=1, le=2**63 - 1)]
ShardNumber = Annotated[int, Meta(ge=1, le=MAX_SHARDS)]
Bitset = Annotated[str, Meta(pattern="^[0-9a-f]+$")]
Digest = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]  # SHA-256, as shard.py writes it

VerdictText = Annotated[str, Meta(extra_json_schema={"enum": [v.value for v in Verdict]})]
"""A verdict: text to the decoder, so that a reader names an unknown one in its own words
(shortened: the value is the report's, any length); the schema lists the seven."""


class Snapshot(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The one cluster snapshot the run evaluated against."""

    source: str
    capturedAt: str | None
    context: str | None
    server: str | None
    serverVersion: str | None
    nodes: Count
    pods: Count
    caveat: str
    cluster: (
        Annotated[
            str,
            Meta(
                description="What every report calls the cluster: --cluster-name, else the "
                "recorded context, else the snapshot file's name."
            ),
        ]
        | UnsetType
    ) = UNSET
    capturedAtGivenBy: (
        Annotated[
            str,
            Meta(
                description="Where capturedAt came from when the snapshot records none (a "
                "--snapshot-captured-at time, or the file's modification time); absent otherwise."
            ),
        ]
        | UnsetType
    ) = UNSET

    # The model's SnapshotInfo is this but for the caveat, which every report writes the
    # same (SNAPSHOT_CAVEAT): its one conversion each way is here.

    @classmethod
    def of(cls, info: SnapshotInfo, cluster: str | None = None) -> Snapshot:
        """The report's snapshot for the run's, naming the cluster as ``cluster`` when given."""
        return cls(
            source=info.source,
            capturedAt=info.captured_at,
            context=info.context,
            server=info.server,
            serverVersion=info.server_version,
            nodes=info.nodes,
            pods=info.pods,
            caveat=SNAPSHOT_CAVEAT,
            cluster=UNSET if cluster is None else cluster,
            capturedAtGivenBy=UNSET if info.captured_by is None else info.captured_by,
        )

    def info(self) -> SnapshotInfo:
        """The run's snapshot, as :meth:`of` wrote it."""
        return SnapshotInfo(
            source=self.source,
            captured_at=self.capturedAt,
            context=self.context,
            server=self.server,
            server_version=self.serverVersion,
            nodes=self.nodes,
            pods=self.pods,
            captured_by=given(self.capturedAtGivenBy, None),
        )


class Summary(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How many workloads got each verdict, and whether the gate passed."""

    workloads: Count
    YES: Count
    SCALES: Count = 0
    PREEMPTS: Count = 0
    NO: Count
    ADDON_ONLY: Count
    PARTIAL: Count
    ERROR: Count
    SKIPPED: Count
    warnings: Count
    passed: bool
    failOn: list[VerdictText]
    nothingJudged: (
        Annotated[
            str,
            Meta(
                description="Why the run judged no workload and so did not pass (exit 5); "
                "absent otherwise."
            ),
        ]
        | UnsetType
    ) = UNSET
    newNodes: (
        Annotated[
            Count,
            Meta(
                description="The nodes cluster-autoscaler would add for every workload "
                "together; absent when none and no budget is set."
            ),
        ]
        | UnsetType
    ) = UNSET
    maxNewNodes: (
        Annotated[
            Count,
            Meta(
                description="The run's budget of new nodes (autoscaling.maxNewNodes): needing "
                "more fails the gate; absent when none is set."
            ),
        ]
        | UnsetType
    ) = UNSET


class Autoscaler(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The HorizontalPodAutoscaler or KEDA ScaledObject of the run that scales the workload:
    its maximum, and how many of those pods fit (null when not worked out)."""

    kind: str
    name: str
    maximum: Count
    fit: Count | None


class FitRange(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The least and the most pods found to fit over the tie draws tried, present when
    they differ: the scheduler picks at random among nodes of the highest score, and some
    picks fit fewer pods than others. ``fit`` is the least; the range is the range found,
    not a bound on every draw."""

    least: Count
    most: Count


class Replicas(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Wanted and fitting pods, and what explains the count: ``alone`` (with the cluster as
    the snapshot has it), ``together`` (beside the run's other new workloads), ``beside``,
    ``released`` (its own running pods it replaces) and ``autoscaler``, present when the
    pods were placed (``fit`` is not null). A DaemonSet wants one pod per node it targets:
    ``wanted`` counts those nodes, ``fit`` (and ``alone``) those with room for its pod. A
    workload that wants no pods (replicas 0, a Job suspended by hand, a DaemonSet that
    targets no node) has ``wanted`` and ``fit`` 0. ``firstFits``, present when fewer pods fit
    than wanted and the outcomes are those of the first pod that does not fit: the nodes the
    first pod fits."""

    wanted: Count
    fit: Count | None
    alone: Count | UnsetType = UNSET
    together: Count | UnsetType | None = UNSET
    beside: list[str] | UnsetType = UNSET
    released: Count | UnsetType = UNSET
    autoscaler: Autoscaler | UnsetType | None = UNSET
    fitRange: FitRange | UnsetType = UNSET
    firstFits: Count | UnsetType = UNSET

    # Shaped otherwise in memory, for a reason: the placement (gate.model.ReplicaFit) holds
    # what it counted, and ``fit`` is derived from it (the least of alone and together),
    # where the report spells out ``fit`` and the range's ``least`` so that no reader must
    # derive them; the placement learns the autoscaler (from the run's inputs) apart from
    # its maximum and the pods of that maximum that fit, which the report writes together
    # and only once both are known; and a workload whose pods were not placed has only its
    # wanted count (WorkloadResult.replicas), which the report writes as ``fit`` null. The
    # one conversion each way is here, so a field is added in one place.

    @classmethod
    def of(cls, wanted: int | None, placed: ReplicaFit | None) -> Replicas | None:
        """The report's replicas for a workload that wants ``wanted`` pods (None: one
        that has no replica count) placed as ``placed`` (None: not placed)."""
        if wanted is None:
            return None
        if placed is None:
            return cls(wanted=wanted, fit=None)
        scaler = placed.autoscaler
        return cls(
            wanted=placed.wanted,
            fit=placed.fit,
            alone=placed.alone,
            together=placed.together,
            beside=list(placed.beside),
            released=placed.released,
            autoscaler=None
            if scaler is None or placed.maximum is None
            else Autoscaler(
                kind=scaler.kind, name=scaler.name, maximum=placed.maximum, fit=placed.headroom
            ),
            fitRange=UNSET if placed.most is None else FitRange(least=placed.fit, most=placed.most),
            firstFits=UNSET if placed.first_fits is None else placed.first_fits,
        )

    def placement(self) -> ReplicaFit | None:
        """How the pods were placed, as :meth:`of` wrote it; None where they were not
        (``fit`` null)."""
        alone = given(self.alone, None)
        if self.fit is None or alone is None:
            return None
        scaler = given(self.autoscaler, None)
        return ReplicaFit(
            wanted=self.wanted,
            alone=alone,
            together=given(self.together, None),
            beside=tuple(given(self.beside, [])),
            autoscaler=None if scaler is None else AutoscalerRef(scaler.kind, scaler.name),
            maximum=None if scaler is None else scaler.maximum,
            headroom=None if scaler is None else scaler.fit,
            released=given(self.released, 0),
            most=None if (found := given(self.fitRange, None)) is None else found.most,
            first_fits=given(self.firstFits, None),
        )


class OutcomeGroup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The nodes that gave the workload's first pod the same outcome (where fewer pods fit
    than wanted, replicas.firstFits present, its first pod that does not fit: the one its
    message names): the reasons ([] where it fits), the plugin that gave them and its status
    code (both null where it fits). count is every such node; nodes names at most
    --json-nodes of them (default 10, all with --json-nodes all, always all in a shard's
    report), in node order, so count >= the length of nodes."""

    reasons: list[str]
    plugin: str | None
    code: Code | None
    count: GroupSize
    nodes: Annotated[list[str], Meta(extra_json_schema={"uniqueItems": True})]


class Workload(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One workload's result. outcomes hold every node of the snapshot exactly once (the
    counts add up to snapshot.nodes), one group per distinct outcome, in the order they first
    appear in node order; empty for a workload that was not evaluated (ERROR, SKIPPED).
    allowed: an ADDON_ONLY an allowAddonOnly rule allows, which does not fail the gate."""

    kind: str
    namespace: str
    name: str
    file: str
    line: Line
    origin: str | None
    replicas: Replicas | None
    verdict: VerdictText
    allowed: bool
    message: str | None
    reason: str | None
    outcomes: list[OutcomeGroup]
    requests: dict[str, str]
    warnings: tuple[Warning, ...]
    baseline: (
        Annotated[
            Change, Meta(description="Against the --baseline report, when the run was given one.")
        ]
        | UnsetType
    ) = UNSET
    document: (
        Annotated[
            Line,
            Meta(description="For standard input: the document's place in the stream, 1 first."),
        ]
        | UnsetType
    ) = UNSET
    originFile: (
        Annotated[
            str | None,
            Meta(
                description="For standard input: the repository file its kustomize origin names, "
                "which annotations, JUnit and SARIF attach it to."
            ),
        ]
        | UnsetType
    ) = UNSET
    cause: Cause | UnsetType = UNSET
    field: Field | UnsetType = UNSET
    autoscale: (
        Annotated[
            Autoscale,
            Meta(
                description="Where cluster-autoscaler would put the copies no existing node "
                "takes, when the run judged the snapshot's node groups for them."
            ),
        ]
        | UnsetType
    ) = UNSET
    schedulingGates: (
        Annotated[
            list[str],
            Meta(
                description="The template's scheduling gates: the pod waits until each is "
                "removed, and the verdict is what happens then; absent when it has none."
            ),
        ]
        | UnsetType
    ) = UNSET
    quota: Annotated[
        Quota | None,
        Meta(description="Its pods against their namespace's quotas; null when none counts them."),
    ] = None
    preemption: (
        Annotated[
            Preemption,
            Meta(
                description="The copies that fit only by evicting running pods of lower "
                "priority, and the workloads whose pods go; absent when none does."
            ),
        ]
        | UnsetType
    ) = UNSET


class Untolerated(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A taint, and the nodes it rejected: a hex bitset over shard.nodes (bit i is
    nodes[i])."""

    key: str
    value: str
    effect: str
    nodes: Bitset


class Shard(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Only in the report of fitgate check --shard K/N: what fitgate merge needs (its outcome
    groups name every node, whatever --json-nodes says). nodes are the snapshot's node names
    in its order: a merge puts every workload's outcomes back in this order."""

    index: ShardNumber
    count: ShardNumber
    items: Count
    inputs: Digest
    cluster: str
    version: str
    positions: list[Count]
    nodes: Annotated[list[str], Meta(extra_json_schema={"uniqueItems": True})]
    untolerated: list[list[Untolerated]]


class Report(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A fitgate JSON report. warnings are about the run as a whole (a snapshot more than a
    day old), absent when none. read is what the check read and left out; policy is what the
    configuration or --fail-on changed of the gate's policy, absent for the default policy."""

    schemaVersion: Literal[3]  # SCHEMA_VERSION (a Literal takes no name)
    snapshot: Snapshot
    summary: Summary
    read: Read | UnsetType = UNSET
    policy: Policy | UnsetType = UNSET
    otherDocuments: dict[str, Count]
    warnings: list[str] | UnsetType = UNSET
    shard: Shard | UnsetType = UNSET
    workloads: list[Workload]


class Version(Struct):
    """Only a report's version, read first: each version is decoded by its own types."""

    schemaVersion: int


VERSION_DECODER = msgspec.json.Decoder(Version)
REPORT_DECODER = msgspec.json.Decoder(Report)
WORKLOAD_DECODER = msgspec.json.Decoder(Workload)

_FIELDS = msgspec.structs.fields(Report)
ReportHead: Final = msgspec.defstruct(
    "Report",
    [
        (f.name, list[msgspec.Raw] if f.name == "workloads" else f.type)
        if f.required
        else (f.name, f.type, f.default)
        for f in _FIELDS
    ],
    kw_only=True,
    frozen=True,
    forbid_unknown_fields=True,
)
""":class:`Report` with each workload left encoded (a view of the bytes, not a copy), to be
decoded one at a time by ``WORKLOAD_DECODER``: a reader that keeps a few fields of each
workload (``--baseline``) holds the file and those fields, never every workload's objects at
once. Every other field is Report's own."""
_HEAD_DECODER = msgspec.json.Decoder(ReportHead)


def report_head(data: bytes) -> Any:
    """The report ``data`` as :data:`ReportHead` (its workloads left encoded), every other
    field checked by :class:`Report`'s types (``msgspec.ValidationError`` otherwise)."""
    return _HEAD_DECODER.decode(data)


def encoded_workloads(data: bytes) -> list[msgspec.Raw]:
    """The workloads of the report ``data``, each left encoded, once every other field of the
    report is checked by :class:`Report`'s types (``msgspec.ValidationError`` otherwise)."""
    workloads: list[msgspec.Raw] = getattr(_HEAD_DECODER.decode(data), "workloads")  # noqa: B009
    return workloads


_VERDICT_RULES: list[dict[str, Any]] = [
    {  # a NO names the scheduler's message, and no node fits
        "if": {"properties": {"verdict": {"const": "NO"}}},
        "then": {
            "properties": {
                "message": {"type": "string"},
                "outcomes": {"not": {"contains": {"properties": {"reasons": {"maxItems": 0}}}}},
            }
        },
        "else": {  # a PARTIAL names the message of its first pod that does not fit
            "if": {"properties": {"verdict": {"const": "PARTIAL"}}},
            "then": {"properties": {"message": {"type": ["string", "null"]}}},
            "else": {"properties": {"message": {"type": "null"}}},
        },
    },
    {  # some node fits (unless only new nodes take the copies that fit)
        "if": {
            "properties": {"verdict": {"const": "ADDON_ONLY"}},
            "not": {"required": ["autoscale"]},
        },
        "then": {
            "properties": {"outcomes": {"contains": {"properties": {"reasons": {"maxItems": 0}}}}}
        },
    },
    {  # after scale-up: where the copies went
        "if": {"properties": {"verdict": {"const": "SCALES"}}},
        "then": {"required": ["autoscale"]},
    },
    {  # by preemption: whose pods go
        "if": {"properties": {"verdict": {"const": "PREEMPTS"}}},
        "then": {"required": ["preemption"]},
    },
    {  # not evaluated: why, and no outcomes
        "if": {"properties": {"verdict": {"enum": ["ERROR", "SKIPPED"]}}},
        "then": {
            "required": ["reason"],
            "properties": {"reason": {"type": "string"}, "outcomes": {"maxItems": 0}},
        },
    },
]


_FIT_RULE: dict[str, Any] = {  # nodes that fit have no plugin and no code; a rejection's plugin
    "if": {"properties": {"reasons": {"maxItems": 0}}},
    "then": {"properties": {"plugin": {"type": "null"}, "code": {"type": "null"}}},
    "else": {"properties": {"plugin": {"type": "string", "minLength": 1}}},
}


def report_schema() -> dict[str, Any]:
    """The JSON Schema of :class:`Report`, with what ties a workload's verdict to its
    message, reason and outcomes, and a group's reasons to its plugin and code, which the
    types alone do not say."""
    generated = msgspec.json.schema(Report)
    definitions: dict[str, Any] = generated["$defs"]
    definitions["Workload"]["allOf"] = _VERDICT_RULES
    definitions["OutcomeGroup"]["allOf"] = [_FIT_RULE]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://fitgate.dev/schemas/report.schema.json",
        **definitions.pop("Report"),
        "title": f"fitgate JSON report (schemaVersion {SCHEMA_VERSION})",
        "$defs": definitions,
    }


def schema_text() -> str:
    """The shipped schema file's text."""
    return json.dumps(report_schema(), indent=2, sort_keys=False) + "\n"
