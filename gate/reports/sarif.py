"""SARIF 2.1.0 for code scanning (``--sarif FILE``): one result per failing workload, at the
manifest line of the field that made the no.

One rule per reason family (:class:`~gate.model.Family`), taken from the structured cause
(the rejecting plugin), never from the reason's words: taints, resources, selector,
affinity, spread, ports (each stated by the filter plugin of that family), add-on only,
error. A workload that fails the gate is an
``error``; an ``ADDON_ONLY`` or ``PARTIAL`` the gate does not fail on is a ``warning``,
as in the annotations.

GitHub code scanning reads ``artifactLocation.uri`` relative to the repository root (a
percent-encoded relative reference, without ``./``), shows ``message.text`` as plain text
(so names from the manifests stay text, and the JSON encoder is the only escaping), and
groups a result across commits by ``partialFingerprints``: here the workload and the rule,
so moving a manifest's lines keeps its alert. A workload read from standard input has no
file in the repository, so its result has no location. Same report, same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import quote

import msgspec

from gate.model import Family, Report, Rule, Verdict, WorkloadResult
from gate.reports.reporter import ReportContext, Reporter
from gate.reports.views import Views
from gate.reports.wording import display_title, field_sentence, headline, pointed_line, repo_path

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
# A PREEMPTS passes, but evicts someone's pods: worth a warning where the diff is read.
_WARNED = frozenset({Verdict.ADDON_ONLY, Verdict.PARTIAL, Verdict.PREEMPTS})

RuleTable = tuple[Rule, ...]
"""Every rule, one per family, in the families' order."""

# The rules of the families no filter plugin gives: the plugins' own rules are stated in
# their modules (``gate/scheduler/plugins/``) and handed to :func:`sarif_writer`.
OWN_RULES: tuple[Rule, ...] = (
    Rule(
        Family.ADDON_ONLY,
        "AddonNodesOnly",
        "Only the CriticalAddonsOnly (system) nodes would take the pod",
        "Make the user nodes able to take it (the message names what keeps it off them), or "
        "allow it on the add-on pool with allowAddonOnly in .fitgate.yaml.",
    ),
    Rule(
        Family.QUOTA,
        "QuotaExceeded",
        "The namespace's ResourceQuota refuses to create the pod (or the object)",
        "Raise the quota's hard limit the message names, lower the workload's requests or "
        "replicas, or free the quota by removing what else uses it in the namespace.",
    ),
    Rule(
        Family.ERROR,
        "UnreadableManifest",
        "The document or its pod template cannot be read as the API server would read it",
        "Fix the field the message names.",
    ),
)


def rule_table(plugin_rules: Iterable[Rule]) -> RuleTable:
    """The plugins' rules and this module's, one per family, in the families' order."""
    by_family = {rule.family: rule for rule in (*plugin_rules, *OWN_RULES)}
    return tuple(by_family[family] for family in Family if family in by_family)


def family_of(result: WorkloadResult) -> Family:
    """The rule of a result: its verdict for ERROR and ADDON_ONLY, else its cause's
    family (resources when no node that counts rejects it: the copies did not fit)."""
    if result.verdict is Verdict.ERROR:
        return Family.ERROR
    if result.verdict is Verdict.ADDON_ONLY:
        return Family.ADDON_ONLY
    if result.cause is not None:
        return result.cause.family
    refused = result.quota is not None and result.quota.message is not None
    return Family.QUOTA if refused else Family.RESOURCES


def _level(report: Report, result: WorkloadResult) -> str | None:
    if report.fails(result):
        return "error"
    if result.verdict in _WARNED - report.fail_on and not result.allowed:
        return "warning"
    return None


def _rule(rule: Rule) -> dict[str, Any]:
    return {
        "id": rule.family.value,
        "name": rule.name,
        "shortDescription": {"text": rule.short},
        "help": {"text": rule.help},
        "defaultConfiguration": {"level": "error"},
    }


def message(result: WorkloadResult, views: Views | None = None) -> str:
    """The human line: the verdict and the workload, the field behind the cause, then why."""
    why = headline(result, views)
    pointed = field_sentence(result)
    lines = [f"{result.verdict.value} {display_title(result)}: {pointed or why}"]
    if pointed:
        lines.append(why)
    return "\n".join(lines)


def _fingerprint(result: WorkloadResult, family: Family) -> str:
    identity = "\0".join((result.kind, result.namespace, result.name, family.value))
    return hashlib.sha256(identity.encode("utf-8", "replace")).hexdigest()


def _result(
    result: WorkloadResult, level: str, views: Views, order: Sequence[Family]
) -> dict[str, Any]:
    family = family_of(result)
    entry: dict[str, Any] = {
        "ruleId": family.value,
        "ruleIndex": order.index(family),
        "level": level,
        "message": {"text": message(result, views)},
    }
    path = repo_path(result)
    if path is not None:
        entry["locations"] = [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": quote(path, safe="/")},
                    "region": {"startLine": pointed_line(result)},
                }
            }
        ]
    entry["partialFingerprints"] = {"fitgateWorkload/v1": _fingerprint(result, family)}
    return entry


def render_sarif(
    report: Report, rules: RuleTable, cluster: str = "cluster", views: Views | None = None
) -> str:
    """The SARIF document of ``report`` with ``rules`` (:func:`rule_table`)."""
    views = views or Views()
    order = [rule.family for rule in rules]
    results = []
    for result in report.results:
        level = _level(report, result)
        if level is not None:
            results.append(_result(result, level, views, order))
    document = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "fitgate",
                        "version": report.version or "0",
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                # One category per cluster: two clusters' uploads do not close each other's alerts.
                "automationDetails": {"id": f"fitgate/{cluster}/"},
                "results": results,
            }
        ],
    }
    return _json_text(document) + "\n"


def _json_text(document: dict[str, Any]) -> str:
    """``json.dumps(document, indent=2, ensure_ascii=False)``, by msgspec's C encoder and
    formatter (the stdlib's indenting encoder is pure Python, most of this writer's time);
    the stdlib for what msgspec refuses (a lone surrogate). A test holds the two equal."""
    try:
        return msgspec.json.format(msgspec.json.encode(document), indent=2).decode("utf-8")
    except (TypeError, ValueError, OverflowError):
        return json.dumps(document, indent=2, ensure_ascii=False)


def sarif_writer(plugin_rules: Iterable[Rule]) -> Reporter:
    """The SARIF writer given the filter plugins' rules: a report does not read the stages
    that made it, so whoever composes the run hands them over."""
    rules = rule_table(plugin_rules)

    def write_sarif(report: Report, context: ReportContext) -> str:
        return render_sarif(report, rules, context.cluster, context.views)

    return write_sarif
