"""The raw message log: every message ever added, routed or not, in log order.

It is written only inside the one write transaction of :meth:`~memdesk.store.sqlstore.SQLStore.write`
(:meth:`MessageTable.insert`, :meth:`MessageTable.already_logged`, :meth:`MessageTable.claim`) and read in
keyset pages. A message is logged *pending* when processing it failed (or was deferred); the write
that stores its records claims it, once.
"""

from __future__ import annotations

from typing import Any

from ..records import RawMessage, Scope
from .base import DEFAULT_PAGE, Page
from .codec import (
    MESSAGE_COLUMNS,
    check_k,
    check_limit,
    check_scope,
    message_from_row,
    position_cursor,
    scope_from_tuple,
    scope_key,
)
from .database import Database
from .schema import MESSAGE_READ_COLUMNS, insert_scope, marks, scope_where


class MessageTable:
    """The ``messages`` table of one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- writing (inside the caller's transaction) ---------------------------------------------
    def insert(self, conn: Any, rows: list[tuple[Any, ...]]) -> None:
        """Log message rows (:func:`~memdesk.store.codec.message_rows`); ids already logged in their scope are no-ops."""
        p = self.db.dialect.param
        now = self.db.dialect.now()
        self.db.dialect.executemany(
            conn,
            f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES ({marks(p, 14)}) ON CONFLICT (scope_key, id) DO NOTHING",
            rows,
        )
        scopes = {r[0]: (r[0], r[1], r[2], r[3], now) for r in rows}
        self.db.dialect.executemany(conn, insert_scope(p), list(scopes.values()))

    def already_logged(self, conn: Any, rows: list[tuple[Any, ...]]) -> list[str]:
        """Ids of the message rows whose (scope, id) is logged already."""
        p = self.db.dialect.param
        sql = f"SELECT 1 FROM messages WHERE scope_key = {p} AND id = {p} LIMIT 1"
        return [r[4] for r in rows if conn.execute(sql, (r[0], r[4])).fetchone() is not None]

    def claim(self, conn: Any, row: tuple[Any, ...]) -> bool:
        """Mark the logged, pending message of a processed ``row`` as processed (its route mask); False
        if it is not pending (any more). Inside the serialized write transaction, so of two writers that
        processed the same pending message exactly one claims it."""
        p = self.db.dialect.param
        sql = f"UPDATE messages SET route_mask = {p}, pending = 0 WHERE scope_key = {p} AND id = {p} AND pending = 1"
        return int(conn.execute(sql, (row[10], row[0], row[4])).rowcount) == 1

    # -- reading -------------------------------------------------------------------------------
    def page(self, scope: Scope, *, limit: int = DEFAULT_PAGE, cursor: str | None = None) -> Page[RawMessage]:
        """Logged messages under ``scope`` (wildcards allowed) in log order, ``seq`` filled in, up to
        ``limit`` after ``cursor``."""
        check_scope(scope)
        limit = check_limit(limit)
        after = position_cursor(cursor, "m")
        p = self.db.dialect.param
        where, params = scope_where(scope, p)
        sql = f"SELECT {MESSAGE_READ_COLUMNS} FROM messages WHERE {where} AND seq > {p} ORDER BY seq LIMIT {p}"
        with self.db.read("messages") as conn:
            rows = conn.execute(sql, [*params, after, limit + 1]).fetchall()
        items = [message_from_row(row) for row in rows[:limit]]
        more = len(rows) > limit
        return Page(items=items, next_cursor=f"m{items[-1].seq}" if more else None)

    def recent(self, scope: Scope, n: int) -> list[RawMessage]:
        """The last ``n`` messages under ``scope``, oldest first."""
        check_scope(scope)
        n = check_k(n)
        if n == 0:
            return []
        p = self.db.dialect.param
        where, params = scope_where(scope, p)
        sql = f"SELECT {MESSAGE_READ_COLUMNS} FROM messages WHERE {where} ORDER BY seq DESC LIMIT {p}"
        with self.db.read("messages") as conn:
            rows = conn.execute(sql, [*params, n]).fetchall()[::-1]
        return [message_from_row(row) for row in rows]

    def pending(self, scope: Scope) -> list[RawMessage]:
        """The pending messages under ``scope`` (wildcards allowed), in log order."""
        check_scope(scope)
        p = self.db.dialect.param
        where, params = scope_where(scope, p)
        sql = f"SELECT {MESSAGE_READ_COLUMNS} FROM messages WHERE pending = 1 AND {where} ORDER BY seq"
        with self.db.read("pending_messages") as conn:
            return [message_from_row(row) for row in conn.execute(sql, params).fetchall()]

    def pending_scopes(self) -> list[Scope]:
        """Every scope with pending messages, the one whose first pending message is oldest first."""
        sql = "SELECT user_id, agent_id, run_id, MIN(seq) FROM messages WHERE pending = 1 GROUP BY user_id, agent_id, run_id"
        with self.db.read("pending_scopes") as conn:
            rows = conn.execute(sql).fetchall()
        return [scope_from_tuple(tuple(row[:3])) for row in sorted(rows, key=lambda row: row[3])]

    def has(self, scope: Scope, message_id: str) -> bool:
        """True if a message with that id is logged under exactly ``scope`` (the scope a write would log it
        under: a message id logged under one of ana's agents does not make ``Scope(user_id="ana")`` skip it)."""
        check_scope(scope)
        p = self.db.dialect.param
        with self.db.read("has_message") as conn:
            sql = f"SELECT 1 FROM messages WHERE scope_key = {p} AND id = {p} LIMIT 1"
            row = conn.execute(sql, (scope_key(scope), message_id)).fetchone()
        return row is not None
