"""The benchmark's cluster and monorepo sizes."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Size:
    name: str
    nodes: int
    pods: int
    workloads: int
    files: int

    def describe(self) -> str:
        return (
            f"{self.nodes:,} nodes, {self.pods:,} pods, "
            f"{self.workloads:,} workloads in {self.files:,} files"
        )


# "large" is the Kubernetes scalability envelope (5,000 nodes, 150,000 pods) beside a
# platform monorepo of 2,000 workloads; "tiny" keeps the benchmark's own test fast.
SIZES: dict[str, Size] = {
    size.name: size
    for size in (
        Size("tiny", nodes=12, pods=150, workloads=16, files=4),
        Size("small", nodes=50, pods=1_000, workloads=60, files=10),
        Size("medium", nodes=500, pods=10_000, workloads=300, files=40),
        Size("large", nodes=5_000, pods=150_000, workloads=2_000, files=259),
    )
}
