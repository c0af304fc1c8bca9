"""Exact search over the records, through in-process vector caches kept current by the writers.

:class:`RecordSearch` answers a search from an :class:`~memdesk.store.index_cache.IndexCache` of
one index per (memory type, exact scope). The scope a search names is resolved to its exact scope
keys without scanning: an exact scope is its own key; a partial one (``Scope(user_id="u")``) is
one index range of the ``scopes`` table, remembered until a write adds a scope under it. A
missing index is loaded with one query per batch of keys, straight into one float32 matrix.

The writers of this store report their committed changes (:meth:`RecordSearch.added`,
:meth:`removed`, :meth:`dropped`), so a warm search runs no SQL beyond the change check; what
another connection changed arrives from :class:`~memdesk.store.database.Database` as the exact
scope keys it touched, and only those entries are forgotten.
"""

from __future__ import annotations

from functools import partial
from itertools import islice
from typing import Any, Callable, Iterator, Protocol, Sequence

import numpy as np
from cachetools import LRUCache

from ..errors import EmbeddingMismatchError, InvalidInputError
from ..filters import RecordFilter
from ..records import ALL_TYPES, MemoryRecord, MemoryType, Scope
from .base import EmbeddingInfo, RecordSearcher, ScoredRecord
from .codec import (
    ScopeTuple,
    check_k,
    check_memory_type,
    check_scope,
    check_speaker,
    check_vector,
    record_from_json,
    scope_key,
    scope_tuple,
)
from .database import Changes, Database
from .schema import TABLES, scope_where
from .revisions import RevisionReads, ScopeRevisions, wildcards
from .ann_cold import GraphIndex, database_id, fetcher, graph_of, is_current
from .ann_scopes import LargeScopes
from .index_cache import IndexCache
from .vector_index import IndexBuilder, VectorIndex, merge_hits, search_indexes
from .sql_filter import FilterSql, narrowing_sql
from .filtered import top_k_passing
from .shared_metadata import FULL_RECORD

#: Record vectors kept in memory across scopes (least recently searched scopes are unloaded past it):
#: about 1.5 GB of 384-d float32 plus payloads. None: no bound.
DEFAULT_CACHE_MAX_ROWS = 1_000_000
PATTERNS_KEPT = 10_000
"""Partial scopes whose exact scope keys are remembered (least recently searched forgotten first)."""
_NAMESPACES = tuple(t.value for t in ALL_TYPES)


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


def query_vector(db: Database, conn: Any, vector: Any, *, sync: bool = True) -> tuple[np.ndarray, EmbeddingInfo | None]:
    """The checked query vector and the recorded embedding info (after noticing others' commits, unless
    ``sync`` is False: then as of the change counter last seen, for a caller that reads the counter itself)."""
    query = check_vector(vector)
    if sync:
        db.sync(conn)
    info = db.cached_info(conn)
    if info is not None and query.shape[0] != info.dim:
        raise EmbeddingMismatchError(info.model_id, info.dim, "(the query vector)", query.shape[0])
    return query, info


class RecordIndex(RecordSearcher, Protocol):
    """How a store searches its records, told about each committed change (:class:`RecordSearch`
    in memory; :class:`~memdesk.store.pg_search.PgRecordSearch` in PostgreSQL)."""

    def revision(self, scope: Scope | None = None) -> int: ...

    def additions_since(self, scope: Scope, revision: int) -> list[str] | None: ...

    def added(self, records: Sequence[MemoryRecord], matrix: np.ndarray, payloads: Sequence[str]) -> None: ...

    def removed(self, memory_type: MemoryType | str, scope: ScopeTuple, record_id: str) -> None: ...

    def dropped(self, memory_type: MemoryType, scopes: set[ScopeTuple]) -> None: ...


