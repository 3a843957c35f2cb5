"""argv -> options -> pipeline -> exit code. The only module that sees argv, env and stdio."""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import cache
from pathlib import Path as FilePath
from typing import IO, TYPE_CHECKING, BinaryIO, NoReturn

import msgspec
import msgspec.structs

from gate import SCHEDULER_VERSION, TAGLINE, __version__
from gate.ci.shard import parse_shard
from gate.deadline import parse_seconds
from gate.errors import NOTHING_JUDGED_EXIT, GateError, UsageError
from gate.inputs.config import (
    Config,
    load_config,
    parse_duration,
    schema_text,
    snapshot_trust,
    status_trust,
    today,
    with_catalog,
)
from gate.inputs.exclude import Exclusion
from gate.inputs.manifests import manifest_bytes, read_selected, select_paths
from gate.inputs.workloads import Extracted, Path
from gate.k8s.version import version_problem
from gate.model import (
    DEFAULT_FAIL_ON,
    Baseline,
    Document,
    ReadSummary,
    Report,
    Snapshot,
    Verdict,
    rfc3339_time,
)
from gate.progress import Progress
from gate.reports.escape import terminal_text
from gate.reports.jsonreport import write_json
from gate.reports.reporter import JSON_NODES, Deferred, Output, ReportContext, Reporter
from gate.reports.text import write_errors, write_text
from gate.run import (
    FileSink,
    RunOptions,
    Sink,
    check,
    cluster_name,
    compared,
    extracted,
    judged_or_refused,
    read_inputs,
    read_live,
    read_summary,
    without_cycle_collection,
    write_reports,
)
from gate.scheduler.plugins import RULES
from gate.snapshot.forked import Processes
from gate.snapshot.joined import load_snapshots
from gate.snapshot.load import STDIN

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    from gate.live.recorder import Recording


@dataclass(frozen=True, slots=True)
class Streams:
    stdin: BinaryIO
    stdout: IO[str]
    stderr: IO[str]
    env: Mapping[str, str] = field(default_factory=dict)
    now: datetime | None = None
    kept: list[object] | None = None
    """Where a run leaves what it built (the documents, the snapshot, the report) for the
    process's end to take (:func:`console`); None where the caller goes on (a test, a
    program that embeds fitgate), whose runs free theirs as they return."""


TIMEOUT_HELP = "give up reading the live cluster after this long, e.g. 90s, 5m (default 10m)"


Options = argparse._ActionsContainer
"""A parser or one of its argument groups: where an option is added."""


def _fail_on(text: str) -> frozenset[Verdict]:
    names = [n.strip().upper() for n in text.split(",") if n.strip()]
    if not names:
        raise argparse.ArgumentTypeError("empty: name the verdicts that fail the gate")
    try:
        return frozenset(Verdict(n) for n in names)
    except ValueError:
        known = ", ".join(v.value for v in Verdict)
        raise argparse.ArgumentTypeError(f"{text!r}: verdicts are {known}") from None


