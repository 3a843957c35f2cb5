"""Lone surrogates become U+FFFD, as Go's encoding/json decodes them; nothing else changes."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gate.inputs.surrogates import may_hold_surrogates, replace_lone_surrogates

texts = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12)


@given(st.dictionaries(texts, st.lists(texts, max_size=3), max_size=3))
def test_decoded_json_can_always_be_written_as_utf8(value: dict[str, list[str]]) -> None:
    text = json.dumps(value)  # ASCII, with every surrogate spelled as an escape
    decoded = json.loads(text)
    if not may_hold_surrogates(text):
        assert replace_lone_surrogates(decoded) == decoded
    repaired = json.dumps(replace_lone_surrogates(decoded), ensure_ascii=False)
    repaired.encode("utf-8")  # raises on a lone surrogate


def test_only_lone_surrogates_are_replaced() -> None:
    decoded = json.loads(r'{"\udc80k": ["a\ud83d\ude00b", "\ud800", 1, null]}')
    assert replace_lone_surrogates(decoded) == {"\ufffdk": ["a\U0001f600b", "\ufffd", 1, None]}
    assert may_hold_surrogates(rb'"\uD83D"') and not may_hold_surrogates(rb'"\u00e9"')
