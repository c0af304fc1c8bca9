"""The SQL schema every backend shares: table names, column lists, DDL and the scope condition.

Tables (the same in SQLite and PostgreSQL, with each dialect's column types):

- ``episodic_memory``, ``semantic_memory``, ``procedural_memory``: one per memory type. A row holds
  the record's id, a global insertion ``seq``, the scope columns (``scope_key`` is the exact
  scope), query columns (speaker, event/ingest time, provenance, embedding model), the record's
  JSON (the source of truth), its vector and its version. Every row is keyed by its scope, and
  no query joins rows of two scopes.
- ``messages``: the raw message log (``UNIQUE (scope_key, id)``, ordered by ``seq``).
- ``history``: every version of every record (ADD, UPDATE, DELETE).
- ``scopes``: every exact scope with records or messages (primary key ``scope_key``, indexed by
  user, agent and run for :meth:`has_scope`).
- ``collection_items``: named vector collections (id, payload JSON, vector, the text it embeds).
- ``documents``: named sets of (id, payload JSON) without vectors.
- ``record_metadata``: a record's long metadata, stored once (see :mod:`.shared_metadata`).
- ``meta`` (embedding model and dimension) and ``migrations``.
"""

from __future__ import annotations

import json
from typing import Any

from ..records import MemoryType, Scope
from .codec import scope_key

TABLES: dict[MemoryType, str] = {
    MemoryType.EPISODIC: "episodic_memory",
    MemoryType.SEMANTIC: "semantic_memory",
    MemoryType.PROCEDURAL: "procedural_memory",
}
"""The table of each memory type, in every backend."""

CHUNK = 900
"""Bound parameters per ``IN (...)`` list, for dialects that bind ids one by one."""

RECORD_COLUMNS = (
    "id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, "
    "provenance, embedding_model, record, vector, version, metadata_ref"
)
"""The columns of a record table, in the order a record row is filled."""
HISTORY_COLUMNS = "record_id, memory_type, version, event, scope_key, record, changed_at, metadata_ref"
SCOPE_COLUMNS = "scope_key, user_id, agent_id, run_id, created_at"
MESSAGE_READ_COLUMNS = (
    'user_id, agent_id, run_id, id, speaker, role, content, "timestamp", ingest_time, route_mask, metadata, seq, '
    "source, pending"
)
"""The ``messages`` columns :func:`~memdesk.store.codec.message_from_row` reads, in order."""


def record_table_ddl(table: str, *, text: str, seq: str, time: str, vector: str, version: str) -> list[str]:
    """``CREATE`` statements of one record table and its indexes, given the dialect's column types."""
    return [
        f"""CREATE TABLE {table} (
                id {text} PRIMARY KEY,
                seq {seq} NOT NULL,
                scope_key {text} NOT NULL, user_id {text}, agent_id {text}, run_id {text},
                speaker {text}, event_time {time}, ingest_time {time} NOT NULL,
                provenance {text} NOT NULL, embedding_model {text} NOT NULL,
                record {text} NOT NULL, vector {vector} NOT NULL, version {version} NOT NULL)""",
        f"CREATE INDEX ix_{table}_scope ON {table} (scope_key, seq)",
        f"CREATE INDEX ix_{table}_user ON {table} (user_id, agent_id, run_id)",
        f"CREATE INDEX ix_{table}_agent ON {table} (agent_id)",
        f"CREATE INDEX ix_{table}_run ON {table} (run_id)",
        f"CREATE INDEX ix_{table}_seq ON {table} (seq)",
    ]


VECTOR_FREE_SUFFIXES = ("::meta", "::rejected")
"""Collections that memdesk's reasoning bank wrote with placeholder vectors before the ``documents``
table existed; migration 0002 moves them there."""


def documents_ddl(*, text: str, position: str) -> list[str]:
    """Migration 0002, shared by the dialects: vector-free documents, embedded texts, scope indexes.

    ``position`` is the dialect's insertion-order column definition for ``documents`` ('' where
    the table has an implicit one, as SQLite's ``rowid``). Run :func:`fill_legacy_texts` after it.
    """
    moved = " OR ".join(f"collection LIKE '%{s}'" for s in VECTOR_FREE_SUFFIXES)
    return [
        f"""CREATE TABLE documents ({position}
            collection {text} NOT NULL, id {text} NOT NULL, payload {text} NOT NULL,
            PRIMARY KEY (collection, id))""",
        f"INSERT INTO documents (collection, id, payload) SELECT collection, id, payload FROM collection_items WHERE {moved}",
        f"DELETE FROM collection_items WHERE {moved}",
        f"ALTER TABLE collection_items ADD COLUMN embed_text {text}",
        "CREATE INDEX ix_scopes_user ON scopes (user_id, agent_id, run_id)",
        "CREATE INDEX ix_scopes_agent ON scopes (agent_id, run_id)",
        "CREATE INDEX ix_scopes_run ON scopes (run_id)",
        "CREATE INDEX ix_messages_scope_seq ON messages (scope_key, seq)",
    ]


