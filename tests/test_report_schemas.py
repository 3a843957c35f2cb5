"""The schemas the report tests validate against are shipped in tests/data, so a fresh
clone runs every schema check; where the published copies sit beside the checkout, the
shipped ones are the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xmlschema

from tests.conftest import JUNIT_XSD, ROOT, SARIF_SCHEMA

PUBLISHED = ROOT.parent / "shared" / "schemas"
SHIPPED = [JUNIT_XSD, SARIF_SCHEMA]


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_the_schema_is_shipped_and_keeps_its_notice(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".xsd":
        assert "The MIT License (MIT)" in text and "Gregory Boissinot" in text
        assert xmlschema.XMLSchema(str(path)).elements.keys() >= {"testsuite", "testsuites"}
    else:
        assert json.loads(text)["title"].startswith("Static Analysis Results Format (SARIF)")


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_the_shipped_schema_is_the_published_one(path: Path) -> None:
    published = PUBLISHED / path.name
    if not published.exists():
        pytest.skip("the published schemas are not beside this checkout")
    assert path.read_bytes() == published.read_bytes()