class CheckedSearch:
    """:meth:`RecordSearcher.search`'s argument checks, once for both record indexes (:class:`RecordSearch`,
    :class:`~memdesk.store.pg_search.PgRecordSearch`): each implements :meth:`_search` on checked arguments."""

    def search(
        self,
        vector: np.ndarray,
        scope: Scope,
        memory_type: MemoryType,
        k: int,
        speaker: str | None = None,
        where: RecordFilter | None = None,
    ) -> list[ScoredRecord]:
        """Exact cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first;
        with ``where``, the top-k among the records it keeps (see each index's :meth:`_search`)."""
        if where is not None and not isinstance(where, RecordFilter):
            raise InvalidInputError(f"where must be a RecordFilter, not {type(where).__name__}")
        scope, mt, k = check_scope(scope), check_memory_type(memory_type), check_k(k)
        return self._search(vector, scope, mt, k, check_speaker(speaker), where)

    def search_types(
        self,
        vector: np.ndarray,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        k: int,
        speaker: str | None = None,
        where: RecordFilter | None = None,
    ) -> dict[MemoryType, list[ScoredRecord]]:
        """:meth:`search` of each of ``memory_types`` (in that order, each once), in as few reads as the index can."""
        if where is not None and not isinstance(where, RecordFilter):
            raise InvalidInputError(f"where must be a RecordFilter, not {type(where).__name__}")
        if isinstance(memory_types, (str, bytes)):
            raise InvalidInputError("memory_types must be a list of memory types, not one")
        types = list(dict.fromkeys(check_memory_type(t) for t in memory_types))
        scope, k = check_scope(scope), check_k(k)
        return self._search_types(vector, scope, types, k, check_speaker(speaker), where)

    def _search(
        self, vector: np.ndarray, scope: Scope, mt: MemoryType, k: int, speaker: str | None, where: RecordFilter | None
    ) -> list[ScoredRecord]:
        raise NotImplementedError

    def _search_types(
        self, vector: np.ndarray, scope: Scope, types: list[MemoryType], k: int, speaker: str | None,
        where: RecordFilter | None,
    ) -> dict[MemoryType, list[ScoredRecord]]:  # fmt: skip
        """One :meth:`_search` per type; an index that reads several types in one query overrides it."""
        return {mt: self._search(vector, scope, mt, k, speaker, where) for mt in types}


