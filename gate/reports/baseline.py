"""The run's results against a baseline report (``--baseline``): what this change broke,
what it fixed, and what was failing before it.

Workloads are matched by kind, namespace and name (a custom kind's template label is part
of its name: ``train [Worker]``). When several workloads share a key (the same object in
two files, say), they are matched in order: the first of this run with the first of the
baseline, the second with the second; the rest are new, or gone.

The gate fails only on a workload that fails it now and is new or worse; an ``ERROR``
fails it whatever the baseline said, and a ``SKIPPED`` never does. Whether the baseline's
verdict failed is judged by this run's ``--fail-on`` and ``allowAddonOnly``, so that a
change of configuration is not mistaken for a change of the manifests.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import replace

from gate.model import (
    VERDICT_ORDER,
    Baseline,
    BaselineEntry,
    BaselineRun,
    Change,
    Comparison,
    Report,
    Verdict,
    WorkloadResult,
)
from gate.reports.policy import policy_lines

# How bad each evaluated verdict is; ERROR and SKIPPED said nothing about fitting.
_RANK = {
    Verdict.YES: 0,
    Verdict.SCALES: 1,
    Verdict.PREEMPTS: 1,
    Verdict.PARTIAL: 2,
    Verdict.ADDON_ONLY: 3,
    Verdict.NO: 4,
}


def worse(before: Verdict, now: Verdict) -> bool:
    """Whether ``now`` is worse than ``before``: higher in YES < SCALES, PREEMPTS < PARTIAL <
    ADDON_ONLY < NO,
    an ``ERROR`` after anything else, or any evaluated verdict after a baseline that could
    not say (``ERROR``, ``SKIPPED``).

    >>> worse(Verdict.PARTIAL, Verdict.NO), worse(Verdict.NO, Verdict.PARTIAL)
    (True, False)
    >>> worse(Verdict.ERROR, Verdict.NO), worse(Verdict.ERROR, Verdict.ERROR)
    (True, False)
    """
    if now is Verdict.ERROR or now is Verdict.SKIPPED:
        return now is Verdict.ERROR and before is not Verdict.ERROR
    if before not in _RANK:
        return True
    return _RANK[now] > _RANK[before]


def comparison(report: Report, result: WorkloadResult, before: BaselineEntry | None) -> Comparison:
    """``result`` against the baseline's entry for it (None: the baseline has none)."""
    failing = report.fails_alone(result) and result.verdict is not Verdict.SKIPPED
    if before is None:
        return Comparison(Change.NEW, None, failing)
    was = before.verdict
    failed = (
        was in report.fail_on
        and was is not Verdict.SKIPPED
        and not (was is Verdict.ADDON_ONLY and result.allowed)
    )
    if failing:
        change = Change.WORSE if worse(was, result.verdict) or not failed else Change.STILL_FAILING
    else:
        change = Change.FIXED if failed else Change.UNCHANGED
    counts = failing and (change is Change.WORSE or result.verdict is Verdict.ERROR)
    return Comparison(change, was, counts)


def compare(report: Report, baseline: Baseline, whole: bool = True) -> Report:
    """``report`` with each result compared with ``baseline``; ``whole`` is false for a
    shard's report, whose missing workloads are the other shards', not gone."""
    # The first entry of each key waits alone and only a key's later entries queue: a
    # queue per key cost 600 bytes for each of 250,000 workloads, more than they take.
    waiting: dict[tuple[str, str, str], BaselineEntry] = {}
    later: defaultdict[tuple[str, str, str], deque[BaselineEntry]] = defaultdict(deque)
    for entry in baseline.entries:
        if waiting.setdefault(entry.key, entry) is not entry:
            later[entry.key].append(entry)
    results = []
    for result in report.results:
        key = (result.kind, result.namespace, result.name)
        before = waiting.pop(key, None)
        queue = later.get(key) if before is not None else None
        if queue:
            waiting[key] = queue.popleft()
        results.append(replace(result, compared=comparison(report, result, before)))
    left = (
        {id(entry) for entry in waiting.values()}
        | {id(entry) for queue in later.values() for entry in queue}
        if whole
        else set()
    )
    gone = tuple(entry for entry in baseline.entries if id(entry) in left)
    changes = policy_changes(report, baseline)
    return replace(
        report, results=tuple(results), baseline=BaselineRun(baseline.source, gone, changes)
    )


def policy_changes(report: Report, baseline: Baseline) -> tuple[str, ...]:
    """How this run's policy differs from the baseline's, line by line as the comment
    states a policy: ``now: ...`` for a line the baseline's lacks, ``was: ...`` for one it
    had (none for a baseline of an older version, which did not record its policy). A pull
    request that changes ``.fitgate.yaml`` changes what passes; a reviewer must see it."""
    if baseline.policy is None or baseline.fail_on is None:
        return ()
    now = policy_lines(report.policy, report.fail_on)
    if report.fail_on != baseline.fail_on and not any(n.startswith("fails on") for n in now):
        now = [f"fails on {_verdicts(report.fail_on)}", *now]
    was = policy_lines(baseline.policy, baseline.fail_on)
    if report.fail_on != baseline.fail_on and not any(w.startswith("fails on") for w in was):
        was = [f"fails on {_verdicts(baseline.fail_on)}", *was]
    return (
        *(f"now: {line}" for line in now if line not in was),
        *(f"was: {line}" for line in was if line not in now),
    )


def _verdicts(verdicts: frozenset[Verdict]) -> str:
    return ", ".join(v.value for v in VERDICT_ORDER if v in verdicts) or "nothing"
