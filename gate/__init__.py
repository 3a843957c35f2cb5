"""fitgate: would this pod land on the nodes that exist right now, without creating it?"""

__version__ = "0.1.0"

SCHEDULER_VERSION = "v1.34.1"
"""The kube-scheduler release whose filters, order and reason strings fitgate follows, line
by line; later versions' differences are dialects (:mod:`gate.k8s.version`)."""
