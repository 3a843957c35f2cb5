"""The JSON report's one definition (schemaVersion 3): the writer encodes these types,
``fitgate merge`` and ``--baseline`` decode into them, and ``gate/schemas/report.schema.json``
is generated from them (:func:`report_schema`; a test holds the shipped file to it).

The report is lossless: every fact a reader needs is a field of its own -- an outcome group's
``plugin`` and ``code`` beside its reasons, a warning's ``kind`` beside its text, an
autoscaler's ``kind`` and ``name`` -- so no reader recovers meaning from wording.

Every object is frozen, built by keyword, and refused on a field the contract does not have.
Field order is the order written. A field that is absent unless it applies (``baseline``
without ``--baseline``, ``shard`` outside ``check --shard``, ``policy`` for the default
policy, ``summary.nothingJudged`` when a workload was judged) defaults to ``UNSET``, which
msgspec leaves out; every other field is always written, ``null`` included. Readers decode
with the same types, so a report whose fields do not fit them is refused while decoding,
naming the JSON path; what ties fields together is checked by each reader.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal, TypeVar

import msgspec
from msgspec import UNSET, Meta, Struct, UnsetType

from gate.model import Change, Code, Family, Term, Verdict, WarningKind

T = TypeVar("T")
D = TypeVar("D")

SCHEMA_VERSION: Final = 3
MAX_SHARDS = 10_000
"""The largest N of ``--shard K/N`` (and of a report that ``fitgate merge`` reads): far
past any CI matrix (GitHub's allows 256 jobs), and a bound on what a merge walks."""

Count = Annotated[int, Meta(ge=0, le=2**63 - 1)]
GroupSize = Annotated[int, Meta(ge=1, le=2**63 - 1)]
Line = Annotated[int, Meta(ge=1, le=2**63 - 1)]
ShardNumber = Annotated[int, Meta(ge=1, le=MAX_SHARDS)]
Bitset = Annotated[str, Meta(pattern="^[0-9a-f]+$")]
Digest = Annotated[str, Meta(pattern="^[0-9a-f]{64}$")]  # SHA-256, as shard.py writes it
PortNumber = Annotated[int, Meta(ge=0, le=65535)]

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


class Summary(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How many workloads got each verdict, and whether the gate passed."""

    workloads: Count
    YES: Count
    SCALES: Count = 0
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


class Excluded(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A walked file left out, and the exclude pattern that left it out."""

    file: str
    pattern: str


class Unchecked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A document not checked: where it is, and why."""

    at: str
    reason: str


class Read(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What fitgate check read: files and documents, the walked files left out (with the
    pattern that did) and the documents not checked. A merge's report carries its first
    shard's: every shard reads the same files."""

    files: Count
    documents: Count
    excluded: list[Excluded]
    skipped: list[Unchecked]


class AllowedAddonOnly(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An allowAddonOnly rule: the workloads it names, and why."""

    workloads: str
    reason: str


class Skip(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A skip rule in force: the workloads it names, why, and until when (null: no end)."""

    workloads: str
    reason: str
    expires: str | None


class AutoscalingInput(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An autoscaler input the configuration (or --instance-types) gives, which verdicts
    after scale-up are decided with: input is instanceTypes (the catalog), template (a
    configured group's fresh node), match (the label a group's members carry) or cluster
    (the configured limits); source the file or flag that gave it; says what it says;
    sha256 the catalog file's digest (instanceTypes only)."""

    input: str
    source: str
    says: str
    sha256: str | UnsetType = UNSET


class Policy(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What the configuration or --fail-on changed of the gate's policy: where failOn was set
    (null: the default), the ADDON_ONLY workloads allowed, the skips in force and the
    autoscaler inputs the configuration gives (absent when none)."""

    failOnBy: str | None
    allowAddonOnly: list[AllowedAddonOnly]
    skip: list[Skip]
    autoscaling: list[AutoscalingInput] | UnsetType = UNSET


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
    targets no node) has ``wanted`` and ``fit`` 0."""

    wanted: Count
    fit: Count | None
    alone: Count | UnsetType = UNSET
    together: Count | UnsetType | None = UNSET
    beside: list[str] | UnsetType = UNSET
    released: Count | UnsetType = UNSET
    autoscaler: Autoscaler | UnsetType | None = UNSET
    fitRange: FitRange | UnsetType = UNSET


class OutcomeGroup(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The nodes that gave the workload's first pod the same outcome: the reasons ([] where
    it fits), the plugin that gave them and its status code (both null where it fits).
    count is every such node; nodes names at most --json-nodes of them (default 10, all with
    --json-nodes all, always all in a shard's report), in node order, so count >= the length
    of nodes."""

    reasons: list[str]
    plugin: str | None
    code: Code | None
    count: GroupSize
    nodes: Annotated[list[str], Meta(extra_json_schema={"uniqueItems": True})]


class Warning(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Something the verdict does not say: its kind, and the sentence reports print."""

    kind: WarningKind
    text: str


class Port(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    ip: str
    protocol: str
    port: PortNumber


class Cause(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The reason behind most rejections, and the field it points at."""

    family: Family
    plugin: str
    term: Term
    reason: str
    nodes: Count
    index: Count | None
    port: Port | None
    resource: str
    requested: str
    free: str | None
    freeOnAddonNodes: bool


class Field(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The manifest's field behind the cause: its path, line and scalar value."""

    path: str
    line: Line
    value: str
    partial: bool
    originLine: (
        Annotated[
            Line,
            Meta(
                description="The same field's line in the file originFile names: the "
                "workload's, or this field's own when the overlay's patch sets it."
            ),
        ]
        | UnsetType
    ) = UNSET
    originFile: (
        Annotated[
            str,
            Meta(
                description="For standard input: the kustomize overlay's patch that sets the "
                "field (--origin-root), which annotations, JUnit and SARIF point at, at "
                "originLine."
            ),
        ]
        | UnsetType
    ) = UNSET


class ScaleUp(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What would grow for the workload: nodes new nodes holding copies of its pods. A
    cluster-autoscaler node group (kind NodeGroup) grows from size from to size to, of at
    most max; a Karpenter NodePool (kind NodePool, its name as group) from the from nodes
    it has, max null, each new node one of instanceTypes."""

    kind: Literal["NodeGroup", "NodePool"] = "NodeGroup"
    group: str
    nodes: Count
    copies: Count
    from_: Count = msgspec.field(name="from")
    to: Count
    max: Count | None
    instanceTypes: (
        Annotated[
            list[str],
            Meta(
                description="NodePool: the instance types a new node may take, in "
                "Karpenter's order (cheapest first); at most the first 100, "
                "instanceTypeCount counting them all when there are more."
            ),
        ]
        | UnsetType
    ) = UNSET
    instanceTypeCount: (
        Annotated[
            Count,
            Meta(
                description="NodePool: how many instance types a new node may take, present "
                "when instanceTypes lists only the first 100 of them."
            ),
        ]
        | UnsetType
    ) = UNSET


class PoolRefusal(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Why a Ready Karpenter NodePool launches no node for the first blocked copy: reason
    (a key of blocked.reasons) and Karpenter's own text."""

    pool: str
    reason: str
    message: str


class Blocked(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The copies no node group or NodePool takes: how many, each reason with the number of
    groups or pools giving it, the autoscalers' events for them, one per line (CA's, then
    Karpenter's; "" when none is blocked), whether every reason may pass (a group in
    backoff or not ready, a status that may have changed), and each NodePool's refusal."""

    copies: Count
    reasons: dict[str, Count]
    message: str
    transient: bool
    nodePools: list[PoolRefusal] | UnsetType = UNSET


class Autoscale(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Where the workload's copies go once the autoscalers have added what they would:
    fitsNow on today's nodes, the node groups and NodePools that grow, the copies blocked."""

    fitsNow: Count
    scaleUp: list[ScaleUp]
    blocked: Blocked


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
    warnings: list[Warning]
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


def given(value: T | UnsetType, absent: D) -> T | D:
    """``value``, or ``absent`` where the report leaves the field out."""
    return absent if isinstance(value, UnsetType) else value


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
            "properties": {"verdict": {"enum": ["ADDON_ONLY", "PARTIAL"]}},
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
