"""Kubernetes semantics the other stages share: quantities, requests as the scheduler sums
them, selector and toleration matching, API-server completion, versions, warnings."""