def _duration(text: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _timeout(text: str) -> float:
    try:
        return parse_seconds(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _processes(text: str) -> Processes:
    if text == "auto":
        return "auto"
    if text == "1":
        return 1
    if text == "2":
        return 2
    raise argparse.ArgumentTypeError(f"{text!r}: expected auto, 1 or 2")


def _template_path(text: str) -> tuple[str, Path]:
    kind, sep, path = text.partition("=")
    if not sep or not kind or not path:
        raise argparse.ArgumentTypeError(f"{text!r}: expected KIND=path.to.pod.spec")
    return kind, tuple(path.split("."))


MTIME = "mtime"
"""``--snapshot-captured-at mtime``: the snapshot file's modification time."""


def _captured_at(text: str) -> str:
    if text == MTIME or rfc3339_time(text) is not None:
        return text
    shown = repr(text[:30] + "..." if len(text) > 30 else text)
    raise argparse.ArgumentTypeError(
        f"{shown}: expected an RFC 3339 time such as 2026-08-16T10:00:00Z, or mtime"
    )


def _version(text: str) -> str:
    problem = version_problem(text)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return text


def _cluster_name(text: str) -> str:
    """``--cluster-name``: one line of at most 253 characters (a DNS name's length)."""
    name = text.strip()
    if not name or len(name) > 253 or not name.isprintable():
        raise argparse.ArgumentTypeError(
            "expected a name on one line, 1 to 253 printable characters"
        )
    return name


def _json_nodes(text: str) -> int | None:
    """``--json-nodes``: a number of names per group (0 included), or ``all`` (None)."""
    given = text.strip()
    if given.lower() == "all":
        return None
    if not re.fullmatch(r"[0-9]{1,9}", given):
        shown = repr(text[:30] + "..." if len(text) > 30 else text)
        raise argparse.ArgumentTypeError(f"{shown}: expected all or a number, 0 to 999999999")
    return int(given)


def add_report_options(parser: Options) -> None:
    """The report files, alike for ``check`` and ``merge``."""
    parser.add_argument("--json", metavar="FILE", help="write the JSON report (- = stdout)")
    parser.add_argument("--junit", metavar="FILE", help="write JUnit XML")
    parser.add_argument(
        "--sarif", metavar="FILE", help="write SARIF 2.1.0 for code scanning (- = stdout)"
    )
    parser.add_argument("--comment", metavar="FILE", help="write the markdown PR comment")
    parser.add_argument("--comment-template", metavar="FILE", help="jinja2 comment template")
    parser.add_argument("--summary", metavar="FILE", help="write the markdown step summary")
    parser.add_argument(
        "-o",
        "--output",
        choices=tuple(OUTPUT_FLAGS),
        help="write this report to standard output (one at a time), for a pipe; "
        "text (the summary) by default",
    )


OUTPUT_FLAGS: dict[str, str | None] = {
    "text": None,
    "json": "json",
    "junit": "junit",
    "sarif": "sarif",
    "markdown": "comment",
}
"""``-o/--output FORMAT``: the report file option it stands for (``--json -``...); text is
the summary standard output shows anyway."""


def _with_output(options: argparse.Namespace) -> argparse.Namespace:
    """``-o FORMAT`` as the report option it stands for, given ``-``; a comment template
    without a comment to shape refused. A copy: the parsed options are left as parsed."""
    options = argparse.Namespace(**vars(options))
    chosen = getattr(options, "output", None)
    flag = OUTPUT_FLAGS.get(chosen) if chosen else None
    if flag is not None:
        given = getattr(options, flag)
        if given not in (None, "-"):
            raise UsageError(
                f"-o {chosen} writes the {chosen} report to standard output and --{flag} to "
                f"{given}: give one of them"
            )
        setattr(options, flag, "-")
    elif chosen == "text":
        taken = [f"--{f}" for f, _ in REPORT_FILES if getattr(options, f, None) == "-"]
        if taken:
            raise UsageError(f"-o text and {taken[0]} - would both go to standard output")
    if options.comment_template and not options.comment:
        raise UsageError(
            "--comment-template shapes the comment: give --comment FILE (or -o markdown) too"
        )
    return options


def add_baseline_option(parser: Options) -> None:
    """``--baseline``, alike for ``check`` and ``merge``."""
    parser.add_argument(
        "--baseline",
        metavar="REPORT",
        help="an earlier JSON report (e.g. the base branch's): fail only on workloads that "
        "are new or got worse",
    )


def add_json_nodes_option(parser: Options) -> None:
    """How much of each outcome group the JSON report names, alike for ``check`` and
    ``merge`` (a merge writes what the unsharded check would)."""
    parser.add_argument(
        "--json-nodes",
        type=_json_nodes,
        default=JSON_NODES,
        metavar="N|all",
        help=f"node names each outcome group of the JSON report lists (default {JSON_NODES}; "
        "a shard's report lists all)",
    )


def add_allow_empty_option(parser: Options) -> None:
    """``--allow-empty``, alike for ``check`` and ``merge``."""
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        default=None,
        help=f"pass a run that judges no workload (default: exit {NOTHING_JUDGED_EXIT})",
    )


def add_output_options(parser: Options) -> None:
    """What standard output shows, alike for ``check`` and ``merge``."""
    parser.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="standard output shows only the failing workloads and the status line",
    )
    parser.add_argument(
        "--color",
        choices=("auto", "always", "never"),
        default="auto",
        help="colour the verdicts (auto: when standard output is a terminal and NO_COLOR is unset)",
    )


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming the help to read (exit 2), not the
    seven-line usage: a CI log shows the mistake, not the synopsis."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}; see {self.prog} --help")

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse drops a failed write (the help or the version to a full standard output
        # written unbuffered): it is said, as any other output's is
        if message:
            (file or sys.stderr).write(message)


def _add_check_options(check: argparse.ArgumentParser) -> None:
    """``fitgate check``'s options, in the groups its help shows them in."""
    inputs = check.add_argument_group("inputs", "the rendered manifests and what to make of them")
    inputs.add_argument("paths", nargs="*", metavar="PATH", help="file, directory or - (stdin)")
    inputs.add_argument(
        "--config", metavar="FILE", help="configuration (default: .fitgate.yaml found upwards)"
    )
    inputs.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="leave walked files matching GLOB out (repeatable; adds to exclude in the config)",
    )
    inputs.add_argument(
        "--origin-root",
        metavar="DIR",
        help="the directory kustomize built: the paths of its origin annotations are relative "
        "to it (default: the working directory)",
    )
    inputs.add_argument(
        "--template-path",
        type=_template_path,
        action="append",
        default=[],
        metavar="KIND=PATH",
        help="a custom kind's pod spec, e.g. Rollout=spec.template.spec (repeatable)",
    )
    inputs.add_argument(
        "--shard",
        type=parse_shard,
        metavar="K/N",
        help="evaluate only shard K of N (a CI matrix); fitgate merge joins the JSON reports",
    )
    cluster = check.add_argument_group(
        "snapshot", "the cluster: a recorded snapshot, or else the live cluster, read once"
    )
    source = cluster.add_mutually_exclusive_group()
    source.add_argument(
        "--snapshot",
        action="append",
        metavar="FILE",
        help="recorded snapshot (offline); repeat it to join kubectl lists of one cluster",
    )
    source.add_argument("--in-cluster", action="store_true", help="use the pod's service account")
    cluster.add_argument("--context", metavar="NAME", help="kubeconfig context to read")
    cluster.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig file")
    cluster.add_argument(
        "--cluster-name",
        type=_cluster_name,
        metavar="NAME",
        help="what every report calls the cluster (default: the recorded context, else the "
        "snapshot file's name)",
    )
    cluster.add_argument(
        "--i-mean-it",
        action="store_true",
        help="read a live cluster even with credentials that could bind pods",
    )
    cluster.add_argument("--timeout", type=_timeout, metavar="DURATION", help=TIMEOUT_HELP)
    cluster.add_argument(
        "--max-snapshot-age",
        type=_duration,
        metavar="DURATION",
        help="refuse a snapshot older than this, e.g. 7d (m, h, d, w)",
    )
    cluster.add_argument(
        "--snapshot-captured-at",
        type=_captured_at,
        metavar="TIME|mtime",
        help="when a snapshot that records none was taken: an RFC 3339 time, or mtime for "
        "the file's modification time (a maximum age refuses a snapshot of unknown age)",
    )
    cluster.add_argument(
        "--processes",
        "--snapshot-processes",
        dest="processes",
        type=_processes,
        default="auto",
        metavar="auto|1|2",
        help="processes the check may use (default auto): a snapshot file of 64 MiB or "
        "more is read, and a run of 100 workloads or more judged and reported, in two parts "
        "at once where a second core is allowed (auto: and idle at that moment, with 1 GiB "
        "of memory free); every answer is the same",
    )
    cluster.add_argument(
        "--scheduler-version",
        type=_version,
        metavar="VERSION",
        help="speak this kube-scheduler version's reason strings (default: the snapshot's)",
    )
    autoscaling = check.add_argument_group(
        "autoscaling", "the nodes cluster-autoscaler and Karpenter would add"
    )
    autoscaling.add_argument(
        "--autoscaling",
        dest="judge_autoscaling",
        choices=("auto", "off"),
        default="auto",
        help="off: judge today's nodes only, whatever cluster-autoscaler state the snapshot "
        "recorded (default auto: judge its node groups when recorded)",
    )
    autoscaling.add_argument(
        "--instance-types",
        metavar="FILE",
        action="append",
        help="Karpenter's instance types: the JSON of its KWOK provider, `aws ec2 "
        "describe-instance-types --output json` (repeat the flag to add `aws ec2 "
        "describe-instance-type-offerings --location-type availability-zone --output json`) "
        "or `az vm list-skus --location REGION --output json` "
        "(default: autoscaling.instanceTypes of the configuration)",
    )
    policy = check.add_argument_group("policy", "what fails the gate")
    policy.add_argument(
        "--fail-on",
        type=_fail_on,
        default=None,
        metavar="LIST",
        help="verdicts that fail the gate (default NO,ADDON_ONLY,PARTIAL,ERROR; add SCALES "
        "to fail on workloads that need new nodes, PREEMPTS on those that evict pods)",
    )
    add_baseline_option(policy)
    add_allow_empty_option(policy)
    reports = check.add_argument_group("reports", "what is written, and where")
    add_report_options(reports)
    add_json_nodes_option(reports)
    add_output_options(reports)
    reports.add_argument(
        "--no-step-summary",
        dest="step_summary",
        action="store_false",
        help="do not append the summary to $GITHUB_STEP_SUMMARY",
    )
    reports.add_argument(
        "--no-annotations",
        dest="annotations",
        action="store_false",
        help="do not print GitHub workflow annotations",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="fitgate", description=TAGLINE)
    parser.add_argument(
        "-V",
        "--version",
        action="version",
        version=f"fitgate {__version__} (kube-scheduler {SCHEDULER_VERSION} semantics)",
    )
    commands = parser.add_subparsers(dest="command")
    check = commands.add_parser(
        "check", help="evaluate every pod template in PATH...", description=TAGLINE
    )
    _add_check_options(check)
    config = commands.add_parser("config", help="the configuration file (.fitgate.yaml)")
    config.add_argument(
        "--print-schema",
        action="store_true",
        required=True,
        help="print the configuration's JSON Schema (for editors)",
    )
    merge = commands.add_parser(
        "merge", help="join the JSON reports of check --shard K/N into one run's reports"
    )
    merge.add_argument("reports", nargs="+", metavar="REPORT", help="every shard's JSON report")
    add_report_options(merge)
    add_baseline_option(merge)
    add_json_nodes_option(merge)
    add_allow_empty_option(merge)
    add_output_options(merge)
    merge.set_defaults(step_summary=True, annotations=True)
    record = commands.add_parser("snapshot", help="record the live cluster once, read-only")
    record.add_argument("--context", metavar="NAME", help="kubeconfig context to read")
    record.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig file")
    record.add_argument("--in-cluster", action="store_true", help="use the pod's service account")
    record.add_argument(
        "--i-mean-it",
        action="store_true",
        help="read even with credentials that could bind pods",
    )
    record.add_argument("--timeout", type=_timeout, metavar="DURATION", help=TIMEOUT_HELP)
    record.add_argument(
        "--autoscaling",
        action="store_true",
        help="also record cluster-autoscaler's status, its flags, DaemonSets and "
        "MachineDeployments, and Karpenter's NodePools, NodeClaims and NodeClasses (list "
        "only; docs/rbac.md)",
    )
    record.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="snapshot file to write (- for standard output)",
    )
    return parser


