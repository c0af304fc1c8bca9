"""A record's metadata stored once, however many records and versions carry it (migration 0009).

Records extracted from one message carry that message's metadata (up to the per-message byte bound) beside
their own keys, and every version of a record in ``history`` carried it again: one message with 1 MB of
metadata extracted into N records, each updated v times, held N x (v + 1) copies. Now:

- The part of a record's metadata it shares with the message it came from (its *base*: the keys whose values
  are the message's, compared as JSON, when they are its first keys, so the order of the keys is kept), when
  that part's JSON is at least :data:`SHARED_MIN_CHARS` long, is
  stored once in ``record_metadata`` (``metadata_id`` is the SHA-256 of the exact scope key and the JSON, so a
  row belongs to one scope and equal content is one row). A record without such a base (not from a logged
  message, or one whose message keys were changed) shares its whole metadata when that is long: identical
  metadata of several records or versions is then one row too.
- The record's row and each of its ``history`` versions name the row (``metadata_ref``) and keep only the
  record's own keys in their JSON, written as its first field (``{"metadata":{own...},...}``), so
  :data:`FULL_RECORD` can join the two back in SQL on both backends, and a record whose metadata is short
  (the usual case) is stored exactly as before (``metadata_ref`` NULL).
- An update that changes the metadata is copy-on-write: the new version's shared part is split again and
  written as a new row when its content differs (earlier versions keep theirs); an update that leaves the
  shared keys alone references the same row.
- Metadata filters read a key from the record's own keys first, else from the shared row
  (:meth:`~memdesk.store.dialect.Dialect.json_metadata` with ``shared``, for the rows that have shared metadata): the two never hold the same key.
- A shared row lives while a record or a history version references it: :func:`release` deletes rows no
  longer referenced after a delete; a forget deletes every row of the forgotten scopes.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping, Sequence

from pydantic_core import PydanticSerializationError, to_json

from ..errors import StoreError
from ..records import MemoryRecord
from .codec import scope_key
from .schema import TABLES

SHARED_MIN_CHARS = 1024
"""Metadata JSON shorter than this stays inside the record's JSON (no lookup for the usual small metadata)."""

SHARED_BODY = "(SELECT body FROM record_metadata WHERE metadata_id = metadata_ref)"
"""SQL of the shared metadata JSON of a record or history row (NULL when it has none)."""

_PREFIX = '{"metadata":'
FULL_RECORD = (
    "(CASE WHEN metadata_ref IS NULL THEN record ELSE COALESCE((SELECT '{\"metadata\":' || substr(body, 1, length(body) - 1) || "
    "CASE WHEN substr(record, 14, 1) = '}' THEN '' ELSE ',' END || substr(record, 14) "
    "FROM record_metadata WHERE metadata_id = metadata_ref), record) END)"
)
"""SQL of a record or history row's whole JSON: its own JSON with the shared keys put back in front of its own
metadata keys (the same text in SQLite and PostgreSQL)."""

TABLES_WITH_REFS: tuple[str, ...] = (*TABLES.values(), "history")


def migration_ddl(text: str) -> list[str]:
    """Migration 0009's tables and columns, given the dialect's text type (:func:`migrate_rows` moves the data)."""
    statements = [
        f"CREATE TABLE record_metadata (metadata_id {text} PRIMARY KEY, scope_key {text} NOT NULL, body {text} NOT NULL)",
        "CREATE INDEX ix_record_metadata_scope ON record_metadata (scope_key)",
    ]
    for table in TABLES_WITH_REFS:
        statements += [
            f"ALTER TABLE {table} ADD COLUMN metadata_ref {text}",
            f"CREATE INDEX ix_{table}_metadata_ref ON {table} (metadata_ref) WHERE metadata_ref IS NOT NULL",
        ]
    return statements


def _json(value: Any) -> bytes | None:
    try:
        return to_json(value)
    except PydanticSerializationError:
        return None


def _metadata_json(record: MemoryRecord, metadata: Mapping[str, Any]) -> str:
    """``{"metadata":{...}}`` of ``metadata`` as the record's own serializer writes it."""
    return record.model_copy(update={"metadata": dict(metadata)}).model_dump_json(include={"metadata"})


