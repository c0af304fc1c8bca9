"""The PostgreSQL schema as named migrations (see :mod:`.migrations`).

The tables mirror the SQLite backend's (one per memory type, ``messages``, ``history``,
``scopes``, ``meta``, ``migrations``, ``collection_items``) inside the store's own schema
(``memdesk`` by default), with PostgreSQL types: vectors in a pgvector ``vector`` column (no
fixed dimension, so ``memdesk reembed`` can switch models), times as ``timestamptz``, record
JSON as ``text`` (the exact JSON written; ``jsonb`` would refuse ``\\u0000``).

Two additions serve several processes sharing one database:

- ``changes``: one row whose ``counter`` every write transaction increments exactly once. A
  memdesk write bumps it first, which also takes the row lock that serializes writers (the
  role ``BEGIN IMMEDIATE`` plays on SQLite). Statement triggers on every data table bump it for
  writes made outside memdesk (plain SQL), skipping transactions that already did. A store reads
  the counter before each search to tell whether its in-memory vector cache is still current.
- ``record_seq``: the sequence that numbers records in insertion order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import MigrationError
from .migrations import Migration
from .pg_dialect import PostgresDialect, hnsw_indexes, set_vector_dim  # noqa: F401 - re-exported
from .shared_metadata import migrate_rows, migration_ddl
from .schema import CHANGE_LOGGED, HISTORY_SCOPE_INDEX, HISTORY_TOMBSTONES, MESSAGE_STATUS, TABLES, api_keys_ddl, documents_ddl, fill_legacy_texts, record_table_ddl

if TYPE_CHECKING:  # psycopg is an optional dependency: the schema module must import without it
    import psycopg

DATA_TABLES: tuple[str, ...] = (*TABLES.values(), "messages", "history", "scopes", "meta", "collection_items")
"""Tables of migration 0001 whose writes bump ``changes.counter`` through a trigger (0002 adds ``documents``)."""


def _qualified(conn: "psycopg.Connection", name: str) -> str:
    """``name`` qualified by the schema new tables go to (the first one on the search path)."""
    from psycopg import sql

    row = conn.execute("SELECT current_schema()").fetchone()
    if row is None or row[0] is None:
        raise MigrationError("no schema to create the tables in: check the search_path")
    return sql.Identifier(row[0], name).as_string(conn)


def _m0001_initial_schema(conn: "psycopg.Connection") -> None:
    has_vector = conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
    if has_vector is None:
        try:
            with conn.transaction():  # a savepoint, so a refusal can be reported clearly
                # in public (when there is one), not in memdesk's schema: dropping that schema must
                # not take the type away from other schemas' vector columns
                public = conn.execute("SELECT to_regnamespace('public') IS NOT NULL").fetchone()
                conn.execute("CREATE EXTENSION IF NOT EXISTS vector" + (" SCHEMA public" if public and public[0] else ""))
        except Exception as e:
            raise MigrationError(
                f"the pgvector extension is not installed in this database and could not be created ({e}); "
                "install pgvector on the server and run `CREATE EXTENSION vector` as a privileged user"
            ) from e
    statements = [
        "CREATE TABLE meta (key text PRIMARY KEY, value text NOT NULL)",
        """CREATE TABLE changes (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
            counter bigint NOT NULL, last_xact bigint)""",
        "INSERT INTO changes (singleton, counter) VALUES (true, 0)",
        "CREATE SEQUENCE record_seq",
        """CREATE TABLE scopes (
            pos bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
            scope_key text PRIMARY KEY, user_id text, agent_id text, run_id text,
            created_at timestamptz NOT NULL)""",
        """CREATE TABLE messages (
            seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            scope_key text NOT NULL, user_id text, agent_id text, run_id text,
            id text NOT NULL, speaker text, role text NOT NULL, content text NOT NULL,
            "timestamp" text, ingest_time text NOT NULL, route_mask integer, metadata text NOT NULL,
            UNIQUE (scope_key, id))""",
        "CREATE INDEX ix_messages_user ON messages (user_id, agent_id, run_id)",
        "CREATE INDEX ix_messages_agent ON messages (agent_id)",
        "CREATE INDEX ix_messages_run ON messages (run_id)",
        "CREATE INDEX ix_messages_id ON messages (id)",
        """CREATE TABLE history (
            hid bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            record_id text NOT NULL, memory_type text NOT NULL, version integer NOT NULL,
            event text NOT NULL, scope_key text NOT NULL, record text NOT NULL, changed_at timestamptz NOT NULL)""",
        "CREATE INDEX ix_history_record ON history (record_id, version)",
        """CREATE TABLE collection_items (
            pos bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
            collection text NOT NULL, id text NOT NULL, payload text NOT NULL,
            vector vector NOT NULL, embedding_model text NOT NULL,
            PRIMARY KEY (collection, id))""",
        "CREATE INDEX ix_collection_items_pos ON collection_items (collection, pos)",
    ]
    for table in TABLES.values():
        statements += record_table_ddl(
            table, text="text", seq="bigint", time="timestamptz", vector="vector", version="integer"
        )
    # schema-qualified: a trigger runs under the search_path of whoever writes, maybe plain SQL
    changes = _qualified(conn, "changes")
    statements.append(
        f"""CREATE FUNCTION memdesk_note_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            UPDATE {changes} SET counter = counter + 1, last_xact = txid_current()
            WHERE last_xact IS DISTINCT FROM txid_current();
            RETURN NULL;
        END $$"""
    )
    for table in DATA_TABLES:
        statements.append(
            f"CREATE TRIGGER {table}_note_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION memdesk_note_change()"
        )
    for statement in statements:
        conn.execute(statement)


def _m0002_documents_and_scope_indexes(conn: "psycopg.Connection") -> None:
    position = "pos bigint GENERATED ALWAYS AS IDENTITY UNIQUE,"
    for statement in documents_ddl(text="text", position=position):
        conn.execute(statement)
    fill_legacy_texts(conn, "%s")
    conn.execute("CREATE INDEX ix_documents_pos ON documents (collection, pos)")
    conn.execute(
        "CREATE TRIGGER documents_note_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON documents "
        "FOR EACH STATEMENT EXECUTE FUNCTION memdesk_note_change()"
    )


def _m0003_history_scope_index(conn: "psycopg.Connection") -> None:
    conn.execute(HISTORY_SCOPE_INDEX)


def _m0004_change_log(conn: "psycopg.Connection") -> None:
    """Per-scope change detection: ``change_log`` filled by statement triggers (see :mod:`.database`)."""
    changes, change_log = _qualified(conn, "changes"), _qualified(conn, "change_log")
    lock = (  # take the writers' row lock first, so log ids follow commit order (memdesk already holds it)
        f"UPDATE {changes} SET counter = counter + 1, last_xact = txid_current() "
        "WHERE last_xact IS DISTINCT FROM txid_current();"
    )
    statements = [
        "CREATE TABLE change_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, scope_key text, collection text)",
        """CREATE TABLE change_floor (
            singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton), floor bigint NOT NULL)""",
        "INSERT INTO change_floor (singleton, floor) VALUES (true, 0)",
    ]
    for column in ("scope_key", "collection"):
        statements += [
            f"""CREATE FUNCTION memdesk_log_{column}s() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN {lock}
                INSERT INTO {change_log} ({column}) SELECT DISTINCT {column} FROM changed;
                RETURN NULL;
            END $$""",
            f"""CREATE FUNCTION memdesk_log_moved_{column}s() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN {lock}
                INSERT INTO {change_log} ({column}) SELECT {column} FROM old_rows UNION SELECT {column} FROM new_rows;
                RETURN NULL;
            END $$""",
        ]
    statements.append(
        f"""CREATE FUNCTION memdesk_log_everything() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN {lock}
            INSERT INTO {change_log} (scope_key, collection) VALUES (NULL, NULL);
            RETURN NULL;
        END $$"""
    )
    for table, column in CHANGE_LOGGED:
        statements += [
            f"CREATE TRIGGER {table}_log_insert AFTER INSERT ON {table} REFERENCING NEW TABLE AS changed "
            f"FOR EACH STATEMENT EXECUTE FUNCTION memdesk_log_{column}s()",
            f"CREATE TRIGGER {table}_log_delete AFTER DELETE ON {table} REFERENCING OLD TABLE AS changed "
            f"FOR EACH STATEMENT EXECUTE FUNCTION memdesk_log_{column}s()",
            f"CREATE TRIGGER {table}_log_update AFTER UPDATE ON {table} REFERENCING OLD TABLE AS old_rows "
            f"NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memdesk_log_moved_{column}s()",
            f"CREATE TRIGGER {table}_log_truncate AFTER TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION memdesk_log_everything()",
        ]
    statements.append(
        "CREATE TRIGGER meta_log AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON meta "
        "FOR EACH STATEMENT EXECUTE FUNCTION memdesk_log_everything()"
    )
    for statement in statements:
        conn.execute(statement)


def _m0005_dimensioned_vectors(conn: "psycopg.Connection") -> None:
    """``vector(n)`` columns for a store whose embedding dimension is recorded (new stores get them
    when the dimension is first recorded)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'embedding_dim'").fetchone()
    if row is not None:
        set_vector_dim(conn, int(row[0]))


