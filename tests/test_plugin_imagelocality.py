"""ImageLocality (gate.scheduler.plugins.imagelocality): a score only.

fitgate's snapshot records no node's images, so every node is upstream's node without
images: ``TestImageLocalityPriority``'s "if exceed limit, use limit (with node which has no
images present)" scores that node 0
(pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go, kube-scheduler
v1.34). The cases scoring nodes that hold images cannot arise from a snapshot.
"""

from __future__ import annotations

from gate.scheduler.plugins import FILTERS
from gate.scheduler.plugins.imagelocality import NAME, image_locality


def test_a_node_holding_none_of_the_pods_images_scores_zero() -> None:
    assert image_locality() == 0


def test_it_is_named_as_upstream_and_filters_nothing() -> None:
    assert NAME == "ImageLocality"
    assert NAME not in [plugin.name for plugin in FILTERS]
