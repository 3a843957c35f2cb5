"""kube-scheduler's filters over the snapshot: pod preparation, node classes, the engine and
its outcomes. Picks no node: it only says which nodes would pass."""