def _m0006_api_keys(conn: "psycopg.Connection") -> None:
    for statement in api_keys_ddl(text="text", time="timestamptz"):
        conn.execute(statement)


def _m0007_history_tombstones(conn: "psycopg.Connection") -> None:
    for statement in HISTORY_TOMBSTONES:
        conn.execute(statement)



def _m0008_message_status(conn: "psycopg.Connection") -> None:
    for statement in MESSAGE_STATUS:
        conn.execute(statement)


def _m0009_shared_metadata(conn: "psycopg.Connection") -> None:
    """Long metadata stored once (:mod:`.shared_metadata`); rows written before it are split as new ones are."""
    from .codec import record_from_json

    for statement in migration_ddl("text"):
        conn.execute(statement)
    migrate_rows(conn, PostgresDialect(), record_from_json)


PG_MIGRATIONS: tuple[Migration["psycopg.Connection"], ...] = (
    Migration("0001_initial_schema", _m0001_initial_schema),
    Migration("0002_documents_and_scope_indexes", _m0002_documents_and_scope_indexes),
    Migration("0003_history_scope_index", _m0003_history_scope_index),
    Migration("0004_change_log", _m0004_change_log),
    Migration("0005_dimensioned_vectors", _m0005_dimensioned_vectors),
    Migration("0006_api_keys", _m0006_api_keys),
    Migration("0007_history_tombstones", _m0007_history_tombstones),
    Migration("0008_message_status", _m0008_message_status),
    Migration("0009_shared_metadata", _m0009_shared_metadata),
)
"""The PostgreSQL schema, oldest first. Append new migrations; never edit or reorder applied ones."""
