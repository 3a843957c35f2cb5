"""fitgate: would these pods land on the cluster (its nodes now, or those its autoscaler would
add), without creating anything?"""

__version__ = "0.1.0"

TAGLINE = (
    "Would these pods land on the cluster, on the nodes it has now or on those its autoscaler "
    "would add? kube-scheduler's filters, then cluster-autoscaler's and Karpenter's "
    "decisions, over rendered manifests; never creates, binds or writes."
)
"""What fitgate answers, as ``fitgate --help`` and the package's description say it."""

SCHEDULER_VERSION = "v1.34.1"
"""The kube-scheduler release whose filters, order and reason strings fitgate follows, line
by line; later versions' differences are dialects (:mod:`gate.k8s.version`)."""
