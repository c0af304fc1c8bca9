"""Helpers for conformance tests that reach beneath the Store protocol.

Some backend-independent guarantees can only be provoked from outside memdesk: another client
holding the write lock, a row that fails to insert half-way through a batch, a plain-SQL write by
someone else, or counting the SQL a warm search runs. :func:`native_for` gives each store's
native way of doing that; the tests themselves are written once. A backend without an entry
here skips those tests (with a reason) rather than failing them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from typing import Any, Protocol

import numpy as np
import pytest

from memdesk.store import SQLiteStore
from memdesk.store.base import Store

from .conftest import DIM


def unit(rng: np.random.Generator, n: int, dim: int = DIM) -> np.ndarray:
    """``n`` random unit-norm float32 vectors."""
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


class Native(Protocol):
    """A backend's own access to the database a store uses (white-box where it must be)."""

    change_check: str
    """The one statement a warm search runs to learn whether others have written."""

    def hold_write_lock(self, store: Any) -> Any:
        """Context manager: another client holds the database's write lock while it is open."""
        ...

    def fail_inserts(self, store: Any, table: str, column: str, value: str) -> None:
        """Make inserting a row of ``table`` whose ``column`` is ``value`` fail with 'injected failure'."""
        ...

    def delete_rows(self, store: Any, table: str, ids: Sequence[str]) -> None:
        """Delete rows of ``table`` by id with plain SQL from another connection, in one transaction."""
        ...

    def trace(self, store: Any) -> Any:
        """Context manager yielding the list of SQL statements the store runs while it is open."""
        ...

    def rows_text(self, store: Any) -> str:
        """Every value of every row of every table of the store's database, as text (bytes as Latin-1)."""
        ...


def _value_text(value: Any) -> str:
    if isinstance(value, memoryview):
        value = bytes(value)
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)


def _text_of(rows: Any) -> str:
    return "\n".join(" ".join(_value_text(v) for v in row) for row in rows)


class SQLiteNative:
    """Another ``sqlite3`` connection to the store's file (the store's own for ``:memory:``)."""

    change_check = "PRAGMA data_version"

    @staticmethod
    def _other(store: SQLiteStore) -> sqlite3.Connection:
        if store.path == ":memory:":
            raise ValueError("an in-memory SQLite database has no other connections")
        return sqlite3.connect(store.path, isolation_level=None)

    @contextmanager
    def hold_write_lock(self, store: SQLiteStore) -> Iterator[None]:
        with closing(self._other(store)) as blocker:
            blocker.execute("BEGIN IMMEDIATE")
            try:
                yield
            finally:
                blocker.execute("ROLLBACK")

    def fail_inserts(self, store: SQLiteStore, table: str, column: str, value: str) -> None:
        statement = (
            f"CREATE TRIGGER boom BEFORE INSERT ON {table} WHEN NEW.{column} = '{value.replace(chr(39), chr(39) * 2)}' "
            "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
        )
        if store.path == ":memory:":
            store.db.conn.execute(statement)  # white-box: the only connection there is
            return
        with closing(self._other(store)) as conn:
            conn.execute(statement)

    def delete_rows(self, store: SQLiteStore, table: str, ids: Sequence[str]) -> None:
        with closing(self._other(store)) as conn:
            conn.execute("BEGIN")
            for record_id in ids:
                conn.execute(f"DELETE FROM {table} WHERE id = ?", (record_id,))
            conn.execute("COMMIT")

    @contextmanager
    def trace(self, store: SQLiteStore) -> Iterator[list[str]]:
        statements: list[str] = []
        store.db.conn.set_trace_callback(statements.append)  # white-box: count the SQL a call runs
        try:
            yield statements
        finally:
            store.db.conn.set_trace_callback(None)


    def rows_text(self, store: SQLiteStore) -> str:
        with store.db.read("rows_text") as conn:  # white-box: the store's own connection sees ":memory:" too
            tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return "\n".join(_text_of(conn.execute(f'SELECT * FROM "{t}"').fetchall()) for t in tables)