@dataclass(frozen=True, slots=True)
class _Inputs:
    """The run's documents and what they hold to judge (worked out while a second process
    may still read the snapshot file), its one snapshot, and what was read and left out."""

    documents: list[Document]
    items: tuple[Extracted, ...]
    snapshot: Snapshot
    read: ReadSummary


def _inputs(options: argparse.Namespace, streams: Streams, config: Config) -> _Inputs:
    """The documents of the run, its one snapshot, and what was read and left out."""
    globs = (*config.exclude, *getattr(options, "exclude", ()))
    paths = options.paths or ["."]
    files = _snapshot_files(options)
    selection = select_paths(paths, Exclusion(tuple(globs), tuple(f for f in files if f != STDIN)))

    def documents() -> tuple[list[Document], tuple[Extracted, ...]]:
        origin_root = getattr(options, "origin_root", None)
        read = list(read_selected(selection, streams.stdin, origin_root=origin_root))
        return read, extracted(read, tuple(options.template_path), config)

    def inputs(read: tuple[list[Document], tuple[Extracted, ...]], snapshot: Snapshot) -> _Inputs:
        return _Inputs(read[0], read[1], snapshot, read_summary(selection, read[0]))

    if not files:
        _, snapshot = _read_live(options, streams)
        return inputs(documents(), snapshot)
    if options.context or options.kubeconfig:
        raise UsageError("--snapshot reads a file; --context and --kubeconfig read a cluster")
    if STDIN in files and (len(files) > 1 or STDIN in paths):
        also = "another --snapshot" if len(files) > 1 else "the manifests (-)"
        raise UsageError(
            f"--snapshot -: standard input is read once, for one input: not for {also} too"
        )
    if len(files) > 1:
        read = documents()
        return inputs(read, load_snapshots(files))
    processes = options.processes
    meanwhile = manifest_bytes(selection) if processes != 1 else 0
    progress = Progress.on(streams.stderr)
    return inputs(
        *read_inputs(
            documents,
            files[0],
            progress,
            processes=processes,
            meanwhile=meanwhile,
            stdin=streams.stdin,
        )
    )


