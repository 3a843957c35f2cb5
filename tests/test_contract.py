"""The JSON report has one definition (:mod:`gate.contract`): the shipped schema is the one
generated from its types, and what the writer encodes the readers decode to the same value."""

from __future__ import annotations

import pytest

from gate.contract import REPORT_DECODER, SCHEMA_VERSION, schema_text
from gate.reports.jsonreport import render_json, report_document
from tests.conftest import ROOT
from tests.report_builders import fixture_report

SCHEMA = ROOT / "gate" / "schemas" / "report.schema.json"


def test_the_shipped_schema_is_the_one_generated_from_the_types(
    request: pytest.FixtureRequest,
) -> None:
    """``pytest --update-golden`` rewrites it after a reviewed change of the types."""
    if request.config.getoption("--update-golden"):
        SCHEMA.write_text(schema_text(), encoding="utf-8", newline="\n")
    assert SCHEMA.read_text(encoding="utf-8") == schema_text()


def test_the_schema_names_its_version() -> None:
    assert f'"title": "fitgate JSON report (schemaVersion {SCHEMA_VERSION})"' in schema_text()


def test_a_written_report_decodes_to_the_value_it_was_written_from() -> None:
    report = fixture_report()
    assert REPORT_DECODER.decode(render_json(report)) == report_document(report)
