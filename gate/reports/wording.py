"""Every sentence the human reports say, stated once.

The text summary, the markdown comment and step summary, JUnit and the workflow
annotations lay these sentences out in their own formats (and escape them there); what
the sentences say, and when, is decided here only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from gate.model import (
    JUDGED,
    KARPENTER_EVENT,
    NODE_POOL,
    ROOM_PLUGINS,
    SNAPSHOT_CAVEAT,
    VERDICT_ORDER,
    Autoscale,
    BaselineEntry,
    Change,
    NodeOutcome,
    NodeOutcomes,
    ReadSummary,
    Report,
    SnapshotInfo,
    Term,
    Verdict,
    WorkloadResult,
    given,
    positions,
    rfc3339_time,
)
from gate.reports.views import Views, fitting_count, fitting_nodes

NODES_SHOWN = 5
_STDIN_NAMES = ("-", "<stdin>", "")

# --- the snapshot ----------------------------------------------------------------------------


def snapshot_age(captured_at: str | None, now: datetime) -> str | None:
    """``3h 5m`` style age of an RFC 3339 timestamp, or None when unknown or unparsable."""
    taken = rfc3339_time(captured_at)
    if taken is None:
        return None
    seconds = max(0, int((now - taken).total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    return f"{minutes}m"


def configuration_note(read: ReadSummary) -> str:
    """Which configuration the run applied, or that it found none (where it looked)."""
    if read.config:
        return f"Configuration: {read.config}."
    return (
        "Configuration: none (no .fitgate.yaml in the working directory or above it; "
        "--config FILE names one)."
    )


def provenance(
    info: SnapshotInfo,
    now: datetime | None,
    warnings: Sequence[str] = (),
    *,
    cluster: str | None = None,
    read: ReadSummary | None = None,
) -> str:
    """The snapshot line of the human reports: the cluster as every report names it
    (when that is not the recorded context), the snapshot, the configuration applied
    (when the run read files), and the run's own warnings."""
    where = info.context or info.source
    named = f" (cluster {cluster})" if cluster and cluster != info.context else ""
    parts = [f"snapshot {where}{named}: {info.nodes} nodes, {info.pods} pods"]
    if info.server_version:
        parts.append(f"server {info.server_version}")
    if info.captured_at:
        age = snapshot_age(info.captured_at, now) if now else None
        notes = [f"{age} ago"] if age else []
        notes += [f"given by {info.captured_by}"] if info.captured_by else []
        parts.append(f"taken {info.captured_at}" + (f" ({'; '.join(notes)})" if notes else ""))
    else:
        parts.append("time of capture unknown")
    warned = "".join(f" Warning: {w}." for w in warnings)
    configured = "" if read is None else f" {configuration_note(read)}"
    return ", ".join(parts) + f"; {SNAPSHOT_CAVEAT}.{configured}{warned}"


# --- a workload: its name and place ----------------------------------------------------------


def display_title(result: WorkloadResult) -> str:
    return result.title


def _piped(result: WorkloadResult) -> bool:
    return result.location.file in _STDIN_NAMES


def repo_path(result: WorkloadResult) -> str | None:
    """The file reports attach the workload to, as a repository-relative path: its own, or
    for standard input the overlay's patch that sets the field behind its cause, else the
    repository file its kustomize origin names; None when there is none.

    GitLab, action-junit-report and GitHub annotations match ``file`` against the
    checkout literally, so ``./deploy/a.yaml`` is written ``deploy/a.yaml``.
    """
    path = result.location.file
    if path in _STDIN_NAMES:
        at = result.field_at
        return at.origin_file if at is not None and at.origin_file else result.location.origin_file
    while path.startswith("./"):
        path = path[2:]
    return path


def document_line(result: WorkloadResult) -> int:
    """The document's line in :func:`repo_path`'s file: 1 in an origin file, whose lines
    are not the rendered stream's; in an overlay's patch, the line of the field it sets."""
    if not _piped(result):
        return result.location.line
    at = result.field_at
    return (at.origin_line or 1) if at is not None and at.origin_file else 1


