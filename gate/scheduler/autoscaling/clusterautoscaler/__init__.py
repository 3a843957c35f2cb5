"""cluster-autoscaler's scale-up decision, offline (cluster-autoscaler-1.34.5): node groups
and their template nodes (:mod:`.groups`, :mod:`.templates`), and for a workload's copies
that fit no existing node, the groups that would take them and the reasons of those that
would not (:mod:`.decision`)."""