HISTORY_SCOPE_INDEX = "CREATE INDEX ix_history_scope ON history (scope_key, record_id)"
"""Migration 0003, shared by the dialects: finds a scope's history entries when it is forgotten."""

CHANGE_LOGGED: list[tuple[str, str]] = [(t, "scope_key") for t in TABLES.values()] + [("collection_items", "collection")]
"""Migration 0004, shared by the dialects: the tables whose writes the change log records, each with the
column that names what changed (a record table's scope key, a collection item's collection)."""


def api_keys_ddl(*, text: str, time: str) -> list[str]:
    """Migration 0006, shared by the dialects: tenant API keys (digests only; see :mod:`.key_table`)."""
    return [
        f"""CREATE TABLE api_keys (
            key_id {text} PRIMARY KEY, key_hash {text} NOT NULL UNIQUE,
            user_id {text} NOT NULL, agent_id {text}, name {text},
            created_at {time} NOT NULL, last_used_at {time})""",
        "CREATE INDEX ix_api_keys_user ON api_keys (user_id, agent_id)",
    ]


def fill_legacy_texts(conn: Any, mark: str) -> int:
    """Fill ``collection_items.embed_text`` of items written before it existed, where the payload
    says what was embedded: the ``embedding_text`` field memdesk's reasoning bank writes. Other
    items keep NULL (``memdesk reembed`` names their collections and refuses). Returns the rows filled."""
    rows = conn.execute("SELECT collection, id, payload FROM collection_items WHERE payload LIKE '%embedding_text%'")
    filled = 0
    for collection, item_id, payload in rows.fetchall():
        try:
            text = json.loads(payload).get("embedding_text")
        except (ValueError, AttributeError):  # not JSON, or not an object
            continue
        if isinstance(text, str):
            sql = f"UPDATE collection_items SET embed_text = {mark} WHERE collection = {mark} AND id = {mark}"
            conn.execute(sql, (text, collection, item_id))
            filled += 1
    return filled


def scope_where(scope: Scope | None, mark: str) -> tuple[str, list[Any]]:
    """SQL condition (and parameters) for rows under a possibly-wildcard scope (None: every row).

    An exact scope is one ``scope_key`` equality; a partial one compares the columns it sets.
    """
    if scope is None:
        return "1 = 1", []
    if scope.user_id is not None and scope.agent_id is not None and scope.run_id is not None:
        return f"scope_key = {mark}", [scope_key(scope)]
    conds, params = [], []
    for column, value in (("user_id", scope.user_id), ("agent_id", scope.agent_id), ("run_id", scope.run_id)):
        if value is not None:
            conds.append(f"{column} = {mark}")
            params.append(value)
    return " AND ".join(conds), params


def marks(mark: str, n: int) -> str:
    return ", ".join([mark] * n)


TOMBSTONE = "null"
"""The ``record`` of a DELETE history entry: no content (the row keeps id, type, version, scope and time)."""


HISTORY_TOMBSTONES = [
    "DELETE FROM history WHERE hid < (SELECT MAX(d.hid) FROM history d "
    "WHERE d.record_id = history.record_id AND d.event = 'DELETE')",
    f"UPDATE history SET record = '{TOMBSTONE}' WHERE event = 'DELETE'",
]
"""Migration 0007, shared by the dialects: history written before deletes left tombstones only keeps
the deleted records' content (every version and the DELETE entry's copy); it goes, the tombstones stay.
Pages it frees may still hold those bytes until ``memdesk vacuum`` (SQLite) or the operator's VACUUM."""


MESSAGE_STATUS = [
    "ALTER TABLE messages ADD COLUMN source TEXT",
    "ALTER TABLE messages ADD COLUMN pending INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX ix_messages_pending ON messages (seq) WHERE pending = 1",
]
"""Migration 0008, shared by the dialects: a raw message keeps its ``source`` (what reprocessing needs
besides the content, whose image caption :func:`~memdesk.records.split_caption` recovers) and whether it
is ``pending`` (logged, not processed yet: see :meth:`memdesk.Memory.reprocess`). Rows logged before it
are not pending."""


def insert_history(mark: str) -> str:
    return f"INSERT INTO history ({HISTORY_COLUMNS}) VALUES ({marks(mark, 8)})"


def insert_scope(mark: str) -> str:
    return f"INSERT INTO scopes ({SCOPE_COLUMNS}) VALUES ({marks(mark, 5)}) ON CONFLICT (scope_key) DO NOTHING"