def where(result: WorkloadResult) -> str:
    """``file:line`` for readers, with the renderer's origin (Helm's ``# Source:``, kustomize's
    origin annotation) when there was one; standard input is ``stdin#N``, its N-th
    document."""
    location = result.location
    if _piped(result):
        name = f"stdin#{location.document}" if location.document else "stdin"
    else:
        name = repo_path(result) or "stdin"
    place = f"{name}:{location.line}"
    return f"{place} ({location.origin})" if location.origin else place


def field_sentence(result: WorkloadResult) -> str | None:
    """The field behind the workload's cause and how far it is from a fit, e.g.
    ``containers[0].resources.requests.cpu: 2 — the largest free cpu on a user node is
    1500m``, or ``tolerations — 3 node(s) had untolerated taint {CriticalAddonsOnly: true}``;
    None for a workload no node that counts rejects."""
    cause = result.cause
    if cause is None:
        return None
    at = result.field_at
    if at is not None:
        value = " ".join(at.value.split())  # a scalar from the manifest: one line
        named = f"{at.path}: {value}" if value else at.path
        if at.partial:
            named += f" (the pod asks {cause.requested} in all)"
    elif cause.term is Term.REQUEST:
        named = f"requests.{cause.resource}: {cause.requested}"
    else:
        named = "the pod spec"
    if cause.term is not Term.REQUEST:
        return f"{named} — {cause.nodes} {cause.reason}"
    if cause.free is None:
        return f"{named} — no node passes the other filters"
    pool = "an add-on node" if cause.free_on_addon else "a user node"
    return f"{named} — the largest free {cause.resource} on {pool} is {cause.free}"


def field_line(result: WorkloadResult) -> str | None:
    """:func:`field_sentence` after the line it is on: ``line 19: containers[0]...``."""
    sentence = field_sentence(result)
    if sentence is None or result.field_at is None:
        return sentence
    return f"line {result.field_at.line}: {sentence}"


def pointed_line(result: WorkloadResult) -> int:
    """The line reports point at in :func:`repo_path`'s file: the field's behind the cause,
    else the document's (1 in an origin file)."""
    at = result.field_at
    if at is None:
        return document_line(result)
    if _piped(result):
        return at.origin_line or 1
    return at.line


def requests_text(result: WorkloadResult) -> str:
    """``cpu 2, memory 512Mi``; empty when the pod requests nothing."""
    return ", ".join(f"{name} {amount}" for name, amount in result.requests)


# --- a workload: why it got its verdict ------------------------------------------------------


def node_list(names: Sequence[str], limit: int, total: int | None = None) -> str:
    """At most ``limit`` of ``names``, and how many more of ``total`` (all of ``names``
    when not given) there are."""
    shown = ", ".join(names[:limit])
    more = (len(names) if total is None else total) - limit
    return shown + (f" and {more} more" if more > 0 else "")


def _histogram(counted: Mapping[str, int]) -> str:
    """``3 Insufficient cpu, 1 Too many pods``: counts first, sorted as FitError sorts."""
    entries = (f"{n} {reason}" for reason, n in counted.items())
    return ", ".join(sorted(entries, key=lambda e: e.encode("utf-8")))


def wants_none_sentence(result: WorkloadResult) -> str | None:
    """``wants no pods`` (``replicas: 0``, a Job suspended by hand) or, for a DaemonSet,
    ``targets no node``: a workload that asks for no pod, which no count of nodes
    describes; None for any other."""
    placed = result.placement
    if placed is None or placed.wanted:
        return None
    return "targets no node" if result.kind == "DaemonSet" else "wants no pods"


