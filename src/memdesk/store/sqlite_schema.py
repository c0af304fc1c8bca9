"""The SQLite schema as named migrations (see :mod:`.migrations`; the tables: :mod:`.schema`)."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from typing import Any

from .database import Database
from .codec import record_from_json
from .migrations import Migration
from .sqlite_dialect import SQLiteDialect
from .shared_metadata import migrate_rows, migration_ddl
from .schema import CHANGE_LOGGED, HISTORY_SCOPE_INDEX, HISTORY_TOMBSTONES, MESSAGE_STATUS, TABLES, api_keys_ddl, documents_ddl, fill_legacy_texts, record_table_ddl


def _m0001_initial_schema(conn: sqlite3.Connection) -> None:
    statements = [
        "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
        """CREATE TABLE scopes (
            scope_key TEXT PRIMARY KEY, user_id TEXT, agent_id TEXT, run_id TEXT, created_at TEXT NOT NULL)""",
        """CREATE TABLE messages (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            scope_key TEXT NOT NULL, user_id TEXT, agent_id TEXT, run_id TEXT,
            id TEXT NOT NULL, speaker TEXT, role TEXT NOT NULL, content TEXT NOT NULL,
            timestamp TEXT, ingest_time TEXT NOT NULL, route_mask INTEGER, metadata TEXT NOT NULL,
            UNIQUE (scope_key, id))""",
        "CREATE INDEX ix_messages_user ON messages (user_id, agent_id, run_id)",
        "CREATE INDEX ix_messages_agent ON messages (agent_id)",
        "CREATE INDEX ix_messages_run ON messages (run_id)",
        "CREATE INDEX ix_messages_id ON messages (id)",
        """CREATE TABLE history (
            hid INTEGER PRIMARY KEY AUTOINCREMENT,
            record_id TEXT NOT NULL, memory_type TEXT NOT NULL, version INTEGER NOT NULL,
            event TEXT NOT NULL, scope_key TEXT NOT NULL, record TEXT NOT NULL, changed_at TEXT NOT NULL)""",
        "CREATE INDEX ix_history_record ON history (record_id, version)",
        """CREATE TABLE collection_items (
            collection TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL,
            vector BLOB NOT NULL, embedding_model TEXT NOT NULL,
            PRIMARY KEY (collection, id))""",
    ]
    for table in TABLES.values():
        statements += record_table_ddl(table, text="TEXT", seq="INTEGER", time="TEXT", vector="BLOB", version="INTEGER")
    for sql in statements:
        conn.execute(sql)


def _m0002_documents_and_scope_indexes(conn: sqlite3.Connection) -> None:
    for sql in documents_ddl(text="TEXT", position=""):
        conn.execute(sql)
    fill_legacy_texts(conn, "?")


def _m0003_history_scope_index(conn: sqlite3.Connection) -> None:
    conn.execute(HISTORY_SCOPE_INDEX)


def _m0004_change_log(conn: sqlite3.Connection) -> None:
    statements = [
        "CREATE TABLE change_log (id INTEGER PRIMARY KEY AUTOINCREMENT, scope_key TEXT, collection TEXT)",
        "CREATE TABLE change_floor (floor INTEGER NOT NULL)",
        "INSERT INTO change_floor (floor) VALUES (0)",
    ]
    for table, column in CHANGE_LOGGED:
        statements += [
            f"CREATE TRIGGER {table}_log_insert AFTER INSERT ON {table} "
            f"BEGIN INSERT INTO change_log ({column}) VALUES (NEW.{column}); END",
            f"CREATE TRIGGER {table}_log_update AFTER UPDATE ON {table} "
            f"BEGIN INSERT INTO change_log ({column}) VALUES (OLD.{column}); "
            f"INSERT INTO change_log ({column}) SELECT NEW.{column} WHERE NEW.{column} IS NOT OLD.{column}; END",
            f"CREATE TRIGGER {table}_log_delete AFTER DELETE ON {table} "
            f"BEGIN INSERT INTO change_log ({column}) VALUES (OLD.{column}); END",
        ]
    for event in ("INSERT", "UPDATE", "DELETE"):  # the embedding info changed: every cache is stale
        statements.append(
            f"CREATE TRIGGER meta_log_{event.lower()} AFTER {event} ON meta "
            "BEGIN INSERT INTO change_log (scope_key, collection) VALUES (NULL, NULL); END"
        )
    for sql in statements:
        conn.execute(sql)
def _m0006_api_keys(conn: sqlite3.Connection) -> None:
    """Tenant API keys; numbered after PostgreSQL's 0005 so both backends name it alike (SQLite has no 0005)."""
    for statement in api_keys_ddl(text="TEXT", time="TEXT"):
        conn.execute(statement)


def _m0007_history_tombstones(conn: sqlite3.Connection) -> None:
    for statement in HISTORY_TOMBSTONES:
        conn.execute(statement)



def _m0008_message_status(conn: sqlite3.Connection) -> None:
    for statement in MESSAGE_STATUS:
        conn.execute(statement)


def _m0009_shared_metadata(conn: sqlite3.Connection) -> None:
    """Long metadata stored once (:mod:`.shared_metadata`); rows written before it are split as new ones are."""

    for statement in migration_ddl("TEXT"):
        conn.execute(statement)
    migrate_rows(conn, SQLiteDialect(), record_from_json)


SQLITE_MIGRATIONS: tuple[Migration[sqlite3.Connection], ...] = (
    Migration("0001_initial_schema", _m0001_initial_schema),
    Migration("0002_documents_and_scope_indexes", _m0002_documents_and_scope_indexes),
    Migration("0003_history_scope_index", _m0003_history_scope_index),
    Migration("0004_change_log", _m0004_change_log),
    Migration("0006_api_keys", _m0006_api_keys),
    Migration("0007_history_tombstones", _m0007_history_tombstones),
    Migration("0008_message_status", _m0008_message_status),
    Migration("0009_shared_metadata", _m0009_shared_metadata),
)
"""The SQLite schema, oldest first. Append new migrations; never edit or reorder applied ones."""


class SQLiteMigrationTarget:
    """Adapts a SQLite :class:`Database` to :class:`~memdesk.store.migrations.MigrationTarget`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def recorded_migrations(self) -> list[str] | None:
        with self._db.read("read migrations") as conn:
            exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'").fetchone()
            return self.applied_migrations(conn) if exists else None

    def ensure_migrations_table(self) -> None:
        with self._db.tx("create migrations table") as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")

    def migration_transaction(self) -> Any:
        return self._db.tx("migration")

    def applied_migrations(self, conn: sqlite3.Connection) -> list[str]:
        return [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY rowid")]

    def record_migration(self, conn: sqlite3.Connection, name: str, applied_at: datetime) -> None:
        conn.execute("INSERT INTO migrations (name, applied_at) VALUES (?, ?)", (name, applied_at.isoformat()))
