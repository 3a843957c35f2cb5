"""fitgate: would these pods land on the cluster (its nodes now, or those its autoscaler would
add), without creating anything?"""

import os

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


def shipped_text(name: str) -> str:
    """A file shipped inside the package, by its path under ``gate/``
    (``schemas/config.schema.json``), as UTF-8 text. Read beside this module: fitgate is
    installed as files, and importlib.resources (with tempfile, shutil and zipfile) would
    take longer to import, at every start-up, than the file takes to read."""
    with open(os.path.join(os.path.dirname(__file__), name), encoding="utf-8") as handle:
        return handle.read()
