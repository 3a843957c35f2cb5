"""``.fitgate.yaml``: what a team otherwise repeats on every command line (README, "Configuration").

Found from the working directory upwards (or given with ``--config``), validated against
``gate/schemas/config.schema.json`` before anything else is read: a violation is one line
naming the file, the field and why (exit 2). Command-line flags override it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from msgspec import UNSET

from gate import shipped_text
from gate.deadline import open_regular, read_capped
from gate.errors import SnapshotError, UsageError
from gate.inputs.autoscaling import autoscaling_config
from gate.inputs.custom_kinds import CUSTOM_KINDS, Count, CustomKind, Site, api_group
from gate.inputs.manifests import bounded_yaml
from gate.inputs.workloads import TEMPLATE_PATHS
from gate.k8s.quantity import format_amount
from gate.model import (
    AllowedAddonOnly,
    AutoscalingInput,
    Policy,
    Skip,
    SnapshotInfo,
    Verdict,
    WarningKind,
    Workload,
    WorkloadResult,
)
from gate.model.autoscaling import AutoscalingConfig, AutoscalingState, ConfiguredGroup

CONFIG_NAME = ".fitgate.yaml"


def schema_text() -> str:
    """The JSON Schema of the configuration, as shipped (``fitgate config --print-schema``)."""
    return shipped_text("schemas/config.schema.json")


@dataclass(frozen=True, slots=True)
class Rule:
    """Which workloads a ``skip`` or ``allowAddonOnly`` rule names: every matcher given must
    match (kind, namespace and name are globs; labels are matched exactly)."""

    reason: str
    kind: str | None = None
    namespace: str | None = None
    name: str | None = None
    labels: tuple[tuple[str, str], ...] = ()
    expires: date | None = None

    def matches(self, kind: str, namespace: str, name: str, labels: Mapping[str, str]) -> bool:
        return (
            _glob(self.kind, kind)
            and _glob(self.namespace, namespace)
            and _glob(self.name, name)
            and all(labels.get(key) == value for key, value in self.labels)
        )


def _glob(pattern: str | None, value: str) -> bool:
    return pattern is None or fnmatchcase(value, pattern)


@dataclass(frozen=True, slots=True)
class Config:
    """The configuration of a run; an absent file is the empty one."""

    source: str | None = None
    fail_on: frozenset[Verdict] | None = None
    exclude: tuple[str, ...] = ()
    skip: tuple[Rule, ...] = ()
    allow_addon_only: tuple[Rule, ...] = ()
    custom_kinds: tuple[CustomKind, ...] = ()
    max_snapshot_age: timedelta | None = None
    hide_warnings: frozenset[WarningKind] = frozenset()
    allow_empty: bool = False
    autoscaling: AutoscalingConfig = field(default_factory=AutoscalingConfig)
    instance_types: tuple[str, str] | None = None
    """``autoscaling.instanceTypes``: the path as written, and where it is opened (relative
    to the configuration's folder); read by :func:`with_catalog`, unless the flag wins."""

    def skipped(self, workload: Workload, today: date) -> tuple[str | None, str | None]:
        """``(skip reason, expired note)``: why the workload is skipped, or why a rule that
        named it no longer does (its ``expires`` date has passed)."""
        for rule in self.skip:
            if not _names(rule, workload):
                continue
            if rule.expires is not None and rule.expires < today:
                return None, (
                    f"the {self.source} skip rule ({rule.reason}) expired on "
                    f"{rule.expires.isoformat()}: evaluated again"
                )
            return f"skipped by {self.source}: {rule.reason}", None
        return None, None

    def allowed(self, workload: Workload, result: WorkloadResult) -> WorkloadResult:
        """An ``ADDON_ONLY`` result an ``allowAddonOnly`` rule names, marked allowed."""
        if result.verdict is not Verdict.ADDON_ONLY:
            return result
        for rule in self.allow_addon_only:
            if _names(rule, workload):
                reason = f"allowed by {self.source}: {rule.reason}"
                return replace(result, reason=reason, allowed=True)
        return result

    def policy(self, fail_on_by: str | None, today: date) -> Policy:
        """The policy a reviewer sees: ``fail_on_by`` names where ``failOn`` was set (None:
        the default); the allowances and the skips still in force on ``today``."""
        return Policy(
            fail_on_by=fail_on_by,
            allowed=tuple(AllowedAddonOnly(_workloads(r), r.reason) for r in self.allow_addon_only),
            skips=tuple(
                Skip(_workloads(r), r.reason, r.expires.isoformat() if r.expires else None)
                for r in self.skip
                if r.expires is None or r.expires >= today
            ),
            autoscaling=autoscaling_inputs(self.autoscaling, self.source or ".fitgate.yaml"),
        )

    def shown(self, result: WorkloadResult) -> WorkloadResult:
        if not self.hide_warnings or not result.warnings:
            return result
        kept = tuple(w for w in result.warnings if w.kind not in self.hide_warnings)
        return replace(result, warnings=kept)


def autoscaling_inputs(config: AutoscalingConfig, source: str) -> tuple[AutoscalingInput, ...]:
    """What the configuration (or ``--instance-types``) gives the autoscalers' verdicts,
    each with where it came from: the catalog file and its digest, each configured group's
    template and member label, the cluster limits (used when the snapshot records no
    cluster-autoscaler Deployment)."""
    found: list[AutoscalingInput] = []
    catalog = config.catalog
    if catalog is not None and not catalog.from_cluster:
        found.append(
            AutoscalingInput(
                "instanceTypes", catalog.source, f"{len(catalog.types)} instance types",
                UNSET if catalog.sha256 is None else catalog.sha256,
            )
        )  # fmt: skip
    for group in config.groups:
        if group.match is not None:
            key, value = group.match
            found.append(AutoscalingInput("match", source, f"{group.id}: {key}={value}"))
        if group.template is not None:
            found.append(AutoscalingInput("template", source, _template_text(group)))
    limits = config.limits
    if limits is not None:
        said = (
            f"maxNodesTotal {limits.max_nodes_total or 'none'}, coresTotal "
            f"{limits.cores[0]}:{limits.cores[1]}, memoryTotal {limits.memory[0] // 2**30}:"
            f"{limits.memory[1] // 2**30} GiB (when no cluster-autoscaler Deployment is recorded)"
        )
        found.append(AutoscalingInput("cluster", source, said))
    return tuple(found)


def _amounts_text(amounts: Mapping[str, int]) -> str:
    """``cpu=7800m,memory=28Gi``: amounts in scheduler units as quantities, sorted."""
    return ",".join(f"{r}={format_amount(r, a)}" for r, a in sorted(amounts.items())) or "none"


def _template_text(group: ConfiguredGroup) -> str:
    """``aks-gpu: allocatable cpu=7800m,memory=28Gi; capacity cpu=8,memory=32Gi; ...``."""
    template = group.template
    assert template is not None
    text = (
        f"{group.id}: allocatable {_amounts_text(template.allocatable)}; capacity "
        f"{_amounts_text(template.capacity)}"
    )
    if template.labels:
        text += "; labels " + ",".join(f"{k}={v}" for k, v in sorted(template.labels.items()))
    if template.taints:
        text += "; taints " + ",".join(map(str, template.taints))
    return text


def _workloads(rule: Rule) -> str:
    """The workloads a rule names, as ``Kind namespace/name {labels}`` with ``*`` for a
    matcher not given.

    >>> _workloads(Rule("r", kind="CronJob", namespace="batch", labels=(("tier", "ops"),)))
    'CronJob batch/* {tier=ops}'
    """
    text = f"{rule.kind or '*'} {rule.namespace or '*'}/{rule.name or '*'}"
    if rule.labels:
        text += " {" + ", ".join(f"{k}={v}" for k, v in rule.labels) + "}"
    return text


def _names(rule: Rule, workload: Workload) -> bool:
    return rule.matches(workload.kind, workload.namespace, workload.name, workload.labels)


def find_config(start: Path) -> Path | None:
    """The first ``.fitgate.yaml`` in ``start`` or a folder above it."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


MAX_CONFIG_BYTES = 1024 * 1024
"""A configuration longer than this is refused: a team's is a few hundred bytes."""

MAX_CONFIG_DEPTH = 32
"""Nesting deeper than this is refused before validation (the deepest key is 5 down)."""


class _TooLarge(Exception):
    """More than :data:`MAX_CONFIG_BYTES`."""


def load_config(path: str | None, cwd: Path) -> Config:
    """The configuration ``--config`` names, else the one found upwards, else none.

    It is read with the bounds a manifest gets (size, alias expansion, nesting: see
    :func:`gate.inputs.manifests.bounded_yaml`), and every problem is one line naming the
    file and the key (exit 2)."""
    found = Path(path) if path else find_config(cwd)
    if found is None:
        return Config()
    shown = path or _shown(found, cwd)
    try:
        with open_regular(found) as handle:
            raw = read_capped(handle.read, MAX_CONFIG_BYTES, _TooLarge)
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read the configuration: {exc.strerror}") from None
    except _TooLarge:
        limit = MAX_CONFIG_BYTES // 1024
        raise UsageError(f"{shown}: longer than {limit} KiB: not read") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{shown}: not UTF-8: {exc.reason} at byte {exc.start}") from None
    try:
        data = bounded_yaml(text)
    except ValueError as exc:
        raise UsageError(f"{shown}: not YAML: {exc}") from None
    data = {} if data is None else data
    _check_shape(data, shown)
    _validate(data, shown)
    config = parse_config(data, shown)
    types = (data.get("autoscaling") or {}).get("instanceTypes")
    if types is None:
        return config
    return replace(config, instance_types=(types, os.path.join(found.parent, types)))


def with_catalog(config: Config, flag: str | Sequence[str] | None) -> Config:
    """The configuration with the instance-type catalog ``--instance-types`` names (as
    given; the flag may name several files, :func:`~gate.inputs.catalog.read_catalogs`),
    else the one ``autoscaling.instanceTypes`` names; as it was when neither does.
    Read now, before any snapshot: a bad catalog fails at once (exit 2)."""
    if isinstance(flag, str):
        flag = [flag]
    if not flag and config.instance_types is None:
        return config
    # Imported here: only a run given an instance-type catalog reads one.
    from gate.inputs.catalog import read_catalog, read_catalogs

    if flag:
        catalog = read_catalogs([(path, None) for path in flag])
    elif config.instance_types is not None:
        written, opened = config.instance_types
        try:
            catalog = read_catalog(written, opened)
        except UsageError as exc:
            raise UsageError(f"{config.source}: autoscaling.instanceTypes: {exc}") from None
    return replace(config, autoscaling=replace(config.autoscaling, catalog=catalog))


def _check_shape(data: object, shown: str) -> None:
    """What the JSON Schema cannot say of YAML: every mapping key is a string (``{1: x}``
    is no label), and nothing is nested past :data:`MAX_CONFIG_DEPTH` (validation
    recurses). Walked with a stack of its own."""
    pending: list[tuple[object, tuple[object, ...]]] = [(data, ())]
    while pending:
        value, path = pending.pop()
        if len(path) > MAX_CONFIG_DEPTH:
            where = _field(path[:MAX_CONFIG_DEPTH])
            raise UsageError(f"{shown}: {where}: nested deeper than {MAX_CONFIG_DEPTH} levels")
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise UsageError(
                        f"{shown}: {_field(path)}: the key {_shown_value(key)} is not a "
                        "string: quote it"
                    )
                pending.append((item, (*path, key)))
        elif isinstance(value, list):
            pending.extend((item, (*path, index)) for index, item in enumerate(value))


def _shown_value(value: object, limit: int = 60) -> str:
    """A value in an error line: its repr, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown(found: Path, cwd: Path) -> str:
    """The found file as reports name it: relative to the working directory (``.fitgate.yaml``,
    ``../../.fitgate.yaml``), never an absolute path of this machine."""
    return os.path.relpath(found, cwd)


def _validate(data: object, shown: str) -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(json.loads(schema_text()))
    errors = sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.path)), e.message))
    if errors:
        error = errors[0]
        why = " ".join(_why(error).split())
        why = why if len(why) <= 300 else why[:297] + "..."
        raise UsageError(f"{shown}: {_field(error.path)}: {why}")


def _field(path: Sequence[object]) -> str:
    """``skip[0].reason`` from jsonschema's path; ``(top level)`` for the document."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _why(error: Any) -> str:
    if error.validator == "additionalProperties":
        return f"{error.message}; known keys are in fitgate config --print-schema"
    if error.validator == "minProperties" and "reason" in error.instance:
        return "a rule names its workloads by kind, namespace, name or labels, besides its reason"
    if error.validator == "enum" and isinstance(error.instance, bool):
        return f'{error.message} (YAML reads a bare NO as false: quote it, "NO")'
    if error.validator == "pattern" and error.path and error.path[-1] == "maxSnapshotAge":
        return f"{error.instance!r} is not a duration such as 12h, 7d or 2w"
    return str(error.message)


_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"([1-9][0-9]{0,5})([mhdw])")


