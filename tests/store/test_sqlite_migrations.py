"""Named migrations on SQLite: recorded once, applied in order, rolled back on failure."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from memdesk.errors import MigrationError
from memdesk.records import Scope, SemanticRecord
from memdesk.store import SQLITE_MIGRATIONS, EmbeddingInfo, Migration, SQLiteStore


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_new_database_gets_every_table_and_records_its_migrations(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with SQLiteStore(db) as store:
        applied = store.migrations_applied()
    assert [name for name, _ in applied] == [m.name for m in SQLITE_MIGRATIONS]
    assert all(at.tzinfo is not None for _, at in applied)
    assert {
        "episodic_memory", "semantic_memory", "procedural_memory", "messages", "history", "scopes", "meta",
        "migrations", "collection_items",
    } <= tables(db)  # fmt: skip
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        columns = {r[1] for r in conn.execute("PRAGMA table_info(semantic_memory)")}
        indexed = {r[1] for r in conn.execute("PRAGMA index_list(semantic_memory)")}
    assert {"id", "user_id", "agent_id", "run_id", "speaker", "event_time", "ingest_time", "provenance",
            "embedding_model", "record", "vector", "version"} <= columns  # fmt: skip
    assert {"ix_semantic_memory_user", "ix_semantic_memory_agent", "ix_semantic_memory_run"} <= indexed


def test_reopening_applies_nothing_again(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    with SQLiteStore(db) as store:
        first = store.migrations_applied()
        store.set_embedding_info(EmbeddingInfo(model_id="m", dim=4))
        store.write([SemanticRecord(scope=Scope(user_id="u"), fact="kept")], np.ones((1, 4), np.float32) / 2)
    with SQLiteStore(db) as store:
        assert store.migrations_applied() == first
        assert store.count() == 1


def test_only_new_migrations_run_on_reopen(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    calls: list[str] = []

    def add_notes(conn: sqlite3.Connection) -> None:
        calls.append("0002")
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")

    SQLiteStore(db).close()
    upgraded = (*SQLITE_MIGRATIONS, Migration("0002_notes", add_notes))
    with SQLiteStore(db, migrations=upgraded) as store:
        assert [n for n, _ in store.migrations_applied()] == [m.name for m in upgraded]
    with SQLiteStore(db, migrations=upgraded):
        pass
    assert calls == ["0002"]
    assert "notes" in tables(db)
    with SQLiteStore(db):  # an older memdesk still opens a database migrated further
        pass


def test_a_failing_first_migration_leaves_an_empty_schema(tmp_path: Path) -> None:
    db = tmp_path / "m.db"

    def bad(conn: sqlite3.Connection) -> None:
        raise ValueError("nope")

    with pytest.raises(MigrationError):
        SQLiteStore(db, migrations=(Migration("0001_bad", bad),))
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM migrations").fetchone()[0] == 0


@pytest.mark.parametrize("names", [["a", "a"], ["a", " "]])
def test_migration_names_must_be_unique_and_non_empty(tmp_path: Path, names: list[str]) -> None:
    migrations = tuple(Migration(n, lambda conn: None) for n in names)
    with pytest.raises(MigrationError):
        SQLiteStore(tmp_path / "m.db", migrations=migrations)


def test_0007_turns_the_history_of_records_deleted_before_it_into_tombstones(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    older = tuple(m for m in SQLITE_MIGRATIONS if m.name != "0007_history_tombstones")
    gone = SemanticRecord(scope=Scope(user_id="u"), fact="my code is Zx9Altlast")
    kept = SemanticRecord(scope=Scope(user_id="u"), fact="my diary is Kp1Bleibt")
    v = np.ones((2, 4), np.float32) / 2
    with SQLiteStore(db, migrations=older) as store:
        store.set_embedding_info(EmbeddingInfo(model_id="m", dim=4))
        store.write([gone, kept], v)
        store.replace(gone.model_copy(update={"fact": "my code is now Zx9Altlast2"}), v[0])
    with sqlite3.connect(db) as conn:  # what a delete wrote before 0007: a DELETE entry with the content
        key, payload = conn.execute("SELECT scope_key, record FROM semantic_memory WHERE id = ?", (gone.id,)).fetchone()
        conn.execute(
            "INSERT INTO history (record_id, memory_type, version, event, scope_key, record, changed_at) "
            "VALUES (?, 'semantic', 3, 'DELETE', ?, ?, '2026-01-01T00:00:00+00:00')",
            (gone.id, key, payload),
        )
        conn.execute("DELETE FROM semantic_memory WHERE id = ?", (gone.id,))
    with SQLiteStore(db) as store:
        assert "0007_history_tombstones" in [n for n, _ in store.migrations_applied()]
        [tomb] = store.history(gone.id)
        assert (tomb.event.value, tomb.version, tomb.record, tomb.scope) == ("DELETE", 3, None, Scope(user_id="u"))
        assert [h.record for h in store.history(kept.id)] == [kept]  # a live record's history is untouched
    with sqlite3.connect(db) as conn:
        history = " ".join(r[0] for r in conn.execute("SELECT record FROM history"))
    assert "Zx9Altlast" not in history and "Kp1Bleibt" in history
