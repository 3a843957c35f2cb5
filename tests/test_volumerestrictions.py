"""VolumeRestrictions' PreFilter on the claims a pod mounts (volumerestrictions/
volume_restrictions_test.go, v1.34: a claim that does not exist is
UnschedulableAndUnresolvable with the lister's error; a pod without conflicting claims
is skipped), and the plugins passing every node when the snapshot recorded no storage."""

from __future__ import annotations

import pytest

from gate.model import Code
from gate.model.storage import StorageObjects
from gate.scheduler.framework.pods import pod_profile
from gate.scheduler.framework.runtime import Rejection
from gate.scheduler.plugins import FILTERS
from gate.scheduler.plugins.volumerestrictions import PLUGIN
from tests.builders import node
from tests.volume_support import DIALECT, claim, cluster_of, run_plugin, storage, with_claims

MISSING = Rejection(
    "VolumeRestrictions",
    Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
    ('persistentvolumeclaim "gone" not found',),
)
CASES = [
    pytest.param([], storage(), (None, None), id="a pod without claims passes"),
    pytest.param(["data"], storage(claim("data")), (None, None), id="a claim that exists passes"),
    pytest.param(
        ["data", "gone"],
        storage(claim("data")),
        (MISSING, MISSING),
        id="a claim that does not exist is the PreFilter's rejection",
    ),
    pytest.param(
        ["gone"],
        storage(claim("gone", namespace="other")),
        (MISSING, MISSING),
        id="a claim of the same name in another namespace is not the pod's",
    ),
]


@pytest.mark.parametrize(("claims", "objects", "expected"), CASES)
def test_volume_restrictions(
    claims: list[str], objects: StorageObjects, expected: tuple[Rejection | None, ...]
) -> None:
    assert run_plugin(PLUGIN, with_claims(*claims), objects, node("n")) == expected


@pytest.mark.parametrize(
    "objects",
    [
        pytest.param(None, id="no storage objects recorded"),
        pytest.param(
            StorageObjects(recorded=frozenset({"PersistentVolume"})),
            id="volumes recorded without their claims",
        ),
    ],
)
def test_without_claims_recorded_every_volume_plugin_passes(
    objects: StorageObjects | None,
) -> None:
    where = cluster_of(objects, node("n"))
    pod = pod_profile(with_claims("gone"))
    for plugin in FILTERS:
        if plugin.family.value == "storage":
            state = plugin.prepare(pod, where)
            assert plugin.passes(state)
            assert plugin.check(state, node("n"), DIALECT) is None
