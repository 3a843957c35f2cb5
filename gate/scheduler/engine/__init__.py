"""Workloads x node views -> verdicts: the filters run once per class of nodes, the
scheduler's FitError message, per-node outcomes and the cause a report points at."""
