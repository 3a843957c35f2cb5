"""The ``resources=`` of Karpenter's refusals prints each quantity as Go prints it.

sigs.k8s.io/karpenter v1.8.3 scheduling/nodeclaim.go ``InstanceTypeFilterError.Error``
prints ``resources.String(resources.Merge(e.daemonRequests, e.podRequests))``:
``Merge`` sums with ``Quantity.Add`` (k8s.io/apimachinery quantity.go), which keeps the
receiver's format unless its value is zero, and ``String()`` canonicalizes the value in
that format. The requests are component-helpers ``PodRequests`` (``addResourceList``,
``maxResourceList`` of the init containers, pod-level requests, overhead), and
``RequestsForPods`` counts ``pods`` in DecimalExponent. Karpenter reads the pod back from
the API server, which stores each quantity as its ``String()`` text."""

from __future__ import annotations

import io
import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from gate.cli import Streams, main
from gate.k8s.completion import complete_pod_spec
from gate.k8s.resources import pod_request_amounts
from gate.model.autoscaling import DaemonSet
from gate.model.cluster import AdmissionObjects
from gate.model.karpenter import NodePool
from tests.builders import container
from tests.conftest import ROOT
from tests.karpenter_support import Run

NOW = datetime(2026, 8, 16, 10, 5, tzinfo=timezone.utc)
WIDGET = "example.com/widget"
"""An extended resource no instance type has: every pod here fits no type."""


def _pod(*containers: dict[str, Any], **more: Any) -> dict[str, Any]:
    """A pod spec whose first container also asks one widget."""
    first, *rest = containers or ({},)
    asked = container("c0", requests={**first, WIDGET: "1"})
    return {
        "containers": [asked, *(container(f"c{i}", requests=r) for i, r in enumerate(rest, 1))],
        **more,
    }


def _daemon(name: str, requests: dict[str, Any]) -> DaemonSet:
    spec = {"containers": [container(requests=requests)]}
    return DaemonSet("kube-system", name, spec, pod_request_amounts(spec))


def _resources(pod: dict[str, Any], *daemons: DaemonSet) -> dict[str, str]:
    """The ``resources=`` of the one pool's refusal, without the widget."""
    decision = Run((NodePool("default"),), daemon_sets=daemons).decide(pod, 1)
    ((_, _, said),) = decision.errors
    shown: dict[str, str] = json.loads(said.split("resources=", 1)[1])
    assert shown.pop(WIDGET) == "1"
    return shown


