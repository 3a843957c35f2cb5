"""The one pipeline: documents + snapshot + options -> :class:`~gate.model.Report`.

``fitgate check`` and the benchmark both read through :func:`read_inputs` (or
:func:`read_snapshot_file`, :func:`read_live`), evaluate through :func:`check` and render
through :func:`write_reports`; the command line only turns argv, the environment and the
streams into arguments before, and the report into files and an exit code after. Every
input problem becomes a result here, never an exception: an unreadable document is an
``ERROR``, a workload annotated to be skipped is ``SKIPPED``, a document without a pod
template (Service, ConfigMap...) is counted among the other documents.

This module is also the one place that decides how a run treats the cycle collector
(:func:`without_cycle_collection`): whoever runs the pipeline switches it off once, around
everything the run does, loading the snapshot and writing the reports included.
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from gate import __version__
from gate.ci.shard import Selection
from gate.ci.split import cut_position
from gate.inputs.composed import RepositoryFiles
from gate.inputs.config import Config, today
from gate.inputs.custom_kinds import kind_table
from gate.inputs.manifests import PathSelection
from gate.inputs.positions import document_field, locate
from gate.inputs.scaling import RunScaling
from gate.inputs.workloads import (
    TEMPLATE_PATHS,
    Extracted,
    OtherDocument,
    Path,
    Unevaluated,
    extract_all,
)
from gate.k8s.claims import run_classes, with_ephemeral_claims, with_run_claims
from gate.k8s.completion import (
    with_run_limit_ranges,
    with_run_namespaces,
    with_run_runtime_classes,
)
from gate.k8s.limitranger import limit_range_problem
from gate.k8s.priority import class_problem, with_run_classes
from gate.k8s.quotaledger import with_run_quotas
from gate.k8s.quotavalidation import QuotaWrites, quota_key
from gate.k8s.validation import (
    aggregate,
    invalid_object,
    persistent_volume_claim_problems,
    persistent_volume_problems,
)
from gate.k8s.version import dialect_for
from gate.model import (
    DEFAULT_FAIL_ON,
    Baseline,
    Cause,
    Document,
    Excluded,
    Family,
    FieldLocation,
    Policy,
    ReadSummary,
    Report,
    Shard,
    Snapshot,
    SnapshotInfo,
    Unchecked,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
    WorkloadWarning,
)
from gate.progress import Progress, reading_file
from gate.reports.baseline import compare
from gate.reports.reading import nothing_judged
from gate.reports.reporter import Output, ReportContext, Reporter
from gate.scheduler.autoscaling.session import CONFIGURED_ONLY, autoscaled_hint
from gate.scheduler.engine.evaluate import Evaluator
from gate.scheduler.framework.pods import ephemeral_pods
from gate.scheduler.placement.copies import Ledger
from gate.scheduler.placement.ownership import owning_objects
from gate.scheduler.plugins import field_paths
from gate.snapshot.forked import Forked, Processes
from gate.snapshot.load import reading_snapshot

if TYPE_CHECKING:
    from gate.live.connection import Settings
    from gate.live.credentials import LiveTarget
    from gate.live.recorder import Recording


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What a run is asked, beyond its documents and its snapshot.

    ``template_paths`` adds custom kinds (``Rollout`` at ``spec.template.spec``, say) to
    the built-in table; ``config`` is ``.fitgate.yaml`` (its custom kinds, skip and
    add-on rules, hidden warnings; ``today`` decides which skips expired); ``cluster`` is
    what the reports call the cluster (a shard's JSON report carries it for the merge);
    ``warnings`` are the run's own (a snapshot more than a day old), shown by every report;
    ``baseline`` is an earlier report the results are compared with (``--baseline``).
    """

    fail_on: frozenset[Verdict] = DEFAULT_FAIL_ON
    scheduler_version: str | None = None
    template_paths: tuple[tuple[str, Path], ...] = ()
    shard: Shard | None = None
    cluster: str = "cluster"
    version: str = __version__
    config: Config = field(default_factory=Config)
    today: date | None = None
    warnings: tuple[str, ...] = ()
    baseline: Baseline | None = None
    read: ReadSummary | None = None
    """What the command read and left out, shown by every report's summary."""
    allow_empty: bool = False
    """Whether a run that judges no workload may pass (``--allow-empty``)."""
    policy: Policy | None = None
    """The gate's policy as the reports state it (``failOn``, allowances, skips)."""
    origin_root: str | None = None
    """The directory kustomize built (``--origin-root``): its kustomization's patches are
    where a piped document's field is set, when one sets it."""
    autoscaling: bool = True
    """Whether the snapshot's cluster-autoscaler is judged (``--autoscaling off``: fixed
    nodes)."""
    processes: Processes = 1
    """Processes that may judge the workloads (two: two parts at once, see
    :mod:`gate.ci.split`; every answer the same)."""


