"""Whatever text a pull request supplies, each escaping helper leaves it inert."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET

from hypothesis import given, settings
from hypothesis import strategies as st

from gate.reports.escape import (
    _LINE_BREAKS,
    _MARKDOWN,
    _MARKDOWN_RE,
    _clean,
    markdown_text,
    workflow_message,
    workflow_property,
    xml_attr,
    xml_text,
)

HOSTILE = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("<>&\"'`|*_~[]\\@#%:,\r\n\t\x00\x1b\u202e\u2028=")),
        st.characters(),
    ),
    max_size=60,
)


@settings(max_examples=300)
@given(HOSTILE)
def test_markdown_text_has_no_markup_and_one_line(text: str) -> None:
    out = markdown_text(text)
    assert not set(out) & set("<>`|*_~[]\\\r\n")
    # What a reader sees, once character references are decoded, never forms a mention.
    shown = html.unescape(out)
    assert "@" not in shown.replace("@\u200b", "")
    assert "://" not in shown and "www." not in shown and "$" not in out


NAMES = st.lists(
    st.sampled_from(["aks-user-0", "www", ".", ":", "//", "w", "-", "$", "\u200f", "\x85"]),
    max_size=8,
).map("".join)


def _markdown_reference(text: str) -> str:
    """markdown_text without its shortcut for text it leaves alone."""
    one_line = _LINE_BREAKS.sub(" ", _clean(text))
    return _MARKDOWN_RE.sub(lambda m: _MARKDOWN[m.group()], one_line)


@settings(max_examples=300)
@given(st.one_of(HOSTILE, NAMES))
def test_markdown_text_is_its_substitutions_whether_or_not_any_applies(text: str) -> None:
    assert markdown_text(text) == _markdown_reference(text)


@settings(max_examples=300)
@given(HOSTILE, HOSTILE)
def test_xml_helpers_round_trip_through_a_parser(text: str, attr: str) -> None:
    element = ET.fromstring(f'<case name="{xml_attr(attr)}">{xml_text(text)}</case>')
    assert "\n" not in (element.text or "")
    assert "\r" not in element.get("name", "")


@settings(max_examples=300)
@given(HOSTILE)
def test_workflow_command_parts_never_break_the_line_or_the_properties(text: str) -> None:
    message, prop = workflow_message(text), workflow_property(text)
    assert "\r" not in message and "\n" not in message
    assert not set(prop) & set("\r\n:,")