class _Recorder:
    """Wraps a psycopg connection and records the SQL run through it (white-box)."""

    def __init__(self, conn: Any, statements: list[str] | None = None) -> None:
        self._conn = conn
        self.statements: list[str] = [] if statements is None else statements

    def execute(self, query: Any, *args: Any, **kwargs: Any) -> Any:
        self.statements.append(str(query))
        return self._conn.execute(query, *args, **kwargs)

    def cursor(self, *args: Any, **kwargs: Any) -> Any:
        recorder = self

        class _Cursor:
            def __init__(self, cur: Any) -> None:
                self._cur = cur

            def execute(self, query: Any, *a: Any, **k: Any) -> Any:
                recorder.statements.append(str(query))
                self._cur.execute(query, *a, **k)
                return self

            def executemany(self, query: Any, *a: Any, **k: Any) -> Any:
                recorder.statements.append(str(query))
                return self._cur.executemany(query, *a, **k)

            def __getattr__(self, name: str) -> Any:
                return getattr(self._cur, name)

            def __iter__(self) -> Any:
                return iter(self._cur)

        return _Cursor(self._conn.cursor(*args, **kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


class PostgresNative:
    """Plain psycopg connections to the store's database (default search_path: someone other than memdesk)."""

    change_check = "SELECT counter FROM changes"

    @staticmethod
    def _table(store: Any, table: str) -> Any:
        from psycopg import sql

        return sql.Identifier(store.schema, table)

    @contextmanager
    def hold_write_lock(self, store: Any) -> Iterator[None]:
        import psycopg
        from psycopg import sql

        with closing(psycopg.connect(store.dsn)) as blocker:  # a plain-SQL writer holding its transaction open
            blocker.execute(sql.SQL("INSERT INTO {} (key, value) VALUES ('note', 'x')").format(self._table(store, "meta")))
            try:
                yield
            finally:
                blocker.rollback()

    def fail_inserts(self, store: Any, table: str, column: str, value: str) -> None:
        import psycopg
        from psycopg import sql

        function = sql.Identifier(store.schema, "boom")
        with psycopg.connect(store.dsn, autocommit=True) as conn:
            conn.execute(sql.SQL(
                "CREATE FUNCTION {}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                "IF NEW.{} = {} THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$"
            ).format(function, sql.Identifier(column), sql.Literal(value)))  # fmt: skip
            conn.execute(sql.SQL("CREATE TRIGGER boom BEFORE INSERT ON {} FOR EACH ROW EXECUTE FUNCTION {}()").format(
                self._table(store, table), function
            ))  # fmt: skip

    def delete_rows(self, store: Any, table: str, ids: Sequence[str]) -> None:
        import psycopg
        from psycopg import sql

        with psycopg.connect(store.dsn) as conn:  # one transaction, committed on leaving the block
            for record_id in ids:
                conn.execute(sql.SQL("DELETE FROM {} WHERE id = %s").format(self._table(store, table)), (record_id,))

    @contextmanager
    def trace(self, store: Any) -> Iterator[list[str]]:
        recorder = _Recorder(store.db.conn)
        store.db.conn = recorder
        pool = store.db.sessions.connections  # the connections lent on an event loop (psycopg's async API)
        lend, give_back = pool.lend, pool.give_back
        pool.lend = lambda: _Recorder(lend(), recorder.statements)  # white-box, like the line above
        pool.give_back = lambda conn: give_back(conn._conn)
        try:
            yield recorder.statements
        finally:
            store.db.conn = recorder._conn
            del pool.lend, pool.give_back


    def rows_text(self, store: Any) -> str:
        import psycopg
        from psycopg import sql

        with psycopg.connect(store.dsn) as conn:
            tables = conn.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s AND table_type = 'BASE TABLE'",
                (store.schema,),
            ).fetchall()
            return "\n".join(
                _text_of(conn.execute(sql.SQL("SELECT * FROM {}").format(self._table(store, t))).fetchall())
                for (t,) in tables
            )


def native_for(store: Store) -> Native:
    """The native access for ``store``'s backend; skips the test for a backend that has none here."""
    store = getattr(store, "wrapped", store)  # a store called on an event loop (conftest.OnLoop): the same database
    if isinstance(store, SQLiteStore):
        return SQLiteNative()
    try:
        from memdesk.store.postgres import PostgresStore
    except ImportError:  # pragma: no cover - psycopg is a dev dependency
        PostgresStore = None  # type: ignore[assignment,misc]
    if PostgresStore is not None and isinstance(store, PostgresStore):
        return PostgresNative()
    pytest.skip(f"no native access to {type(store).__name__} in tests/conformance/helpers.py")