Read = TypeVar("Read")


def read_inputs(
    documents: Callable[[], Read],
    snapshot_file: str,
    progress: Progress | None = None,
    *,
    processes: Processes = 1,
    meanwhile: int = 0,
    stdin: BinaryIO | None = None,
) -> tuple[Read, Snapshot]:
    """The run's documents, read by ``documents`` (and whatever it works out of them that
    needs no snapshot: :func:`extracted`), and its snapshot file (``-``: ``stdin``). With
    two ``processes`` the file's second reader starts first and reads while this process
    reads the documents (``meanwhile`` bytes of them: see :mod:`gate.snapshot.halves`);
    it is stopped however the reading ends."""
    with reading_snapshot(snapshot_file, meanwhile, processes, stdin) as reading:
        read = documents()
        with reading_file(progress or Progress.quiet(), snapshot_file) as on_read:
            return read, reading.snapshot(on_read)


def read_snapshot_file(snapshot_file: str, progress: Progress | None = None) -> Snapshot:
    """The snapshot file alone, read by one process; every problem is a SnapshotError."""
    return read_inputs(list, snapshot_file, progress)[1]


def read_live(
    target: LiveTarget,
    env: Mapping[str, str],
    now: datetime,
    say: Callable[[str], object],
    settings: Settings | None = None,
    progress: Progress | None = None,
    autoscaling: bool = False,
) -> tuple[Recording, Snapshot]:
    """The cluster ``target`` names, read once: its recording (what ``fitgate snapshot``
    writes) and the snapshot a replay of that recording gives; ``autoscaling``: with the
    cluster-autoscaler's objects."""
    # Imported here: the kubernetes client takes a noticeable moment to import, and offline
    # runs never need it.
    from gate.live.reader import live_snapshot, read_cluster

    recording = read_cluster(target, env, now, say, settings, progress, autoscaling)
    return recording, live_snapshot(recording)


def read_summary(selection: PathSelection, documents: Sequence[Document]) -> ReadSummary:
    """The files and documents read, the files left out, the documents not checked."""
    excluded = tuple(Excluded(file, pattern) for file, pattern in selection.excluded)
    skipped = tuple(
        Unchecked(str(d.location), d.skipped) for d in documents if d.skipped is not None
    )
    return ReadSummary(len(selection.read), len(documents), excluded, skipped, config=None)


def extracted(
    documents: Iterable[Document],
    template_paths: Iterable[tuple[str, Path]] = (),
    config: Config | None = None,
    quotas: Iterable[Mapping[str, Any]] = (),
) -> tuple[Extracted, ...]:
    """Every document's workloads (or why it has none), in input order, as :func:`check`
    judges them with ``template_paths`` (``--template-path``) and ``config``'s custom
    kinds; ``quotas``: the cluster's, which a run's quota of the same namespace and name
    updates. It needs no snapshot, so a second process may still be reading the snapshot
    file meanwhile."""
    paths = dict(TEMPLATE_PATHS)
    for kind, path in template_paths:
        paths[kind] = (path, None, 1)
    custom = (config or Config()).custom_kinds
    current: list[Document] = []

    def pulled() -> Iterator[Document]:
        # extract_all yields a document's items before it pulls the next one
        for document in documents:
            current[:] = [document]
            yield document

    kinds = {**kind_table(), **kind_table(custom)}
    writes = QuotaWrites.over(quotas)
    return tuple(
        _refused_object(current[0], writes) or item
        if isinstance(item, OtherDocument) and item.kind in _ADMISSION_KINDS and current
        else item
        for item in extract_all(pulled(), paths, kinds)
    )


_STORAGE_CHECKS = {
    "PersistentVolume": persistent_volume_problems,
    "PersistentVolumeClaim": persistent_volume_claim_problems,
}
_ADMISSION_KINDS = frozenset({"ResourceQuota", "LimitRange", "PriorityClass", *_STORAGE_CHECKS})
"""The objects a run ships that admit or hold its pods: one the API server refuses is never
applied, and says so."""


