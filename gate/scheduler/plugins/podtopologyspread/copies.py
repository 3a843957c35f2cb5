"""PodTopologySpread's DoNotSchedule rule as a domain's counts meet it, for the Filter and
for every copy placed after the first.

Upstream ``podtopologyspread/filtering.go`` (v1.34.1): Filter compares a node's domain
with the smallest (``minMatchNum``), and a pod bound in an eligible domain is counted
there by the next pod's PreFilter (``calPreFilterState``). Placement of copies and the
cluster-autoscaler simulation ask these, one copy at a time, instead of running the
PreFilter again; none of them restates the rule.
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.k8s.selectors import LabelSelector


def minimum(counts: Mapping[str, int], min_domains: int) -> int:
    """minMatchNum: the smallest count of the eligible domains ``counts`` holds, or 0 when
    they are fewer than ``min_domains``."""
    return minimum_of(len(counts), min(counts.values(), default=0), min_domains)


def minimum_of(domains: int, least: int, min_domains: int) -> int:
    """minMatchNum of ``domains`` eligible domains whose smallest count is ``least`` (a
    caller keeping the least as copies land asks this): 0 under ``min_domains``."""
    return least if domains >= min_domains else 0


def admits(count: int, self_match: bool, least: int, max_skew: int) -> bool:
    """Whether a domain holding ``count`` matching pods takes one more pod: its skew
    (``count + selfMatch - minMatchNum``) stays within ``max_skew``."""
    return count + self_match - least <= max_skew


def counts_copies(self_match: bool, selector: LabelSelector | None) -> bool:
    """Whether the copies, once bound, raise their domain's count for the pods after them:
    they match the selector and it is not empty (countPodsMatchSelector counts no pod
    under an empty selector, though the skew's ``selfMatch`` still matches it). None: a
    selector not known, read as not empty."""
    return self_match and (selector is None or not selector.empty)


def land(counts: dict[str, int], domain: str | None, matches: bool, copies: int = 1) -> None:
    """What ``copies`` copies landing in ``domain`` do to a constraint's counts: they raise
    it when they match the constraint's selector and the domain is eligible (one the
    PreFilter counts, so present in ``counts``)."""
    if matches and domain is not None and domain in counts:
        counts[domain] += copies
