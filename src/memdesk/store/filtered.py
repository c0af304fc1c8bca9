"""Reads under a :class:`~memdesk.filters.RecordFilter`, once for every backend.

Scans and pages push the filter into the store's SQL: :meth:`Store.page` with ``where=`` puts what
SQL can say of it (roles, sources, superseded memories, event-time range and ``as_of``'s event-time
half, metadata equality / one-of / ``ne`` / ``nin`` on strings, numbers and None, number ranges,
ISO-time ranges, ``contains`` / ``icontains``, ``exists``, ``AND`` / ``OR`` / ``NOT``: :mod:`.sql_filter`)
into the ``WHERE`` of its keyset query, on SQLite and PostgreSQL alike, then keeps the rows
:meth:`RecordFilter.matches` keeps (the one meaning: the SQL only narrows, and some of it, such as
``icontains`` on non-ASCII text, is a superset). :func:`page_where` reads pages on until ``limit`` records pass.

:func:`search_where` is an exact top-k *after* filtering: :meth:`Store.search` with ``where=``
(:func:`search_types_where`: of several memory types at once, :meth:`Store.search_types`). The
in-memory index (SQLite, PostgreSQL's ``search="memory"``) takes the ids the filter's SQL keeps as a row
mask and scores those rows; PostgreSQL's default ``search="sql"`` puts the same SQL into its pgvector
query's ``WHERE`` (:mod:`.pg_search`). A filter that says no more than validity, or nothing SQL can say,
and on PostgreSQL a filter whose SQL is a superset, use :func:`top_k_passing`: a few more candidates
than ``k``, then 4x as many each round, until ``k`` pass or the store has no more, so a filter that
keeps few records costs more reads there, never a wrong answer.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

import numpy as np

from ..filters import RecordFilter
from ..records import MemoryRecord, MemoryType, Scope
from .base import Page, ScoredRecord, Store
from .conveniences import SCAN_PAGE
from .codec import check_k

__all__ = ["page_where", "scan_where", "search_types_where", "search_where", "top_k_passing"]


def search_where(
    store: Store, vector: np.ndarray, scope: Scope, memory_type: MemoryType, k: int, where: RecordFilter
) -> list[ScoredRecord]:
    """Exact cosine top-``k`` of one memory type under ``scope`` among the records ``where`` keeps, best first."""
    return search_types_where(store, vector, scope, [memory_type], k, where)[memory_type]


def search_types_where(
    store: Store, vector: np.ndarray, scope: Scope, memory_types: Sequence[MemoryType], k: int, where: RecordFilter
) -> dict[MemoryType, list[ScoredRecord]]:
    """:func:`search_where` of each of ``memory_types`` (keyed in that order), through one
    :meth:`Store.search_types` (on PostgreSQL one statement for every type)."""
    k = check_k(k)
    found: dict[MemoryType, list[ScoredRecord]] = {mt: [] for mt in memory_types}
    wanted = [mt for mt in memory_types if where.types is None or mt in where.types]
    if not wanted:
        return found
    if where.store_native or k == 0:
        found.update(store.search_types(vector, scope, wanted, k, speaker=where.speaker))
    else:
        found.update(store.search_types(vector, scope, wanted, k, speaker=where.speaker, where=where))
    return found


def top_k_passing(
    search: Callable[[int], list[ScoredRecord]], where: RecordFilter, k: int, *, first: int | None = None
) -> list[ScoredRecord]:
    """The first ``k`` of ``search(n)``'s results (best first) that ``where`` keeps: asks for ``first``
    (default a few more than ``k``), then 4x as many each round, until ``k`` pass or the search has no more.
    A search whose SQL says ``where`` exactly asks for ``first=k`` and is done in one round."""
    ask = max(1, first) if first is not None else k + max(8, k // 2)  # most filters keep most candidates
    while True:
        got = search(ask)
        kept = [s for s in got if where.matches(s.record)]
        if len(kept) >= k or len(got) < ask:
            return kept[:k]
        ask *= 4


def scan_where(store: Store, scope: Scope, where: RecordFilter) -> Iterator[MemoryRecord]:
    """Every record under ``scope`` that ``where`` keeps, by type (``where.types``' order) then insertion order."""
    cursor: str | None = None
    while True:
        page = store.page(scope, types=where.type_list(), speaker=where.speaker, limit=SCAN_PAGE, cursor=cursor, where=where)
        yield from page.items
        cursor = page.next_cursor
        if cursor is None:
            return


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
        page = store.page(
            scope, types=types, speaker=where.speaker, limit=max(1, limit - len(out)), cursor=cursor, where=where
        )
        out.extend(page.items)
        cursor = page.next_cursor
        if cursor is None or len(out) >= limit:
            return Page(items=out, next_cursor=cursor)
