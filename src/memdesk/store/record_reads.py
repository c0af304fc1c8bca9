"""Reading records: by id, their vectors, keyset pages under a scope, counts, history, ``has_scope``."""

from __future__ import annotations

import json
from typing import Any, Sequence

import numpy as np

from ..filters import RecordFilter
from ..errors import InvalidInputError, RecordNotFoundError
from ..records import ALL_TYPES, HistoryEntry, HistoryEvent, MemoryRecord, MemoryType, Scope
from .base import DEFAULT_PAGE, Page
from .codec import (
    check_ids,
    check_limit,
    check_memory_type,
    check_record_id,
    check_scope,
    check_speaker,
    decode_matrix,
    position_cursor,
    record_from_json,
    scope_from_tuple,
)
from .database import Database
from .record_writes import find_record
from .schema import TABLES, scope_where
from .shared_metadata import whole
from .sql_filter import filter_sql


def record_cursor(cursor: Any, types: Sequence[MemoryType]) -> tuple[int, int]:
    """(position in ``types``, last seq) a record cursor names; InvalidInputError for anything else."""
    if cursor is None:
        return 0, 0
    if isinstance(cursor, str) and ":" in cursor:
        name, _, seq = cursor.partition(":")
        for i, t in enumerate(types):
            if t.value == name and seq.isdigit():
                return i, int(seq)
    raise InvalidInputError(f"invalid cursor {cursor!r} for these types: pass back a next_cursor unchanged")


