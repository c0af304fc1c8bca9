"""Exact search over the records, through in-process vector caches kept current by the writers.

:class:`RecordSearch` loads the vectors of each (memory type, exact scope) from the database
into an :class:`~memdesk.store.vector_index.IndexCache` on first use, answers searches from it,
and is told about every committed write of this store (:meth:`RecordSearch.added`,
:meth:`removed`, :meth:`dropped`) so a warm search runs no SQL beyond the change check. When
another connection commits, :class:`~memdesk.store.database.Database` drops it and it reloads
lazily.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from ..errors import EmbeddingMismatchError
from ..records import MemoryRecord, MemoryType, Scope
from .base import EmbeddingInfo, ScoredRecord
from .codec import (
    ScopeTuple,
    check_k,
    check_memory_type,
    check_scope,
    check_speaker,
    check_vector,
    record_from_json,
    scope_key,
    scope_matches,
    scope_tuple,
)
from .database import Database
from .schema import TABLES
from .vector_index import IndexCache, IndexRow

#: Record vectors kept in memory across scopes (least recently searched scopes are unloaded past it):
#: about 1.5 GB of 384-d float32 plus payloads. None: no bound.
DEFAULT_CACHE_MAX_ROWS = 1_000_000


def paged(read: Callable[[Any], list[Any]], page: int) -> Iterator[Any]:
    """Rows of ``read(last)`` page after page; ``read`` returns up to ``page`` rows after ``last`` (the
    last column of the previous page's last row), in that column's order."""
    last: Any = 0
    while True:
        rows = read(last)
        yield from rows
        if len(rows) < page:
            return
        last = rows[-1][-1]


def _fetch_after(cur: Any, query: str, params: list[Any], last: Any) -> list[Any]:
    return list(cur.execute(query, [*params, last]).fetchall())


def query_vector(db: Database, conn: Any, vector: Any) -> tuple[np.ndarray, EmbeddingInfo | None]:
    """The checked query vector and the recorded embedding info (after noticing others' commits)."""
    query = check_vector(vector)
    db.sync(conn)
    info = db.cached_info(conn)
    if info is not None and query.shape[0] != info.dim:
        raise EmbeddingMismatchError(info.model_id, info.dim, "(the query vector)", query.shape[0])
    return query, info


class RecordSearch:
    """Cached exact cosine search over one database's record tables."""

    def __init__(self, db: Database, cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS) -> None:
        self.db = db
        self.cache: IndexCache[ScopeTuple] = IndexCache(self._keys, self._rows, max_rows=cache_max_rows)
        db.on_change(self.cache.clear)

    # -- loading -------------------------------------------------------------------------------
    def _keys(self, namespace: str) -> list[ScopeTuple]:
        rows = self.db.connection().execute(
            f"SELECT DISTINCT user_id, agent_id, run_id FROM {TABLES[MemoryType(namespace)]}"
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def _rows(self, namespace: str, keys: Sequence[ScopeTuple]) -> Iterator[IndexRow[ScopeTuple]]:
        """Rows of ``keys`` in insertion order (read in pages of the dialect's ``load_page`` if set)."""
        dialect = self.db.dialect
        cur = dialect.vector_cursor(self.db.connection())
        table = TABLES[MemoryType(namespace)]
        page = dialect.load_page
        columns = "user_id, agent_id, run_id, id, record, speaker, vector, embedding_model, seq"
        for cond, params in dialect.id_chunks("scope_key", [scope_key(k) for k in keys]):
            query = f"SELECT {columns} FROM {table} WHERE {cond}"
            if page is None:
                rows: Iterator[Any] = cur.execute(f"{query} ORDER BY seq", params)
            else:
                query = f"{query} AND seq > {dialect.param} ORDER BY seq LIMIT {page}"
                rows = paged(partial(_fetch_after, cur, query, params), page)
            for u, a, r, item_id, payload, speaker, blob, model, _ in rows:
                self.db.check_row_model(model, blob)
                yield IndexRow((u, a, r), item_id, payload, speaker, blob)

    # -- searching -----------------------------------------------------------------------------
    def search(
        self, vector: np.ndarray, scope: Scope, memory_type: MemoryType, k: int, speaker: str | None = None
    ) -> list[ScoredRecord]:
        """Exact cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first.

        Ties are broken by id. Runs no SQL beyond one read of the change counter when the cache is warm.
        """
        check_scope(scope)
        mt = check_memory_type(memory_type)
        k = check_k(k)
        check_speaker(speaker)
        with self.db.read("search") as conn:
            query, info = query_vector(self.db, conn, vector)
            if info is None or k == 0:
                return []
            hits = self.cache.search(mt.value, lambda key: scope_matches(scope, key), query, k, speaker)
        # model_construct: the record was just validated from JSON, no need to validate it twice
        return [ScoredRecord.model_construct(record=record_from_json(mt, h.payload), score=h.score) for h in hits]

    def revision(self) -> int:
        """A number that changes whenever a memory record changes: written through this store, or
        committed by another connection (noticed here, as every read notices it)."""
        with self.db.read("revision") as conn:
            self.db.sync(conn)
            return self.cache.generation

    # -- what the writers report (after their commit) ------------------------------------------
    def added(self, records: Sequence[MemoryRecord], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        for i, (r, payload) in enumerate(zip(records, payloads)):
            self.cache.upsert(r.type, scope_tuple(r.scope), r.id, matrix[i], payload, r.speaker)

    def removed(self, memory_type: MemoryType | str, scope: ScopeTuple, record_id: str) -> None:
        self.cache.remove(MemoryType(memory_type).value, scope, record_id)

    def dropped(self, memory_type: MemoryType, scopes: set[ScopeTuple]) -> None:
        self.cache.drop(memory_type.value, scopes)
