"""The one escaping helper per output format, for text that comes from a pull request.

Workload names, file paths, scheduler messages that quote labels or taints, skip reasons
and YAML errors are all written by whoever opened the pull request. Every report routes
such text through exactly one function here, so a reviewer audits one place per format:

- :func:`markdown_text` for the PR comment and step summary (GitHub-flavoured markdown);
- :func:`xml_text` and :func:`xml_attr` for JUnit XML;
- :func:`workflow_message` and :func:`workflow_property` for GitHub workflow commands;
- :func:`terminal_text` for the text summary and standard error (a terminal or a CI log).

>>> markdown_text("<img src=x>|@admin")
'&lt;img src=x&gt;&#124;@&#8203;admin'
>>> xml_attr('a "b"\\n\\x1b[31m')
'a &quot;b&quot;&#10;[31m'
>>> workflow_property("deploy/a,b.yaml:1")
'deploy/a%2Cb.yaml%3A1'
"""

from __future__ import annotations

import re

# C0 and C1 control characters, DEL, lone surrogates and the two XML non-characters.
# Tab, line feed and carriage return are handled per format, so they are not listed.
_CONTROL_CHARS = "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff"
_CONTROLS = re.compile(f"[{_CONTROL_CHARS}]")

# Bidirectional overrides and isolates reorder what a reviewer sees ("Trojan Source",
# CVE-2021-42574): a name could display as something it is not.
_BIDI_CHARS = "\u200e\u200f\u202a-\u202e\u2066-\u2069"
_BIDI = re.compile(f"[{_BIDI_CHARS}]")

_BREAK_CHARS = "\t\r\n\u0085\u2028\u2029"
_LINE_BREAKS = re.compile(f"[{_BREAK_CHARS}]+")

# GitHub-flavoured markdown. Numeric character references are literal text both in
# markdown and inside raw HTML blocks such as <summary>, so one escape fits both places;
# a backslash escape would show its backslash inside HTML.
_MARKDOWN = {
    "&": "&amp;",
    "<": "&lt;",  # raw HTML and autolinks
    ">": "&gt;",  # raw HTML, block quotes, and the end of the hidden marker comment
    '"': "&quot;",
    "'": "&#39;",
    "\\": "&#92;",  # backslash escapes
    "`": "&#96;",  # code spans
    "*": "&#42;",  # emphasis
    "_": "&#95;",  # emphasis
    "~": "&#126;",  # GFM strikethrough
    "[": "&#91;",  # links and images
    "]": "&#93;",
    "|": "&#124;",  # GFM table cells split on an unescaped pipe
    # GitHub resolves @mentions and #references on the rendered text, after references
    # are decoded: only a zero-width space between the sign and the name stops them.
    "@": "@&#8203;",
    "#": "#&#8203;",
    # GFM's extended autolinks (a bare scheme:// or www. becomes a link) are found the same
    # way, after references are decoded: a zero-width space breaks them.
    "://": ":&#8203;//",
    "www.": "www&#8203;.",
    "$": "&#36;",  # GitHub's math: $...$ and $$...$$ render as TeX
}
_MARKDOWN_RE = re.compile("|".join(re.escape(c) for c in sorted(_MARKDOWN, key=len, reverse=True)))
# Anything markdown_text changes (a character it drops, breaks or escapes, or the start of
# an autolink): text without any is its own escape (most node names, reasons and paths),
# found by one search of one character class instead of four substitutions.
_MARKDOWN_CHANGES = re.compile(
    f"[{_CONTROL_CHARS}{_BIDI_CHARS}{_BREAK_CHARS}"
    + "".join(re.escape(c) for c in _MARKDOWN if len(c) == 1)
    + "]|"
    + "|".join(re.escape(c) for c in _MARKDOWN if len(c) > 1)
)

_XML_TEXT = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}  # ">" also breaks a "]]>"
_XML_ATTR = {**_XML_TEXT, '"': "&quot;", "\n": "&#10;", "\t": "&#9;"}
_XML_TEXT_RE = re.compile("[&<>]")
_XML_ATTR_RE = re.compile('[&<>"\n\t]')

# actions/toolkit packages/core/src/command.ts: escapeData and escapeProperty.
_WORKFLOW_DATA = {"%": "%25", "\r": "%0D", "\n": "%0A"}
_WORKFLOW_PROPERTY = {**_WORKFLOW_DATA, ":": "%3A", ",": "%2C"}
_WORKFLOW_DATA_RE = re.compile("[%\r\n]")
_WORKFLOW_PROPERTY_RE = re.compile("[%\r\n:,]")


