"""Reading a plugin back from its reasons: for version 2 reports only. To be removed.

A version 2 JSON report records a node's reasons but not the plugin that gave them, so
``fitgate merge`` recovers the plugin from the reason text. That is reading meaning from
wording, which the report contract that records the plugin makes unnecessary; until merge
reads it there, the lookup is derived from the plugins' own reason strings
(:data:`gate.scheduler.plugins.FILTERS`), never listed here.
"""

from __future__ import annotations

from gate.scheduler.plugins import FILTERS

_PLUGIN_OF_REASON = {
    reason: plugin.name for plugin in FILTERS for reason in plugin.reasons if "{" not in reason
}
_PLUGIN_OF_PREFIX = tuple(
    (reason.partition("{")[0], plugin.name)
    for plugin in FILTERS
    for reason in plugin.reasons
    if "{" in reason
)


def plugin_of(reasons: tuple[str, ...]) -> str:
    """The plugin that gave ``reasons``, for outcomes read back from a report's text, which
    records no plugin ("" for a fit or a reason of no plugin here): one plugin gives a
    node's reasons, and no two plugins share a reason."""
    if not reasons:
        return ""
    first = reasons[0]
    found = _PLUGIN_OF_REASON.get(first)
    if found is None:
        found = next((name for prefix, name in _PLUGIN_OF_PREFIX if first.startswith(prefix)), "")
    return found
