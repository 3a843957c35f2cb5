"""How the default profile's scores add up: normalisation and weights.

Upstream ``pkg/scheduler/framework/runtime/framework.go`` (RunScorePlugins: each plugin
scores every feasible node, its NormalizeScore runs over them all, then each score is
multiplied by the plugin's weight and the products summed),
``framework/plugins/helper/normalize_score.go`` (DefaultNormalizeScore) and
``apis/config/v1/default_plugins.go`` (the weights). Every score is an integer in
``[0, MAX_NODE_SCORE]`` after normalising, as upstream's ``int64`` arithmetic leaves it.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.model import (
    INTER_POD_AFFINITY,
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    POD_TOPOLOGY_SPREAD,
    TAINT_TOLERATION,
)

# framework/interface.go MaxNodeScore
MAX_NODE_SCORE = 100

BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
IMAGE_LOCALITY = "ImageLocality"

# apis/config/v1/default_plugins.go: the score plugins' weights in the default profile
WEIGHTS: dict[str, int] = {
    TAINT_TOLERATION: 3,
    NODE_AFFINITY: 2,
    NODE_RESOURCES_FIT: 1,
    POD_TOPOLOGY_SPREAD: 2,
    INTER_POD_AFFINITY: 2,
    BALANCED_ALLOCATION: 1,
    IMAGE_LOCALITY: 1,
}


def default_normalize(scores: Sequence[int], reverse: bool = False) -> list[int]:
    """DefaultNormalizeScore(MaxNodeScore, reverse): scale ``[0, max]`` to ``[0, 100]``
    with integer division, then flip when ``reverse``; all zero stays zero (or becomes 100
    reversed).

    >>> default_normalize([0, 1, 3])
    [0, 33, 100]
    >>> default_normalize([0, 1, 3], reverse=True)
    [100, 67, 0]
    """
    highest = max(scores, default=0)
    if highest == 0:
        return [MAX_NODE_SCORE if reverse else 0 for _ in scores]
    scaled = [MAX_NODE_SCORE * score // highest for score in scores]
    return [MAX_NODE_SCORE - s for s in scaled] if reverse else scaled
