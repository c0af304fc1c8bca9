"""Reads under a :class:`~memdesk.filters.RecordFilter`, once for every backend.

A store searches and pages by scope, memory type and speaker bank natively (its SQL and its vector
index). The other conditions of a filter (role, source, metadata, event-time range, validity:
superseded memories and ``as_of``) are checked here on the records the store returns, with
:meth:`RecordFilter.matches` as the one meaning. :func:`search_where` is still an exact top-k *after*
filtering: it asks the store for a few more candidates than ``k``, then 4x as many each round, until
``k`` of them pass or the store has no more, so a filter that keeps few records costs more reads,
never a wrong answer. (Pushing these conditions into the SQL and the index is left to the store.)
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from ..filters import RecordFilter
from ..records import MemoryRecord, MemoryType, Scope
from .base import Page, ScoredRecord, Store
from .codec import check_k

__all__ = ["search_where", "scan_where", "page_where"]


def search_where(
    store: Store, vector: np.ndarray, scope: Scope, memory_type: MemoryType, k: int, where: RecordFilter
) -> list[ScoredRecord]:
    """Exact cosine top-``k`` of one memory type under ``scope`` among the records ``where`` keeps, best first."""
    k = check_k(k)
    if where.types is not None and memory_type not in where.types:
        return []
    if where.store_native or k == 0:
        return store.search(vector, scope, memory_type, k, speaker=where.speaker)
    ask = k + max(8, k // 2)  # most filters (the default drops superseded memories) keep most candidates
    while True:
        got = store.search(vector, scope, memory_type, ask, speaker=where.speaker)
        kept = [s for s in got if where.matches(s.record)]
        if len(kept) >= k or len(got) < ask:
            return kept[:k]
        ask *= 4


def scan_where(store: Store, scope: Scope, where: RecordFilter) -> Iterator[MemoryRecord]:
    """Every record under ``scope`` that ``where`` keeps, by type (``where.types``' order) then insertion order."""
    for memory_type in where.type_list():
        for record in store.scan(scope, memory_type, speaker=where.speaker):
            if where.matches(record):
                yield record


def page_where(
    store: Store, scope: Scope, where: RecordFilter, *, limit: int, cursor: str | None = None
) -> Page[MemoryRecord]:
    """Up to ``limit`` of the records ``where`` keeps after ``cursor``, in :func:`scan_where`'s order: the
    store's keyset pages, read on until ``limit`` records pass or the listing ends."""
    types = list(where.types) if where.types else None
    if where.store_native:
        return store.page(scope, types=types, speaker=where.speaker, limit=limit, cursor=cursor)
    out: list[MemoryRecord] = []
    while True:
        page = store.page(scope, types=types, speaker=where.speaker, limit=max(1, limit - len(out)), cursor=cursor)
        out.extend(r for r in page.items if where.matches(r))
        cursor = page.next_cursor
        if cursor is None or len(out) >= limit:
            return Page(items=out, next_cursor=cursor)
