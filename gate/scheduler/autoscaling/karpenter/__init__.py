"""Karpenter's provisioning decision (``sigs.k8s.io/karpenter`` v1.8): which NodePools
would launch nodes for a workload's copies that fit no existing node
(:class:`Provisioner`), and why the rest stay pending (:class:`PoolDecision`)."""

from gate.scheduler.autoscaling.karpenter.catalog import running_catalog
from gate.scheduler.autoscaling.karpenter.decision import PoolDecision, PoolScaleUp
from gate.scheduler.autoscaling.karpenter.provisioner import Provisioner

__all__ = ["PoolDecision", "PoolScaleUp", "Provisioner", "running_catalog"]