class RecordSearch(RevisionReads, CheckedSearch):
    """Cached exact cosine search over one database's record tables."""

    def __init__(
        self,
        db: Database,
        cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS,
        *,
        ann: LargeScopes | None = None,
        files: LargeScopes | None = None,
    ) -> None:
        self.db = db
        #: HNSW graphs for the large scopes (None: every search exact)
        self.ann = ann
        #: whose graph files a forget erases (also when this store searches exactly: another may have written them)
        self.files = files if files is not None else ann
        self.cache: IndexCache[ScopeTuple] = IndexCache(self._load, max_rows=cache_max_rows)
        #: partial scope -> its exact scope keys (an ordered set), least recently searched first
        self._patterns: LRUCache[ScopeTuple, dict[ScopeTuple, None]] = LRUCache(maxsize=PATTERNS_KEPT)
        self.revisions = ScopeRevisions()
        self._database: str | None = None  # written with graph files (:func:`.ann_cold.database_id`)
        db.on_change(self._changed)

    # -- what others changed -------------------------------------------------------------------
    def _changed(self, changes: Changes | None) -> None:
        keys = self.revisions.apply(changes)
        if keys is None:
            self.cache.clear()
            self._patterns.clear()
            if self.ann is not None:
                self.ann.clear()
            return
        self.cache.forget(_NAMESPACES, keys)
        for key in keys:
            self._note_scope(key)

    def _note_scope(self, key: ScopeTuple) -> None:
        """A scope that now may hold records: add it to the remembered partial scopes it falls under."""
        for pattern in wildcards(key):
            known = self._patterns.get(pattern)
            if known is not None:
                known[key] = None

    # -- resolving a scope to exact keys -------------------------------------------------------
    def keys_for(self, conn: Any, scope: Scope) -> list[ScopeTuple]:
        """The exact scope keys under ``scope``: itself if exact, else one index range of ``scopes``."""
        pattern = scope_tuple(scope)
        if None not in pattern:
            return [pattern]
        known = self._patterns.get(pattern)
        if known is None:
            where, params = scope_where(scope, self.db.dialect.param)
            rows = conn.execute(f"SELECT user_id, agent_id, run_id FROM scopes WHERE {where}", params).fetchall()
            known = self._patterns[pattern] = {(r[0], r[1], r[2]): None for r in rows}  # evicts past PATTERNS_KEPT
        return list(known)

    # -- loading -------------------------------------------------------------------------------
    def _load(self, namespace: str, keys: Sequence[ScopeTuple]) -> dict[ScopeTuple, VectorIndex]:
        """The indexes of ``keys`` that hold rows, each read straight into one float32 matrix."""
        info = self.db.known_info
        if info is None:
            return {}
        dialect = self.db.dialect
        conn = self.db.connection()
        table = TABLES[MemoryType(namespace)]
        cold = {key: gi for key in keys if (gi := self._cold(conn, namespace, key, info)) is not None}
        by_key = {scope_key(k): k for k in keys if k not in cold}
        builders: dict[str, IndexBuilder] = {}
        for cond, params in dialect.id_chunks("scope_key", list(by_key)):
            sql = f"SELECT scope_key, COUNT(*) FROM {table} WHERE {cond} GROUP BY scope_key"
            for sk, n in conn.execute(sql, params).fetchall():
                builders[sk] = IndexBuilder(info.dim, int(n))
        if not builders:
            return dict(cold)
        cur = dialect.vector_cursor(conn)
        page = dialect.load_page
        columns = f"scope_key, id, {FULL_RECORD}, speaker, vector, embedding_model, seq"
        for cond, params in dialect.id_chunks("scope_key", list(builders)):
            query = f"SELECT {columns} FROM {table} WHERE {cond}"
            if page is None:
                rows: Iterator[Any] = cur.execute(f"{query} ORDER BY seq", params)
            else:
                query = f"{query} AND seq > {dialect.param} ORDER BY seq LIMIT {page}"
                rows = paged(partial(_fetch_after, cur, query, params), page)
            for sk, item_id, payload, speaker, blob, model, _ in rows:
                self.db.check_row_model(model, blob)
                builder = builders.get(sk)
                if builder is None:  # written between the count and the read
                    builder = builders[sk] = IndexBuilder(info.dim, 1)
                builder.add(item_id, payload, speaker, blob)
        return {**cold, **{by_key[sk]: b.build() for sk, b in builders.items() if sk in by_key}}

    def _cold(self, conn: Any, namespace: str, key: ScopeTuple, info: EmbeddingInfo) -> GraphIndex | None:
        """The scope as its graph file alone, if that file is current (:mod:`.ann_cold`)."""
        if self.ann is None or not self.db.change_logged:
            return None
        table, sk, p = TABLES[MemoryType(namespace)], scope_key(key), self.db.dialect.param
        return self.ann.open_cold(
            namespace, key, info.model_id, info.dim,
            current=partial(is_current, conn, p, table, sk),
            fetch=fetcher(self.db.connection, p, table, sk),
        )  # fmt: skip

    def _database_id(self, conn: Any) -> str:
        if self._database is None:
            self._database = database_id(conn)
        return self._database

    def _with_rows(self, namespace: str, keys: Sequence[ScopeTuple], indexes: list[Any], dim: int) -> list[Any]:
        """``indexes`` with every :class:`GraphIndex` replaced by the scope loaded from the database (its
        graph handed over, reconciled with the rows by the next ``attach``): for what needs the rows."""
        cold = [key for key, index in zip(keys, indexes) if isinstance(index, GraphIndex)]
        if not cold or self.ann is None:
            return indexes
        for key, index in zip(keys, indexes):
            if isinstance(index, GraphIndex):
                self.ann.adopt(namespace, key, index.materialized)
        self.cache.forget([namespace], cold)
        return self.cache.indexes(namespace, keys, dim)

    # -- searching -----------------------------------------------------------------------------
    def _search(
        self, vector: np.ndarray, scope: Scope, mt: MemoryType, k: int, speaker: str | None, where: RecordFilter | None
    ) -> list[ScoredRecord]:
        """Exact cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first.

        Ties are broken by id. Runs no SQL beyond one read of the change counter when the cache is warm.
        A scope of ``ann.min_rows`` rows or more is searched through its HNSW graph (:mod:`.ann_scopes`):
        approximate candidates, exact scores.

        With a ``where`` that SQL narrows beyond validity (:func:`.sql_filter.narrowing_sql`), one SQL read
        gives the ids it keeps and they are the row mask: the cached rows among them are scored exactly,
        best first, and the first ``k`` that :meth:`RecordFilter.matches` keeps are the answer (an exact
        top-k after filtering, large scopes included). Other filters: :func:`.filtered.top_k_passing`.
        """
        narrowed = None if where is None or where.store_native else narrowing_sql(where, self.db.dialect)
        if where is not None and not where.store_native and narrowed is None:
            return top_k_passing(lambda n: self._search(vector, scope, mt, n, speaker, None), where, k)
        with self.db.read("search") as conn:
            query, info = query_vector(self.db, conn, vector)
            if info is None or k == 0:
                return []
            keys = self.keys_for(conn, scope)
            indexes = self.cache.indexes(mt.value, keys, info.dim)
            if speaker is not None or narrowed is not None or any(isinstance(x, GraphIndex) and x.needs_rebuild() for x in indexes):
                indexes = self._with_rows(mt.value, keys, indexes, info.dim)
            if narrowed is not None:
                ids = self._kept_ids(conn, mt, scope, speaker, narrowed)
                hits = merge_hits((h for index in indexes for h in index.hits_for(ids, query)), len(ids))
            else:
                if self.ann is not None:
                    self.ann.attach(
                        mt.value, keys, indexes, info.model_id,
                        sync=partial(self.db.sync, conn),
                        still_loaded=lambda key: self.cache.loaded(mt.value, key) is not None,  # type: ignore[arg-type]
                        stamp=(self.db.log_seen, self._database_id(conn)),
                    )  # fmt: skip
                    self.cache.recount(mt.value, keys)  # a graph attached now holds a second copy of the vectors
                hits = search_indexes(indexes, query, k, speaker)
        # model_construct: the record was just validated from JSON, no need to validate it twice
        found = (ScoredRecord.model_construct(record=record_from_json(mt, h.payload), score=h.score) for h in hits)
        if where is None:
            return list(found)
        return list(islice((s for s in found if where.matches(s.record)), k))

    def _kept_ids(
        self, conn: Any, mt: MemoryType, scope: Scope, speaker: str | None, narrowed: FilterSql
    ) -> list[str]:
        p = self.db.dialect.param
        cond, params = scope_where(scope, p)
        if speaker is not None:
            cond, params = f"{cond} AND speaker = {p}", [*params, speaker]
        sql = f"SELECT id FROM {TABLES[mt]} WHERE {cond} AND ({narrowed.sql})"
        return [r[0] for r in conn.execute(sql, [*params, *narrowed.params]).fetchall()]

    def save_graphs(self) -> None:
        """Write the graph file of every loaded large scope whose graph has changes its file lacks (the
        store's close), so the next process serves it alone instead of reconciling it once. Other
        connections' commits are taken in first (a scope they changed is dropped, not written), and
        again after writing (:meth:`.ann_scopes.LargeScopes.save`: a forget that raced it removes the file)."""
        info = self.db.known_info
        if self.ann is None or self.ann.folder is None or info is None:
            return
        with self.db.read("save graphs") as conn:
            self.db.sync(conn)
            graphs: dict[str, list[tuple[ScopeTuple, Any]]] = {}
            for namespace, key, index in self.cache.entries():
                graph = graph_of(index)
                if graph is not None and graph.unsaved:
                    graphs.setdefault(namespace, []).append((key, graph))
            for namespace, pairs in graphs.items():
                self.ann.save(
                    namespace, pairs, info.model_id,  # type: ignore[arg-type]
                    sync=partial(self.db.sync, conn),
                    still_loaded=lambda key, ns=namespace: self.cache.loaded(ns, key) is not None,  # type: ignore[misc]
                    stamp=(self.db.log_seen, self._database_id(conn)),
                )  # fmt: skip

    # -- what this store's writers report (after their commit) ---------------------------------
    def added(self, records: Sequence[MemoryRecord], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        seen: dict[ScopeTuple, None] = {}
        written: list[tuple[ScopeTuple, str]] = []
        for i, (r, payload) in enumerate(zip(records, payloads)):
            key = scope_tuple(r.scope)
            self.cache.upsert(r.type, key, r.id, matrix[i], payload, r.speaker)
            written.append((key, r.id))
            if key not in seen:
                seen[key] = None
                self._note_scope(key)
        if seen:
            self.revisions.changed(seen, added=written)

    def removed(self, memory_type: MemoryType | str, scope: ScopeTuple, record_id: str) -> None:
        self.cache.remove(MemoryType(memory_type).value, scope, record_id)
        self.revisions.changed([scope])

    def dropped(self, memory_type: MemoryType, scopes: set[ScopeTuple]) -> None:
        self.cache.forget([memory_type.value], scopes)
        if self.files is not None:
            self.files.erase(memory_type.value, scopes)
        self._patterns.clear()
        self.revisions.erased(scopes)
