"""What export, import and copy need of a SQL store: a scope's history in write order, and a verbatim restore.

:meth:`PortableTables.history_page` reads every history entry written under a scope (ADD, UPDATE and the DELETE
tombstones of records deleted from it), oldest first, by keyset. :meth:`PortableTables.restore` writes records,
their vectors, their history entries and raw messages as they were exported, in ONE transaction: ids, times,
versions, supersession links (inside each record's JSON) and provenance are kept; only the store's own positions
(record ``seq``, the message log's ``seq``) are assigned anew, in the order given. A clash with what the store
holds (a record id current or in history, a message's scope and id) is refused, skipped or replaced
(``on_conflict``), decided before anything is written.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Sequence

import numpy as np

from ..errors import ImportConflictError, InvalidInputError
from ..records import HistoryEntry, HistoryEvent, MemoryRecord, MemoryType, RawMessage, Scope
from .base import DEFAULT_PAGE, ON_CONFLICT, OnConflict, Page, Restored, check_on_conflict
from .codec import (
    MESSAGE_COLUMNS,
    check_ids,
    check_limit,
    check_records,
    check_messages,
    check_scope,
    iso_utc,
    message_rows,
    position_cursor,
    record_from_json,
    record_json,
    scope_from_tuple,
    scope_key,
    scope_matches,
    scope_tuple,
)
from .database import Database
from .message_log import MessageTable
from .record_writes import RecordWriter, prepare_records
from .schema import HISTORY_COLUMNS, RECORD_COLUMNS, TABLES, TOMBSTONE, insert_scope
from .search_cache import RecordIndex
from .shared_metadata import whole

def _history_keys(conn: Any, scope: Scope | None) -> list[str] | None:
    """The scope keys of history rows under ``scope`` (history keeps only the key: matched here); None: all."""
    if scope is None:
        return None
    if scope.user_id is not None and scope.agent_id is not None and scope.run_id is not None:
        return [scope_key(scope)]
    keys = [r[0] for r in conn.execute("SELECT DISTINCT scope_key FROM history").fetchall()]
    return sorted(k for k in keys if scope_matches(scope, tuple(json.loads(k))))


class PortableTables:
    """History reads by scope and verbatim restores, for one database."""

    def __init__(self, db: Database, writer: RecordWriter, messages: MessageTable, search: RecordIndex) -> None:
        self.db = db
        self.writer = writer
        self.messages = messages
        self.search = search

    def _stored_time(self, value: datetime) -> Any:
        """A ``changed_at`` as the dialect stores it (SQLite: UTC ISO text; PostgreSQL: timestamptz)."""
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return iso_utc(aware) if isinstance(self.db.dialect.now(), str) else aware

    # -- reading -------------------------------------------------------------------------------
    def history_page(
        self, scope: Scope | None, *, limit: int = DEFAULT_PAGE, cursor: str | None = None, event: HistoryEvent | None = None
    ) -> Page[HistoryEntry]:
        if scope is not None:
            check_scope(scope)
        if event is not None and not isinstance(event, HistoryEvent):
            raise InvalidInputError(f"event must be a HistoryEvent or None, not {event!r}")
        limit = check_limit(limit)
        after = position_cursor(cursor, "h")
        d = self.db.dialect
        p = d.param
        with self.db.read("history_page") as conn:
            keys = _history_keys(conn, scope)
            rows: list[Any] = []
            chunks = [("1 = 1", [])] if keys is None else d.id_chunks("scope_key", keys)
            for cond, params in chunks:
                only = "" if event is None else f" AND event = {p}"
                sql = (
                    "SELECT hid, record_id, version, event, memory_type, scope_key, record, changed_at, metadata_ref FROM history "
                    f"WHERE {cond}{only} AND hid > {p} ORDER BY hid LIMIT {p}"
                )
                rows += conn.execute(sql, [*params, *([] if event is None else [event.value]), after, limit + 1]).fetchall()
            rows = sorted(rows, key=lambda r: int(r[0]))[: limit + 1]
            more = len(rows) > limit
            rows = self._whole(conn, rows[:limit])
        items = self._entries(rows)
        return Page(items=items, next_cursor=f"h{rows[-1][0]}" if more else None)

    def history_of(self, record_ids: Sequence[str]) -> dict[str, list[HistoryEntry]]:
        wanted = check_ids(record_ids, "record ids")
        d = self.db.dialect
        rows: list[Any] = []
        with self.db.read("history_of") as conn:
            for cond, params in d.id_chunks("record_id", list(dict.fromkeys(wanted))):
                sql = (
                    "SELECT hid, record_id, version, event, memory_type, scope_key, record, changed_at, metadata_ref FROM history "
                    f"WHERE {cond}"
                )
                rows += conn.execute(sql, params).fetchall()
            rows = self._whole(conn, rows)
        out: dict[str, list[HistoryEntry]] = {}
        for e in self._entries(sorted(rows, key=lambda r: int(r[0]))):
            out.setdefault(e.record_id, []).append(e)
        return out

    def _whole(self, conn: Any, rows: Sequence[Any]) -> list[Any]:
        """History rows with each one's whole record JSON (its shared metadata joined back), without the ref."""
        payloads = whole(conn, self.db.dialect, [(r[6], r[8]) for r in rows])
        return [(*r[:6], payload, r[7]) for r, payload in zip(rows, payloads)]

    def _entries(self, rows: Sequence[Any]) -> list[HistoryEntry]:
        d = self.db.dialect
        scopes: dict[str, Scope] = {}  # one (frozen) Scope per key: a page's entries share few scopes
        for key in {r[5] for r in rows}:
            scopes[key] = scope_from_tuple(tuple(json.loads(key)))
        return [
            HistoryEntry(
                record_id=rid, version=int(version), event=HistoryEvent(event), memory_type=MemoryType(mt),
                scope=scopes[key],
                record=None if event == HistoryEvent.DELETE.value else record_from_json(mt, payload),
                changed_at=d.time_from_db(at),
            )
            for _, rid, version, event, mt, key, payload, at in rows
        ]  # fmt: skip

    # -- restoring -----------------------------------------------------------------------------
    def _conflicts(self, conn: Any, record_ids: Sequence[str], message_rows_: Sequence[tuple[Any, ...]]) -> tuple[set[str], set[tuple[str, str]]]:
        d = self.db.dialect
        ids: set[str] = set()
        for cond, params in d.id_chunks("id", list(record_ids), 300):
            sql = " UNION ALL ".join(f"SELECT id FROM {t} WHERE {cond}" for t in TABLES.values())
            ids.update(r[0] for r in conn.execute(sql, params * len(TABLES)))
        for cond, params in d.id_chunks("record_id", list(record_ids)):
            ids.update(r[0] for r in conn.execute(f"SELECT DISTINCT record_id FROM history WHERE {cond}", params))
        wanted = {(r[0], r[4]) for r in message_rows_}
        logged: set[tuple[str, str]] = set()
        for cond, params in d.id_chunks("id", sorted({i for _, i in wanted})):
            found = conn.execute(f"SELECT scope_key, id FROM messages WHERE {cond}", params).fetchall()
            logged.update(k for k in ((str(r[0]), str(r[1])) for r in found) if k in wanted)
        return ids, logged

    def restore(
        self,
        records: Sequence[MemoryRecord] = (),
        vectors: np.ndarray | None = None,
        *,
        history: Sequence[HistoryEntry] = (),
        messages: Sequence[RawMessage] = (),
        on_conflict: OnConflict = "fail",
        check_only: bool = False,
    ) -> Restored:
        on_conflict = check_on_conflict(on_conflict)
        batch = None if check_only else prepare_records(records, vectors)
        entries = list(history)
        if any(not isinstance(e, HistoryEntry) for e in entries):
            raise InvalidInputError("history must hold HistoryEntry items")
        rows = message_rows(check_messages(messages))
        keys = [(r[0], r[4]) for r in rows]
        if len(set(keys)) != len(keys):
            raise InvalidInputError("messages repeat a (scope, id)")
        recs = check_records(records) if check_only else [] if batch is None else batch[0]
        record_ids = list(dict.fromkeys([r.id for r in recs] + [e.record_id for e in entries]))
        d = self.db.dialect
        out = Restored()
        replaced: list[tuple[MemoryType, Any, str]] = []
        released: list[str | None] = []
        with self.db.lock:
            with self.db.tx("restore") as conn:
                clash_ids, clash_msgs = self._conflicts(conn, record_ids, rows)
                out.conflicts = [f"record:{i}" for i in sorted(clash_ids)] + [f"message:{k}/{i}" for k, i in sorted(clash_msgs)]
                if check_only:
                    return out
                if out.conflicts and on_conflict == "fail":
                    raise ImportConflictError(
                        f"{len(out.conflicts)} items already in the store (e.g. {out.conflicts[:3]}): "
                        "nothing was written; import with on_conflict='skip' or 'replace'",
                        out.conflicts[:100],
                    )
                if on_conflict == "skip":
                    out.skipped_records = sorted(clash_ids)
                    out.skipped_messages = sorted(f"{k}/{i}" for k, i in clash_msgs)
                    if batch is not None:
                        keep = [i for i, r in enumerate(batch[0]) if r.id not in clash_ids]
                        batch = ([batch[0][i] for i in keep], batch[1][keep], [batch[2][i] for i in keep]) if keep else None
                    entries = [e for e in entries if e.record_id not in clash_ids]
                    rows = [r for r in rows if (r[0], r[4]) not in clash_msgs]
                elif clash_ids or clash_msgs:  # replace: what the store holds of those ids goes first
                    ids = sorted(clash_ids)
                    for mt, table in TABLES.items():
                        for cond, params in d.id_chunks("id", ids):
                            gone = d.delete_returning(conn, table, cond, params, "id, user_id, agent_id, run_id, metadata_ref")
                            replaced += [(mt, (g[1], g[2], g[3]), g[0]) for g in gone]
                            released += [g[4] for g in gone]
                    for cond, params in d.id_chunks("record_id", ids):
                        released += [r[0] for r in d.delete_returning(conn, "history", cond, params, "metadata_ref")]
                    for key, mid in clash_msgs:
                        conn.execute(f"DELETE FROM messages WHERE scope_key = {d.param} AND id = {d.param}", (key, mid))
                    out.replaced = len(clash_ids) + len(clash_msgs)
                if rows:
                    d.bulk_insert(conn, "messages", MESSAGE_COLUMNS, rows)
                    now = d.now()
                    d.executemany(conn, insert_scope(d.param), list({r[0]: (*r[:4], now) for r in rows}.values()))
                    out.messages = len(rows)
                bases = {(scope_key(m.scope), m.id): m.metadata for m in check_messages(messages)}
                if batch is not None:
                    self._insert(conn, batch, entries, bases)
                    out.records = len(batch[0])
                self._insert_history(conn, entries, bases)
                self.writer.shared.release(conn, released)  # what the replaced items alone referenced
                out.history = len(entries)
            for mt, key, rid in replaced:
                self.search.removed(mt, key, rid)
            if batch is not None:
                self.search.added(*batch)
        return out

    def _insert(
        self, conn: Any, batch: tuple[list[MemoryRecord], np.ndarray, list[str]], entries: list[HistoryEntry],
        bases: dict[tuple[str, str], Any],
    ) -> None:  # fmt: skip
        recs, matrix, payloads = batch
        d = self.db.dialect
        info = self.db.require_info(conn, matrix.shape[1], [r.embedding_model for r in recs])
        last: dict[str, int] = {}
        for e in entries:
            last[e.record_id] = max(last.get(e.record_id, 0), e.version)
        seqs = d.next_seqs(conn, len(recs))
        by_table: dict[str, list[tuple[Any, ...]]] = {}
        scopes: dict[str, tuple[Any, ...]] = {}
        now = d.now()
        stored = self.writer.shared.store(conn, recs, payloads, bases=bases)
        for i, (r, s) in enumerate(zip(recs, stored)):
            row = self.writer._record_row(r, s, matrix[i], seqs[i], last.get(r.id, 1), info.model_id)
            by_table.setdefault(TABLES[r.memory_type], []).append(row)
            key = scope_key(r.scope)
            scopes.setdefault(key, (key, *scope_tuple(r.scope), now))
        for table, rows in by_table.items():
            d.bulk_insert(conn, table, RECORD_COLUMNS, rows)
        d.executemany(conn, insert_scope(d.param), list(scopes.values()))

    def _insert_history(self, conn: Any, entries: list[HistoryEntry], bases: dict[tuple[str, str], Any]) -> None:
        if not entries:
            return
        records = [e.record for e in entries if e.record is not None]
        forms = iter(self.writer.shared.store(conn, records, [record_json(r) for r in records], bases=bases))
        rows = []
        for e in entries:
            s = None if e.record is None else next(forms)
            rows.append((
                e.record_id, e.memory_type.value, e.version, e.event.value, scope_key(e.scope),
                TOMBSTONE if s is None else s.payload, self._stored_time(e.changed_at), None if s is None else s.ref,
            ))  # fmt: skip
        self.db.dialect.bulk_insert(conn, "history", HISTORY_COLUMNS, rows)


__all__ = ["ON_CONFLICT", "OnConflict", "PortableTables", "Restored", "check_on_conflict"]