def fits_sentence(result: WorkloadResult, views: Views) -> str:
    none = wants_none_sentence(result)
    if none is not None:
        return none
    placed = result.placement
    # A PARTIAL's outcomes are its first copy that does not fit; the count is the first's.
    first = placed.first_fits if placed is not None else None
    fitting = views.of(fitting_count, result.nodes) if first is None else first
    text = f"fits {fitting} of {len(result.nodes)} nodes"
    headroom = headroom_sentence(result)
    return f"{text}; {headroom}" if headroom else text


_REPLICA_KINDS = frozenset({"Deployment", "ReplicaSet", "StatefulSet", "ReplicationController"})


def _pods_noun(result: WorkloadResult) -> str:
    return "replicas" if result.kind in _REPLICA_KINDS else "pods"


def _names(titles: Sequence[str]) -> str:
    """``api``, ``api and worker``, ``api, worker and 3 more``."""
    if len(titles) <= 2:
        return " and ".join(titles)
    return f"{titles[0]}, {titles[1]} and {len(titles) - 2} more"


def replicas_sentence(result: WorkloadResult) -> str | None:
    """How many of the wanted pods fit, where that is fewer than wanted:
    ``3 of 10 replicas fit``, or ``fits alone; beside api and worker, 2 of 4 replicas fit``
    when the run's other new workloads take the room it would have had."""
    placed = result.placement
    if placed is None or result.kind == "DaemonSet":  # its nodes say it: reason_groups
        return None
    noun = _pods_noun(result)
    alone = (
        "fits alone"
        if placed.alone >= placed.wanted
        else f"{placed.alone} of {placed.wanted} {noun} fit"
    )
    if placed.together is not None and placed.together < placed.alone:
        beside = _names(placed.beside) or "the run's other new workloads"
        return f"{alone}; beside {beside}, {placed.together} of {placed.wanted} {noun} fit"
    if placed.alone < placed.wanted:
        return alone
    return None


def headroom_sentence(result: WorkloadResult) -> str | None:
    """How far an autoscaler could grow the workload, after its minimum, when all of that
    fits: ``the HPA's minimum of 3 replicas fit; room for 7 of its 20``; else ``room for 7
    of the HPA's 20``."""
    placed = result.placement
    if placed is None or placed.maximum is None or placed.headroom is None:
        return None
    kind = placed.autoscaler.kind if placed.autoscaler is not None else ""
    scaler = "HPA" if kind == "HorizontalPodAutoscaler" else "ScaledObject"
    if placed.wanted and placed.fit >= placed.wanted:
        noun, fit = (
            (_pods_noun(result), "fit") if placed.wanted != 1 else (_pods_noun(result)[:-1], "fits")
        )
        minimum = f"the {scaler}'s minimum of {placed.wanted} {noun} {fit}"
        return f"{minimum}; room for {placed.headroom} of its {placed.maximum}"
    return f"room for {placed.headroom} of the {scaler}'s {placed.maximum}"


def addon_only_sentence(result: WorkloadResult, views: Views) -> str:
    """Where an ``ADDON_ONLY`` fits, after why the configuration allows it, when it does."""
    fits = node_list(views.of(fitting_nodes, result.nodes), NODES_SHOWN)
    allowed = f"{result.reason}; " if result.allowed and result.reason else ""
    return f"{allowed}only CriticalAddonsOnly (system) nodes fit: {fits}"


def _lacking_room(nodes: NodeOutcomes) -> list[tuple[NodeOutcome, int]]:
    """The groups of nodes the pod is meant for that reject it for room (a DaemonSet's
    targeted nodes without room)."""
    return [(o, bits) for o, bits in nodes.groups if o.plugin in ROOM_PLUGINS and not o.fits]


def _partial_headline(nodes: NodeOutcomes) -> str:
    lacking: Counter[str] = Counter()
    short = 0
    for shown, bits in _lacking_room(nodes):
        short += bits.bit_count()
        for reason in shown.reasons:
            lacking[reason] += bits.bit_count()
    targeted = short + nodes.fitting.bit_count()
    return f"no room on {short} of {targeted} targeted nodes: {_histogram(lacking)}"