CASES = [
    # a quantity alone prints as String() of its stored text
    pytest.param(_pod({"memory": "2G"}), (), {"memory": "2G"}, id="2G prints as 2G"),
    pytest.param(_pod({"memory": "256M"}), (), {"memory": "256M"}, id="256M prints as 256M"),
    pytest.param(_pod({"memory": "1Gi"}), (), {"memory": "1Gi"}, id="1Gi prints as 1Gi"),
    pytest.param(_pod({"memory": "1.5Gi"}), (), {"memory": "1536Mi"}, id="1.5Gi prints as 1536Mi"),
    pytest.param(_pod({"cpu": "500m"}), (), {"cpu": "500m"}, id="500m cpu prints as 500m"),
    pytest.param(_pod({"cpu": "1.5"}), (), {"cpu": "1500m"}, id="1.5 cpu prints as 1500m"),
    pytest.param(
        _pod({"memory": "1e3"}), (), {"memory": "1e3"}, id="1e3 keeps its DecimalExponent"
    ),
    pytest.param(
        _pod({"memory": 2000000000}), (), {"memory": "2G"}, id="a JSON number is DecimalSI"
    ),
    # addResourceList: the containers' sum keeps the first one's format
    pytest.param(
        _pod({"memory": "1Mi"}, {"memory": "3145728"}),
        (),
        {"memory": "4Mi"},
        id="containers of 1Mi then 3145728 sum in BinarySI",
    ),
    pytest.param(
        _pod({"memory": "3145728"}, {"memory": "1Mi"}),
        (),
        {"memory": "4194304"},
        id="containers of 3145728 then 1Mi sum in DecimalSI",
    ),
    pytest.param(
        _pod({"memory": "0"}, {"memory": "1Gi"}),
        (),
        {"memory": "1Gi"},
        id="a zero first container gives its sum the next one's format",
    ),
    # the API server stores 1.5Ki as 1536, read back in DecimalSI
    pytest.param(
        _pod({"memory": "1.5Ki"}, {"memory": "998464"}),
        (),
        {"memory": "1M"},
        id="1.5Ki is read back as 1536 in DecimalSI",
    ),
    pytest.param(
        _pod({"cpu": "1.5e3"}, {"cpu": "1.5e3"}),
        (),
        {"cpu": "3k"},
        id="1.5e3 is read back as 1500 in DecimalSI",
    ),
    # Merge(daemonRequests, podRequests): the DaemonSets' format where they ask some
    pytest.param(
        _pod({"memory": "1Gi"}),
        (_daemon("agent", {"memory": "100M"}),),
        {"memory": "1173741824"},
        id="a DaemonSet's 100M and the pod's 1Gi",
    ),
    pytest.param(
        _pod({"memory": "100M"}),
        (_daemon("agent", {"memory": "1Gi"}),),
        {"memory": "1173741824"},
        id="a DaemonSet's 1Gi and the pod's 100M",
    ),
    pytest.param(
        _pod({"memory": "3145728"}),
        (_daemon("agent", {"memory": "1Mi"}),),
        {"memory": "4Mi"},
        id="a DaemonSet's 1Mi gives the sum its BinarySI",
    ),
    pytest.param(
        _pod({"memory": "1Mi"}),
        (_daemon("agent", {"memory": "3145728"}),),
        {"memory": "4194304"},
        id="a DaemonSet's 3145728 gives the sum its DecimalSI",
    ),
    pytest.param(
        _pod({"memory": "3145728"}),
        (_daemon("zero", {"memory": "0"}), _daemon("agent", {"memory": "1Mi"})),
        {"memory": "4Mi"},
        id="the first DaemonSet asking a non-zero amount decides",
    ),
    pytest.param(
        _pod({"memory": "3145728"}),
        (_daemon("agent", {"cpu": "100m"}),),
        {"cpu": "100m", "memory": "3145728"},
        id="a resource the DaemonSets do not ask keeps the pod's format",
    ),
    # maxResourceList: the init container's peak, with its own format, when larger
    pytest.param(
        _pod({"memory": "1Gi"}, initContainers=[container("i", requests={"memory": "2G"})]),
        (),
        {"memory": "2G"},
        id="an init container larger than the containers prints in its format",
    ),
    pytest.param(
        _pod({"memory": "2G"}, initContainers=[container("i", requests={"memory": "1Gi"})]),
        (),
        {"memory": "2G"},
        id="an init container smaller than the containers leaves their format",
    ),
    pytest.param(
        _pod({"memory": "1Gi"}, initContainers=[container("i", requests={"memory": "1073741824"})]),
        (),
        {"memory": "1Gi"},
        id="an init container as large as the containers leaves their format",
    ),
    pytest.param(
        _pod(
            {"memory": "1Mi"},
            initContainers=[container("s", requests={"memory": "3145728"}, restartPolicy="Always")],
        ),
        (),
        {"memory": "4Mi"},
        id="a sidecar is added after the containers",
    ),
    # PodRequests: the overhead added last, pod-level requests in place of the containers'
    pytest.param(
        _pod({"memory": "3145728"}, overhead={"memory": "1Mi"}),
        (),
        {"memory": "4194304"},
        id="pod overhead is added to the containers' sum in its format",
    ),
    pytest.param(
        _pod({"cpu": "1"}, overhead={"memory": "250M"}),
        (),
        {"cpu": "1", "memory": "250M"},
        id="pod overhead alone prints in its own format",
    ),
    pytest.param(
        _pod({"memory": "1Gi"}, resources={"requests": {"memory": "2G"}}),
        (),
        {"memory": "2G"},
        id="pod-level requests replace the containers' with their format",
    ),
    # resources.go String is pretty.Concise of the whole list: zeros are entries too
    pytest.param(
        _pod({"cpu": "1"}),
        (_daemon("zero", {"memory": "0"}),),
        {"cpu": "1", "memory": "0"},
        id="a DaemonSet's zero memory request prints as 0",
    ),
    pytest.param(
        _pod({"cpu": "1", "memory": "0"}),
        (),
        {"cpu": "1", "memory": "0"},
        id="the pod's own zero memory request prints as 0",
    ),
    pytest.param(
        _pod({"cpu": "0"}),
        (_daemon("zero", {"cpu": "0"}),),
        {"cpu": "0"},
        id="zero cpu asked by both prints as 0",
    ),
    # the exact value, not the scheduler's rounded-up integer
    pytest.param(_pod({"memory": "1.5"}), (), {"memory": "1500m"}, id="1.5 bytes print as 1500m"),
    pytest.param(_pod({"cpu": "0.5m"}), (), {"cpu": "500u"}, id="half a millicore prints as 500u"),
    pytest.param(
        _pod({"memory": "1.5"}),
        (_daemon("agent", {"memory": "1.5"}),),
        {"memory": "3"},
        id="two 1.5 byte requests print as their exact sum",
    ),
]


@pytest.mark.parametrize(("pod", "daemons", "shown"), CASES)
def test_each_quantity_prints_as_karpenter_prints_it(
    pod: dict[str, Any], daemons: tuple[DaemonSet, ...], shown: dict[str, str]
) -> None:
    found = _resources(pod, *daemons)
    assert found.pop("pods") == str(1 + len(daemons))
    assert found == shown


