"""Migration 0009 on a database written before it: rows whose metadata is long are split like new writes, and
every read answers as before (memdesk.store.shared_metadata).

The database is the upgrade fixture of the state before 0009 (``tests/data/upgrade/0008*``), restored and given
long metadata on its messages, records and history versions with the layout of that state (migrations up to 0008
only), then opened with today's migrations.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from pathlib import Path
from typing import Any

import pytest

from memdesk.records import Scope
from memdesk.store import SQLiteStore
from memdesk.store.pg_schema import PG_MIGRATIONS
from memdesk.store.shared_metadata import SHARED_MIN_CHARS
from memdesk.store.sqlite_schema import SQLITE_MIGRATIONS

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "upgrade"
BLOB = "zqscanzq" * (SHARED_MIN_CHARS // 4)
ANA = Scope(user_id="ana")


def _give_long_metadata(store: Any) -> None:
    """Every message of the fixture says ``{"scan": BLOB}``; each record and version carries it first."""
    p = store.db.dialect.param
    with store.db.tx("fixture") as conn:
        conn.execute(f"UPDATE messages SET metadata = {p}", (json.dumps({"scan": BLOB}),))
        for table, key in (("semantic_memory", "id"), ("history", "hid")):
            rows = conn.execute(f"SELECT {key}, record FROM {table} WHERE record <> 'null'").fetchall()
            for row_id, payload in rows:
                data = json.loads(payload)
                data["metadata"] = {"scan": BLOB, **data.get("metadata", {})}
                conn.execute(f"UPDATE {table} SET record = {p} WHERE {key} = {p}", (json.dumps(data), row_id))


def _check_migrated(store: Any) -> None:
    records = list(store.scan(ANA))
    assert records and all(list(r.metadata)[0] == "scan" and r.metadata["scan"] == BLOB for r in records)
    for r in records:
        assert store.get(r.id) == r
        assert all(e.record is None or e.record.metadata["scan"] == BLOB for e in store.history(r.id))
    with store.db.read("check") as conn:
        assert conn.execute("SELECT COUNT(*) FROM record_metadata").fetchone()[0] == 2  # one per scope (ana, ben)
        for table in ("semantic_memory", "history"):
            assert conn.execute(f"SELECT COUNT(*) FROM {table} WHERE record LIKE '%zqscanzq%'").fetchone()[0] == 0
    before = len(records)
    assert store.forget(ANA).records == before
    with store.db.read("check") as conn:
        assert conn.execute("SELECT COUNT(*) FROM record_metadata").fetchone()[0] == 1


def test_an_sqlite_database_before_0009_migrates_its_long_metadata(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    shutil.copy(FIXTURES / "0008.db", db)
    with SQLiteStore(db, migrations=SQLITE_MIGRATIONS[:7]) as old:
        _give_long_metadata(old)
    with SQLiteStore(db) as store:
        assert [m for m, _ in store.migrations_applied()][-1] == "0009_shared_metadata"
        _check_migrated(store)


@pytest.mark.postgres
def test_a_postgresql_database_before_0009_migrates_its_long_metadata(request: pytest.FixtureRequest) -> None:
    from memdesk.store.postgres import PostgresStore
    from tests.pg_server import session_server

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    url = session_server(request.config).fresh_database()
    psql = Path(pgserver.__file__).parent / "pginstall" / "bin" / "psql"
    restored = subprocess.run([str(psql), "-v", "ON_ERROR_STOP=1", "-q", "-d", url, "-f", str(FIXTURES / "0008.pg.sql")],
                              capture_output=True, text=True)  # fmt: skip
    assert restored.returncode == 0, restored.stderr[-2000:]
    with PostgresStore(url, migrations=PG_MIGRATIONS[:8]) as old:
        _give_long_metadata(old)
    with PostgresStore(url) as store:
        assert [m for m, _ in store.migrations_applied()][-1] == "0009_shared_metadata"
        _check_migrated(store)
