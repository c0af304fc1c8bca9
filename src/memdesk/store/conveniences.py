"""What is built on the store protocols (:mod:`memdesk.store.base`), once for every backend: ``scan``,
``scopes``, ``messages`` read page by page, ``search_types`` as one ``search`` per type (a backend that
reads several types at once overrides it), and context-manager use."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator, Sequence, TypeVar

import numpy as np

from ..runtime.closing import ClosesOnExit
from ..records import MemoryRecord, MemoryType, RawMessage, Scope
from .base import Page

if TYPE_CHECKING:
    from ..filters import RecordFilter
    from .base import ScoredRecord, Store

T = TypeVar("T")


SCAN_PAGE = 500
"""Records per page when :meth:`StoreConveniences.scan` reads."""


def _pages(first: Page[T], read: Callable[[str], Page[T]]) -> Iterator[T]:
    page = first
    while True:
        yield from page.items
        if page.next_cursor is None:
            return
        page = read(page.next_cursor)


class StoreConveniences(ClosesOnExit):
    """What is built on the protocols, once for every backend."""

    def scan(
        self: "Store", scope: Scope, memory_type: MemoryType | None = None, speaker: str | None = None
    ) -> Iterator[MemoryRecord]:
        """Every current record under ``scope``, by type then insertion order, read page by page
        (the arguments are checked now, the pages read as the iterator is consumed)."""
        types = None if memory_type is None else [memory_type]
        first = self.page(scope, types=types, speaker=speaker, limit=SCAN_PAGE)
        return _pages(first, lambda cursor: self.page(scope, types=types, speaker=speaker, limit=SCAN_PAGE, cursor=cursor))

    def search_types(
        self: "Store",
        vector: np.ndarray,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        k: int,
        speaker: str | None = None,
        where: "RecordFilter | None" = None,
    ) -> "dict[MemoryType, list[ScoredRecord]]":
        """:meth:`search` of each of ``memory_types``, keyed in that order (each type once)."""
        return {mt: self.search(vector, scope, mt, k, speaker=speaker, where=where) for mt in dict.fromkeys(memory_types)}

    def scopes(self: "Store", within: Scope | None = None) -> list[Scope]:
        """Every exact scope with records or raw messages (under ``within`` if given), in the order first written."""
        first = self.scope_page(within, limit=1000)
        return list(_pages(first, lambda cursor: self.scope_page(within, limit=1000, cursor=cursor)))

    def messages(self: "Store", scope: Scope, last: int | None = None) -> list[RawMessage]:
        """Raw messages under ``scope`` in log order (only the ``last`` N if given)."""
        if last is not None:
            return self.recent_messages(scope, last)
        out: list[RawMessage] = []
        cursor: str | None = None
        while True:
            page = self.message_page(scope, limit=1000, cursor=cursor)
            out.extend(page.items)
            if page.next_cursor is None:
                return out
            cursor = page.next_cursor
