"""The scale benchmark: ``python -m benchmarks --size medium``.

A deterministic generator writes a cluster (as ``kubectl get nodes,pods -A -o json`` prints
it, and as fitgate's own compact ``ClusterSnapshot``) and a tree of rendered manifests; the
runner times fitgate end to end beside the floors measured on the same files (stdlib
``json.load`` of the List, libyaml's ``CSafeLoader`` over the manifests) and prints the
ratios. Not part of the unit tests: speed is measured here only.
"""