class Stored:
    """How one record (or history version) is stored: its row JSON and the shared row it references."""

    __slots__ = ("payload", "ref", "body", "key")

    def __init__(self, payload: str, ref: str | None = None, body: str | None = None, key: str | None = None) -> None:
        self.payload, self.ref, self.body, self.key = payload, ref, body, key


def split(record: MemoryRecord, payload: str, base: Mapping[str, Any] | None) -> Stored:
    """The stored form of ``record`` (whose whole JSON is ``payload``) given its message's metadata ``base``."""
    meta = record.metadata
    if not meta or len(payload) < SHARED_MIN_CHARS:
        return Stored(payload)
    body = None
    if base:  # the keys the record holds with its message's values, when they come first (the order is kept)
        common = {k: v for k, v in meta.items() if k in base and _json(v) is not None and _json(v) == _json(base[k])}
        prefix = list(common) == list(meta)[: len(common)]
        body = _metadata_json(record, common)[len(_PREFIX) : -1] if common and prefix else None
        shared: Mapping[str, Any] = common
    if body is None or len(body) < SHARED_MIN_CHARS:
        shared, body = meta, _metadata_json(record, meta)[len(_PREFIX) : -1]
    if len(body) < SHARED_MIN_CHARS or "\\u0000" in body:  # NUL: filters read such metadata in Python (json_guard)
        return Stored(payload)
    own = {k: v for k, v in meta.items() if k not in shared}
    stored = own_json(record.model_copy(update={"metadata": own}), "shared")
    key = scope_key(record.scope)
    ref = hashlib.sha256(f"{key}\x00{body}".encode()).hexdigest()
    return Stored(stored, ref, body, key)


def own_json(record: MemoryRecord, ref: str | None) -> str:
    """The row JSON of ``record`` read from its own row JSON (its metadata: its own keys), for a row whose shared
    metadata ``ref`` stays as it is."""
    if ref is None:
        return record.model_dump_json()
    return _metadata_json(record, record.metadata)[:-1] + "," + record.model_dump_json(exclude={"metadata"})[1:]


def join(stored: str, body: str | None) -> str:
    """The whole JSON of a stored record given its shared metadata (what :data:`FULL_RECORD` computes in SQL)."""
    if body is None:
        return stored
    return _PREFIX + body[:-1] + ("" if stored[13] == "}" else ",") + stored[13:]


def whole(conn: Any, dialect: Any, rows: Sequence[tuple[str, str | None]]) -> list[str]:
    """The whole JSON of each (stored JSON, metadata ref) row: each shared row read once (for reads of many rows,
    where :data:`FULL_RECORD` would join every row in SQL)."""
    refs = sorted({ref for _, ref in rows if ref})
    bodies: dict[str, str] = {}
    for cond, params in dialect.id_chunks("metadata_id", refs):
        bodies.update(conn.execute(f"SELECT metadata_id, body FROM record_metadata WHERE {cond}", params).fetchall())
    missing = [ref for ref in refs if ref not in bodies]
    if missing:
        raise StoreError(f"shared metadata {missing[0]!r} is missing: the memdesk schema was altered by hand")
    return [join(stored, bodies[ref] if ref else None) for stored, ref in rows]