def _snapshot_files(options: argparse.Namespace) -> list[str]:
    """The ``--snapshot`` files, in the order given (none: the live cluster)."""
    files: list[str] = getattr(options, "snapshot", None) or []
    return files


def _cluster(options: argparse.Namespace, snapshot: Snapshot) -> str:
    """What every report calls the cluster: ``--cluster-name``, else the recorded context,
    else the first snapshot file's name."""
    given: str | None = getattr(options, "cluster_name", None)
    files = _snapshot_files(options)
    return given or cluster_name(snapshot.info, files[0] if files else None)


def _read_live(options: argparse.Namespace, streams: Streams) -> tuple[Recording, Snapshot]:
    """The cluster the options name, read once: its recording and node views."""
    # Imported here: the kubernetes client takes a noticeable moment to import, and offline
    # runs never need it.
    from gate.live.connection import Settings
    from gate.live.credentials import LiveTarget

    target = LiveTarget(
        options.kubeconfig,
        options.context,
        options.in_cluster,
        options.i_mean_it,
        recording=options.command == "snapshot",
    )
    now = streams.now or datetime.now(timezone.utc)
    settings = Settings(deadline=options.timeout) if options.timeout else Settings()
    return read_live(
        target,
        streams.env,
        now,
        lambda line: streams.stderr.write(f"fitgate: {line}\n"),
        settings,
        Progress.on(streams.stderr),
        getattr(options, "autoscaling", False),
    )