def _updates_quota(
    bodies: Iterable[Mapping[str, Any]], recorded: Iterable[Mapping[str, Any]]
) -> bool:
    """Whether a ResourceQuota of the run has the namespace and name of a recorded one."""
    held = {quota_key(item) for item in recorded}
    return bool(held) and any(
        quota_key(body) in held for body in bodies if body.get("kind") == "ResourceQuota"
    )


def _refused_object(document: Document, writes: QuotaWrites) -> Unevaluated | None:
    """A ResourceQuota, LimitRange, PriorityClass, PersistentVolume or PersistentVolumeClaim
    of the run the API server refuses: an ``ERROR``, as a refused workload is, and never
    applied, in the API server's words. A PriorityClass is judged here by the rules that
    need no other class (ValidatePriorityClass); beside the cluster's classes, one refused
    for those (an update of its value, a second globalDefault) is left out as
    :func:`with_run_classes` says."""
    body = document.body
    if body is None:
        return None
    kind, version = body.get("kind"), str(body.get("apiVersion", ""))
    metadata = body.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    name, namespace = metadata.get("name"), metadata.get("namespace")
    shown = name if isinstance(name, str) and name else "(unnamed)"
    problem = None
    if kind == "ResourceQuota" and version == "v1":
        problem = writes.write(body)
    elif kind == "LimitRange" and version == "v1":
        problem = limit_range_problem(body)
    elif kind in _STORAGE_CHECKS and version == "v1":
        errors = aggregate(_STORAGE_CHECKS[kind](body))
        problem = None if errors is None else invalid_object(str(kind), shown, errors)
    elif kind == "PriorityClass" and version.startswith("scheduling.k8s.io/"):
        problem = class_problem(body)
    if problem is None:
        return None
    return Unevaluated(
        Verdict.ERROR,
        str(kind),
        _namespace_of(str(kind), namespace),
        shown,
        document.location,
        problem,
    )


def _namespace_of(kind: str, namespace: object) -> str:
    """The namespace a refused object of the run is shown in (none: a cluster's object)."""
    if kind in ("PriorityClass", "PersistentVolume"):
        return ""
    return namespace if isinstance(namespace, str) and namespace else "default"