def daemonset_beside(result: WorkloadResult) -> str:
    """``beside web/api, `` when the run's other new workloads hold the room a DaemonSet
    lacks on some of its nodes (the nodes' sentence follows); else nothing."""
    placed = result.placement
    if placed is None or placed.together is None or placed.together >= placed.alone:
        return ""
    beside = _names(placed.beside) or "the run's other new workloads"
    return f"beside {beside}, "


def headline(result: WorkloadResult, views: Views | None = None) -> str:
    """One line saying why a workload got its verdict: the scheduler's own message for NO.

    Line breaks (a YAML error's, say) become spaces: JUnit's ``message`` and a table cell
    hold one line. Said once per result for the writers sharing ``views``.
    """
    return (views or Views()).of_result(_one_line, result)


def _one_line(result: WorkloadResult, views: Views) -> str:
    sentence = with_quota(result, _headline(result, views))
    return " ".join(gated(result, sentence).split())


def quota_sentence(result: WorkloadResult) -> str | None:
    """What the namespace's quota refused, when it refused a pod or the object:
    ``2 of 3 pods created; the 3rd: pods "web-..." is forbidden: exceeded quota: ...``, or
    the refusal alone when nothing was created."""
    quota = result.quota
    if quota is None or quota.message is None:
        return None
    placed = result.placement
    wanted = placed.wanted if placed is not None else result.replicas
    if quota.created == 0 or not wanted:
        return quota.message
    return (
        f"{quota.created} of {wanted} pods created; "
        f"the {ordinal(quota.created + 1)}: {quota.message}"
    )


def _quota_only(result: WorkloadResult) -> str | None:
    """:func:`quota_sentence` when the quota alone keeps pods out: every pod created has
    room (a DaemonSet whose every targeted node has room, say)."""
    placed, quota = result.placement, result.quota
    if placed is None or quota is None or placed.alone < quota.created:
        return None
    return quota_sentence(result)


def with_quota(result: WorkloadResult, sentence: str) -> str:
    """``sentence``, followed by :func:`quota_sentence` unless it already says the refusal."""
    said = quota_sentence(result)
    quota = result.quota
    if said is None or quota is None or (quota.message or "") in sentence:
        return sentence
    return f"{sentence}; {said}"


def gated(result: WorkloadResult, sentence: str) -> str:
    """``sentence`` as it holds once the workload's scheduling gates are removed: ``held by
    scheduling gate example.com/quota-check until it is removed; then: fits ...``; the
    sentence itself for a pod without gates, and for a workload not judged (a pod the API
    server refuses is never created, gated or not)."""
    gates = result.gates
    if not gates or result.verdict not in JUDGED:
        return sentence
    if len(gates) == 1:
        held = f"held by scheduling gate {gates[0]} until it is removed"
    else:
        held = f"held by scheduling gates {', '.join(gates)} until they are removed"
    return f"{held}; then: {sentence}"


def _headline(result: WorkloadResult, views: Views) -> str:
    verdict = result.verdict
    scaled = scale_up_lines(result)
    if scaled:
        return " ".join(scaled)
    if verdict is Verdict.NO:
        return result.message or "no node passes every filter"
    if verdict is Verdict.ADDON_ONLY:
        return addon_only_sentence(result, views)
    if verdict is Verdict.PARTIAL:
        replicas = replicas_sentence(result)
        quota_only = _quota_only(result)
        if replicas is None and quota_only is not None:
            return quota_only
        if replicas is None:
            return daemonset_beside(result) + views.of(_partial_headline, result.nodes)
        return _with_first_unfit(result, replicas)
    if verdict is Verdict.YES:
        return fits_sentence(result, views)
    if verdict is Verdict.PREEMPTS:
        return preemption_sentence(result)
    return result.reason or verdict.value.lower()


def _taint_names(nodes: NodeOutcomes) -> str:
    counts: Counter[str] = Counter()
    for shown, bits in nodes.groups:
        if shown.taint is not None:
            counts[str(shown.taint)] += bits.bit_count()
    return ", ".join(f"{n} x {taint}" for taint, n in sorted(counts.items()))