def evaluate(
    options: argparse.Namespace,
    documents: Iterable[Document],
    snapshot: Snapshot,
    streams: Streams,
    config: Config,
    warnings: tuple[str, ...] = (),
    baseline: Baseline | None = None,
    read: ReadSummary | None = None,
    items: Sequence[Extracted] | None = None,
) -> Report:
    """The pipeline over ``documents``, against ``snapshot`` (``items``: the documents'
    workloads, when already extracted)."""
    by = "--fail-on" if options.fail_on else (config.source if config.fail_on else None)
    run_options = RunOptions(
        config=config,
        policy=config.policy(by, today(streams.now)),
        today=today(streams.now),
        fail_on=options.fail_on or config.fail_on or DEFAULT_FAIL_ON,
        scheduler_version=options.scheduler_version,
        template_paths=tuple(options.template_path),
        shard=getattr(options, "shard", None),
        cluster=_cluster(options, snapshot),
        warnings=warnings,
        baseline=baseline,
        read=read,
        allow_empty=bool(options.allow_empty or config.allow_empty),
        origin_root=getattr(options, "origin_root", None),
        autoscaling=getattr(options, "judge_autoscaling", "auto") != "off",
        processes=getattr(options, "processes", "auto"),
    )
    return check(documents, snapshot, run_options, Progress.on(streams.stderr), items)


def _write(path: str, text: str | Iterable[bytes], streams: Streams) -> None:
    """Write a report as UTF-8, given whole or as encoded pieces (the JSON report can be a
    gigabyte: it is written as it is rendered, and never decoded)."""
    pieces = [text.encode("utf-8")] if isinstance(text, str) else text
    if path == "-":
        binary = getattr(streams.stdout, "buffer", None)
        if binary is None:  # a text-only stream
            streams.stdout.writelines(piece.decode("utf-8") for piece in pieces)
            return
        streams.stdout.flush()
        binary.writelines(pieces)
        binary.flush()
        return
    try:
        with open(path, "wb") as handle:
            handle.writelines(pieces)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write report: {exc.strerror}") from None


def _read_template(path: str | None) -> str | None:
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise UsageError(f"{path}: cannot read comment template: {reason}") from None