def check(
    documents: Iterable[Document],
    snapshot: Snapshot,
    options: RunOptions,
    progress: Progress | None = None,
    items: Sequence[Extracted] | None = None,
) -> Report:
    """Every document's result against ``snapshot``, in input order (only the shard's
    part of them when ``options.shard`` names one). ``items``: the documents'
    :func:`extracted` under ``options``, when already worked out."""
    dialect = dialect_for(options.scheduler_version or snapshot.info.server_version)
    scaling = options.config.autoscaling
    documents = list(documents)  # an autoscaler may follow the workload it scales
    snapshot_given = snapshot
    bodies = [d.body for d in documents if d.body is not None]
    classes = with_run_runtime_classes(with_run_classes(snapshot.admission, bodies), bodies)
    classes = with_run_namespaces(with_run_limit_ranges(classes, bodies), bodies)
    pods = snapshot.pods
    admission = with_run_quotas(classes, bodies, pods, lambda: owning_objects(pods))
    snapshot = (
        snapshot if admission is snapshot.admission else replace(snapshot, admission=admission)
    )
    claims = with_run_claims(snapshot.storage, bodies)
    recorded = snapshot.admission.resource_quotas
    if items is None or _updates_quota(bodies, recorded):
        # a quota the run updates is judged against the cluster's, which the items given
        # were extracted without
        items = extracted(documents, options.template_paths, options.config, recorded)
    if claims is not None and claims.knows_claims:
        shipped = run_classes(snapshot.storage.classes if snapshot.storage else {}, bodies)
        copies = (p for item in items if isinstance(item, Workload) for p in ephemeral_pods(item))
        claims = with_ephemeral_claims(claims, copies, frozenset(shipped))
    snapshot = snapshot if claims is snapshot.storage else replace(snapshot, storage=claims)
    evaluator = Evaluator.for_snapshot(snapshot, dialect, scaling if options.autoscaling else None)
    results: list[WorkloadResult] = []
    others: Counter[str] = Counter()
    selection = Selection(options.shard)
    run_scaling = RunScaling.of(bodies)
    ledger = Ledger()  # the room the run's new workloads take, DaemonSets first
    files = RepositoryFiles()  # origin bases and overlay patches, each composed once
    phase = (progress or Progress.quiet()).phase("evaluating", unit="documents")
    config = options.config
    marked = list(selection.mark(items))
    # A shard places every workload of the run that the ones it reports are judged beside
    # (the room, ports and spread counts of new ones, the autoscalers' headroom), so its
    # verdicts are the whole run's; past its last reported item nothing it reports can
    # change.
    last = max((p for p, (_, reported) in enumerate(marked) if reported), default=-1)
    judge = _Judge(options, evaluator, run_scaling, ledger, files)
    # Worked out from every item before any is judged: the same in every process and shard
    unchecked_pod_security = _pod_security_notes(evaluator, items, options)
    # Every DaemonSet is judged and placed first (a DaemonSet's pods take their nodes'
    # room before any other workload's), once: a second process starts after this.
    first: dict[int, WorkloadResult | None] = {
        position: judge(item, reported)
        for position, (item, reported) in enumerate(marked)
        if last >= 0 and isinstance(item, Workload) and item.kind == "DaemonSet"
    }

    def judged(reported_here: range, shown: bool = True) -> _Judged:
        """The results of the reported items in ``reported_here``, the DaemonSets' among
        them judged already: every item up to the range's end, those before it placed as
        another shard's are (giving none). ``shown``: each reported item advances the
        progress display (a forked process shows none)."""
        found: list[WorkloadResult] = []
        other_kinds: Counter[str] = Counter()
        count = 0
        for position in range(reported_here.stop):
            item, reported = marked[position]
            reported = reported and position in reported_here
            if reported and shown:
                phase.advance()
            count += reported
            result: WorkloadResult | None = None
            if position in first:
                result = first[position] if reported else None
            elif isinstance(item, Workload):
                result = judge(item, reported)
            elif isinstance(item, Unevaluated) and reported:
                result = item.result()
            elif reported:
                other_kinds[item.kind] += 1
            if result is not None:
                found.append(config.shown(result))
        return _Judged(tuple(found), other_kinds, count)

    workloads = [
        p
        for p, (item, reported) in enumerate(marked[: last + 1])
        if reported and isinstance(item, Workload)
    ]
    cut = cut_position(workloads) if options.processes != 1 else None
    if cut is not None:
        evaluator.warm(item for item, _ in marked[cut : last + 1] if isinstance(item, Workload))
    second = (
        None
        if cut is None
        else Forked.start(lambda: judged(range(cut, last + 1), False), options.processes)
    )
    if second is None or cut is None:
        parts = [judged(range(last + 1))]
    else:
        parts = [judged(range(cut))]
        theirs = second.value()
        if theirs is None:  # judged again whole: this process's state is past the cut
            return check(documents, snapshot_given, replace(options, processes=1), progress, items)
        phase.advance(theirs.count)
        parts.append(theirs)
    for part in parts:
        results.extend(part.results)
        others.update(part.others)
    phase.finish()
    report = Report(
        snapshot=snapshot.info,
        results=tuple(results),
        fail_on=options.fail_on,
        other_documents=tuple(sorted(others.items())),
        version=options.version,
        warnings=(
            *options.warnings,
            *_autoscaling_notes(evaluator, snapshot, options),
            *unchecked_pod_security,
        ),
        read=options.read,
        policy=options.policy or None,
        max_new_nodes=scaling.max_new_nodes if evaluator.autoscaling is not None else None,
    )
    report = selection.report(report, options.cluster, tuple(n.name for n in snapshot.nodes))
    report = compared(report, options.baseline, whole=options.shard is None)
    # A shard may be given none of the workloads; the merge judges the whole run.
    return report if options.shard is not None else judged_or_refused(report, options.allow_empty)


UNUSED_CATALOG = (
    "the instance-type catalog {source} is not used: the snapshot recorded no Karpenter "
    "NodePool (record them with fitgate snapshot --autoscaling)"
)


def _autoscaling_notes(
    evaluator: Evaluator, snapshot: Snapshot, options: RunOptions
) -> tuple[str, ...]:
    """What the run says of the autoscalers: the session's notes, or the hint to record
    them when nodes look autoscaled and none was recorded; and that a catalog was given
    for NodePools the snapshot does not hold."""
    session = evaluator.autoscaling
    catalog = options.config.autoscaling.catalog
    pools = session is not None and session.provisioner is not None
    unused: tuple[str, ...] = ()
    if options.autoscaling and catalog is not None and not pools:
        unused = (UNUSED_CATALOG.format(source=catalog.source),)
    if session is not None:
        return (*session.notes, *unused)
    if not options.autoscaling:
        return ()
    if options.config.autoscaling.groups:
        return (CONFIGURED_ONLY, *unused)
    hint = autoscaled_hint(snapshot.nodes)
    return (*unused,) if hint is None else (hint, *unused)


