"""Search inside PostgreSQL with pgvector: the server process keeps no copy of the vectors.

:class:`PgRecordSearch` answers a search with one SQL statement: for each memory type searched,
``ORDER BY vector <#> q, id LIMIT k`` under the scope's condition (the types' queries joined by ``UNION
ALL``, with the change counter: see :meth:`PgRecordSearch._plan`); collections are searched alike
(:mod:`.pg_collections`). The planner picks each type's plan:

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
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..errors import EmbeddingMismatchError, StoreError
from ..filters import RecordFilter
from ..records import MemoryRecord, MemoryType, Scope
from .base import EmbeddingInfo, ScoredRecord
from .codec import (
    ScopeTuple,
    check_k,
    check_memory_type,
    check_scope,
    check_speaker,
    record_from_json,
    scope_key,
    scope_tuple,
)
from .database import Database
from .revisions import RevisionReads, ScopeRevisions
from .schema import TABLES, scope_where
from .filtered import top_k_passing
from .search_cache import CheckedSearch, query_vector
from .shared_metadata import FULL_RECORD
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


@dataclass
class _Statement:
    """A search's one statement (:meth:`PgRecordSearch._plan`): its rows are (counter, part, record, score)."""

    sql: str = "SELECT counter, NULL, NULL, NULL FROM changes"  # no exact scope under the scope: the counter alone
    args: list[Any] = field(default_factory=list)
    indexed: bool = False  # some part scans an HNSW index: SET LOCAL hnsw.ef_search, in a transaction
    iterative: bool = False  # a filtered part scans one: pgvector's iterative scans
    exact: dict[int, tuple[str, list[Any]]] = field(default_factory=dict)  # such parts, answered exactly


