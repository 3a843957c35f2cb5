"""What the gate was told to decide, as a reviewer must see it: where ``failOn`` was set,
the ``ADDON_ONLY`` workloads allowed, the skips in force and the autoscaler inputs the
configuration gives. A run's report and a baseline's both carry one."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from gate.model.reported import Reported, given


class AllowedAddonOnly(Reported, frozen=True):
    """An allowAddonOnly rule: the workloads it names, and why."""

    workloads: str
    reason: str


class Skip(Reported, frozen=True):
    """A skip rule in force: the workloads it names, why, and until when (null: no end)."""

    workloads: str
    reason: str
    expires: str | None


class AutoscalingInput(Reported, frozen=True):
    """An autoscaler input the configuration (or --instance-types) gives, which verdicts
    after scale-up are decided with: input is instanceTypes (the catalog), template (a
    configured group's fresh node), match (the label a group's members carry) or cluster
    (the configured limits); source the file or flag that gave it; says what it says;
    sha256 the catalog file's digest (instanceTypes only)."""

    input: str
    source: str
    says: str
    sha256: str | UnsetType = UNSET


class Policy(Reported, frozen=True, kw_only=True):
    """What the configuration or --fail-on changed of the gate's policy: where failOn was set
    (null: the default), the ADDON_ONLY workloads allowed, the skips in force and the
    autoscaler inputs the configuration gives (absent when none)."""

    # What the gate was told to decide, as a reviewer must see it. A policy that changes
    # nothing is false, and the report leaves it out.

    fail_on_by: str | None = msgspec.field(name="failOnBy")
    allowed: tuple[AllowedAddonOnly, ...] = msgspec.field(name="allowAddonOnly")
    skips: tuple[Skip, ...] = msgspec.field(name="skip")
    autoscaling: tuple[AutoscalingInput, ...] | UnsetType = UNSET

    def __bool__(self) -> bool:
        return bool(self.fail_on_by or self.allowed or self.skips or self.autoscaling)

    @property
    def inputs(self) -> tuple[AutoscalingInput, ...]:
        """The autoscaler inputs the configuration gives (none: an empty tuple)."""
        return given(self.autoscaling, ())
