"""What the API server refuses in a workload's own spec beside its template (kubernetes
v1.34 ``pkg/apis/apps/validation/validation.go`` and ``pkg/apis/batch/validation/
validation.go``), each refusal an ERROR in the API server's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.test_api_validation import Edit, deployment, job, reason, spec, then

# (id, the valid workload, the edit that breaks it, the API server's field errors)
REFUSED: list[tuple[str, Callable[[], dict[str, Any]], Edit, str]] = [
    # ValidateDeploymentStrategy: a type of neither kind, the internal struct marshalled
    ("a Deployment of an unknown strategy type is refused", deployment,
     spec(strategy={"type": "BlueGreen"}),
     'spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: '
     'supported values: "Recreate", "RollingUpdate"'),
    ("a Deployment of an unknown strategy type prints its rolling update as Go fields",
     deployment, spec(strategy={"type": "Canary", "rollingUpdate": {"maxSurge": "50%"}}),
     'spec.strategy: Unsupported value: {"Type":"Canary","RollingUpdate":{"MaxUnavailable":0,'
     '"MaxSurge":"50%"}}: supported values: "Recreate", "RollingUpdate"'),
    # ValidateDeploymentSpec after the strategy
    ("a Deployment of a negative minReadySeconds is refused", deployment,
     spec(minReadySeconds=-1),
     "spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"),
    ("a Deployment of a negative revisionHistoryLimit is refused", deployment,
     spec(revisionHistoryLimit=-2),
     "spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0"),
    ("a Deployment whose progress deadline is not above minReadySeconds is refused",
     deployment, spec(minReadySeconds=30, progressDeadlineSeconds=30),
     "spec.progressDeadlineSeconds: Invalid value: 30: must be greater than minReadySeconds"),
    ("a Deployment whose minReadySeconds reaches the default progress deadline is refused",
     deployment, spec(minReadySeconds=600),
     "spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"),
    ("a Deployment of a negative progress deadline is refused twice", deployment,
     spec(progressDeadlineSeconds=-1),
     "[spec.progressDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0, "
     "spec.progressDeadlineSeconds: Invalid value: -1: must be greater than minReadySeconds]"),
    ("a Deployment's strategy is refused before its counts", deployment,
     spec(strategy={"type": "Recreate", "rollingUpdate": {}}, minReadySeconds=-1),
     "[spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is "
     "'Recreate', spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0]"),
    # ValidateDaemonSetSpec: minReadySeconds, the update strategy, revisionHistoryLimit
    ("a DaemonSet of an unknown update strategy type is refused",
     lambda: deployment("DaemonSet"), spec(updateStrategy={"type": "Recreate"}),
     'spec.updateStrategy: Unsupported value: {"Type":"Recreate","RollingUpdate":null}: '
     'supported values: "RollingUpdate", "OnDelete"'),
    ("a DaemonSet's minReadySeconds is refused before its strategy and history limit",
     lambda: deployment("DaemonSet"),
     spec(minReadySeconds=-1, updateStrategy={"type": "Surge"}, revisionHistoryLimit=-1),
     "[spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0, "
     'spec.updateStrategy: Unsupported value: {"Type":"Surge","RollingUpdate":null}: '
     'supported values: "RollingUpdate", "OnDelete", spec.revisionHistoryLimit: Invalid '
     "value: -1: must be greater than or equal to 0]"),
    # ValidateStatefulSetSpec, in its order
    ("a StatefulSet of an unknown update strategy type is refused",
     lambda: deployment("StatefulSet"), spec(updateStrategy={"type": "Recreate"}),
     'spec.updateStrategy: Invalid value: {"Type":"Recreate","RollingUpdate":null}: must be '
     "'RollingUpdate' or 'OnDelete'"),
    ("a StatefulSet updated OnDelete with a rolling update is refused",
     lambda: deployment("StatefulSet"),
     spec(updateStrategy={"type": "OnDelete", "rollingUpdate": {"partition": 2}}),
     'spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":2,"MaxUnavailable":null}: '
     "only allowed for updateStrategy 'RollingUpdate'"),
    ("a StatefulSet of a negative partition is refused", lambda: deployment("StatefulSet"),
     spec(updateStrategy={"rollingUpdate": {"partition": -1}}),
     "spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or "
     "equal to 0"),
    ("a StatefulSet keeping its claims neither Retain nor Delete is refused",
     lambda: deployment("StatefulSet"),
     spec(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Keep", "whenScaled": "Drop"}),
     "[spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: \"Keep\": "
     'supported values: "Retain", "Delete", spec.persistentVolumeClaimRetentionPolicy.'
     'whenScaled: Unsupported value: "Drop": supported values: "Retain", "Delete"]'),
    ("a StatefulSet of a negative first ordinal is refused before its selector",
     lambda: deployment("StatefulSet"),
     spec(ordinals={"start": -1}, minReadySeconds=-3, selector={}),
     "[spec.minReadySeconds: Invalid value: -3: must be greater than or equal to 0, "
     "spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0, "
     "spec.selector: Invalid value: {}: empty selector is invalid for statefulset]"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("build", "edit", "expected"), [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED]
)
def test_a_workload_spec_the_api_server_refuses_is_an_error_in_its_words(
    build: Callable[[], dict[str, Any]], edit: Edit, expected: str
) -> None:
    body = build()
    assert reason(body) is None  # the workload before the edit is taken
    edit(body)
    assert reason(body) == expected


# (id, the workload, an edit the API server takes)
TAKEN: list[tuple[str, Callable[[], dict[str, Any]], Edit]] = [
    ("a Deployment of a progress deadline above minReadySeconds is taken", deployment,
     spec(minReadySeconds=599, revisionHistoryLimit=0)),
    ("a Deployment of an empty strategy type is defaulted to RollingUpdate", deployment,
     spec(strategy={"type": ""})),
    ("a DaemonSet updated OnDelete is taken", lambda: deployment("DaemonSet"),
     spec(updateStrategy={"type": "OnDelete"})),
    ("a StatefulSet deleting its claims, from ordinal 5, partitioned, is taken",
     lambda: deployment("StatefulSet"),
     then(spec(persistentVolumeClaimRetentionPolicy={"whenDeleted": "Delete"}),
          spec(ordinals={"start": 5}, updateStrategy={"rollingUpdate": {"partition": 1}}))),
    ("a StatefulSet updated OnDelete is taken", lambda: deployment("StatefulSet"),
     spec(updateStrategy={"type": "OnDelete"})),
]  # fmt: skip


@pytest.mark.parametrize(("build", "edit"), [t[1:] for t in TAKEN], ids=[t[0] for t in TAKEN])
def test_a_workload_spec_the_api_server_takes_is_a_workload(
    build: Callable[[], dict[str, Any]], edit: Edit
) -> None:
    body = build()
    edit(body)
    assert reason(body) is None


def test_the_job_helper_builds_a_job_the_api_server_takes() -> None:
    assert reason(job()) is None