class PgRecordSearch(RevisionReads, CheckedSearch):
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
        self, table: str, part: int, where: str, params: list[Any], q: Any, k: int, filtered: bool, approximate: bool
    ) -> tuple[str, list[Any]]:
        """One memory type's query (its rows marked ``part``) and its parameters. A filtered search that
        must be exact on an HNSW-indexed scope (no iterative index scans on this server, or an iterative
        scan that found fewer than k) reads its candidates through the b-tree indexes first (a
        materialized CTE), so no post-filtered HNSW scan can drop rows. An exact search breaks ties by
        id; an approximate one (through the scope's HNSW index) orders by distance alone (what the index
        scan delivers: with a second sort key the planner could not use it)."""
        d = self.db.dialect
        ties = "" if approximate else ", id"
        order = f"ORDER BY vector <#> {d.vector_mark}{ties} LIMIT {d.param}"
        columns = f"{part} AS part, id, {FULL_RECORD} AS record, (vector <#> {d.vector_mark}) * -1 AS score"
        if filtered and not approximate:
            sql = (
                f"WITH candidates AS MATERIALIZED (SELECT id, record, metadata_ref, vector FROM {table} WHERE {where}) "
                f"SELECT {columns} FROM candidates {order}"
            )
            return sql, [*params, q, q, k]
        return f"SELECT {columns} FROM {table} WHERE {where} {order}", [q, *params, q, k]

    def _plan(
        self, conn: Any, vector: Any, scope: Scope, types: list[MemoryType], k: int, speaker: str | None,
        narrowed: FilterSql | None,
    ) -> _Statement:  # fmt: skip
        """The one statement of a search of ``types``, planned with what was read at the change counter
        last seen: the counter, then each type's top k (a ``UNION ALL`` of one query per type, each
        planned on its own: the scope's b-tree or its HNSW index), best first. One statement is one
        snapshot, so the rows are those of the counter it returns."""
        query, info = query_vector(self.db, conn, vector, sync=False)
        parts: list[tuple[str, list[Any]]] = []
        st = _Statement()
        if info is not None and k > 0:
            check_not_rewriting(self.db, conn, info)
            q = self.db.dialect.vector_param(query)
            for pos, mt in enumerate(types):
                plan = self._where(conn, TABLES[mt], scope, speaker, narrowed)
                if plan is None:  # no exact scope under ``scope``
                    break
                where, params, filtered, indexed = plan
                approximate = indexed and (not filtered or self.iterative_scans)
                parts.append(self._sql(TABLES[mt], pos, where, params, q, k, filtered, approximate))
                st.indexed = st.indexed or indexed
                if filtered and approximate:  # pgvector >= 0.8: scan on until k rows pass
                    st.iterative = True
                    st.exact[pos] = self._sql(TABLES[mt], pos, where, params, q, k, filtered, False)
        if parts:
            union = " UNION ALL ".join(f"({sql})" for sql, _ in parts)
            st.sql = (
                f"SELECT c.counter, h.part, h.record, h.score FROM changes AS c LEFT JOIN LATERAL ({union}) AS h ON TRUE "
                "ORDER BY h.part, h.score DESC, h.id"
            )
            st.args = [a for _, args in parts for a in args]
        return st

    def _execute(self, conn: Any, sql: str, args: list[Any], st: _Statement) -> list[Any]:
        if not st.indexed:  # one statement (autocommit): no SET LOCAL, so no transaction to wrap it in
            return conn.execute(sql, args).fetchall()
        with conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {EF_SEARCH}")
            if st.iterative:
                conn.execute("SET LOCAL hnsw.iterative_scan = strict_order")
            return conn.execute(sql, args).fetchall()

    def _attempt(
        self, conn: Any, vector: Any, scope: Scope, types: list[MemoryType], k: int, speaker: str | None,
        narrowed: FilterSql | None,
    ) -> tuple[dict[MemoryType, list[Any]], int]:  # fmt: skip
        """Each type's (record JSON, score) rows, best first, and the change counter they were read at."""
        st = self._plan(conn, vector, scope, types, k, speaker, narrowed)
        rows = self._execute(conn, st.sql, st.args, st)
        if not rows:
            raise StoreError("the changes row is missing: the memdesk schema was altered by hand")
        found: dict[MemoryType, list[Any]] = {mt: [] for mt in types}
        for _, part, record, score in rows:
            if part is not None:
                found[types[part]].append((record, score))
        for pos, (sql, args) in st.exact.items():
            if len(found[types[pos]]) < k:
                # an iterative scan stops after hnsw.max_scan_tuples: a selective filter can leave
                # fewer than k rows there, so such a type is answered exactly instead
                found[types[pos]] = [(r[2], r[3]) for r in conn.execute(sql, args).fetchall()]
        return found, int(rows[0][0])

    def _run(
        self, vector: Any, scope: Scope, types: list[MemoryType], k: int, speaker: str | None,
        narrowed: FilterSql | None = None,
    ) -> dict[MemoryType, list[Any]]:  # fmt: skip
        """:meth:`_attempt`; when the counter it read is not the one last seen (another process
        committed), the store first catches up (:meth:`Database.sync`), then the search runs again."""
        with self.db.read("search") as conn:
            try:
                found, counter = self._attempt(conn, vector, scope, types, k, speaker, narrowed)
                if counter == self.db.version:
                    return found
            except EmbeddingMismatchError:  # judged by what the counter last seen said: look again
                pass
            self.db.sync(conn)
            return self._attempt(conn, vector, scope, types, k, speaker, narrowed)[0]

    def _records(
        self, vector: np.ndarray, scope: Scope, types: list[MemoryType], k: int, speaker: str | None,
        narrowed: FilterSql | None,
    ) -> dict[MemoryType, list[ScoredRecord]]:  # fmt: skip
        found = self._run(vector, scope, types, k, speaker, narrowed)
        return {
            mt: [ScoredRecord.model_construct(record=record_from_json(mt, payload), score=float(s)) for payload, s in rows]
            for mt, rows in found.items()
        }

    def _search(
        self, vector: np.ndarray, scope: Scope, mt: MemoryType, k: int, speaker: str | None, where: RecordFilter | None
    ) -> list[ScoredRecord]:
        return self._search_types(vector, scope, [mt], k, speaker, where)[mt]

    def _search_types(
        self, vector: np.ndarray, scope: Scope, types: list[MemoryType], k: int, speaker: str | None,
        where: RecordFilter | None,
    ) -> dict[MemoryType, list[ScoredRecord]]:  # fmt: skip
        """Cosine top-k of each memory type under ``scope`` (and speaker bank if given), best first, ties by id;
        without ``where`` (or one the arguments say all of), one statement for every type.

        With ``where``, among the records it keeps, one type at a time: what SQL can say of it
        (:func:`.sql_filter.narrowing_sql`) is in the query's ``WHERE`` (so the top k is taken among the
        rows it keeps, under the scope's b-tree or, with iterative index scans, its HNSW index), and
        :meth:`RecordFilter.matches` is the final check. Where that SQL is exact one query of ``k`` rows
        is the answer. The ask-more loop (:func:`.filtered.top_k_passing`) stays where it is not: a
        superset (``icontains``, ISO-time ranges, ``as_of``'s ``valid_to``, ...) can return rows
        ``matches`` drops, and a filter of validity alone is not compiled (most rows pass it: a few more
        candidates are cheaper than reading the record JSON of every row of the scope), so ``k`` rows of
        SQL may keep fewer than ``k``."""
        if where is None or where.store_native:
            return self._records(vector, scope, types, k, speaker, None)
        narrowed = narrowing_sql(where, self.db.dialect)
        first = k if narrowed is not None and narrowed.exact else None
        return {
            mt: top_k_passing(lambda n, mt=mt: self._records(vector, scope, [mt], n, speaker, narrowed)[mt], where, k, first=first)  # type: ignore[misc]
            for mt in types
        }

    def explain(
        self, vector: np.ndarray, scope: Scope, memory_type: MemoryType | Sequence[MemoryType], k: int,
        speaker: str | None = None, where: RecordFilter | None = None,
    ) -> str:  # fmt: skip
        """The plan (EXPLAIN ANALYZE) of :meth:`search`'s statement (its first, with ``where``): of one
        memory type, or of several (``memory_type`` a list: :meth:`search_types`' one statement)."""
        narrowed = None if where is None or where.store_native else narrowing_sql(where, self.db.dialect)
        several = not isinstance(memory_type, str)
        types = list(dict.fromkeys(map(check_memory_type, memory_type if several else [memory_type])))  # type: ignore[arg-type]
        k, scope = check_k(k), check_scope(scope)
        with self.db.read("explain") as conn:
            self.db.sync(conn)
            st = self._plan(conn, vector, scope, types, k, check_speaker(speaker), narrowed)
            rows = self._execute(conn, "EXPLAIN (ANALYZE, BUFFERS, VERBOSE, COSTS OFF) " + st.sql, st.args, st)
        return "\n".join(r[0] for r in rows)

    # -- the writers' reports: no vectors are cached here, only the revisions move --------------
    def added(self, records: Sequence[MemoryRecord], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        if records:
            written = [(scope_tuple(r.scope), r.id) for r in records]
            self.revisions.changed(dict.fromkeys(key for key, _ in written), added=written)

    def removed(self, memory_type: MemoryType | str, scope: ScopeTuple, record_id: str) -> None:
        self.revisions.changed([scope])

    def dropped(self, memory_type: MemoryType, scopes: set[ScopeTuple]) -> None:
        """Scopes emptied (``delete_scope``) or forgotten: their HNSW indexes go too (an index's
        definition names its scope)."""
        self.revisions.erased(scopes)
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
                        created.append(create_hnsw(conn, name, table, "scope_key", key))
                        fresh += 1
                if fresh:  # the planner needs the scope's row count to prefer the index over a sort
                    conn.execute(f"ANALYZE {table}")
        if created:
            self.seen.clear()
        return created


def create_hnsw(conn: Any, name: str, table: str, column: str, key: str) -> str:
    from psycopg import sql

    log.info("building HNSW index %s on %s (%s = %r)", name, table, column, key)
    conn.execute(
        sql.SQL("CREATE INDEX CONCURRENTLY IF NOT EXISTS {} ON {} USING hnsw (vector vector_ip_ops) WHERE {} = {}").format(
            sql.Identifier(name), sql.Identifier(table), sql.Identifier(column), sql.Literal(key)
        )
    )
    return name


__all__ = ["EF_SEARCH", "HNSW_MIN_ROWS", "MIN_PGVECTOR", "PgRecordSearch", "create_hnsw", "index_name"]