@pytest.mark.parametrize(
    ("containers", "shown"),
    [
        pytest.param(({"memory": "1Gi"}, {"memory": "1Gi"}), "2Gi", id="two 1Gi default it to 2Gi"),
        pytest.param(({"memory": "1G"}, {"memory": "1Gi"}), "2073741824", id="1G then 1Gi"),
        pytest.param(({},), "4Gi", id="no container request: the pod-level limit"),
    ],
)
def test_a_defaulted_pod_level_request_keeps_the_aggregate_s_format(
    containers: tuple[dict[str, str], ...], shown: str
) -> None:
    """pkg/apis/core/v1/defaults.go ``defaultPodRequests``: an unset pod-level request is the
    containers' aggregate (``DeepCopy``, its format kept), else the pod-level limit."""
    written = _pod(*containers, resources={"limits": {"memory": "4Gi"}})
    completed, _ = complete_pod_spec(written, "default", AdmissionObjects())
    assert _resources(completed)["memory"] == shown


def test_a_thousand_pods_print_in_decimal_exponent() -> None:
    """RequestsForPods: ``NewQuantity(len(pods), resource.DecimalExponent)``."""
    daemons = tuple(_daemon(f"agent-{i:03}", {}) for i in range(999))
    assert _resources(_pod({"cpu": "1"}), *daemons) == {"cpu": "1", "pods": "1e3"}


def test_a_check_prints_the_pod_s_2G_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end on the recorded EKS cluster (fixtures/snapshots/eks-karpenter.json): its
    DaemonSets ask 125m cpu and memory ``0``, so the memory prints in the pod's format."""
    monkeypatch.chdir(ROOT)
    manifest = tmp_path / "solver.yaml"
    manifest.write_text(
        (ROOT / "fixtures/karpenter/02-too-big.yaml")
        .read_text(encoding="utf-8")
        .replace("memory: 64Gi", "memory: 2G"),
        encoding="utf-8",
    )
    out = io.StringIO()
    streams = Streams(io.BytesIO(), out, io.StringIO(), env={}, now=NOW)
    argv = ["check", str(manifest), "--snapshot", "fixtures/snapshots/eks-karpenter.json"]
    argv += ["--instance-types", "fixtures/catalogs/instance-types.json", "--json", "-"]
    assert main(argv, streams) == 1
    (solver,) = json.loads(out.getvalue())["workloads"]
    (default, _) = solver["autoscale"]["blocked"]["nodePools"]
    assert default["message"].endswith('resources={"cpu":"100125m","memory":"2G","pods":"3"}')


@pytest.mark.parametrize(
    ("selector", "reason"),
    [
        pytest.param(
            {},
            "no instance type has enough resources",
            id="the hint follows the refusal where resources alone excluded every type",
        ),
        pytest.param(
            {"kubernetes.io/arch": "s390x"},
            "no instance type met the scheduling requirements or had enough resources",
            id="no hint where the requirements excluded every type too",
        ),
    ],
)
def test_the_m_vs_m_hint_follows_only_the_resources_refusal(
    selector: dict[str, str], reason: str
) -> None:
    """nodeclaim.go ``InstanceTypeFilterError.Error``: ``(CPU request >= 1 Million, m vs M
    typo?)`` is appended in the ``!e.fits`` branch alone, after the pairwise branches."""
    pod = _pod({"cpu": "2M"}, nodeSelector=selector)
    decision = Run((NodePool("default"),)).decide(pod, 1)
    ((_, found, said),) = decision.errors
    assert found == reason
    hinted = said.endswith(" (CPU request >= 1 Million, m vs M typo?)")
    assert hinted == (reason == "no instance type has enough resources")


@pytest.mark.parametrize(
    ("resources", "shown"),
    [
        pytest.param({"limits": {"memory": "512Mi"}}, "1536Mi", id="a limit alone is the request"),
        pytest.param(
            {"limits": {"memory": "512Mi"}, "requests": {"memory": "256Mi"}},
            "1280Mi",
            id="a request set beside the limit stays the request",
        ),
        pytest.param({"limits": {"cpu": "1"}}, "1Gi", id="a limit on another resource adds none"),
    ],
)
def test_a_daemonset_s_limits_stand_for_its_missing_requests(
    resources: dict[str, Any], shown: str
) -> None:
    """pkg/utils/daemonset/daemonset.go ``PodForDaemonSet``: ``mergeResourceLimitsIntoRequests``
    on the template's containers, which the API server never defaults."""
    spec = {"containers": [{"name": "agent", "image": "agent", "resources": resources}]}
    daemon = DaemonSet("kube-system", "agent", spec, pod_request_amounts(spec))
    assert _resources(_pod({"memory": "1Gi"}), daemon)["memory"] == shown