POD_SECURITY_UNCHECKED = (
    "Pod Security admission is not checked for {count} workload(s): the snapshot recorded no "
    "namespaces, so their pod-security.kubernetes.io labels are unknown; record them "
    "(fitgate snapshot, or kubectl get nodes,pods,namespaces -A -o json)"
)


def _pod_security_notes(
    evaluator: Evaluator, items: Iterable[Extracted], options: RunOptions
) -> tuple[str, ...]:
    """That the PodSecurity plugin was not run for the workloads whose namespace's labels
    are unknown (the snapshot recorded no namespaces, and the run ships no Namespace of
    that name): every workload of the run the configuration does not skip, whichever shard
    reports it, so each shard and process says the same."""
    day = run_day(options)
    count = sum(
        1
        for item in items
        if isinstance(item, Workload)
        and evaluator.namespace_labels(item.namespace) is None
        and options.config.skipped(item, day)[0] is None
    )
    return () if count == 0 else (POD_SECURITY_UNCHECKED.format(count=count),)


def run_day(options: RunOptions) -> date:
    """The day the run's skips are judged on: the options' day, else today's in UTC (the
    day the command gives its runs)."""
    return options.today or today(None)


def judged_or_refused(report: Report, allow_empty: bool) -> Report:
    """``report``, marked as judging nothing (exit 5) when no workload was evaluated and
    none fails the gate, unless ``allow_empty``: the one place ``check`` and ``merge``
    decide it."""
    if allow_empty or report.judged() or not report.summary.passed:
        return report
    return replace(report, nothing_judged=nothing_judged(report))


def compared(report: Report, baseline: Baseline | None, whole: bool = True) -> Report:
    """``report`` against ``baseline`` when there is one: the one place a run's results
    are compared, for ``check`` and ``merge`` alike (see :mod:`gate.reports.baseline`)."""
    return report if baseline is None else compare(report, baseline, whole)


@dataclass(frozen=True, slots=True)
class _Judged:
    """A part of the run's items judged: its results in input order, its other documents
    by kind, and how many items it reported."""

    results: tuple[WorkloadResult, ...]
    others: Counter[str]
    count: int


@dataclass(frozen=True, slots=True)
class _Judge:
    """One workload's result in the run, after the configuration's skip rules and before
    its add-on allowances; a skip rule that expired says so in a warning. A workload
    another shard reports (``reported`` false) is placed only for what it leaves the
    others, and gives no result."""

    options: RunOptions
    evaluator: Evaluator
    run_scaling: RunScaling
    ledger: Ledger
    files: RepositoryFiles

    def __call__(self, workload: Workload, reported: bool = True) -> WorkloadResult | None:
        options, evaluator = self.options, self.evaluator
        config = options.config
        skipped, expired = config.skipped(workload, run_day(options))
        invalid = None if skipped else self.run_scaling.invalid(workload)
        if not reported and (skipped or invalid is not None or evaluator.alone(workload)):
            return None  # it takes no room the reported workloads are judged beside
        if skipped:
            location, kind = workload.location, workload.kind
            return Unevaluated(
                Verdict.SKIPPED, kind, workload.namespace, workload.name, location, skipped
            ).result()
        if invalid is not None:  # its autoscaler's count is none: no count to judge it by
            location, kind = workload.location, workload.kind
            return Unevaluated(
                Verdict.ERROR, kind, workload.namespace, workload.name, location, invalid
            ).result()
        result = evaluator.evaluate(
            self.run_scaling.apply(workload), self.ledger, reported=reported
        )
        if not reported:
            return None
        if result.cause is not None:
            # Composed again only now, for the few that fail: reading kept no field positions.
            at = _claim_template(workload, result.cause)
            if at is None:
                at = locate(workload, result.cause, field_paths, self.files, options.origin_root)
            result = replace(result, field_at=at)
        if expired:
            note = WorkloadWarning(WarningKind.NOT_MODELLED, expired)
            result = replace(result, warnings=(*result.warnings, note))
        return config.allowed(workload, result)


def _claim_template(workload: Workload, cause: Cause) -> FieldLocation | None:
    """A StatefulSet's storage cause points at its first ``volumeClaimTemplates`` entry:
    the claims its copies mount come from there (the volume plugins point at a pod's first
    claim, and a copy's template claims come first)."""
    if cause.family is not Family.STORAGE or not workload.claim_templates:
        return None
    path = ("spec", "volumeClaimTemplates", 0)
    return document_field(workload.source, path, "spec.volumeClaimTemplates[0]")


