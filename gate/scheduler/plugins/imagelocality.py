"""ImageLocality: a score only, for nodes that already hold the pod's images.

Upstream ``pkg/scheduler/framework/plugins/imagelocality/image_locality.go`` (v1.34.1):
the sizes of the pod's images present on the node, each scaled by the share of nodes
holding it, clamped to ``[23 MiB, 1000 MiB x containers]`` and mapped onto ``[0, 100]``.
A node holding none scores 0.

fitgate's snapshot records no node's images (``status.images`` is not read), so every node
scores 0 here and the plugin never decides a placement; a placement the images would
steer can differ from the scheduler's (docs/scheduler-rules.md says so).
"""

from __future__ import annotations

from gate.model import NodeView
from gate.scheduler.framework.scores import ScorePlugin

# image_locality.go Name
NAME = "ImageLocality"


def image_locality() -> int:
    """The score of any node of a snapshot that records no images: 0 (a node holding no
    image of the pod sums under minThreshold, which maps to 0)."""
    return 0


def _raw(nothing: None, node: NodeView) -> int:
    return image_locality()


SCORE: ScorePlugin[None, None] = ScorePlugin(NAME, 1, node=_raw)
"""Score: 0 on every node (module doc), so it never tells two nodes apart."""
