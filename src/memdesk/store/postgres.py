"""The PostgreSQL :class:`~memdesk.store.base.Store`: pgvector columns, named migrations, cached numpy search.

Layout: the SQLite backend's tables (see :mod:`.pg_schema`), in a schema of their own
(``memdesk`` by default) so they never meet an application's tables of the same name. Vectors
are stored in pgvector ``vector`` columns through the binary protocol, so a vector read back is
bit-identical to the float32 vector written (-0.0 and subnormals included).

Concurrency: one connection per store guarded by a lock (safe to share between threads); under
:func:`memdesk.runtime.aio.run` (``AsyncMemory``) each operation on the event loop gets an async connection of
its own from a small pool per loop (:mod:`.pg_loop`: psycopg's async API), so concurrent operations'
queries overlap, none holding a thread (``search="sql"`` only: the store is then ``async_ready``). Every
write is one transaction that first increments the single row of ``changes``; that row lock
serializes writers across processes (what ``BEGIN IMMEDIATE`` does on SQLite), so id checks,
versions and insertion order stay consistent and concurrent writers lose nothing. A writer that
waits longer than ``busy_timeout_ms`` (PostgreSQL's ``lock_timeout``) gets
:class:`~memdesk.errors.StoreLockedError` and writes nothing. Readers never wait (MVCC).

Search (``search=``): ``"sql"`` (the default) searches inside PostgreSQL with pgvector
(:mod:`.pg_search`): the process keeps no copy of the vectors, several processes on one database
see each other's writes at once, a scope of ``hnsw_min_rows`` records or more can get its own HNSW
index (:meth:`PostgresStore.index_large_scopes`). ``"memory"`` keeps SQLite's in-process numpy
cache (:mod:`.search_cache`): faster when warm, exact, one copy of the searched scopes per process,
kept current through the per-scope change log. The vector columns are ``vector(n)`` once the
embedding dimension is recorded (plain ``vector`` while ``memdesk reembed`` changes it).
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import datetime
from typing import Any, Iterator, Sequence

import numpy as np
import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from ..errors import ConfigError, StoreError
from ..filters import RecordFilter
from ..text.redaction import MASK, mask_connection_error
from ..records import MemoryType, Scope
from .migrations import Migration, apply_migrations
from .pg_loop import DEFAULT_POOL_SIZE, LoopConnections
from .pg_schema import PG_MIGRATIONS
from .pg_vectors import PgVector, register_vector, vector_oid
from .database import Database
from .search_cache import DEFAULT_CACHE_MAX_ROWS
from .pg_collections import PgCollectionSearch
from .pg_dialect import PostgresDialect
from .pg_search import HNSW_MIN_ROWS, ITERATIVE_PGVECTOR, MIN_PGVECTOR, PgRecordSearch
from .sqlstore import SQLStore

log = logging.getLogger(__name__)

_MIGRATION_LOCK = (0x6D656D64, 0x6D696772)  # "memd", "migr": the advisory lock that serializes migrations


# --- helpers -------------------------------------------------------------------------------------
def _pgvector_version(conn: psycopg.Connection[Any]) -> tuple[int, ...]:
    row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    try:
        return tuple(int(x) for x in str(row[0]).split(".")[:3]) if row is not None else (0,)
    except ValueError:
        return (0,)


def describe_dsn(dsn: str) -> str:
    """A connection string without its password, for messages and logs."""
    try:
        params = conninfo_to_dict(dsn)
    except psycopg.Error:
        return "(unparsable connection string)"
    host = params.get("host") or "localhost"
    if "@" in host:  # an unencoded "@" in a URL password: libpq read the rest of it as the host
        host = MASK + "@" + host.rsplit("@", 1)[1]
    port = f":{params['port']}" if params.get("port") else ""
    user = f"{params['user']}@" if params.get("user") else ""
    return f"postgresql://{user}{host}{port}/{params.get('dbname') or ''}"


class _MigrationTarget:
    """Adapts a store's database to :class:`~memdesk.store.migrations.MigrationTarget`."""

    def __init__(self, store: "PostgresStore") -> None:
        self._store = store
        self._db = store.db

    def recorded_migrations(self) -> list[str] | None:
        with self._db.read("read migrations") as conn:
            name = sql.Identifier(self._store.schema, "migrations").as_string(conn)
            row = conn.execute("SELECT to_regclass(%s)", [name]).fetchone()
            return self.applied_migrations(conn) if row is not None and row[0] is not None else None

    def ensure_migrations_table(self) -> None:
        with self._store._locked_tx("create migrations table") as conn:
            row = conn.execute("SELECT to_regnamespace(%s)", [self._store._quoted_schema]).fetchone()
            if row is None or row[0] is None:
                conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(self._store.schema)))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS migrations ("
                "pos bigint GENERATED ALWAYS AS IDENTITY UNIQUE, name text PRIMARY KEY, applied_at timestamptz NOT NULL)"
            )

    def migration_transaction(self) -> Any:
        return self._store._locked_tx("migration")

    def applied_migrations(self, conn: psycopg.Connection[Any]) -> list[str]:
        return [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY pos")]

    def record_migration(self, conn: psycopg.Connection[Any], name: str, applied_at: datetime) -> None:
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES (%s, %s)", (name, applied_at))


class PostgresStore(SQLStore):
    """A :class:`~memdesk.store.base.Store` in a PostgreSQL database with pgvector.

    ``dsn`` is a libpq connection string or ``postgresql://`` URL. The tables live in ``schema``
    (created, with the ``vector`` extension if missing, by the first open).
    """

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "memdesk",
        busy_timeout_ms: int = 5000,
        connect_timeout_s: int = 10,
        migrations: Sequence[Migration[psycopg.Connection[Any]]] = PG_MIGRATIONS,
        cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS,
        search: str = "sql",
        hnsw_min_rows: int = HNSW_MIN_ROWS,
        async_pool_size: int = DEFAULT_POOL_SIZE,
    ) -> None:
        if search not in ("sql", "memory"):
            raise ConfigError(f"search must be 'sql' (in PostgreSQL, pgvector) or 'memory' (a cache per process), got {search!r}")
        db = Database(PostgresDialect(), busy_timeout_ms, LoopConnections(self._connect_async, async_pool_size))
        self.search_mode = search
        if search == "sql":
            self._pg_search: PgRecordSearch | None = PgRecordSearch(db, iterative_scans=False, hnsw_min_rows=hnsw_min_rows)
            self._pg_collections: PgCollectionSearch | None = PgCollectionSearch(db, hnsw_min_rows)
            super().__init__(db, record_search=self._pg_search, collection_search=self._pg_collections)
        else:
            self._pg_search = self._pg_collections = None
            super().__init__(db, cache_max_rows)
        if not isinstance(schema, str) or not schema or len(schema) > 63 or "\x00" in schema:
            raise ConfigError(f"invalid schema name {schema!r}")
        if not isinstance(dsn, str):
            raise ConfigError(f"a PostgreSQL connection string must be a string, got {type(dsn).__name__}")
        try:
            conninfo_to_dict(dsn)
        except psycopg.Error as e:  # libpq quotes the fragment it could not read: it may be the password
            raise ConfigError(f"invalid PostgreSQL connection string: {mask_connection_error(str(e), dsn, None)}") from None
        self.dsn = dsn
        self.schema = schema
        self.connect_timeout_s = connect_timeout_s
        self.db.conn = self._connect()
        try:
            self._quoted_schema = sql.Identifier(schema).as_string(self.db.conn)
            with self.db.read("open") as conn:  # the extension, if installed yet, must be visible to migrations
                self._set_search_path(conn, [schema, self._extension_schema(conn) or "public"])
            apply_migrations(_MigrationTarget(self), migrations)
            with self.db.read("open") as conn:
                ext = self._extension_schema(conn)
                if ext is None:
                    raise StoreError("the pgvector extension is not installed in this database")
                self._search_path = [schema, ext]
                self._set_search_path(conn, self._search_path)
                self._vector_oid = vector_oid(conn)
                register_vector(conn.adapters, self._vector_oid)
                self.pgvector_version = _pgvector_version(conn)
                if self._pg_search is not None:
                    self._pg_search.iterative_scans = self.pgvector_version >= ITERATIVE_PGVECTOR
                if self._pg_collections is not None and self.pgvector_version < MIN_PGVECTOR:
                    self._pg_collections.hnsw_min_rows = 0  # no HNSW on this server: exact search only
                self.db.start_log(conn)
        except BaseException:
            self.close()
            raise

    @property
    def async_ready(self) -> bool:
        """Loop-safe (``AsyncMemory`` calls it on the event loop, its queries through psycopg's async API)
        when it searches in SQL; ``search="memory"`` ranks cached numpy matrices (CPU): offloaded."""
        return self.search_mode == "sql"

    def _connect_options(self) -> dict[str, Any]:
        return {
            "autocommit": True, "connect_timeout": self.connect_timeout_s, "application_name": "memdesk",
            "prepare_threshold": None,  # one-shot plans see the scope's value: a scope's partial HNSW index matches
        }

    def _session_settings(self) -> list[sql.Composable]:
        # lock_timeout 0 would mean "wait forever": a zero busy timeout waits 1 ms instead
        return [sql.SQL("SET TIME ZONE 'UTC'"), sql.SQL("SET lock_timeout = {}").format(sql.Literal(max(1, self.busy_timeout_ms)))]

    def _connect(self) -> psycopg.Connection[Any]:
        try:
            conn = psycopg.connect(self.dsn, **self._connect_options())
        except psycopg.Error as e:  # not chained: a traceback would show the driver's unmasked message
            raise StoreError(f"cannot connect to {describe_dsn(self.dsn)}: {self._masked(e)}") from None
        try:
            for statement in self._session_settings():
                conn.execute(statement)
        except psycopg.Error as e:
            conn.close()
            raise StoreError(f"cannot configure the connection to {describe_dsn(self.dsn)}: {self._masked(e)}") from None
        return conn

    async def _connect_async(self) -> psycopg.AsyncConnection[Any]:
        """One connection of an event loop's pool (:mod:`.pg_loop`), set up as the store's own: the
        session settings, the search path and the pgvector adapters found at open."""
        try:
            conn = await psycopg.AsyncConnection.connect(self.dsn, **self._connect_options())
        except psycopg.Error as e:
            raise StoreError(f"cannot connect to {describe_dsn(self.dsn)}: {self._masked(e)}") from None
        try:
            for statement in [*self._session_settings(), self._search_path_sql(self._search_path)]:
                await conn.execute(statement)
        except psycopg.Error as e:
            await conn.close()
            raise StoreError(f"cannot configure the connection to {describe_dsn(self.dsn)}: {self._masked(e)}") from None
        register_vector(conn.adapters, self._vector_oid)
        return conn

    def _masked(self, e: psycopg.Error) -> str:
        return mask_connection_error(str(e), self.dsn, conninfo_to_dict(self.dsn).get("password"))

    @classmethod
    def _set_search_path(cls, conn: psycopg.Connection[Any], schemas: Sequence[str]) -> None:
        conn.execute(cls._search_path_sql(schemas))

    @staticmethod
    def _search_path_sql(schemas: Sequence[str]) -> sql.Composable:
        unique = list(dict.fromkeys(schemas))
        return sql.SQL("SET search_path TO {}").format(sql.SQL(", ").join(map(sql.Identifier, unique)))

    @staticmethod
    def _extension_schema(conn: psycopg.Connection[Any]) -> str | None:
        """The schema pgvector is installed in, or None if it is not installed."""
        row = conn.execute(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'"
        ).fetchone()
        return None if row is None else str(row[0])

    def __repr__(self) -> str:
        return f"PostgresStore({describe_dsn(self.dsn)!r}, schema={self.schema!r})"

    def index_large_scopes(self, min_rows: int | None = None) -> list[str]:
        """Give every exact scope with at least ``min_rows`` records of a type (default ``hnsw_min_rows``)
        its HNSW index, if it has none (``search="sql"`` only); returns the indexes created."""
        if self._pg_search is None:
            raise ConfigError("HNSW indexes serve search='sql'; this store searches in memory")
        if self.pgvector_version < MIN_PGVECTOR:
            version = ".".join(map(str, self.pgvector_version))
            raise ConfigError(f"HNSW indexes need pgvector >= 0.5.0; this server has {version}")
        return self._pg_search.index_large_scopes(min_rows)

    def explain_search(
        self, vector: np.ndarray, scope: Scope, memory_type: MemoryType | Sequence[MemoryType], k: int = 20,
        speaker: str | None = None, where: RecordFilter | None = None,
    ) -> str:  # fmt: skip
        """EXPLAIN ANALYZE of one search's (first) statement, ``where`` compiled in (``search="sql"`` only);
        ``memory_type`` a list: of :meth:`search_types`' one statement for those types."""
        if self._pg_search is None:
            raise ConfigError("this store searches in memory: there is no SQL plan")
        return self._pg_search.explain(vector, scope, memory_type, k, speaker, where)

    @contextmanager
    def _locked_tx(self, what: str) -> Iterator[psycopg.Connection[Any]]:
        """A transaction holding the database-wide memdesk migration lock (taken before ``changes`` exists).

        Database-wide rather than per schema: stores in two schemas may both create the extension.
        """
        with self.db.lock:
            conn = self.db.connection()
            try:
                with conn.transaction():
                    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", _MIGRATION_LOCK)
                    yield conn
            except psycopg.Error as e:
                raise self.db.dialect.store_error(e, what) from e


__all__ = ["PG_MIGRATIONS", "PgVector", "PostgresDialect", "PostgresStore", "describe_dsn"]
