"""Search inside PostgreSQL with pgvector: the server process keeps no copy of the vectors.

:class:`PgRecordSearch` and :class:`PgCollectionSearch` answer searches with one SQL query each,
``ORDER BY vector <#> q, id LIMIT k`` under the scope's condition. The planner picks the plan:

* a partial scope (``Scope(user_id="u")``) is first resolved to its exact scope keys (one index
  range of ``scopes``); a scope is then one ``scope_key`` equality (or ``= ANY`` of several);
* a small scope is read through its ``(scope_key, seq)`` b-tree and sorted exactly;
* a large scope (at least ``hnsw_min_rows`` rows, see :meth:`PgRecordSearch.index_large_scopes`)
  gets a partial HNSW index of its own (``WHERE scope_key = ...``), which a one-key query matches
  (the store's statements are planned with their values: ``prepare_threshold=None``): approximate
  search over ``hnsw.ef_search`` candidates;
* a filtered search (a speaker; a :class:`~memdesk.filters.RecordFilter`, compiled by
  :mod:`.sql_filter` into the same ``WHERE``) on an HNSW-indexed scope uses pgvector's iterative
  index scans (``hnsw.iterative_scan = strict_order``, pgvector >= 0.8) where the server has them,
  and is answered exactly when such a scan finds fewer than ``k`` rows; on older pgvector (the
  ``pgserver`` wheel carries 0.6.2) a post-filtered HNSW scan could return fewer than ``k`` rows,
  so such searches read their candidates through the b-tree indexes first and rank them exactly.
  On a scope without an HNSW index the filter is one more condition under the scope's b-tree.

Because every search reads the database, several ``memdesk serve`` processes on one database see
each other's writes on their next request, and a process's memory does not grow with the data.
Every statement names the tenant's scope columns and no query joins across scopes, so the record
tables can be distributed by scope (see docs/postgres.md).
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import EmbeddingMismatchError
from ..filters import RecordFilter
from ..records import MemoryRecord, MemoryType, Scope
from .base import EmbeddingInfo, ScoredRecord
from .codec import (
    ScopeTuple,
    check_k,
    check_memory_type,
    check_scope,
    record_from_json,
    scope_key,
    scope_tuple,
)
from .database import Database
from .revisions import ScopeRevisions
from .schema import TABLES, scope_where
from .filtered import top_k_passing
from .search_cache import CheckedSearch, query_vector
from .sql_filter import FilterSql, narrowing_sql

log = logging.getLogger(__name__)

HNSW_MIN_ROWS = 20_000
"""Rows from which a scope gets its own HNSW index (below it, exact search under the scope index is fast)."""
MIN_PGVECTOR = (0, 5, 0)
"""The oldest pgvector with HNSW indexes (search without them works on any pgvector with ``<#>``)."""
ITERATIVE_PGVECTOR = (0, 8, 0)
"""The oldest pgvector with iterative index scans (``hnsw.iterative_scan``)."""
EF_SEARCH = 200
"""``hnsw.ef_search``: candidates an HNSW scan considers (at least k)."""


def check_not_rewriting(db: Database, conn: Any, info: EmbeddingInfo) -> None:
    """EmbeddingMismatchError while ``memdesk reembed`` is half-way (the rows are not all by ``info``)."""
    if db.rewriting(conn):
        raise EmbeddingMismatchError(info.model_id, info.dim, "(a re-embedding in progress)", info.dim)


def index_name(table: str, key: str) -> str:
    """A stable name for the partial HNSW index of one scope (or collection) of ``table``."""
    return f"hnsw_{table}_{hashlib.sha1(key.encode()).hexdigest()[:16]}"


class SeenAt:
    """Answers read from the database, each kept with the change counter it was read at and served only
    while the counter has not moved: every commit (of any process) moves it, and a search reads it first
    (:meth:`Database.sync`), so an answer is never older than the last commit the search saw. An HNSW
    index created without a commit (``index_large_scopes`` of another process) is noticed at the next one;
    until then the scope is searched exactly, which is slower, not different."""

    MAX = 50_000

    def __init__(self) -> None:
        self._facts: dict[tuple[Any, ...], tuple[int, Any]] = {}

    def get(self, key: tuple[Any, ...], version: int, read: Any) -> Any:
        hit = self._facts.get(key)
        if hit is not None and hit[0] == version:
            return hit[1]
        if len(self._facts) >= self.MAX:
            self._facts.clear()
        value = read()
        self._facts[key] = (version, value)
        return value

    def clear(self) -> None:
        self._facts.clear()


class PgRecordSearch(CheckedSearch):
    """Record search in SQL (see the module docstring)."""

    def __init__(self, db: Database, *, iterative_scans: bool, hnsw_min_rows: int = HNSW_MIN_ROWS) -> None:
        self.db = db
        self.iterative_scans = iterative_scans
        self.hnsw_min_rows = hnsw_min_rows
        self.revisions = ScopeRevisions()
        #: a partial scope's exact keys and whether a scope has its HNSW index, read once per change
        #: counter value (not once per memory type of a search)
        self.seen = SeenAt()
        db.on_change(self.revisions.apply)

    def _where(
        self, conn: Any, table: str, scope: Scope, speaker: str | None, narrowed: FilterSql | None
    ) -> tuple[str, list[Any], bool, bool] | None:
        """The search's condition, its parameters, whether it filters inside a scope (a speaker, a
        compiled :class:`RecordFilter`, several exact scopes) and whether that scope has its own HNSW
        index (None: no exact scope under ``scope``). A partial scope is first resolved to its exact
        scope keys (one index range of ``scopes``), so a scope with one key, e.g. ``Scope(user_id="u")``
        whose records all carry that scope, is one ``scope_key`` equality, which that scope's partial
        HNSW index matches."""
        p = self.db.dialect.param
        if None in (scope.user_id, scope.agent_id, scope.run_id):
            cond, args = scope_where(scope, p)
            keys = self.seen.get(
                ("keys", cond, *args),
                self.db.version,
                lambda: [r[0] for r in conn.execute(f"SELECT scope_key FROM scopes WHERE {cond}", args).fetchall()],
            )
        else:
            keys = [scope_key(scope)]
        if not keys:
            return None
        indexed = False
        if len(keys) == 1:
            where, params, filtered = f"scope_key = {p}", [keys[0]], False
            indexed = self._indexed(conn, keys[0])[table]
        else:  # several exact scopes: their b-tree ranges, ranked exactly
            where, params, filtered = f"scope_key = ANY({p})", [keys], True
        if speaker is not None:
            where, params, filtered = f"{where} AND speaker = {p}", [*params, speaker], True
        if narrowed is not None:
            where, params, filtered = f"{where} AND ({narrowed.sql})", [*params, *narrowed.params], True
        return where, params, filtered, bool(indexed)

    def _indexed(self, conn: Any, key: str) -> dict[str, bool]:
        """Which record tables have an HNSW index of the scope ``key``: one query for every memory type."""

        def read() -> dict[str, bool]:
            tables = list(TABLES.values())
            marks = ", ".join(["to_regclass(%s) IS NOT NULL"] * len(tables))
            row = conn.execute(f"SELECT {marks}", [index_name(t, key) for t in tables]).fetchone()
            return dict(zip(tables, row))

        return self.seen.get(("indexed", key), self.db.version, read)

    def _sql(
        self, table: str, where: str, params: list[Any], q: Any, k: int, filtered: bool, approximate: bool
    ) -> tuple[str, list[Any]]:
        """The search query and its parameters. A filtered search that must be exact on an HNSW-indexed
        scope (no iterative index scans on this server, or an iterative scan that found fewer than k)
        reads its candidates through the b-tree indexes first (a materialized CTE), so no post-filtered
        HNSW scan can drop rows. An exact search breaks ties by id; an approximate one (through the
        scope's HNSW index) orders by distance alone (what the index scan delivers: with a second sort
        key the planner could not use it)."""
        d = self.db.dialect
        ties = "" if approximate else ", id"
        order = f"ORDER BY vector <#> {d.vector_mark}{ties} LIMIT {d.param}"
        score = f"(vector <#> {d.vector_mark}) * -1 AS score"
        if filtered and not approximate:
            sql = (
                f"WITH candidates AS MATERIALIZED (SELECT id, record, vector FROM {table} WHERE {where}) "
                f"SELECT record, {score} FROM candidates {order}"
            )
            return sql, [*params, q, q, k]
        return f"SELECT record, {score} FROM {table} WHERE {where} {order}", [q, *params, q, k]

    def _run(
        self, vector: Any, scope: Scope, mt: MemoryType, k: int, speaker: str | None,
        narrowed: FilterSql | None = None, explain: bool = False,
    ) -> list[Any]:  # fmt: skip
        with self.db.read("search") as conn:
            query, info = query_vector(self.db, conn, vector)
            if info is None or k == 0:
                return []
            check_not_rewriting(self.db, conn, info)
            plan = self._where(conn, TABLES[mt], scope, speaker, narrowed)
            if plan is None:
                return []
            where, params, filtered, indexed = plan
            approximate = indexed and (not filtered or self.iterative_scans)
            q = self.db.dialect.vector_param(query)
            prefix = "EXPLAIN (ANALYZE, BUFFERS, VERBOSE, COSTS OFF) " if explain else ""
            sql, args = self._sql(TABLES[mt], where, params, q, k, filtered, approximate)
            if not indexed:  # one statement (autocommit): no SET LOCAL, so no transaction to wrap it in
                return conn.execute(prefix + sql, args).fetchall()
            with conn.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {EF_SEARCH}")
                if filtered and approximate:  # pgvector >= 0.8: scan on until k rows pass
                    conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
                rows = conn.execute(prefix + sql, args).fetchall()
                if filtered and approximate and not explain and len(rows) < k:
                    # an iterative scan stops after hnsw.max_scan_tuples: a selective filter can leave
                    # fewer than k rows there, so such a search is answered exactly instead
                    sql, args = self._sql(TABLES[mt], where, params, q, k, filtered, False)
                    rows = conn.execute(sql, args).fetchall()
                return rows

    def _records(
        self, vector: np.ndarray, scope: Scope, mt: MemoryType, k: int, speaker: str | None, narrowed: FilterSql | None
    ) -> list[ScoredRecord]:
        rows = self._run(vector, scope, mt, k, speaker, narrowed)
        return [ScoredRecord.model_construct(record=record_from_json(mt, payload), score=float(s)) for payload, s in rows]

    def _search(
        self, vector: np.ndarray, scope: Scope, mt: MemoryType, k: int, speaker: str | None, where: RecordFilter | None
    ) -> list[ScoredRecord]:
        """Cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first, ties by id.

        With ``where``, among the records it keeps: what SQL can say of it (:func:`.sql_filter.narrowing_sql`)
        is in the query's ``WHERE`` (so the top k is taken among the rows it keeps, under the scope's
        b-tree or, with iterative index scans, its HNSW index), and :meth:`RecordFilter.matches` is the
        final check. Where that SQL is exact one query of ``k`` rows is the answer. The ask-more loop
        (:func:`.filtered.top_k_passing`) stays where it is not: a superset (``icontains``, ISO-time
        ranges, ``as_of``'s ``valid_to``, ...) can return rows ``matches`` drops, and a filter of
        validity alone is not compiled (most rows pass it: a few more candidates are cheaper than
        reading the record JSON of every row of the scope), so ``k`` rows of SQL may keep fewer than ``k``."""
        if where is None or where.store_native:
            return self._records(vector, scope, mt, k, speaker, None)
        narrowed = narrowing_sql(where, self.db.dialect)
        first = k if narrowed is not None and narrowed.exact else None
        return top_k_passing(lambda n: self._records(vector, scope, mt, n, speaker, narrowed), where, k, first=first)

    def explain(
        self, vector: np.ndarray, scope: Scope, memory_type: MemoryType, k: int, speaker: str | None = None,
        where: RecordFilter | None = None,
    ) -> str:  # fmt: skip
        """The plan of :meth:`search`'s (first) query (EXPLAIN ANALYZE), for benchmarks and docs."""
        narrowed = None if where is None or where.store_native else narrowing_sql(where, self.db.dialect)
        mt, k = check_memory_type(memory_type), check_k(k)
        rows = self._run(vector, check_scope(scope), mt, k, speaker, narrowed, explain=True)
        return "\n".join(r[0] for r in rows)

    def revision(self, scope: Scope | None = None) -> int:
        """Moves whenever a record under ``scope`` (None: anywhere) changes, by anyone (see :mod:`.revisions`)."""
        with self.db.read("revision") as conn:
            self.db.sync(conn)
            return self.revisions.of(scope)

    # -- the writers' reports: no vectors are cached here, only the revisions move --------------
    def added(self, records: Sequence[MemoryRecord], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        self.revisions.changed({scope_tuple(r.scope): None for r in records})

    def removed(self, memory_type: MemoryType | str, scope: ScopeTuple, record_id: str) -> None:
        self.revisions.changed([scope])

    def dropped(self, memory_type: MemoryType, scopes: set[ScopeTuple]) -> None:
        """Scopes emptied (``delete_scope``) or forgotten: their HNSW indexes go too (an index's
        definition names its scope)."""
        self.revisions.changed(scopes)
        from psycopg import sql

        table = TABLES[MemoryType(memory_type)]
        with self.db.read("drop scope indexes") as conn:
            for key in scopes:
                name = index_name(table, scope_key(key))
                if conn.execute("SELECT to_regclass(%s) IS NOT NULL", [name]).fetchone()[0]:
                    conn.execute(sql.SQL("DROP INDEX IF EXISTS {}").format(sql.Identifier(name)))
        self.seen.clear()

    # -- HNSW indexes for large scopes ---------------------------------------------------------
    def index_large_scopes(self, min_rows: int | None = None) -> list[str]:
        """Create the partial HNSW index of every exact scope with at least ``min_rows`` records of a
        type (default ``hnsw_min_rows``) that has none yet; returns the indexes created. Built with
        ``CREATE INDEX CONCURRENTLY``: writers are not blocked while it builds; the table is then
        analyzed (until its statistics show the scope's size, the planner expects few rows per
        scope and sorts them instead of scanning the index)."""
        threshold = self.hnsw_min_rows if min_rows is None else min_rows
        created: list[str] = []
        with self.db.read("index_large_scopes") as conn:
            for table in TABLES.values():
                sql = f"SELECT scope_key FROM {table} GROUP BY scope_key HAVING COUNT(*) >= %s"
                fresh = 0
                for (key,) in conn.execute(sql, [threshold]).fetchall():
                    name = index_name(table, key)
                    if conn.execute("SELECT to_regclass(%s)", [name]).fetchone()[0] is None:
                        created.append(_create_hnsw(conn, name, table, "scope_key", key))
                        fresh += 1
                if fresh:  # the planner needs the scope's row count to prefer the index over a sort
                    conn.execute(f"ANALYZE {table}")
        if created:
            self.seen.clear()
        return created


class PgCollectionSearch:
    """Collection search in SQL; a collection of ``hnsw_min_rows`` items or more gets a partial HNSW index."""

    def __init__(self, db: Database, hnsw_min_rows: int = HNSW_MIN_ROWS) -> None:
        self.db = db
        self.hnsw_min_rows = hnsw_min_rows

    def search(self, conn: Any, name: str, query: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        info = self.db.known_info
        if info is not None:
            check_not_rewriting(self.db, conn, info)
        d = self.db.dialect
        q = d.vector_param(query)
        indexed = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [index_name("collection_items", name)]).fetchone()[0]
        ties = "" if indexed else ", id"  # the HNSW scan orders by distance alone (see PgRecordSearch._sql)
        with conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {EF_SEARCH}")
            rows = conn.execute(
                f"SELECT id, payload, (vector <#> {d.vector_mark}) * -1 FROM collection_items WHERE collection = %s "
                f"ORDER BY vector <#> {d.vector_mark}{ties} LIMIT %s",
                [q, name, q, k],
            ).fetchall()
        return [(i, payload, float(s)) for i, payload, s in rows]

    def rows(self, name: str) -> Iterator[tuple[str, str, bytes]]:
        cur = self.db.dialect.vector_cursor(self.db.connection())
        sql = "SELECT id, payload, vector, embedding_model FROM collection_items WHERE collection = %s ORDER BY pos"
        for item_id, payload, blob, model in cur.execute(sql, (name,)):
            self.db.check_row_model(model, blob)
            yield item_id, payload, blob

    def put(self, name: str, ids: Sequence[str], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        if len(ids) and self.hnsw_min_rows:
            with self.db.read("collection index") as conn:
                n = conn.execute("SELECT COUNT(*) FROM collection_items WHERE collection = %s", [name]).fetchone()[0]
                index = index_name("collection_items", name)
                if n >= self.hnsw_min_rows and conn.execute("SELECT to_regclass(%s)", [index]).fetchone()[0] is None:
                    _create_hnsw(conn, index, "collection_items", "collection", name)
                    conn.execute("ANALYZE collection_items")

    def deleted(self, name: str, ids: Sequence[str] | None) -> None:
        return None


def _create_hnsw(conn: Any, name: str, table: str, column: str, key: str) -> str:
    from psycopg import sql

    log.info("building HNSW index %s on %s (%s = %r)", name, table, column, key)
    conn.execute(
        sql.SQL("CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON {} USING hnsw (vector vector_ip_ops) WHERE {} = {}").format(
            sql.Identifier(name), sql.Identifier(table), sql.Identifier(column), sql.Literal(key)
        )
    )
    return name


__all__ = ["EF_SEARCH", "HNSW_MIN_ROWS", "MIN_PGVECTOR", "PgCollectionSearch", "PgRecordSearch", "index_name"]
