"""Writing records and their history: the one write path, replace, delete, delete a scope.

Every write is one transaction of :class:`~memdesk.store.database.Database`: checks first, then
the rows, the history entries and the ``scopes`` rows; after the commit the search cache
(:class:`~memdesk.store.search_cache.RecordSearch`) is told what changed. A deleted record leaves
a tombstone alone in history: its earlier versions' content goes with it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import InvalidInputError, RecordNotFoundError
from ..records import HistoryEvent, MemoryRecord, MemoryType, RawMessage, Scope
from .codec import (
    ScopeTuple,
    check_ids,
    check_matrix,
    check_messages,
    check_record_id,
    check_records,
    check_scope,
    check_unique,
    check_vector,
    iso_utc,
    message_rows,
    provenance_json,
    record_json,
    scope_key,
)
from .database import Database
from .message_log import MessageTable
from .schema import CHUNK, RECORD_COLUMNS, TABLES, TOMBSTONE, insert_history, insert_scope, scope_where
from .search_cache import RecordIndex
from .shared_metadata import FULL_RECORD, SharedMetadata, Stored

Batch = tuple[list[MemoryRecord], np.ndarray, list[str]]
"""Validated records, their float32 vector matrix and their JSON."""


def prepare_records(records: Sequence[MemoryRecord], vectors: Any) -> Batch | None:
    """Validated (records, float32 matrix, record JSON), or None for no records."""
    recs = check_records(records)
    if not recs:
        if vectors is not None and np.asarray(vectors).size:
            raise InvalidInputError("vectors given for zero records")
        return None
    matrix = check_matrix(vectors, len(recs))
    ids = [r.id for r in recs]
    check_ids(ids, "record ids")
    check_unique(ids, "record ids")
    return recs, matrix, [record_json(r) for r in recs]


def find_record(db: Database, conn: Any, record_id: str) -> tuple[MemoryType, ScopeTuple, int, int, str, str | None] | None:
    """(type, scope, seq, version, whole record JSON, shared metadata ref) of a current record, or None."""
    sql = " UNION ALL ".join(
        f"SELECT '{mt.value}', user_id, agent_id, run_id, seq, version, {FULL_RECORD}, metadata_ref FROM {t} "
        f"WHERE id = {db.dialect.param}"
        for mt, t in TABLES.items()
    )
    row = conn.execute(sql, [record_id] * len(TABLES)).fetchone()
    if row is None:
        return None
    return MemoryType(row[0]), (row[1], row[2], row[3]), int(row[4]), int(row[5]), row[6], row[7]


class RecordWriter:
    """The record tables' writes, for one database."""

    def __init__(self, db: Database, messages: MessageTable, search: RecordIndex) -> None:
        self.db = db
        self.messages = messages
        self.search = search
        p, d = db.dialect.param, db.dialect
        self._marks = [p, p, p, p, p, p, p, d.time_mark, d.time_mark, p, p, p, d.vector_mark, p, p]
        self.shared = SharedMetadata(d)
        self._history = insert_history(p)
        self._scope = insert_scope(p)

    def _insert_record(self, table: str) -> str:
        return f"INSERT INTO {table} ({RECORD_COLUMNS}) VALUES ({', '.join(self._marks)})"

    def _record_row(
        self, record: MemoryRecord, stored: Stored, vector: np.ndarray, seq: int, version: int, model: str
    ) -> tuple[Any, ...]:
        s = record.scope
        return (
            record.id, seq, scope_key(s), s.user_id, s.agent_id, s.run_id, record.speaker,
            iso_utc(record.event_time), iso_utc(record.ingest_time), provenance_json(record),
            record.embedding_model or model, stored.payload, self.db.dialect.vector_param(vector), version, stored.ref,
        )  # fmt: skip

    @staticmethod
    def _scope_row(scope: Scope, now: Any) -> tuple[Any, ...]:
        return (scope_key(scope), scope.user_id, scope.agent_id, scope.run_id, now)

    # -- the one write path --------------------------------------------------------------------
    def write(
        self,
        records: Sequence[MemoryRecord] = (),
        vectors: np.ndarray | None = None,
        *,
        messages: Sequence[RawMessage] = (),
        owners: Sequence[str] | None = None,
        claim: bool = False,
        closes: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
    ) -> list[str]:
        """Log messages and insert records in ONE transaction: all or nothing (resumable ingest).

        ``closes``: stored records these records supersede (closed copies and their vectors, as :meth:`replace`
        takes them, or narrowed ones: ``metadata["narrowed_by"]``), replaced in the same transaction, so a crash
        never keeps the new records without the closing (one whose superseding record is skipped, or that is gone
        meanwhile, is left alone).

        Records: InvalidInputError if an id already exists (use :meth:`replace`), repeats within
        the call, or a vector has the wrong shape or a non-finite value; EmbeddingMismatchError if
        the vectors' dimension (or a record's ``embedding_model``) differs from the recorded one.
        Messages: the store assigns ``seq`` (the log order); re-logging an existing (scope, id) is a
        no-op. With ``owners`` (the id of the message each record came from), a message that is
        already logged in its scope when the transaction starts (another writer got there first)
        is skipped together with its records, so two ingests of the same conversation never store
        anything twice; unless it is logged *pending* and this write carries it processed: then the
        write claims it (it becomes processed, with this route mask) and its records are stored; a
        second writer finds it claimed and is skipped. With ``claim`` (a reprocess: the messages were read
        pending) every message must be claimed: one no longer logged pending (another writer claimed it, or
        a forget erased it meanwhile) is skipped with its records and never logged anew, so a forget that
        lands while a worker processes leaves nothing behind. Returns the ids of the messages skipped.
        Everything is validated before writing.
        """
        checked = check_messages(messages)
        rows = message_rows(checked)
        batch = prepare_records(records, vectors)
        if owners is not None and len(owners) != (0 if batch is None else len(batch[0])):
            raise InvalidInputError("owners must name one message id per record")
        if claim and owners is None:
            raise InvalidInputError("claim=True needs owners (the message each record came from)")
        closing = prepare_records([r for r, _ in closes], [v for _, v in closes] if closes else None)
        if not rows and batch is None:
            return []
        skipped: list[str] = []
        replaced: list[tuple[MemoryRecord, np.ndarray, str, tuple[Any, ...]]] = []
        with self.db.lock:
            with self.db.tx("write") as conn:
                if rows and owners is not None:
                    logged = set(self.messages.already_logged(conn, rows))
                    # a logged pending message is this write's to process if it claims it first
                    claimed = {r[4] for r in rows if r[4] in logged and not r[13] and self.messages.claim(conn, r)}
                    # claim: a message no longer logged was forgotten since it was read pending; it stays gone
                    skipped = [r[4] for r in rows if r[4] not in claimed and (claim or r[4] in logged)]
                    rows = [] if claim else [r for r in rows if r[4] not in logged]
                    if skipped:
                        gone = set(skipped)
                        if batch is not None:
                            keep = [i for i, owner in enumerate(owners) if owner not in gone]
                            recs, matrix, payloads = batch
                            batch = ([recs[i] for i in keep], matrix[keep], [payloads[i] for i in keep]) if keep else None
                if rows:
                    self.messages.insert(conn, rows)
                if batch is not None:
                    bases = {(scope_key(m.scope), m.id): m.metadata for m in checked}  # what each record's message said
                    keep_owners = None
                    if owners is not None:
                        kept = {r.id for r in batch[0]}
                        keep_owners = [o for o, r in zip(owners, records) if r.id in kept]
                    self._insert_records(conn, *batch, bases=bases, owners=keep_owners)
                written = {r.id for r in batch[0]} if batch is not None else set()
                for rec, vector, payload in zip(*closing) if closing is not None else ():
                    by = rec.superseded_by or rec.metadata.get("narrowed_by")  # closed, or narrowed to what still holds
                    if by in written and (found := self._replace_in(conn, rec, vector, payload)) is not None:
                        replaced.append((rec, vector, payload, found))
            if batch is not None:
                self.search.added(*batch)
            for rec, vector, payload, (old_type, old_scope) in replaced:
                self.search.removed(old_type, old_scope, rec.id)
                self.search.added([rec], vector[None, :], [payload])
        return skipped

    def _existing(self, conn: Any, ids: Sequence[str]) -> list[str]:
        found: list[str] = []
        for cond, params in self.db.dialect.id_chunks("id", ids, CHUNK // len(TABLES)):
            sql = " UNION ALL ".join(f"SELECT id FROM {t} WHERE {cond}" for t in TABLES.values())
            found += [r[0] for r in conn.execute(sql, params * len(TABLES))]
        return found

    def _last_versions(self, conn: Any, ids: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for cond, params in self.db.dialect.id_chunks("record_id", ids):
            sql = f"SELECT record_id, MAX(version) FROM history WHERE {cond} GROUP BY record_id"
            out.update((r[0], int(r[1])) for r in conn.execute(sql, params))
        return out

    def _insert_records(
        self, conn: Any, recs: list[MemoryRecord], matrix: np.ndarray, payloads: list[str], *,
        bases: dict[tuple[str, str], Any] | None = None, owners: Sequence[str] | None = None,
    ) -> None:  # fmt: skip
        dialect = self.db.dialect
        info = self.db.require_info(conn, matrix.shape[1], [r.embedding_model for r in recs])
        ids = [r.id for r in recs]
        existing = self._existing(conn, ids)
        if existing:
            raise InvalidInputError(f"record ids already exist (use replace): {sorted(existing)[:5]}")
        seqs = dialect.next_seqs(conn, len(recs))
        versions = self._last_versions(conn, ids)
        now = dialect.now()
        by_table: dict[str, list[tuple[Any, ...]]] = {}
        history: list[tuple[Any, ...]] = []
        scopes: dict[str, tuple[Any, ...]] = {}
        stored = self.shared.store(conn, recs, payloads, bases=bases, owners=owners)
        for i, (r, s) in enumerate(zip(recs, stored)):
            version = versions.get(r.id, 0) + 1
            by_table.setdefault(TABLES[r.memory_type], []).append(
                self._record_row(r, s, matrix[i], seqs[i], version, info.model_id)
            )
            history.append((r.id, r.type, version, HistoryEvent.ADD.value, scope_key(r.scope), s.payload, now, s.ref))
            scopes.setdefault(scope_key(r.scope), self._scope_row(r.scope, now))
        for table, rows in by_table.items():
            dialect.executemany(conn, self._insert_record(table), rows)
        dialect.executemany(conn, self._history, history)
        dialect.executemany(conn, self._scope, list(scopes.values()))

    # -- replace / delete ----------------------------------------------------------------------
    def replace(self, record: MemoryRecord, vector: np.ndarray) -> None:
        """Supersede the current record with the same id (its type and scope may change).

        The new version (version + 1) is recorded in history as UPDATE; older versions stay there.
        RecordNotFoundError if no current record has that id.
        """
        (rec,) = check_records([record])
        check_ids([rec.id], "record id")
        row_vector = check_vector(vector)
        payload = record_json(rec)
        with self.db.lock:
            with self.db.tx("replace") as conn:
                found = self._replace_in(conn, rec, row_vector, payload)
                if found is None:
                    raise RecordNotFoundError(f"no record with id {rec.id!r} to replace")
            self.search.removed(found[0], found[1], rec.id)
            self.search.added([rec], row_vector[None, :], [payload])

    def _replace_in(self, conn: Any, rec: MemoryRecord, row_vector: np.ndarray, payload: str) -> tuple[Any, ...] | None:
        """:meth:`replace` inside a transaction: (old type, old scope), None if no current record has the id."""
        p = self.db.dialect.param
        info = self.db.require_info(conn, row_vector.shape[0], [rec.embedding_model])
        found = find_record(self.db, conn, rec.id)
        if found is None:
            return None
        old_type, old_scope, seq, version, _, _ = found
        (stored,) = self.shared.store(conn, [rec], [payload])  # copy-on-write: a changed shared part is a new row
        row = self._record_row(rec, stored, row_vector, seq, version + 1, info.model_id)
        new_table = TABLES[rec.memory_type]
        if old_type != rec.memory_type:
            conn.execute(f"DELETE FROM {TABLES[old_type]} WHERE id = {p}", (rec.id,))
            conn.execute(self._insert_record(new_table), row)
        else:
            columns = RECORD_COLUMNS.split(", ")[1:]
            sets = ", ".join(f"{c} = {m}" for c, m in zip(columns, self._marks[1:]))
            conn.execute(f"UPDATE {new_table} SET {sets} WHERE id = {p}", (*row[1:], rec.id))
        now = self.db.dialect.now()
        conn.execute(
            self._history,
            (rec.id, rec.type, version + 1, HistoryEvent.UPDATE.value, scope_key(rec.scope), stored.payload, now, stored.ref),
        )
        conn.execute(self._scope, self._scope_row(rec.scope, now))
        return old_type, old_scope

    def delete(self, record_id: str) -> bool:
        """Delete one record and the content of every version of it in history; a tombstone (id, type,
        scope, time: a DELETE entry without content) stays, and the dialect's ``after_erase`` runs
        (SQLite: the WAL is checkpointed and truncated). False if it did not exist."""
        check_record_id(record_id)
        with self.db.lock:
            with self.db.tx("delete") as conn:
                found = find_record(self.db, conn, record_id)
                if found is not None:
                    mt, scope, _, version, _, _ = found
                    conn.execute(f"DELETE FROM {TABLES[mt]} WHERE id = {self.db.dialect.param}", (record_id,))
                    self._bury(conn, [(record_id, mt.value, version, scope_key(scope), found[5])])
            if found is None:
                return False
            self.search.removed(mt, scope, record_id)
            self._after_erase()
            return True

    def _after_erase(self) -> None:
        with self.db.read("after_erase") as conn:  # SQLite: the WAL's frames held the content; checkpoint them
            self.db.dialect.after_erase(conn)

    def _bury(self, conn: Any, deleted: Sequence[tuple[str, str, int, str, str | None]]) -> None:
        """Replace the history of each deleted (id, type, last version, scope key, metadata ref) by its tombstone."""
        dialect = self.db.dialect
        refs: list[str | None] = [d[4] for d in deleted]
        for cond, params in dialect.id_chunks("record_id", [d[0] for d in deleted]):
            refs += [r[0] for r in dialect.delete_returning(conn, "history", cond, params, "metadata_ref")]
        now = dialect.now()
        rows = [(rid, mt, version + 1, HistoryEvent.DELETE.value, key, TOMBSTONE, now, None) for rid, mt, version, key, _ in deleted]
        dialect.executemany(conn, self._history, rows)
        self.shared.release(conn, refs)  # the shared metadata no record or version references any more

    def delete_scope(self, scope: Scope) -> int:
        """Delete every record, raw message and scope entry under ``scope`` (wildcards allowed).

        Each deleted record's history becomes its tombstone (as :meth:`delete`). Returns the number
        of records deleted.
        """
        check_scope(scope)
        dialect = self.db.dialect
        where, params = scope_where(scope, dialect.param)
        dropped: dict[MemoryType, set[ScopeTuple]] = {}
        total = 0
        with self.db.lock:
            with self.db.tx("delete_scope") as conn:
                columns = "id, version, scope_key, user_id, agent_id, run_id, metadata_ref"
                for mt, table in TABLES.items():
                    rows = dialect.delete_returning(conn, table, where, params, columns)
                    if not rows:
                        continue
                    self._bury(conn, [(r[0], mt.value, int(r[1]), r[2], r[6]) for r in rows])
                    dropped[mt] = {(r[3], r[4], r[5]) for r in rows}
                    total += len(rows)
                conn.execute(f"DELETE FROM messages WHERE {where}", params)
                conn.execute(f"DELETE FROM scopes WHERE {where}", params)
            for mt, keys in dropped.items():
                self.search.dropped(mt, keys)
            if total:
                self._after_erase()
        return total


__all__ = ["Batch", "RecordWriter", "find_record", "prepare_records"]
