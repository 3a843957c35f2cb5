"""``.fitgate.yaml``: what a team otherwise repeats on every command line (SPEC section 2).

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
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from gate.autoscaling import AutoscalingConfig
from gate.errors import SnapshotError, UsageError
from gate.inputs.autoscaling import autoscaling_config
from gate.inputs.custom_kinds import Count, CustomKind, Site, api_group
from gate.model import SnapshotInfo, Verdict, WarningKind, Workload, WorkloadResult

CONFIG_NAME = ".fitgate.yaml"


def schema_text() -> str:
    """The JSON Schema of the configuration, as shipped (``fitgate config --print-schema``)."""
    return resources.files("gate").joinpath("schemas/config.schema.json").read_text("utf-8")


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
    autoscaling: AutoscalingConfig = field(default_factory=AutoscalingConfig)

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
                reason = f"allowed on the add-on pool by {self.source}: {rule.reason}"
                return replace(result, reason=reason, allowed=True)
        return result

    def shown(self, result: WorkloadResult) -> WorkloadResult:
        if not self.hide_warnings or not result.warnings:
            return result
        kept = tuple(w for w in result.warnings if w.kind not in self.hide_warnings)
        return replace(result, warnings=kept)


def _names(rule: Rule, workload: Workload) -> bool:
    return rule.matches(workload.kind, workload.namespace, workload.name, workload.labels)


def find_config(start: Path) -> Path | None:
    """The first ``.fitgate.yaml`` in ``start`` or a folder above it."""
    for folder in (start, *start.parents):
        candidate = folder / CONFIG_NAME
        if candidate.is_file():
            return candidate
    return None


def load_config(path: str | None, cwd: Path) -> Config:
    """The configuration ``--config`` names, else the one found upwards, else none."""
    found = Path(path) if path else find_config(cwd)
    if found is None:
        return Config()
    shown = path or _shown(found, cwd)
    try:
        data = yaml.safe_load(found.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read the configuration: {exc.strerror}") from None
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{shown}: not YAML: {reason}") from None
    data = {} if data is None else data
    _validate(data, shown)
    return parse_config(data, shown)


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
        raise UsageError(f"{shown}: {_field(error.path)}: {_why(error)}")


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
        custom_kinds=tuple(_custom_kind(k) for k in data.get("customKinds", ())),
        max_snapshot_age=parse_duration(age) if age else None,
        hide_warnings=frozenset(WarningKind(w) for w in data.get("warnings", {}).get("hide", ())),
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


def _custom_kind(data: Mapping[str, Any]) -> CustomKind:
    sites = tuple(
        Site(
            spec=(tuple(t["path"].split(".")),),
            label=t.get("name", ""),
            count=(Count(tuple(t["replicas"].split("."))),) if t.get("replicas") else (),
        )
        for t in data["templates"]
    )
    return CustomKind(api_group(data["apiVersion"]), data["kind"], sites)


def today(now: datetime | None) -> date:
    return (now or datetime.now(timezone.utc)).astimezone(timezone.utc).date()


STALE_SNAPSHOT = (
    "the snapshot is more than a day old (maxSnapshotAge in .fitgate.yaml or "
    "--max-snapshot-age refuses old ones)"
)
"""The run's warning when the snapshot is a day old or older and no maximum age is set."""


def snapshot_trust(info: SnapshotInfo, max_age: timedelta | None, now: datetime) -> tuple[str, ...]:
    """Refuse a snapshot that cannot be trusted (exit 2): one with no nodes, which cannot
    answer anything, and one older than ``max_age``. Returns the run's warnings: a snapshot
    a day old or older, with no maximum age set, is used with a warning in every report
    (with a maximum set, a snapshot within it is trusted as it is)."""
    if info.nodes == 0:
        raise SnapshotError(f"{info.source}: the snapshot has no nodes: it cannot answer anything")
    taken = info.taken
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


def _days(age: timedelta) -> str:
    """``109d 3h``, ``5h 10m``, ``12m``: the largest two units."""
    seconds = max(0, int(age.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, minutes = rest // 3600, rest % 3600 // 60
    if days:
        return f"{days}d {hours}h" if hours else f"{days}d"
    return f"{hours}h {minutes}m" if hours else f"{minutes}m"
