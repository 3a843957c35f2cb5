"""Whatever text a pull request supplies, each escaping helper leaves it inert."""

from __future__ import annotations

import html
import xml.etree.ElementTree as ET
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gate.reports.escape import (
    _markdown_escaped,
    _terminal_escaped,
    _workflow_message_escaped,
    _workflow_property_escaped,
    _xml_attr_escaped,
    _xml_text_escaped,
    markdown_text,
    terminal_text,
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
    st.sampled_from(
        ["aks-user-0", "www", ".", ":", "//", "w", "-", "$", "\u200f", "\x85", "%", ",", "&"]
    ),
    max_size=8,
).map("".join)

Escape = Callable[[str], str]


@pytest.mark.parametrize(
    ("helper", "substitutions"),
    [
        pytest.param(markdown_text, _markdown_escaped, id="markdown text"),
        pytest.param(xml_text, _xml_text_escaped, id="xml element text"),
        pytest.param(xml_attr, _xml_attr_escaped, id="an xml attribute"),
        pytest.param(terminal_text, _terminal_escaped, id="a terminal line"),
        pytest.param(workflow_message, _workflow_message_escaped, id="a workflow message"),
        pytest.param(workflow_property, _workflow_property_escaped, id="a workflow property"),
    ],
)
@settings(max_examples=300)
@given(text=st.one_of(HOSTILE, NAMES))
def test_each_helper_is_its_substitutions_whether_or_not_any_applies(
    helper: Escape, substitutions: Escape, text: str
) -> None:
    """A helper returns text it would not change as it is, found by one search: never
    anything its substitutions would not give."""
    assert helper(text) == substitutions(text)


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