def _append_step_summary(path: str, text: str, streams: Streams) -> None:
    """GitHub concatenates what every step appends. A summary that cannot be written must
    not hide the gate's answer, so it is reported and the run goes on."""
    try:
        with open(path, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        streams.stderr.write(f"fitgate: {path}: cannot append the step summary: {exc.strerror}\n")


def _file(path: str | None, streams: Streams) -> tuple[Sink, ...]:
    """A report file named by an option (``-`` is standard output); none when not given."""
    if not path:
        return ()
    if path == "-":
        return (lambda output: _write(path, output, streams),)
    return (FileSink(lambda output: _write(path, output, streams)),)


def _appended(path: str | None, streams: Streams) -> tuple[Sink, ...]:
    if not path:
        return ()
    return (lambda output: _append_step_summary(path, _text(output), streams),)


def _stream(stream: IO[str]) -> tuple[Sink, ...]:
    def sink(output: Output) -> None:
        stream.write(_text(output))

    return (sink,)


def _text(output: Output) -> str:
    return output if isinstance(output, str) else b"".join(output).decode("utf-8")


def _junit() -> Reporter:
    from gate.reports.junit import write_junit  # here: a run that writes no JUnit skips it

    return write_junit


def _comment() -> Reporter:
    from gate.reports.markdown import write_comment  # here: only markdown needs jinja2

    return write_comment


def _summary() -> Reporter:
    from gate.reports.markdown import write_summary  # here: only markdown needs jinja2

    return write_summary


@cache
def _sarif() -> Reporter:
    """Built once: the filter plugins' rules never change."""
    from gate.reports.sarif import sarif_writer  # here: a run that writes no SARIF skips it

    return sarif_writer(RULES)


def _annotations() -> Reporter:
    # Imported here: only a run in GitHub Actions prints workflow annotations.
    from gate.reports.annotations import write_annotations

    return write_annotations


write_junit = Deferred(_junit)
write_comment = Deferred(_comment)
write_summary = Deferred(_summary)
write_sarif = Deferred(_sarif)
"""SARIF with the filter plugins' rules (a report does not read the scheduler itself)."""
write_annotations = Deferred(_annotations)

# Each report file's option and its writer, in the order the files are written.
REPORT_FILES: tuple[tuple[str, Reporter], ...] = (
    ("json", write_json),
    ("junit", write_junit),
    ("comment", write_comment),
    ("summary", write_summary),
    ("sarif", write_sarif),
)


def report_table(
    options: argparse.Namespace, streams: Streams
) -> list[tuple[Reporter, tuple[Sink, ...]]]:
    """Every writer this run renders and where each one's text goes, in the order they
    are written: the report files (the step summary also where GitHub says), the text
    summary unless a report took standard output, then the annotations."""
    to_stdout = any(getattr(options, option) == "-" for option, _ in REPORT_FILES)
    step_summary = streams.env.get("GITHUB_STEP_SUMMARY") if options.step_summary else None
    also: dict[Reporter, tuple[Sink, ...]] = {write_summary: _appended(step_summary, streams)}
    annotated = options.annotations and streams.env.get("GITHUB_ACTIONS") == "true"
    # The runner reads workflow commands from both streams; a report on standard output
    # must stay parseable, so they go to standard error then.
    annotations_to = streams.stderr if to_stdout else streams.stdout
    table = [
        (writer, _file(getattr(options, option), streams) + also.get(writer, ()))
        for option, writer in REPORT_FILES
    ]
    table.append((write_text, () if to_stdout else _stream(streams.stdout)))
    table.append((write_annotations, _stream(annotations_to) if annotated else ()))
    return [(writer, sinks) for writer, sinks in table if sinks]


def colour_wanted(choice: str, streams: Streams) -> bool:
    """``--color``: always, never, or (auto) when standard output is a terminal and
    ``NO_COLOR`` is not set to a non-empty value (https://no-color.org). A CI log is not
    a terminal, so it gets colour only with ``always``."""
    if choice != "auto":
        return choice == "always"
    if streams.env.get("NO_COLOR"):
        return False
    isatty = getattr(streams.stdout, "isatty", None)
    return bool(isatty and isatty())


def _write_reports(
    options: argparse.Namespace, report: Report, cluster: str, streams: Streams
) -> None:
    """The reports the options ask for, each written where they say."""
    # The template is read before anything is written, so a bad one leaves no half-written set.
    context = ReportContext(
        cluster,
        streams.now,
        _read_template(options.comment_template),
        quiet=options.quiet,
        colour=colour_wanted(options.color, streams),
        json_nodes=options.json_nodes,
        comment_template_name=options.comment_template or "",
    )
    processes: Processes = getattr(options, "processes", "auto")
    write_reports(report, context, report_table(options, streams), processes)


def _provisions(snapshot: Snapshot) -> bool:
    """Whether the snapshot's Karpenter has a Ready dynamic NodePool to launch nodes with."""
    state = snapshot.autoscaling
    karpenter = state.karpenter if state is not None else None
    pools = karpenter.pools if karpenter is not None else ()
    return any(p.ready and p.replicas is None for p in pools)


def _one_report_to_stdout(options: argparse.Namespace, streams: Streams) -> None:
    """Two reports written to standard output would be one unreadable stream, and one
    written to a closed standard output would be lost: refused."""
    flags = tuple(option for option, _ in REPORT_FILES)
    to_stdout = [f"--{flag}" for flag in flags if getattr(options, flag, None) == "-"]
    if to_stdout and isinstance(streams.stdout, ClosedOutput):
        raise UsageError(f"{to_stdout[0]} -: standard output is closed: give the report a file")
    if len(to_stdout) > 1:
        raise UsageError(
            f"{' and '.join(to_stdout)} would all go to standard output (-): "
            "give all but one of them a file"
        )


def run_check(options: argparse.Namespace, streams: Streams) -> int:
    options = _with_output(options)
    _one_report_to_stdout(options, streams)
    config = with_catalog(
        load_config(options.config, FilePath(os.getcwd())), options.instance_types
    )
    # Read before the snapshot, which may take minutes: a bad baseline fails at once.
    baseline = _baseline(options)
    given = _inputs(options, streams, config)
    snapshot = given.snapshot
    read = msgspec.structs.replace(given.read, config=config.source)
    snapshot = _with_capture_time(options, snapshot)
    max_age = options.max_snapshot_age or config.max_snapshot_age
    now = streams.now or datetime.now(timezone.utc)
    warnings = snapshot_trust(
        snapshot.info,
        max_age,
        now,
        provisions=options.judge_autoscaling != "off" and _provisions(snapshot),
    )
    status_trust(snapshot.info, snapshot.autoscaling, now)
    problem = version_problem(snapshot.info.server_version)
    if problem and not options.scheduler_version:
        warnings = (*warnings, f"snapshot serverVersion: {problem}: taken as unknown")
    report = evaluate(
        options, given.documents, snapshot, streams, config, warnings, baseline, read, given.items
    )
    if streams.kept is not None:
        streams.kept.extend((given, snapshot, report))
    return _finish(options, report, _cluster(options, snapshot), streams)


def _baseline(options: argparse.Namespace) -> Baseline | None:
    """The ``--baseline`` report, read; None without one."""
    if not options.baseline:
        return None
    from gate.inputs.baseline import read_baseline  # here: most runs compare with none

    return read_baseline(options.baseline)


def _with_capture_time(options: argparse.Namespace, snapshot: Snapshot) -> Snapshot:
    """The snapshot with the capture time ``--snapshot-captured-at`` gives, when it
    records none itself (a recorded time is kept: it says when the cluster was read)."""
    given = options.snapshot_captured_at
    if given is None or snapshot.info.captured_at is not None:
        return snapshot
    files = _snapshot_files(options)
    if not files or STDIN in files:
        raise UsageError(
            "--snapshot-captured-at is for a snapshot file (a live read is taken now; "
            "standard input has no modification time)"
        )
    given_by = "--snapshot-captured-at"
    if given == MTIME:
        given_by = "the file's modification time (--snapshot-captured-at mtime)"
        times = []
        for file in files:  # joined files are as old as the oldest of them
            try:
                times.append(os.stat(file).st_mtime)
            except OSError as exc:
                raise UsageError(f"{file}: cannot read its time: {exc.strerror}") from None
        taken = datetime.fromtimestamp(int(min(times)), timezone.utc)
        given = taken.isoformat().replace("+00:00", "Z")
    return replace(snapshot, info=replace(snapshot.info, captured_at=given, captured_by=given_by))


def run_config(options: argparse.Namespace, streams: Streams) -> int:
    """``fitgate config --print-schema``: the JSON Schema editors validate .fitgate.yaml by."""
    streams.stdout.write(schema_text())
    return 0


def run_merge(options: argparse.Namespace, streams: Streams) -> int:
    """The shards' JSON reports -> every report one unsharded check would have written."""
    options = _with_output(options)
    _one_report_to_stdout(options, streams)
    baseline = _baseline(options)
    from gate.ci.merge import merged_report  # here: only fitgate merge joins reports

    report, cluster = merged_report(options.reports)
    report = judged_or_refused(compared(report, baseline), bool(options.allow_empty))
    return _finish(options, report, cluster, streams)


def _finish(options: argparse.Namespace, report: Report, cluster: str, streams: Streams) -> int:
    """Reports, summary, annotations and the exit code: the same for check and merge.
    Each unreadable document is named once: in its place in the summary, or on standard
    error when a report takes standard output instead of the summary."""
    flags = tuple(option for option, _ in REPORT_FILES)
    if any(getattr(options, flag, None) == "-" for flag in flags):
        streams.stderr.write(write_errors(report, ReportContext(cluster)))
    _write_reports(options, report, cluster, streams)
    if report.nothing_judged is not None:
        streams.stderr.write(f"fitgate: {terminal_text(report.nothing_judged)}\n")
        return NOTHING_JUDGED_EXIT
    return 0 if report.summary.passed else 1


def run_snapshot(options: argparse.Namespace, streams: Streams) -> int:
    """Record the live cluster once, read-only, to a ClusterSnapshot file
    (docs/reference.md, "Snapshot formats")."""
    from gate.live.recorder import atomic_output, write_snapshot

    if options.output == "-":  # the recording itself on standard output, the summary not
        recording, snapshot = _read_live(options, streams)
        write_snapshot(recording, streams.stdout)
        return 0
    with atomic_output(options.output) as output:
        recording, snapshot = _read_live(options, streams)
        write_snapshot(recording, output)
    pods = len(recording.sections["pods"])
    streams.stdout.write(
        f"recorded {snapshot.info.nodes} nodes and {pods} pods of context "
        f"{snapshot.info.context} ({snapshot.info.server}) to {options.output}\n"
    )
    return 0


# Each subcommand's parser is added in build_parser; its runner is looked up here.
COMMANDS: dict[str, Callable[[argparse.Namespace, Streams], int]] = {
    "check": run_check,
    "snapshot": run_snapshot,
    "merge": run_merge,
    "config": run_config,
}


class ClosedOutput(io.StringIO):
    """A standard stream the process was started without (``fitgate check ... >&-``):
    Python then has none at all. What is written to it is dropped; the exit code is still
    the run's, and a report asked for on ``-`` is refused (exit 2)."""

    def write(self, text: str, /) -> int:
        return len(text)


def standard_streams() -> Streams:
    """The process's own streams, a closed one replaced by :class:`ClosedOutput` (or no
    input)."""
    return Streams(
        stdin=sys.stdin.buffer if sys.stdin is not None else io.BytesIO(),
        stdout=sys.stdout if sys.stdout is not None else ClosedOutput(),
        stderr=sys.stderr if sys.stderr is not None else ClosedOutput(),
        env=os.environ,
        now=datetime.now(timezone.utc),
    )


def console() -> NoReturn:
    """The ``fitgate`` command (and ``python -m gate``): the process ends with :func:`main`'s
    exit code once standard output and standard error are flushed (a full or closed
    standard output is said, exit 2). It ends at once, without freeing the run's objects
    one by one, or switching the cycle collector back on, whose first pass would be over
    all of them (a large cluster's millions: 0.15 s on the benchmark's large case); every
    file was closed as it was written."""
    streams = replace(standard_streams(), kept=[])
    code = main(None, streams)
    try:
        if sys.stdout is not None:  # None: started without one (>&-), nothing was written
            sys.stdout.flush()
    except OSError:  # standard output full or closed
        if not code:
            streams.stderr.write(
                "fitgate: cannot write the output: standard output is full or closed\n"
            )
            code = 2
    with suppress(OSError, ValueError):
        if sys.stderr is not None:
            sys.stderr.flush()
    os._exit(code)


def main(
    argv: Sequence[str] | None = None,
    streams: Streams | None = None,
) -> int:
    streams = streams or standard_streams()
    parser = build_parser()
    try:
        options, unknown = parser.parse_known_args(argv)
        if options.command is None:
            if unknown:
                raise UsageError(f"fitgate: {_unknown(parser, unknown)}; see fitgate --help")
            streams.stdout.write(parser.format_help())
            return 0
        if unknown:
            command = f"{parser.prog} {options.command}"
            raise UsageError(
                f"{command}: {_unknown(_subparser(parser, options.command), unknown)}; "
                f"see {command} --help"
            )
    except SystemExit as exc:
        return int(exc.code or 0) and 2
    except UsageError as exc:
        streams.stderr.write(f"{exc}\n")
        return exc.exit_code
    except OSError as exc:  # the help or the version to a full or closed standard output
        return _unwritable(streams, exc)
    with without_cycle_collection(until_exit=streams.kept is not None):
        return _run(options, streams)


def _subparser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The parser of ``fitgate COMMAND``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    raise AssertionError(f"no subcommand {command}")  # pragma: no cover - built above


def _unknown(parser: argparse.ArgumentParser, unknown: Sequence[str]) -> str:
    """The arguments ``parser`` does not know, with the option nearest the first unknown
    option's spelling when one is near: ``--snaphot``: did you mean ``--snapshot``?"""
    said = f"unrecognized arguments: {' '.join(unknown)}"
    names = [o[2:] for a in parser._actions for o in a.option_strings if o.startswith("--")]
    import difflib  # here: only a mistyped option is matched against the known ones

    for argument in unknown:
        if argument.startswith("--"):
            spelt = argument[2:].partition("=")[0]
            near = difflib.get_close_matches(spelt, names, n=1, cutoff=NEAR)
            if near:
                return f"{said} (did you mean --{near[0]}?)"
    return said


NEAR = 0.8
"""How alike (difflib's ratio) an unknown option's name and a known one must be for the
known one to be suggested: one letter dropped, doubled or swapped, not another option."""


def _run(options: argparse.Namespace, streams: Streams) -> int:
    try:
        return COMMANDS[options.command](options, streams)
    except GateError as exc:
        streams.stderr.write(f"fitgate: {exc}\n")
        return exc.exit_code
    except KeyboardInterrupt:
        streams.stderr.write("fitgate: interrupted\n")
        return 130
    except OSError as exc:  # standard output full (``> /dev/full``) or another stream gone
        return _unwritable(streams, exc)


def _unwritable(streams: Streams, exc: OSError) -> int:
    """Exit 1 for a reader that stopped reading (a closed pipe), else 2, said in a line."""
    if isinstance(exc, BrokenPipeError):
        return 1
    with suppress(OSError):
        streams.stderr.write(f"fitgate: cannot write the output: {exc.strerror or exc}\n")
    return 2