class RecordReader:
    """The record tables' reads, for one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def get(self, record_id: str) -> MemoryRecord | None:
        """The current record with that id, or None."""
        check_record_id(record_id)
        with self.db.read("get") as conn:
            found = find_record(self.db, conn, record_id)
        return None if found is None else record_from_json(found[0], found[4])

    def get_vectors(self, memory_type: MemoryType, ids: Sequence[str]) -> np.ndarray:
        """The stored float32 vectors of ``ids`` (in that order), bit-exact; RecordNotFoundError for a missing id."""
        mt = check_memory_type(memory_type)
        wanted = check_ids(ids)
        table = TABLES[mt]
        dialect = self.db.dialect
        with self.db.read("get_vectors") as conn:
            info = self.db.read_info(conn)
            dim = info.dim if info is not None else 0
            if not wanted:
                return np.zeros((0, dim), dtype=np.float32)
            unique = list(dict.fromkeys(wanted))
            cur = dialect.vector_cursor(conn)
            blobs: dict[str, bytes] = {}
            for cond, params in dialect.id_chunks("id", unique):
                blobs.update((r[0], r[1]) for r in cur.execute(f"SELECT id, vector FROM {table} WHERE {cond}", params))
        missing = [i for i in unique if i not in blobs]
        if missing:
            raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
        return decode_matrix([blobs[i] for i in wanted], dim)

    def page(
        self,
        scope: Scope,
        *,
        types: Sequence[MemoryType] | None = None,
        speaker: str | None = None,
        limit: int = DEFAULT_PAGE,
        cursor: str | None = None,
        where: RecordFilter | None = None,
    ) -> Page[MemoryRecord]:
        """Current records under ``scope`` (wildcards allowed), by type in ``types``' order (default
        episodic, semantic, procedural), then insertion order; up to ``limit`` after ``cursor``.

        Keyset pagination: each type is read from the position the cursor names (an index range on
        an exact scope), so a page costs the same however deep it is. With ``where``, the part of it
        SQL can say (:func:`.sql_filter.filter_sql`) narrows the rows read, then
        :meth:`RecordFilter.matches` keeps those it keeps: a page reads up to ``limit`` rows and may hold
        fewer records; ``next_cursor`` is None only at the end of the listing.
        """
        check_scope(scope)
        if where is not None and not isinstance(where, RecordFilter):
            raise InvalidInputError(f"where must be a RecordFilter, not {type(where).__name__}")
        wanted = ALL_TYPES if not types else tuple(dict.fromkeys(check_memory_type(t) for t in types))
        check_speaker(speaker)
        limit = check_limit(limit)
        start, after = record_cursor(cursor, wanted)
        p = self.db.dialect.param
        cond, params = scope_where(scope, p)
        if speaker is not None:
            cond, params = f"{cond} AND speaker = {p}", [*params, speaker]
        narrowed = None if where is None else filter_sql(where, self.db.dialect)
        if narrowed is not None:
            cond, params = f"{cond} AND ({narrowed.sql})", [*params, *narrowed.params]
        found: list[tuple[MemoryType, str, int]] = []
        with self.db.read("page") as conn:
            refs: list[str | None] = []
            for mt in wanted[start:]:
                sql = f"SELECT record, metadata_ref, seq FROM {TABLES[mt]} WHERE {cond} AND seq > {p} ORDER BY seq LIMIT {p}"
                rows = conn.execute(sql, [*params, after, limit + 1 - len(found)]).fetchall()
                found += [(mt, payload, int(seq)) for payload, _, seq in rows]
                refs += [ref for _, ref, _ in rows]
                after = 0
                if len(found) > limit:
                    break
            more = len(found) > limit
            found, refs = found[:limit], refs[:limit]
            payloads = whole(conn, self.db.dialect, [(payload, ref) for (_, payload, _), ref in zip(found, refs)])
        found = [(mt, payload, seq) for (mt, _, seq), payload in zip(found, payloads)]
        next_cursor = f"{found[-1][0].value}:{found[-1][2]}" if more else None
        items = [record_from_json(mt, payload) for mt, payload, _ in found]
        if where is not None:
            items = [r for r in items if where.matches(r)]
        return Page(items=items, next_cursor=next_cursor)

    def count(self, scope: Scope | None = None, memory_type: MemoryType | None = None) -> int:
        """Current records under ``scope`` (all if None) of one type (all if None)."""
        if scope is not None:
            check_scope(scope)
        types = ALL_TYPES if memory_type is None else (check_memory_type(memory_type),)
        where, params = scope_where(scope, self.db.dialect.param)
        sql = " + ".join(f"(SELECT COUNT(*) FROM {TABLES[mt]} WHERE {where})" for mt in types)
        with self.db.read("count") as conn:
            row = conn.execute(f"SELECT {sql}", params * len(types)).fetchone()
        return int(row[0]) if row is not None else 0

    def has_scope(self, scope: Scope) -> bool:
        """True if an exact scope under ``scope`` has records or raw messages: one probe of the
        ``scopes`` primary key for an exact scope, one index range for a partial one."""
        check_scope(scope)
        where, params = scope_where(scope, self.db.dialect.param)
        with self.db.read("has_scope") as conn:
            return conn.execute(f"SELECT 1 FROM scopes WHERE {where} LIMIT 1", params).fetchone() is not None

    def scope_page(
        self, within: Scope | None = None, *, limit: int = DEFAULT_PAGE, cursor: str | None = None
    ) -> Page[Scope]:
        """Exact scopes (under ``within`` if given: an index range) in the order first written, by keyset."""
        if within is not None:
            check_scope(within)
        limit = check_limit(limit)
        after = position_cursor(cursor, "s")
        p, pos = self.db.dialect.param, self.db.dialect.position
        where, params = scope_where(within, p)
        sql = f"SELECT user_id, agent_id, run_id, {pos} FROM scopes WHERE {where} AND {pos} > {p} ORDER BY {pos} LIMIT {p}"
        with self.db.read("scope_page") as conn:
            rows = conn.execute(sql, [*params, after, limit + 1]).fetchall()
        more = len(rows) > limit
        rows = rows[:limit]
        return Page(
            items=[scope_from_tuple((r[0], r[1], r[2])) for r in rows], next_cursor=f"s{rows[-1][3]}" if more else None
        )

    def history(self, record_id: str) -> list[HistoryEntry]:
        """All versions of a record, oldest first (ADD, UPDATE...; a deleted record's is its DELETE
        tombstone alone, without content); [] for an unknown id."""
        check_record_id(record_id)
        with self.db.read("history") as conn:
            rows = conn.execute(
                "SELECT version, event, memory_type, scope_key, record, changed_at, metadata_ref FROM history "
                f"WHERE record_id = {self.db.dialect.param} ORDER BY hid",
                (record_id,),
            ).fetchall()
            payloads = whole(conn, self.db.dialect, [(r[4], r[6]) for r in rows])
        rows = [(*r[:4], payload, r[5]) for r, payload in zip(rows, payloads)]
        return [
            HistoryEntry(
                record_id=record_id,
                version=version,
                event=HistoryEvent(event),
                memory_type=MemoryType(mt),
                scope=scope_from_tuple(tuple(json.loads(key))),
                record=None if event == HistoryEvent.DELETE.value else record_from_json(mt, payload),
                changed_at=self.db.dialect.time_from_db(at),
            )
            for version, event, mt, key, payload, at in rows
        ]


__all__ = ["RecordReader", "record_cursor"]
