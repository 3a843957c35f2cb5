"""The names a workload's controller gives its pods (gate.k8s.podnames), up to the random
characters the API server draws.

Upstream: apiserver/pkg/storage/names/generate.go ``SimpleNameGenerator.GenerateName`` cuts
the prefix to ``MaxGeneratedNameLength`` (63 - 5) before it appends 5 random characters;
pkg/controller/controller_utils.go ``getPodsPrefix`` gives ``<owner>-``;
pkg/controller/job/job_controller.go ``podGenerateNameWithIndex`` gives an indexed Job's
pod ``<job>-<index>-``, cutting the Job's name so that the index stays whole (upstream's
TestPodGenerateNameWithIndex: "job name exceeds MaxGeneratedNameLength").
"""

from __future__ import annotations

from typing import Any

import pytest

from gate.inputs.workloads import TEMPLATE_PATHS, extract
from gate.k8s.podnames import ALPHANUMS, controller_object, pod_name
from gate.model import Document, Location, Workload

LONG = "a" * 60
# A Deployment's ReplicaSet is named <deployment>-<hash>; its pods' prefix is cut after it.
LONG_SET = controller_object("Deployment", LONG)

# (id, kind, workload name, position, indexed, the name before its 5 random characters)
PREFIXES: list[tuple[str, str, str, int, bool, str]] = [
    ("a job's pod is the job's name and a dash", "Job", "batch", 3, False, "batch-"),
    ("an indexed job's pod carries its index", "Job", "batch", 3, True, "batch-3-"),
    (
        "a daemonset's pod is the daemonset's name and a dash",
        "DaemonSet",
        "agent",
        0,
        False,
        "agent-",
    ),
    ("a long daemonset's prefix is cut to 58 characters", "DaemonSet", LONG, 0, False, LONG[:58]),
    ("a long job's prefix is cut to 58 characters", "Job", "j" * 58, 0, False, "j" * 58),
    (
        "a long indexed job keeps its index whole and cuts its name",
        "Job",
        LONG,
        12,
        True,
        LONG[: 58 - len("-12-")] + "-12-",
    ),
    (
        "a long deployment's pods cut its replicaset's name and dash to 58 characters",
        "Deployment",
        LONG,
        0,
        False,
        f"{LONG_SET[1] if LONG_SET else ''}-"[:58],
    ),
]


@pytest.mark.parametrize(
    ("kind", "name", "position", "indexed", "prefix"),
    [row[1:] for row in PREFIXES],
    ids=[row[0] for row in PREFIXES],
)
def test_a_generated_pod_name_has_its_controller_s_prefix(
    kind: str, name: str, position: int, indexed: bool, prefix: str
) -> None:
    made = pod_name(kind, name, position, indexed=indexed)
    assert made[:-5] == prefix
    assert all(c in ALPHANUMS for c in made[-5:])
    assert len(made) <= 63


def _job(spec: dict[str, Any], kind: str = "Job") -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": "b"}},
        "spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "c", "image": "i"}],
        },
    }
    job = {"template": template, "completions": 4, "parallelism": 2, **spec}
    if kind == "CronJob":
        return {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "metadata": {"name": "b"},
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": job}},
        }
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "b"}, "spec": job}


# (id, manifest, whether its pods carry a completion index)
INDEXED: list[tuple[str, dict[str, Any], bool]] = [
    ("a job without a completion mode is not indexed", _job({}), False),
    ("a nonindexed job is not indexed", _job({"completionMode": "NonIndexed"}), False),
    ("an indexed job is indexed", _job({"completionMode": "Indexed"}), True),
    (
        "a cronjob whose job template is indexed is indexed",
        _job({"completionMode": "Indexed"}, "CronJob"),
        True,
    ),
]


@pytest.mark.parametrize(
    ("manifest", "indexed"), [row[1:] for row in INDEXED], ids=[row[0] for row in INDEXED]
)
def test_a_job_s_completion_mode_is_read(manifest: dict[str, Any], indexed: bool) -> None:
    found = extract(Document(Location("m.yaml", 1), manifest), TEMPLATE_PATHS)
    assert isinstance(found, Workload)
    assert found.indexed is indexed