class SharedMetadata:
    """Writes and releases the shared metadata rows of one database (inside the caller's transaction)."""

    def __init__(self, dialect: Any) -> None:
        self.dialect = dialect
        p = dialect.param
        self._insert = (
            f"INSERT INTO record_metadata (metadata_id, scope_key, body) VALUES ({p}, {p}, {p}) "
            "ON CONFLICT (metadata_id) DO NOTHING"
        )
        self._message = f"SELECT metadata FROM messages WHERE scope_key = {p} AND id = {p}"

    def store(
        self,
        conn: Any,
        records: Sequence[MemoryRecord],
        payloads: Sequence[str],
        *,
        bases: Mapping[tuple[str, str], Mapping[str, Any]] | None = None,
        owners: Sequence[str] | None = None,
    ) -> list[Stored]:
        """The stored form of each record, its shared rows written. A record's base is the metadata of its
        owner message (``owners``), else of its first provenance id, looked up in ``bases`` (the messages
        written with it), then in the message log."""
        out: list[Stored] = []
        rows: dict[str, tuple[str, str, str]] = {}
        for i, (record, payload) in enumerate(zip(records, payloads)):
            if not record.metadata or len(payload) < SHARED_MIN_CHARS:
                out.append(Stored(payload))
                continue
            base = self._base(conn, record, owners[i] if owners is not None else None, bases or {})
            s = split(record, payload, base)
            if s.ref is not None:
                rows.setdefault(s.ref, (s.ref, s.key or "", s.body or ""))
            out.append(s)
        if rows:
            self.dialect.executemany(conn, self._insert, list(rows.values()))
        return out

    def _base(self, conn: Any, record: MemoryRecord, owner: str | None, bases: Mapping[tuple[str, str], Mapping[str, Any]]) -> Mapping[str, Any] | None:
        key = scope_key(record.scope)
        message = owner if owner is not None else record.source_message()
        if message is None:
            return None
        if (key, message) in bases:
            return bases[(key, message)]
        row = conn.execute(self._message, (key, message)).fetchone()
        if row is None:
            return None
        try:
            found = json.loads(row[0])
        except ValueError:
            return None
        return found if isinstance(found, dict) else None

    def release(self, conn: Any, refs: Iterable[str | None]) -> None:
        """Delete the shared rows among ``refs`` that no record or history version references any more."""
        wanted = sorted({r for r in refs if r})
        unused = " AND ".join(
            f"NOT EXISTS (SELECT 1 FROM {t} WHERE {t}.metadata_ref = record_metadata.metadata_id)" for t in TABLES_WITH_REFS
        )
        for cond, params in self.dialect.id_chunks("metadata_id", wanted):
            conn.execute(f"DELETE FROM record_metadata WHERE {cond} AND {unused}", params)

    def forget(self, conn: Any, keys: Sequence[str]) -> int:
        """Delete every shared row of the exact scopes ``keys``; their number."""
        n = 0
        for cond, params in self.dialect.id_chunks("scope_key", list(keys)):
            n += len(self.dialect.delete_returning(conn, "record_metadata", cond, params, "metadata_id"))
        return n


def migrate_rows(conn: Any, dialect: Any, record_of: Any) -> int:
    """Migration 0009's data: rows written before it whose metadata is long are split (as new writes are);
    ``record_of(memory_type, json)`` parses a record. Returns the rows rewritten."""
    shared = SharedMetadata(dialect)
    done = 0
    candidates = f"length(record) >= {SHARED_MIN_CHARS}"
    for mt, table in TABLES.items():
        ids = [r[0] for r in conn.execute(f"SELECT id FROM {table} WHERE {candidates}").fetchall()]
        done += _rewrite(conn, dialect, shared, table, "id", [(i, mt.value) for i in ids], record_of)
    rows = conn.execute(f"SELECT hid, memory_type FROM history WHERE event <> 'DELETE' AND {candidates}").fetchall()
    done += _rewrite(conn, dialect, shared, "history", "hid", [(int(h), mt) for h, mt in rows], record_of)
    return done


def _rewrite(conn: Any, dialect: Any, shared: SharedMetadata, table: str, key: str, rows: list[tuple[Any, str]], record_of: Any) -> int:
    p = dialect.param
    done = 0
    for row_id, mt in rows:
        found = conn.execute(f"SELECT record FROM {table} WHERE {key} = {p}", (row_id,)).fetchone()
        if found is None:
            continue
        record = record_of(mt, found[0])
        (s,) = shared.store(conn, [record], [found[0]])
        if s.ref is None:
            continue
        conn.execute(f"UPDATE {table} SET record = {p}, metadata_ref = {p} WHERE {key} = {p}", (s.payload, s.ref, row_id))
        done += 1
    return done


__all__ = [
    "FULL_RECORD", "SHARED_BODY", "SHARED_MIN_CHARS", "SharedMetadata", "Stored", "join", "migrate_rows",
    "migration_ddl", "own_json", "split", "whole",
]  # fmt: skip
