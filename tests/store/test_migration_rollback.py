"""A migration that fails halfway is rolled back with its DDL, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, NamedTuple

import pytest

from memdesk.errors import MigrationError
from memdesk.store import SQLITE_MIGRATIONS, Migration, SQLiteStore


class Migrating(NamedTuple):
    open: Callable[..., Any]
    """Opens the test's database, ``migrations=`` passed on."""
    migrations: tuple[Migration, ...]
    has_table: Callable[[str], bool]
    """Whether a table of that name exists (in memdesk's schema on PostgreSQL)."""


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def migrating(request: pytest.FixtureRequest, tmp_path: Path) -> Migrating:
    if request.param == "sqlite":
        import sqlite3

        db = tmp_path / "m.db"

        def sqlite_table(name: str) -> bool:
            with sqlite3.connect(db) as conn:
                found = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
                return found.fetchone() is not None

        return Migrating(lambda **kw: SQLiteStore(db, **kw), tuple(SQLITE_MIGRATIONS), sqlite_table)
    import psycopg

    from memdesk.store.pg_schema import PG_MIGRATIONS
    from memdesk.store.postgres import PostgresStore

    url = request.getfixturevalue("postgres_url")

    def pg_table(name: str) -> bool:
        with psycopg.connect(url, autocommit=True) as conn:  # its own connection: someone other than memdesk
            return conn.execute("SELECT to_regclass(%s)", (f"memdesk.{name}",)).fetchone() != (None,)

    return Migrating(lambda **kw: PostgresStore(url, **kw), tuple(PG_MIGRATIONS), pg_table)


def half_done(conn: Any) -> None:
    conn.execute("CREATE TABLE half (x integer)")
    conn.execute("INSERT INTO half VALUES (1)")
    raise RuntimeError("boom in the middle")


def broken_sql(conn: Any) -> None:
    conn.execute("ALTER TABLE no_such_table ADD COLUMN y text")


def test_a_failing_migration_rolls_back_its_ddl_and_raises(migrating: Migrating) -> None:
    migrating.open().close()
    for bad in (half_done, broken_sql):
        with pytest.raises(MigrationError, match="0002_bad"):
            migrating.open(migrations=(*migrating.migrations, Migration("0002_bad", bad)))
        assert not migrating.has_table("half")
        with migrating.open() as store:
            assert [n for n, _ in store.migrations_applied()] == [m.name for m in migrating.migrations]