def cluster_name(info: SnapshotInfo, snapshot_file: str | None) -> str:
    """What reports call the cluster: the recorded context, else the snapshot file's stem.

    >>> info = SnapshotInfo("prod.json", None, None, None, None, nodes=0, pods=0)
    >>> cluster_name(info, "snapshots/prod.json"), cluster_name(info, "-")
    ('prod', 'cluster')
    """
    if info.context:
        return info.context
    if snapshot_file and snapshot_file != "-":
        return os.path.splitext(os.path.basename(snapshot_file))[0] or "cluster"
    return "cluster"


@contextmanager
def without_cycle_collection(until_exit: bool = False) -> Iterator[None]:
    """A run builds trees (documents, results, report pieces) and frees them by reference
    counting; the cycle collector's passes over that growing heap reclaim nothing and
    cost a seventh of a large run (on the benchmark's large case, peak memory was the
    same with and without). Switched back on however the run ends, unless ``until_exit``
    (the process ends with the run): its first pass then is over every object the run
    made, none of them collected before (0.15 s on the large case). A reader that
    switches it off for itself inside a run changes nothing."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting and not until_exit:
            gc.enable()


Sink = Callable[[Output], None]
"""Where one report's text goes: a file, a stream, the step summary (the command decides)."""


@dataclass(frozen=True, slots=True)
class FileSink:
    """A sink that writes a whole file (never appends): writing it twice leaves what
    writing it once does, so a forked process may write it (:func:`write_reports`)."""

    write: Sink

    def __call__(self, output: Output) -> None:
        self.write(output)


WRITERS_SPLIT_FROM = 100
"""Reports of fewer results are written by one process (as runs of fewer workloads are
judged by one): a second process starts in about what writing them takes."""


def write_reports(
    report: Report,
    context: ReportContext,
    table: Iterable[tuple[Reporter, Sequence[Sink]]],
    processes: Processes = 1,
) -> None:
    """Each writer of ``table`` rendered once, its text given to each of its sinks (a
    report given as pieces is kept whole only when two sinks take it), as if in order.

    A large report's leading writers whose sinks are all files are written in two parts
    at once, where ``processes`` allows a second: a forked process writes about half of them
    (:func:`forked_writers`), this one the rest; then the writers after them. When the forked
    process fails in any way, its writers are written here before those; an error writing
    one of them is raised in place of this process's own (as writing in order raises the
    first), and nothing goes to a stream before they are written."""
    table = list(table)
    files = _file_writers(table)
    large = len(report.results) >= WRITERS_SPLIT_FROM
    theirs = forked_writers(table) if large and processes != 1 else 0
    forked = (
        Forked.start(lambda: _written(report, context, table[:theirs]), processes)
        if theirs
        else None
    )
    if forked is None:
        _written(report, context, table)
        return
    try:
        _written(report, context, table[theirs:files])
    finally:
        if forked.value() is None:
            _written(report, context, table[:theirs])
    _written(report, context, table[files:])


def forked_writers(table: Sequence[tuple[Reporter, Sequence[Sink]]]) -> int:
    """How many of the leading writers a forked process writes: half of the writers at
    most, and only those whose sinks are all :class:`FileSink` (standard output's order and
    an appended file's single copy are this process's to keep). On the benchmark's large
    case JSON and JUnit took about what the comment, the summary and the text did.

    >>> to_file, to_stream = FileSink(print), print
    >>> forked_writers([(str, (to_file,)), (repr, (to_file,)), (ascii, (to_stream,))])
    1
    """
    return min(_file_writers(table), len(table) // 2)


def _file_writers(table: Sequence[tuple[Reporter, Sequence[Sink]]]) -> int:
    """How many of the leading writers have sinks that are all :class:`FileSink`."""
    count = 0
    for _, sinks in table:
        if not sinks or not all(isinstance(sink, FileSink) for sink in sinks):
            break
        count += 1
    return count


def _written(
    report: Report, context: ReportContext, table: Sequence[tuple[Reporter, Sequence[Sink]]]
) -> bool:
    for writer, sinks in table:
        output = writer(report, context)
        if len(sinks) > 1 and not isinstance(output, str):
            output = list(output)
        for sink in sinks:
            sink(output)
    return True
