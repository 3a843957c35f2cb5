"""A StatefulSet copy's claims as its controller gives them (stateful_set_utils.go
``getPersistentVolumeClaimName``, ``updateStorage``)."""

from __future__ import annotations

from typing import Any

import pytest

from gate.k8s.volumes import claim_names, copy_claim, with_copy_claims


def test_a_copy_claim_is_named_by_template_set_and_ordinal() -> None:
    assert copy_claim("data", "postgres", 2) == "data-postgres-2"


CLAIM = {"name": "data", "persistentVolumeClaim": {"claimName": "data-db-0"}}
SPECS = [
    pytest.param({}, [CLAIM], id="a template without volumes gains the claim"),
    pytest.param(
        {"volumes": [{"name": "data", "emptyDir": {}}]},
        [CLAIM],
        id="a volume named as the template is replaced by the claim",
    ),
    pytest.param(
        {"volumes": [{"name": "tmp", "emptyDir": {}}]},
        [CLAIM, {"name": "tmp", "emptyDir": {}}],
        id="other volumes follow the claims",
    ),
]


@pytest.mark.parametrize(("spec", "volumes"), SPECS)
def test_the_copy_mounts_its_claims(spec: dict[str, Any], volumes: list[Any]) -> None:
    given = with_copy_claims(spec, ("data",), "db", 0)
    assert given["volumes"] == volumes
    assert claim_names(given) == ((0, "data-db-0"),)