def parse_duration(text: str) -> timedelta:
    """``7d`` -> seven days (units m, h, d, w); an ``argparse`` type for
    ``--max-snapshot-age``."""
    match = _DURATION.fullmatch(text.strip())
    if not match:
        raise ValueError(f"{text!r}: expected a duration such as 12h, 7d or 2w")
    return timedelta(seconds=int(match[1]) * _UNITS[match[2]])


def parse_config(data: Mapping[str, Any], source: str) -> Config:
    """A validated document -> :class:`Config`."""
    fail_on = data.get("failOn")
    age = data.get("maxSnapshotAge")
    return Config(
        source=source,
        fail_on=frozenset(Verdict(v) for v in fail_on) if fail_on else None,
        exclude=tuple(data.get("exclude", ())),
        skip=tuple(_rule(r, f"{source}: skip[{i}]") for i, r in enumerate(data.get("skip", ()))),
        allow_addon_only=tuple(_rule(r, source) for r in data.get("allowAddonOnly", ())),
        custom_kinds=tuple(
            _custom_kind(k, f"{source}: customKinds[{i}]")
            for i, k in enumerate(data.get("customKinds", ()))
        ),
        max_snapshot_age=parse_duration(age) if age else None,
        hide_warnings=frozenset(WarningKind(w) for w in data.get("warnings", {}).get("hide", ())),
        allow_empty=bool(data.get("allowEmpty", False)),
        autoscaling=autoscaling_config(data.get("autoscaling"), source),
    )


