"""A base branch's report read back: its verdicts by workload, and what changed."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from gate.model.policy import Policy
from gate.model.workloads import Verdict


class Change(str, Enum):
    """How a workload compares with the baseline report (``--baseline``), as the gate
    sees both: "failing" means a verdict the gate fails on (``--fail-on``, less what
    ``allowAddonOnly`` allows)."""

    NEW = "new"
    """No workload of the baseline has its kind, namespace and name."""
    WORSE = "worse"
    """It fails the gate, and its verdict is worse than the baseline's (YES < SCALES < PARTIAL <
    ADDON_ONLY < NO), or it is an ERROR where the baseline was not, or the baseline could not
    say (ERROR, SKIPPED) and it now fails."""
    FIXED = "fixed"
    """The baseline's verdict failed the gate; this one does not."""
    STILL_FAILING = "still-failing"
    """It fails the gate as the baseline did, no worse."""
    UNCHANGED = "unchanged"
    """Neither fails the gate."""

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class BaselineEntry:
    """A workload as the baseline report recorded it: what it is matched by, its verdict,
    and where and why the base said so (None when the report did not record it)."""

    kind: str
    namespace: str
    name: str
    verdict: Verdict
    file: str | None = None
    line: int | None = None
    message: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.kind, self.namespace, self.name)

    @property
    def title(self) -> str:
        return (
            f"{self.kind} {self.namespace}/{self.name}"
            if self.namespace
            else (f"{self.kind} {self.name}")
        )


@dataclass(frozen=True, slots=True)
class Baseline:
    """The workloads of an earlier JSON report (``--baseline REPORT``), in its order, and
    the policy and ``failOn`` it was written under (None: a report of an older version,
    which did not record them)."""

    source: str
    entries: tuple[BaselineEntry, ...]
    policy: Policy | None = None
    fail_on: frozenset[Verdict] | None = None


@dataclass(frozen=True, slots=True)
class Comparison:
    """One workload against the baseline: how it changed, the baseline's verdict (None for
    a new workload), and whether it fails the gate: only a new or worse failure does, and
    an ``ERROR`` always does (an unreadable document says nothing about what it fixed)."""

    change: Change
    before: Verdict | None
    fails: bool


@dataclass(frozen=True, slots=True)
class BaselineRun:
    """What the reports say of the baseline as a whole: the report compared against, and
    its workloads this run does not have (renamed, deleted, or in another shard's part:
    a shard's report lists none)."""

    source: str
    gone: tuple[BaselineEntry, ...] = ()
    policy_changes: tuple[str, ...] = ()
    """How this run's policy differs from the baseline's: ``now: <line>`` for each line of
    this run's policy the baseline's lacks, ``was: <line>`` for each it had."""
