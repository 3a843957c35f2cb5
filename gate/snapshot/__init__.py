"""Snapshot files -> cluster state: node views with the counted pods reduced to totals."""
