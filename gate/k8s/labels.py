"""The well-known node labels and taints fitgate reads, named once.

Upstream ``staging/src/k8s.io/api/core/v1/well_known_labels.go`` (v1.34): the stable
topology, hostname, instance-type, architecture and operating-system labels, and the
deprecated beta names still read beside them (the beta architecture and operating-system
labels are ``pkg/kubelet/apis/well_known_labels.go``'s).
"""

from __future__ import annotations

# well_known_labels.go LabelHostname
HOSTNAME = "kubernetes.io/hostname"
# LabelTopologyZone, LabelTopologyRegion
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
# LabelInstanceTypeStable
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
# LabelArchStable, LabelOSStable
ARCH = "kubernetes.io/arch"
OS = "kubernetes.io/os"
# LabelWindowsBuild
WINDOWS_BUILD = "node.kubernetes.io/windows-build"

# The deprecated names: LabelFailureDomainBetaZone, LabelFailureDomainBetaRegion,
# LabelInstanceType; pkg/kubelet/apis/well_known_labels.go LabelArch, LabelOS
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
BETA_INSTANCE_TYPE = "beta.kubernetes.io/instance-type"
BETA_ARCH = "beta.kubernetes.io/arch"
BETA_OS = "beta.kubernetes.io/os"

# well_known_taints.go: the taints the node lifecycle controller and the kubelet set
TAINT_NOT_READY = "node.kubernetes.io/not-ready"
TAINT_UNREACHABLE = "node.kubernetes.io/unreachable"
TAINT_UNSCHEDULABLE = "node.kubernetes.io/unschedulable"
TAINT_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure"
TAINT_DISK_PRESSURE = "node.kubernetes.io/disk-pressure"
TAINT_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable"
TAINT_PID_PRESSURE = "node.kubernetes.io/pid-pressure"