def _rule(data: Mapping[str, Any], where: str) -> Rule:
    expires = data.get("expires")
    try:
        day = date.fromisoformat(expires) if expires else None
    except ValueError:
        raise UsageError(f"{where}.expires: {expires!r} is not a date (YYYY-MM-DD)") from None
    return Rule(
        reason=data["reason"],
        kind=data.get("kind"),
        namespace=data.get("namespace"),
        name=data.get("name"),
        labels=tuple(sorted(data.get("labels", {}).items())),
        expires=day,
    )


def _custom_kind(data: Mapping[str, Any], where: str) -> CustomKind:
    problem = _redefined(api_group(data["apiVersion"]), data["kind"])
    if problem:
        raise UsageError(f"{where}: {data['apiVersion']} {data['kind']} {problem}")
    sites = tuple(
        Site(
            spec=(tuple(t["path"].split(".")),),
            label=t.get("name", ""),
            count=(Count(tuple(t["replicas"].split("."))),) if t.get("replicas") else (),
        )
        for t in data["templates"]
    )
    return CustomKind(api_group(data["apiVersion"]), data["kind"], sites)


_KNOWN = frozenset((row.group, row.kind) for row in CUSTOM_KINDS)


def _redefined(group: str, kind: str) -> str | None:
    """Why a custom kind may not be defined: the configuration adds kinds, it cannot
    rewrite how a Kubernetes kind (one of the core group, a group without a dot such as
    ``apps`` or ``batch``, or a ``*.k8s.io`` group) or a kind fitgate knows is read."""
    if group == "" or "." not in group or group.endswith(".k8s.io"):
        built_in = " (fitgate reads its pod template itself)" if kind in TEMPLATE_PATHS else ""
        return f"is a Kubernetes kind{built_in}: customKinds may not redefine it"
    if (group, kind) in _KNOWN:
        return "is a kind fitgate knows: customKinds may not redefine it"
    return None


