"""The API machinery's name formats (k8s.io/apimachinery/pkg/util/validation/validation.go),
each written once: the selectors test labels by them, and the API server's validation
words its errors with their text."""

from __future__ import annotations

import re

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME = re.compile(QUALIFIED_NAME_FMT)
LABEL_VALUE_FMT = f"({QUALIFIED_NAME_FMT})?"
LABEL_VALUE = re.compile(LABEL_VALUE_FMT)
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL = re.compile(DNS1123_LABEL_FMT)
DNS1123_SUBDOMAIN_FMT = f"{DNS1123_LABEL_FMT}(\\.{DNS1123_LABEL_FMT})*"
DNS1123_SUBDOMAIN = re.compile(DNS1123_SUBDOMAIN_FMT)


def label_key_ok(key: str) -> bool:
    """IsQualifiedName: an optional DNS-subdomain prefix and a name of at most 63 characters.

    >>> label_key_ok("app.kubernetes.io/name"), label_key_ok("bad key!"), label_key_ok("/x")
    (True, False, False)
    """
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not DNS1123_SUBDOMAIN.fullmatch(prefix)):
        return False
    return 0 < len(name) <= 63 and QUALIFIED_NAME.fullmatch(name) is not None


def label_value_ok(value: str) -> bool:
    """IsValidLabelValue: empty, or a qualified name of at most 63 characters."""
    return len(value) <= 63 and LABEL_VALUE.fullmatch(value) is not None
