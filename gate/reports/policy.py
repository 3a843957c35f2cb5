"""The sentences of the gate's policy, as the comment states it to the reviewer: what fails
the gate when that is not the default, which ``ADDON_ONLY`` workloads are allowed and
why, and which skips are in force until when. A reviewer must see what was decided, not
only its outcome."""

from __future__ import annotations

from gate.model import DEFAULT_FAIL_ON, VERDICT_ORDER, AutoscalingInput, Policy, Verdict


def _verdicts(verdicts: frozenset[Verdict]) -> str:
    return ", ".join(v.value for v in VERDICT_ORDER if v in verdicts) or "nothing"


def policy_lines(policy: Policy | None, fail_on: frozenset[Verdict]) -> list[str]:
    """One line per decision, none for the default policy.

    >>> from gate.model import AllowedAddonOnly
    >>> allowed = (AllowedAddonOnly("CronJob batch/*", "by design"),)
    >>> policy = Policy(fail_on_by="c.yaml", allowed=allowed, skips=())
    >>> policy_lines(policy, frozenset({Verdict.NO}))
    ['fails on NO (failOn in c.yaml; the default is NO, ADDON_ONLY, PARTIAL, ERROR)', \
'ADDON_ONLY allowed for CronJob batch/*: by design']
    """
    if not policy:
        return []
    lines = []
    if policy.fail_on_by is not None:
        where = (
            "--fail-on" if policy.fail_on_by == "--fail-on" else f"failOn in {policy.fail_on_by}"
        )
        lines.append(
            f"fails on {_verdicts(fail_on)} ({where}; the default is {_verdicts(DEFAULT_FAIL_ON)})"
        )
    lines.extend(f"ADDON_ONLY allowed for {a.workloads}: {a.reason}" for a in policy.allowed)
    lines.extend(
        f"skipped: {s.workloads} until {s.expires}: {s.reason}"
        if s.expires
        else f"skipped: {s.workloads}: {s.reason}"
        for s in policy.skips
    )
    lines.extend(map(autoscaling_line, policy.inputs))
    return lines


_INPUTS = {
    "instanceTypes": "instance types",
    "template": "node template",
    "match": "group members",
    "cluster": "cluster limits",
}


def autoscaling_line(given: AutoscalingInput) -> str:
    """``instance types from catalog.json (sha256 3f2a…): 9 types``: an autoscaler input
    the configuration gives, where it came from and what it says.

    >>> autoscaling_line(AutoscalingInput("match", ".fitgate.yaml", "aks-gpu: pool=gpu"))
    'group members from .fitgate.yaml: aks-gpu: pool=gpu'
    """
    digest = f" (sha256 {given.sha256})" if given.sha256 else ""
    return f"{_INPUTS.get(given.input, given.input)} from {given.source}{digest}: {given.says}"