def today(now: datetime | None) -> date:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).date()


STALE_SNAPSHOT = (
    "the snapshot is more than a day old (maxSnapshotAge in .fitgate.yaml or "
    "--max-snapshot-age refuses old ones)"
)
"""The run's warning when the snapshot is a day old or older and no maximum age is set."""


CLOCK_SKEW = timedelta(minutes=5)
"""How far in the future a capture time may be (clocks disagree a little) before the
snapshot is refused: a time further ahead would make any snapshot look fresh."""


def snapshot_trust(
    info: SnapshotInfo, max_age: timedelta | None, now: datetime, provisions: bool = False
) -> tuple[str, ...]:
    """Refuse a snapshot that cannot be trusted (exit 2): one with no nodes, which cannot
    answer anything, one taken more than :data:`CLOCK_SKEW` in the future, and, with a
    ``max_age``, one older or one whose age is unknown (a gate fails closed). Returns the
    run's warnings: a snapshot a day old or older, with no maximum age set, is used with a
    warning in every report (with a maximum set, a snapshot within it is trusted as it
    is). A snapshot with no nodes whose Karpenter ``provisions`` (a Ready dynamic NodePool,
    as on an EKS cluster whose Karpenter runs on Fargate) is judged: Karpenter would launch
    the nodes."""
    if info.nodes == 0 and not provisions:
        raise SnapshotError(f"{info.source}: the snapshot has no nodes: it cannot answer anything")
    taken = info.taken
    if taken is not None and taken - now > CLOCK_SKEW:
        raise SnapshotError(
            f"{info.source}: the snapshot was taken {info.captured_at}, {_days(taken - now)} "
            f"from now: a capture time more than {_days(CLOCK_SKEW)} in the future cannot be "
            "trusted (is a clock wrong?)"
        )
    if taken is None and max_age is not None:
        raise SnapshotError(
            f"{info.source}: the snapshot records no capture time, so the maximum age of "
            f"{_days(max_age)} (maxSnapshotAge, --max-snapshot-age) cannot be checked: give "
            "it with --snapshot-captured-at TIME, or --snapshot-captured-at mtime for the "
            "file's modification time"
        )
    if taken is None:
        return ()
    age = now - taken
    if max_age is not None and age > max_age:
        raise SnapshotError(
            f"{info.source}: the snapshot was taken {info.captured_at}, {_days(age)} ago, "
            f"older than the maximum age of {_days(max_age)} (maxSnapshotAge, "
            "--max-snapshot-age): record a new one with fitgate snapshot"
        )
    if max_age is None and age >= timedelta(days=1):
        return (STALE_SNAPSHOT,)
    return ()


def status_trust(info: SnapshotInfo, state: AutoscalingState | None, now: datetime) -> None:
    """Refuse a cluster-autoscaler status written more than :data:`CLOCK_SKEW` after the
    snapshot was taken (or, with no capture time, after ``now``): a status time in the
    future would make any status look fresh (exit 2)."""
    status = state.status if state is not None else None
    if status is None or status.updated is None:
        return
    reference = info.taken or now
    ahead = status.updated - reference
    if ahead > CLOCK_SKEW:
        when = "the snapshot was taken" if info.taken is not None else "now"
        raise SnapshotError(
            f'{info.source}: ConfigMap "kube-system/cluster-autoscaler-status": written '
            f"{status.updated.isoformat()}, {_days(ahead)} after {when}: a status time more "
            f"than {_days(CLOCK_SKEW)} in the future cannot be trusted (is a clock wrong?)"
        )


def _days(age: timedelta) -> str:
    """``109d 3h``, ``5h 10m``, ``12m``: the largest two units."""
    seconds = max(0, int(age.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, minutes = rest // 3600, rest % 3600 // 60
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    return f"{hours}h {minutes}m" if hours else f"{minutes}m"