def _no_room(nodes: NodeOutcomes) -> str:
    """The targeted nodes without room, each with why (the text summary's detail under
    :func:`_partial_headline`)."""
    lacking = 0
    for _, bits in _lacking_room(nodes):
        lacking |= bits
    first = map(nodes.__getitem__, positions(lacking, NODES_SHOWN))
    shown = [f"{o.node} ({', '.join(o.reasons)})" for o in first]
    return f"without room: {node_list(shown, NODES_SHOWN, lacking.bit_count())}"


def detail(result: WorkloadResult, views: Views) -> list[str]:
    """The lines under a workload in the text summary (empty ones are not printed); the
    first says what holds the pod when it is gated."""
    lines = _detail(result, views)
    said = quota_sentence(result)
    refusal = result.quota.message if result.quota is not None else None
    if said is not None and refusal is not None and not any(refusal in line for line in lines):
        lines.append(said)
    return [gated(result, lines[0]), *lines[1:]] if lines else lines


def _detail(result: WorkloadResult, views: Views) -> list[str]:
    verdict = result.verdict
    scaled = scale_up_lines(result)
    if scaled:
        return [*scaled, field_line(result) or ""]
    replicas = replicas_sentence(result)
    if verdict is Verdict.NO:
        lines = [result.message or ""]
        if replicas and result.replicas and result.replicas > 1:
            lines.append(replicas)
        taints = views.of(_taint_names, result.nodes)
        if taints and result.quota is None:  # a refused pod meets no node's taint
            lines.append(f"untolerated taints: {taints}")
        return [*lines, field_line(result) or ""]
    if verdict is Verdict.YES:
        return [fits_sentence(result, views)]
    if verdict is Verdict.PREEMPTS:
        return [preemption_sentence(result)]
    if verdict is Verdict.ADDON_ONLY:
        return [addon_only_sentence(result, views), replicas or "", field_line(result) or ""]
    quota_only = _quota_only(result)
    if verdict is Verdict.PARTIAL and replicas is None and quota_only is not None:
        return [quota_only]
    if verdict is Verdict.PARTIAL and replicas is None:  # a DaemonSet: its nodes say it
        nodes = result.nodes
        return [
            daemonset_beside(result) + views.of(_partial_headline, nodes),
            views.of(_no_room, nodes),
            preemption_sentence(result),
            field_line(result) or "",
        ]
    if verdict is Verdict.PARTIAL and replicas is not None:
        evicting = preemption_sentence(result) if result.preemption is not None else ""
        return [_partial_detail(result, views, replicas), evicting, field_line(result) or ""]
    return [result.reason or ""]


def preemption_sentence(result: WorkloadResult) -> str:
    """``fits by evicting 3 pods of lower priority: batch/crunch x2 (priority 10), web/cache
    (priority 0)``: the workloads whose pods go, never the nodes (picking is scheduling);
    ``2 of them by evicting ...`` where only some copies fit so."""
    preemption = result.preemption
    if preemption is None:
        return ""
    pods = preemption.pods
    whose = ", ".join(
        f"{e.namespace}/{e.name}{f' x{e.pods}' if e.pods > 1 else ''} (priority {e.priority})"
        for e in preemption.evicts
    )
    lead = "fits" if result.verdict is Verdict.PREEMPTS else f"{preemption.copies} of them"
    return f"{lead} by evicting {pods} pod{'s' if pods != 1 else ''} of lower priority: {whose}"


def _partial_detail(result: WorkloadResult, views: Views, replicas: str) -> str:
    placed = result.placement
    if placed is not None and placed.fit == placed.alone:
        on = fits_sentence(result, views).removeprefix("fits ")
        return _with_first_unfit(result, f"{replicas}, on {on}")
    return _with_first_unfit(result, replicas)


def ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``12th``, ``13th``, ``21st``."""
    suffix = (
        "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    )
    return f"{number}{suffix}"


def _with_first_unfit(result: WorkloadResult, sentence: str) -> str:
    """The count, the range a random tie leaves it in, and the scheduler's message for the
    first pod that does not fit: ``4 of 7 replicas fit; the 5th: 0/7 nodes are
    available: ...``."""
    placed = result.placement
    if placed is None:
        return sentence
    if placed.most is not None:
        sentence += (
            f" (from {placed.fit} to {placed.most}, as the scheduler breaks ties"
            " or samples the nodes it scores)"
        )
    if result.message:
        sentence += f"; the {ordinal(placed.fit + 1)}: {result.message}"
    return sentence


# --- a workload after cluster-autoscaler's scale-up ------------------------------------------


def scale_up_groups(result: WorkloadResult) -> str:
    """``{aks-user 3->5 (max: 10)}``: every group that grows, as CA's ScaleUpInfo says it."""
    autoscale = result.autoscale
    return ", ".join(map(str, autoscale.scale_up)) if autoscale is not None else ""


def scale_up_lines(result: WorkloadResult) -> list[str]:
    """What a workload judged with the autoscaler says (empty when it was not):
    ``SCALES``: ``fits after scale-up: {aks-user 3->5 (max: 10)}`` (``, 2 new nodes``);
    ``PARTIAL``: ``7 of 10 replicas fit: 3 now, 4 after {...}; 3 blocked: <reasons>``;
    ``NO``: the two events a user sees, the scheduler's FitError and CA's
    ``pod didn't trigger scale-up: ...``."""
    autoscale, placed = result.autoscale, result.placement
    if autoscale is None or placed is None:
        return []
    groups = scale_up_groups(result)
    nodes = autoscale.nodes
    if result.verdict is Verdict.SCALES:
        cost = f" ({nodes} new node{'s' if nodes != 1 else ''})"
        if [s.kind for s in autoscale.scale_up] == [NODE_POOL]:  # it says +N nodes itself
            cost = ""
        if not autoscale.scale_up:
            return [f"fits once the node groups recover: {autoscale.blocked.message}"]
        return [f"fits after scale-up: {groups}{cost}{_options(autoscale)}"]
    if result.verdict is Verdict.NO:
        return [result.message or "no node passes every filter", *_refusals(autoscale)]
    fit = autoscale.fits_now + autoscale.after
    parts = [f"{fit} of {placed.wanted} {_pods_noun(result)} fit: {autoscale.fits_now} now"]
    if autoscale.scale_up:
        parts[0] += f", {autoscale.after} after {groups}"
    if autoscale.blocked.copies:  # an ADDON_ONLY may have none blocked
        parts.append(f"{autoscale.blocked.copies} blocked: {_blockers(autoscale)}")
    return ["; ".join(parts) + _options(autoscale)]


def _options(autoscale: Autoscale) -> str:
    """Every group that helps, when the expander chooses among them at random."""
    options = given(autoscale.options, ())
    if not options:
        return ""
    return f"; the expander picks at random among {', '.join(map(str, options))}"


def _blockers(autoscale: Autoscale) -> str:
    """Why copies stay blocked: the node groups' reasons, then each NodePool's refusal as
    :func:`_refusals` words it for a ``NO``."""
    pools = given(autoscale.blocked.pools, ())
    refused = {p.reason for p in pools}
    groups = ", ".join(r for r in autoscale.blocked.reasons if r not in refused)
    return "; ".join(filter(None, (groups, *map(str, pools))))


def _refusals(autoscale: Autoscale) -> list[str]:
    """What each autoscaler said of a blocked copy: cluster-autoscaler's event, then one
    line of every NodePool's refusal (``nodepool "gpu": did not tolerate taint ...;
    nodepool "default": ...``) in place of Karpenter's event, which says the same without
    naming the pools."""
    blocked = autoscale.blocked
    events = [e for e in blocked.message.split("\n") if e]
    if not blocked.pools:
        return events
    ca = [e for e in events if not e.startswith(KARPENTER_EVENT)]
    return [*ca, "; ".join(map(str, blocked.pools))]


