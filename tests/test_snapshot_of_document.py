"""A live read's document becomes the same node views as the reference reader builds."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from gate.errors import SnapshotError
from gate.snapshot.load import build_snapshot, snapshot_of_document
from tests.conftest import ROOT

FIXTURES = sorted((ROOT / "fixtures" / "snapshots").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_typed_reader_agrees_with_the_reference_reader(path: Path) -> None:
    document = json.loads(path.read_text())
    assert snapshot_of_document(document, "live") == build_snapshot(document, "live")


def test_a_document_the_typed_reader_refuses_gets_the_reference_message() -> None:
    document = json.loads((ROOT / "fixtures" / "snapshots" / "aks-six-nodes.json").read_text())
    broken = copy.deepcopy(document)
    broken["nodes"][0]["status"]["allocatable"]["cpu"] = "two"
    with pytest.raises(SnapshotError) as typed:
        snapshot_of_document(broken, "live")
    with pytest.raises(SnapshotError) as reference:
        build_snapshot(broken, "live")
    assert str(typed.value) == str(reference.value)