# Everything each helper below changes, as one character class: most names, reasons and
# paths hold none, and one search of the class is cheaper than the helper's substitutions,
# each of which would scan the text to change nothing.
_TERMINAL_CHANGES = re.compile(f"[{_CONTROL_CHARS}{_BIDI_CHARS}{_BREAK_CHARS}]")
_XML_TEXT_CHANGES = re.compile(f"[{_CONTROL_CHARS}{_BIDI_CHARS}{_BREAK_CHARS}&<>]")
_XML_ATTR_CHANGES = re.compile(f'[{_CONTROL_CHARS}{_BIDI_CHARS}\r&<>"\n\t]')
_WORKFLOW_DATA_CHANGES = re.compile(f"[{_CONTROL_CHARS}{_BIDI_CHARS}%\r\n]")
_WORKFLOW_PROPERTY_CHANGES = re.compile(f"[{_CONTROL_CHARS}{_BIDI_CHARS}%\r\n:,]")


def _clean(text: str) -> str:
    """Drop control and bidi characters: never meaningful in a name, often an attack."""
    return _BIDI.sub("", _CONTROLS.sub("", text))


def terminal_text(text: str) -> str:
    """A line for a terminal: no ESC or other control character (which could recolour,
    move the cursor or retitle the window), no bidi override, line breaks as spaces (a
    line of its own could pass for fitgate's, or a workflow command in a CI log).

    >>> terminal_text("web\\x1b]0;pwned\\x07\\n::error::x")
    'web]0;pwned ::error::x'
    """
    if _TERMINAL_CHANGES.search(text) is None:
        return text
    return _terminal_escaped(text)


def _terminal_escaped(text: str) -> str:
    return _LINE_BREAKS.sub(" ", _clean(text))


def markdown_text(text: str) -> str:
    """Inline markdown that renders as exactly ``text`` and nothing else.

    For inline positions (table cells, list items, ``<summary>``): line breaks become
    spaces, because a table row or a list item is one line.
    """
    if _MARKDOWN_CHANGES.search(text) is None:
        return text
    return _markdown_escaped(text)


def _markdown_escaped(text: str) -> str:
    one_line = _LINE_BREAKS.sub(" ", _clean(text))
    return _MARKDOWN_RE.sub(lambda m: _MARKDOWN[m.group()], one_line)


def xml_text(text: str) -> str:
    """One line of element content: characters XML 1.0 forbids removed, markup escaped.

    Line breaks become spaces, so untrusted text never starts a line of its own: a CI
    log that prints the file would otherwise run a line such as ``::error::`` as a
    workflow command. Writers join escaped lines with ``\n`` themselves.
    """
    if _XML_TEXT_CHANGES.search(text) is None:
        return text
    return _xml_text_escaped(text)


def _xml_text_escaped(text: str) -> str:
    one_line = _LINE_BREAKS.sub(" ", _clean(text))
    return _XML_TEXT_RE.sub(lambda m: _XML_TEXT[m.group()], one_line)


def xml_attr(text: str) -> str:
    """A double-quoted attribute value. Line feeds and tabs become character references,
    since attribute-value normalisation would turn them into spaces."""
    if _XML_ATTR_CHANGES.search(text) is None:
        return text
    return _xml_attr_escaped(text)


def _xml_attr_escaped(text: str) -> str:
    cleaned = _clean(text).replace("\r", "")
    return _XML_ATTR_RE.sub(lambda m: _XML_ATTR[m.group()], cleaned)


def workflow_message(text: str) -> str:
    """The message after ``::``. A raw line break would end the command and let the rest
    of the line start a new one (``::error::``, ``::add-mask::``)."""
    if _WORKFLOW_DATA_CHANGES.search(text) is None:
        return text
    return _workflow_message_escaped(text)


def _workflow_message_escaped(text: str) -> str:
    return _WORKFLOW_DATA_RE.sub(lambda m: _WORKFLOW_DATA[m.group()], _clean(text))


def workflow_property(text: str) -> str:
    """A ``key=value`` property: ``,`` would start another property and ``:`` end the list."""
    if _WORKFLOW_PROPERTY_CHANGES.search(text) is None:
        return text
    return _workflow_property_escaped(text)


def _workflow_property_escaped(text: str) -> str:
    return _WORKFLOW_PROPERTY_RE.sub(lambda m: _WORKFLOW_PROPERTY[m.group()], _clean(text))
