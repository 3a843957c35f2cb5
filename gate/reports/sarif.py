"""SARIF 2.1.0 for code scanning (``--sarif FILE``): one result per failing workload, at the
manifest line of the field that made the no.

One rule per reason family (:class:`~gate.model.Family`), taken from the structured cause
(the rejecting plugin), never from the reason's words: taints, resources, selector,
affinity, spread, ports, add-on only, error. A workload that fails the gate is an
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
from typing import Any
from urllib.parse import quote

from gate.model import Family, Report, Verdict, WorkloadResult
from gate.reports.reporter import ReportContext
from gate.reports.views import Views
from gate.reports.wording import display_title, field_sentence, headline, pointed_line, repo_path

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_WARNED = frozenset({Verdict.ADDON_ONLY, Verdict.PARTIAL})

# rule id -> (name, short description, help)
RULES: dict[Family, tuple[str, str, str]] = {
    Family.TAINTS: (
        "UntoleratedTaint",
        "The pod does not tolerate the taints of the nodes it could land on",
        "Add the toleration the nodes ask for, or aim the pod at nodes without the taint "
        "(a cordoned node counts as tainted).",
    ),
    Family.RESOURCES: (
        "InsufficientResources",
        "No node has room for the pod's requests",
        "Lower the request the message names to what the largest free node offers, or add "
        "capacity; 'Too many pods' means the nodes have no pod slot left.",
    ),
    Family.SELECTOR: (
        "NodeSelectorMismatch",
        "No node matches the pod's nodeSelector, node affinity or nodeName",
        "Match a label (or name) the cluster's nodes carry, or add nodes that carry it.",
    ),
    Family.AFFINITY: (
        "PodAffinityUnsatisfied",
        "The pod's (anti-)affinity, or that of pods already running, rules the nodes out",
        "Relax the required term the message names, or its topology key.",
    ),
    Family.SPREAD: (
        "TopologySpreadUnsatisfied",
        "A DoNotSchedule topology spread constraint rules the nodes out",
        "Check that the nodes carry the constraint's topology key and that maxSkew allows "
        "one more pod, or use whenUnsatisfiable: ScheduleAnyway.",
    ),
    Family.PORTS: (
        "HostPortTaken",
        "The host port the pod asks for is taken on every node it could land on",
        "Use another host port, or none (a Service reaches the pod without one).",
    ),
    Family.ADDON_ONLY: (
        "AddonNodesOnly",
        "Only the CriticalAddonsOnly (system) nodes would take the pod",
        "Make the user nodes able to take it (the message names what keeps it off them), or "
        "allow it on the add-on pool with allowAddonOnly in .fitgate.yaml.",
    ),
    Family.ERROR: (
        "UnreadableManifest",
        "The document or its pod template cannot be read as the API server would read it",
        "Fix the field the message names.",
    ),
}
_RULE_ORDER = tuple(RULES)


def family_of(result: WorkloadResult) -> Family:
    """The rule of a result: its verdict for ERROR and ADDON_ONLY, else its cause's
    family (resources when no node that counts rejects it: the copies did not fit)."""
    if result.verdict is Verdict.ERROR:
        return Family.ERROR
    if result.verdict is Verdict.ADDON_ONLY:
        return Family.ADDON_ONLY
    return result.cause.family if result.cause is not None else Family.RESOURCES


def _level(report: Report, result: WorkloadResult) -> str | None:
    if report.fails(result):
        return "error"
    if result.verdict in _WARNED - report.fail_on and not result.allowed:
        return "warning"
    return None


def _rule(family: Family) -> dict[str, Any]:
    name, short, help_text = RULES[family]
    return {
        "id": family.value,
        "name": name,
        "shortDescription": {"text": short},
        "help": {"text": help_text},
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


def _result(result: WorkloadResult, level: str, views: Views) -> dict[str, Any]:
    family = family_of(result)
    entry: dict[str, Any] = {
        "ruleId": family.value,
        "ruleIndex": _RULE_ORDER.index(family),
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


def render_sarif(report: Report, cluster: str = "cluster", views: Views | None = None) -> str:
    views = views or Views()
    results = []
    for result in report.results:
        level = _level(report, result)
        if level is not None:
            results.append(_result(result, level, views))
    document = {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "fitgate",
                        "version": report.version or "0",
                        "rules": [_rule(family) for family in _RULE_ORDER],
                    }
                },
                # One category per cluster: two clusters' uploads do not close each other's alerts.
                "automationDetails": {"id": f"fitgate/{cluster}/"},
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def write_sarif(report: Report, context: ReportContext) -> str:
    return render_sarif(report, context.cluster, context.views)
