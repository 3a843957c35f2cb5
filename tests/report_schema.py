"""A JSON report checked against the shipped schema, and against what ties its fields
together beyond what a JSON Schema can say (a group's count against its names, the groups
against the snapshot's node count)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from tests.conftest import ROOT

REPORT_SCHEMA = json.loads((ROOT / "gate" / "schemas" / "report.schema.json").read_text())
_VALIDATOR = jsonschema.Draft202012Validator(REPORT_SCHEMA)


def validate_report(report: dict[str, Any]) -> None:
    """Raise when ``report`` is not a schemaVersion 3 report fitgate could have written."""
    _VALIDATOR.validate(report)
    nodes = report["snapshot"]["nodes"]
    shard = report.get("shard")
    for number, workload in enumerate(report["workloads"]):
        where = f"workloads[{number}]"
        groups = workload["outcomes"]
        counts = [g["count"] for g in groups]
        assert not groups or sum(counts) == nodes, f"{where}: {counts} for {nodes} nodes"
        shown = [(tuple(g["reasons"]), g["plugin"], g["code"]) for g in groups]
        assert len(set(shown)) == len(shown), f"{where}: an outcome twice"
        named = [name for g in groups for name in g["nodes"]]
        assert len(set(named)) == len(named), f"{where}: a node in two groups"
        for group in groups:
            assert group["count"] >= len(group["nodes"]), f"{where}: {group}"
            if shard is not None:  # a shard's report names every node
                assert group["count"] == len(group["nodes"]), f"{where}: {group}"
    if shard is not None:
        assert len(shard["nodes"]) == nodes
        _in_node_order(report["workloads"], shard["nodes"])


def _in_node_order(workloads: list[dict[str, Any]], nodes: list[str]) -> None:
    """Names in node order within each group, groups in the order they first appear."""
    place = {name: number for number, name in enumerate(nodes)}
    for workload in workloads:
        firsts = []
        for group in workload["outcomes"]:
            at = [place[name] for name in group["nodes"]]
            assert at == sorted(at), group
            firsts.append(at[0])
        assert firsts == sorted(firsts), workload["outcomes"]
