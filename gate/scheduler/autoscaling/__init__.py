"""What the autoscalers would add for the copies no existing node takes:
cluster-autoscaler's node groups (:mod:`.clusterautoscaler`), Karpenter's NodePools
(:mod:`.karpenter`), and what drives both for one run (:mod:`.session`, :mod:`.verdicts`)."""