def budget_sentence(report: Report) -> str | None:
    """``new nodes: 7 of the budget of 5 (autoscaling.maxNewNodes)``, when the run has a
    budget or needs new nodes."""
    needed, budget = report.new_nodes, report.max_new_nodes
    if budget is None:
        return f"{needed} new node(s) after scale-up" if needed else None
    over = " exceeded" if needed > budget else ""
    return f"{needed} new node(s) after scale-up, budget {budget} (autoscaling.maxNewNodes){over}"


# --- a workload: its nodes, grouped by reason ------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReasonGroup:
    """Nodes that rejected (or admitted) the pod for the same reasons: ``bits`` over the
    nodes of ``outcomes``. A group can hold thousands of nodes and a report names a few,
    so names are read off the set only as many as are shown, once per number shown: the
    writers sharing one :class:`Views` share the group, and show the same few names."""

    label: str
    bits: int
    outcomes: NodeOutcomes
    _listed: dict[int, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def count(self) -> int:
        return self.bits.bit_count()

    @property
    def nodes(self) -> tuple[str, ...]:
        """Every node's name, in node order."""
        return self.outcomes.nodes_in(self.bits)

    def listed(self, limit: int) -> str:
        """``a, b, c and 2 more``: at most ``limit`` names, in node order."""
        text = self._listed.get(limit)
        if text is None:
            names = self.outcomes.nodes_in(self.bits, limit)
            text = self._listed[limit] = node_list(names, limit, self.count)
        return text

    def line(self, limit: int) -> str:
        """``3 node(s): Insufficient cpu: a, b, c``, at most ``limit`` names."""
        return f"{self.count} node(s): {self.label}: {self.listed(limit)}"


def reason_groups(result: WorkloadResult, views: Views | None = None) -> tuple[ReasonGroup, ...]:
    """Per-node outcomes grouped by reason: rejections first (largest first), then the
    nodes that fit, then, for a DaemonSet, the nodes it does not target."""
    grouped = _daemonset_groups if result.kind == "DaemonSet" else _workload_groups
    return (views or Views()).of(grouped, result.nodes)


def _workload_groups(nodes: NodeOutcomes) -> tuple[ReasonGroup, ...]:
    return _grouped(nodes, daemonset=False)


def _daemonset_groups(nodes: NodeOutcomes) -> tuple[ReasonGroup, ...]:
    return _grouped(nodes, daemonset=True)


def _rejection_label(outcome: NodeOutcome, daemonset: bool) -> tuple[int, str]:
    """A rejection's rank among the groups (0: rejected, 2: not targeted) and its label."""
    label = ", ".join(outcome.reasons)
    taint = outcome.taint
    if taint is not None and taint.braced() not in label:
        label += f" ({taint})"  # a human report always names the taint
    if daemonset and outcome.plugin not in ROOM_PLUGINS:
        return 2, f"not targeted: {label}"
    return 0, label


def _grouped(nodes: NodeOutcomes, daemonset: bool) -> tuple[ReasonGroup, ...]:
    fitting = nodes.fitting
    groups: dict[tuple[int, str], int] = {(1, "fit"): fitting} if fitting else {}
    for outcome, bits in nodes.groups:
        if not outcome.fits and bits:
            key = _rejection_label(outcome, daemonset)
            groups[key] = groups.get(key, 0) | bits
    ordered = sorted(
        groups.items(), key=lambda item: (item[0][0], -item[1].bit_count(), item[0][1])
    )
    return tuple(ReasonGroup(label, bits, nodes) for (_, label), bits in ordered)


# --- the run ---------------------------------------------------------------------------------


def summary_line(report: Report) -> str:
    """The text summary's last line: every verdict's count and the gate's answer."""
    summary = report.summary
    counts = ", ".join(f"{summary.counts[v]} {v.value}" for v in VERDICT_ORDER if summary.counts[v])
    others = sum(n for _, n in report.other_documents)
    text = f"{summary.workloads} workload(s): {counts or 'none'}"
    if summary.warnings:
        text += f"; {summary.warnings} warning(s)"
    if others:
        text += f"; {others} other document(s) not checked"
    against = baseline_sentence(report)
    if against:
        text += f"; {against}"
    budget = budget_sentence(report)
    if budget:
        text += f"; {budget}"
    if report.nothing_judged is not None:
        return f"{text}. Gate FAILED: nothing judged."
    gate = "passed" if summary.passed else "FAILED"
    return f"{text}. Gate {gate}."


_COUNT_LABELS: tuple[tuple[Verdict, str], ...] = (
    (Verdict.YES, "fit"),
    (Verdict.SCALES, "scale up"),
    (Verdict.PREEMPTS, "preempt"),
    (Verdict.NO, "NO"),
    (Verdict.ADDON_ONLY, "add-on only"),
    (Verdict.PARTIAL, "partial"),
    (Verdict.ERROR, "error"),
    (Verdict.SKIPPED, "skipped"),
)


_SHOWN_WHEN_ANY = frozenset({Verdict.SCALES, Verdict.PREEMPTS})
"""SCALES comes only in autoscaled runs, PREEMPTS only where priorities differ."""


def counts(report: Report) -> list[tuple[str, int]]:
    """Every verdict's count as the comment names it, zeros included (SCALES and PREEMPTS
    only when some workload has it), in the issue's order."""
    counted = report.summary.counts
    return [
        (label + ("s" if v is Verdict.ERROR and counted[v] != 1 else ""), counted[v])
        for v, label in _COUNT_LABELS
        if counted[v] or v not in _SHOWN_WHEN_ANY
    ]


# --- against the baseline (--baseline) -------------------------------------------------------


def change_note(result: WorkloadResult) -> str | None:
    """How the workload compares with the baseline, for readers: ``new failure``, ``worse:
    was PARTIAL``, ``fixed: was NO``, ``still failing``; None when unchanged or when the run
    had no baseline."""
    compared = result.compared
    if compared is None or compared.change is Change.UNCHANGED:
        return None
    if compared.change is Change.NEW:
        return "new failure" if compared.fails else "new"
    was = f"was {compared.before}" if compared.before is not None else ""
    if compared.change is Change.STILL_FAILING:
        if compared.fails:
            return "still failing: an ERROR always fails the gate"
        return "still failing" if compared.before is result.verdict else f"still failing: {was}"
    return f"{compared.change.value}: {was}"


def baseline_counts(report: Report) -> list[tuple[str, int]]:
    """The baseline's part of the status: new failures, worse, fixed, still failing, gone."""
    changes = Counter(
        r.compared.change
        for r in report.results
        if r.compared is not None and (r.compared.fails or r.compared.change is not Change.NEW)
    )
    gone = len(report.baseline.gone) if report.baseline else 0
    return [
        ("new failure" + ("s" if changes[Change.NEW] != 1 else ""), changes[Change.NEW]),
        ("worse", changes[Change.WORSE]),
        ("fixed", changes[Change.FIXED]),
        ("still failing", changes[Change.STILL_FAILING]),
        ("gone", gone),
    ]


def baseline_sentence(report: Report) -> str | None:
    """``against the baseline base.json: 1 new failure, 0 worse, 2 fixed, 3 still failing,
    1 gone``; None without a baseline."""
    if report.baseline is None:
        return None
    counted = ", ".join(f"{n} {label}" for label, n in baseline_counts(report))
    return f"against the baseline {report.baseline.source}: {counted}"


def gone_line(entry: BaselineEntry) -> str:
    """A workload of the baseline this run does not have, and what the base said of it."""
    place = f"{entry.file}:{entry.line}" if entry.file and entry.line else ""
    title = entry.title
    if place and place not in title:  # an unreadable document is named by its place
        title += f" ({place})"
    return f"{title}: was {entry.verdict.value}"
