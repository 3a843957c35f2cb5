"""A page of a list the API server answers, decoded by msgspec straight into the structs of
:mod:`gate.live.objects`: what the recording keeps is built, and everything else (500 pods'
env, images, managedFields: megabytes of a page) is skipped without being built.

A page that does not decode is explained in one line: the item that does not fit (its
number in the page and its name) and where in it, or why the answer is no list at all.
"""

from __future__ import annotations

import json
from typing import Any, Generic, TypeVar

import msgspec
from msgspec import Struct, field

Item = TypeVar("Item")


class NotAPage(ValueError):
    """The answer is not a list of such objects: ``reason``, and which item of the page
    (counted from 1) does not decode, when one does not, and its name if it has one."""

    def __init__(self, reason: str, item: int | None = None, name: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.item = item
        self.name = name

    def where(self, before: int) -> str:
        """One line; ``before``: how many items of the list came in earlier pages. The name
        is quoted and escaped, so that a line break in it stays in the line."""
        if self.item is None:
            return self.reason
        named = "" if self.name is None else f" ({json.dumps(self.name[:100])})"
        return f"item {before + self.item}{named}: {self.reason}"


class _ListMeta(Struct, gc=False):
    continue_: str | None = field(default=None, name="continue")


class Page(Struct, Generic[Item], gc=False):
    metadata: _ListMeta | None = None
    items: list[Item] | None = None


class _Identity(Struct, gc=False):
    name: Any = None


class _Identified(Struct, gc=False):
    metadata: _Identity | None = None


_RAW_PAGE = msgspec.json.Decoder(Page[msgspec.Raw])
_IDENTIFIED = msgspec.json.Decoder(_Identified)


class PageDecoder(Generic[Item]):
    """Pages whose items are ``item`` structs."""

    def __init__(self, item: type[Item]) -> None:
        self._page = msgspec.json.Decoder(Page[item])  # type: ignore[valid-type]
        self._item = msgspec.json.Decoder(item)

    def decode(self, data: bytes) -> tuple[list[Item], str | None]:
        """The page's items and its continue token (None on the last page)."""
        try:
            page = self._page.decode(data)
        except (msgspec.DecodeError, RecursionError) as exc:  # ValidationError included
            raise self._fault(data, exc) from None
        return page.items or [], page.metadata.continue_ if page.metadata else None

    def _fault(self, data: bytes, error: Exception) -> NotAPage:
        """Which item does not decode, and why; looked for only when a page fails."""
        try:
            page = _RAW_PAGE.decode(data)
        except RecursionError:
            return NotAPage("the answer is nested too deeply to be read")
        except msgspec.ValidationError as exc:  # a DecodeError too: asked first
            return NotAPage(f"the answer is not a list: {exc}")
        except msgspec.DecodeError as exc:
            return NotAPage(f"the answer is not JSON: {exc}")
        for number, raw in enumerate(page.items or (), start=1):
            try:
                self._item.decode(raw)
            except RecursionError:
                return NotAPage("nested too deeply to be read", number, _name(raw))
            except msgspec.DecodeError as exc:
                return NotAPage(str(exc), number, _name(raw))
        return NotAPage(f"the answer is not a list: {error}")


def _name(raw: msgspec.Raw) -> str | None:
    try:
        metadata = _IDENTIFIED.decode(raw).metadata
    except (msgspec.DecodeError, RecursionError):
        return None
    name = metadata.name if metadata else None
    return name if isinstance(name, str) else None
