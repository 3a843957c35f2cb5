"""The JSON report has one definition (:mod:`gate.model.contract`): the shipped schema is the one
generated from its types, and what the writer encodes the readers decode to the same value."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from gate.model import (
    Autoscale,
    Blocked,
    Cause,
    Family,
    FieldLocation,
    GroupScaleUp,
    HostPort,
    PoolRefusal,
    Reported,
    Term,
    contract,
)
from gate.model.contract import REPORT_DECODER, SCHEMA_VERSION, given, schema_text
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


def _reported_types() -> list[type[Reported]]:
    found: list[type[Reported]] = []
    waiting: list[type[Reported]] = [Reported]
    while waiting:
        for sub in waiting.pop().__subclasses__():
            found.append(sub)
            waiting.append(sub)
    return found


def test_every_reported_model_type_is_an_object_of_the_schema() -> None:
    """The model's reported types are the schema's own objects, by name: none is
    mirrored by a type of the contract."""
    objects = json.loads(schema_text())["$defs"]
    reported = _reported_types()
    assert reported
    assert [t.__name__ for t in reported if t.__name__ not in objects] == []
    assert [t.__name__ for t in reported if getattr(contract, t.__name__) is not t] == []


CAUSE = Cause(
    family=Family.PORTS,
    plugin="NodePorts",
    term=Term.HOST_PORT,
    reason="node(s) didn't have free ports for the requested pod ports",
    nodes=3,
    index=None,
    port=HostPort("0.0.0.0", "TCP", 9100),
    resource="",
    requested="",
    free=None,
    free_on_addon=False,
)
AUTOSCALE = Autoscale(
    fits_now=1,
    scale_up=(
        GroupScaleUp(group="aks-user", nodes=1, copies=1, start=3, end=4, maximum=5),
        GroupScaleUp(
            kind="NodePool",
            group="default",
            nodes=1,
            copies=1,
            start=0,
            end=1,
            maximum=None,
            instance_types=("m6i.large",),
        ),
    ),
    blocked=Blocked(
        copies=1,
        reasons={"did not tolerate taint": 1},
        message="Failed to schedule pod, ...",
        transient=False,
        pools=(PoolRefusal("gpu", "did not tolerate taint", "did not tolerate taint"),),
    ),
)


def test_a_written_result_reads_back_as_the_model_values_it_was_written_from() -> None:
    first, *rest = fixture_report().results
    results = (
        replace(
            first,
            cause=CAUSE,
            field_at=FieldLocation("containers[0].ports[0].hostPort", 12, "9100", False),
            autoscale=AUTOSCALE,
        ),
        *rest,
    )
    report = replace(fixture_report(), results=results)
    written = REPORT_DECODER.decode(render_json(report)).workloads
    read = [
        (w.warnings, given(w.cause, None), given(w.field, None), given(w.autoscale, None))
        for w in written
    ]
    held = [(r.warnings, r.cause, r.field_at, r.autoscale) for r in report.results]
    assert read == held
