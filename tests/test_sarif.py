"""SARIF 2.1.0 (``--sarif``): valid against the OASIS schema, one rule per reason family, one
result per failing workload at the line of its field, and nothing from a manifest read as
anything but text."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.cli import Streams, main
from gate.model import Cause, Family, FieldLocation, Location, Report, Term, Verdict
from gate.reports.sarif import _json_text, render_sarif, rule_table
from gate.scheduler import plugins
from tests.conftest import ROOT, SARIF_SCHEMA
from tests.report_builders import fixture_results, report, result
from tests.test_cli import AKS, NOW

Golden = Callable[[str, str], None]
SCHEMA = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
RULES = rule_table(plugins.RULES)


def _render(document: Report, cluster: str = "cluster") -> str:
    return render_sarif(document, RULES, cluster)


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)


def _valid(text: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(text)
    jsonschema.Draft4Validator(SCHEMA).validate(document)
    return document


def _sarif(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    streams = Streams(stdin=io.BytesIO(b""), stdout=out, stderr=io.StringIO(), env={}, now=NOW)
    code = main(["check", *argv, "--sarif", "-"], streams)
    return code, out.getvalue()


def test_the_seed_fixtures(golden: Golden) -> None:
    code, text = _sarif("fixtures/manifests", "--snapshot", AKS)
    assert code == 1
    document = _valid(text)
    golden("sarif/aks.sarif", text)
    results = document["runs"][0]["results"]
    assert [(r["ruleId"], r["level"]) for r in results] == [
        ("resources", "error"),
        ("addon-only", "error"),
        ("resources", "error"),
        ("error", "error"),
    ]
    place = results[0]["locations"][0]["physicalLocation"]
    assert place == {
        "artifactLocation": {"uri": "fixtures/manifests/02-web-big.yaml"},
        "region": {"startLine": 19},
    }


def test_every_reason_family_has_its_rule(golden: Golden) -> None:
    code, text = _sarif(
        "tests/data/fields/manifests", "--snapshot", "tests/data/fields/snapshot.json"
    )
    assert code == 1
    document = _valid(text)
    golden("sarif/fields.sarif", text)
    run = document["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == [rule.family.value for rule in RULES]
    assert rules == [family.value for family in Family]
    used = {r["ruleId"] for r in run["results"]}
    assert used == {"resources", "selector", "taints", "ports", "affinity", "spread", "addon-only"}
    assert all(rules[r["ruleIndex"]] == r["ruleId"] for r in run["results"])


def test_same_report_same_bytes() -> None:
    first = _render(report(*fixture_results()), "aks-prod")
    assert first == _render(report(*fixture_results()), "aks-prod")


LEVELS = {
    "failing the gate is an error": (frozenset(Verdict) - {Verdict.YES}, False, "error"),
    "not in --fail-on is a warning": (frozenset({Verdict.NO}), False, "warning"),
    "allowed on the add-on pool is no result": (frozenset({Verdict.ADDON_ONLY}), True, None),
}


@pytest.mark.parametrize(("fail_on", "allowed", "level"), LEVELS.values(), ids=LEVELS)
def test_levels(fail_on: frozenset[Verdict], allowed: bool, level: str | None) -> None:
    addon = replace(result("batch", verdict=Verdict.ADDON_ONLY), allowed=allowed)
    document = _valid(_render(report(addon, fail_on=fail_on)))
    levels = [r["level"] for r in document["runs"][0]["results"]]
    assert levels == ([level] if level else [])


def test_names_stay_text_and_paths_are_uri_references() -> None:
    hostile = replace(
        result(
            "<img src=x onerror=alert(1)> [link](https://evil) @org/team",
            verdict=Verdict.NO,
            file="./deploy/my app#1.yaml",
            message="0/1 nodes are available: 1 Insufficient cpu.",
        ),
        cause=Cause(
            family=Family.RESOURCES,
            plugin="NodeResourcesFit",
            term=Term.REQUEST,
            reason="Insufficient cpu",
            nodes=1,
            index=None,
            port=None,
            resource="",
            requested="",
            free=None,
            free_on_addon=False,
        ),
        field_at=FieldLocation("containers[0].resources.requests.cpu", 7, "2", partial=False),
    )
    document = _valid(_render(report(hostile)))
    found = document["runs"][0]["results"][0]
    assert found["message"]["text"].startswith(
        "NO Deployment default/<img src=x onerror=alert(1)> [link](https://evil) @org/team: "
        "containers[0].resources.requests.cpu: 2 — "
    )
    location = found["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "deploy/my%20app%231.yaml"
    assert location["region"]["startLine"] == 7


def test_standard_input_has_no_location() -> None:
    piped = replace(result("app", verdict=Verdict.NO), location=Location("<stdin>", 3))
    found = _valid(_render(report(piped)))["runs"][0]["results"][0]
    assert "locations" not in found
    assert found["ruleId"] == "resources"


def test_the_fingerprint_follows_the_workload_not_its_line(tmp_path: Path) -> None:
    first = result("app", verdict=Verdict.NO, line=2)
    moved = replace(first, location=Location(first.location.file, 40))
    fingerprints = [
        _valid(_render(report(r)))["runs"][0]["results"][0]["partialFingerprints"]
        for r in (first, moved)
    ]
    assert fingerprints[0] == fingerprints[1]


TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list('"\\/\x00\x1f\x7f\x85\u2028\u2029\ud800\udcff\ufeff\U0001f600<&')),
        st.characters(),
    ),
    max_size=20,
)
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(TEXT, inner, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=300)
@given(st.dictionaries(TEXT, JSON, max_size=5))
def test_the_document_is_written_as_the_stdlib_would_write_it(document: dict[str, Any]) -> None:
    """msgspec writes it, the stdlib where msgspec cannot: the text is the same."""
    assert _json_text(document) == json.dumps(document, indent=2, ensure_ascii=False)
