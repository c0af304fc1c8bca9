"""SQLite's SQL dialect: parameters, JSON access, vectors, upserts, errors, bulk inserts."""

from __future__ import annotations

import logging
import re
import sqlite3
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

import numpy as np

from ..errors import StoreError, StoreLockedError
from .base import EmbeddingInfo
from .codec import encode_vector, parse_time, utc_now_iso
from .schema import CHUNK, TABLES
from .shared_metadata import SHARED_BODY
from .sql_filter import JsonRef, TextFunctions



SAFE_JSON_KEY = re.compile(r"[A-Za-z0-9_ .:@/+-]+")

log = logging.getLogger(__name__)


def _is_locked(e: sqlite3.Error) -> bool:
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    text = str(e).lower()
    return "locked" in text or "busy" in text


class SQLiteDialect:
    """SQLite's side of :class:`~memdesk.store.dialect.Dialect`."""

    param = "?"
    vector_mark = "?"
    time_mark = "?"
    position = "rowid"
    load_page = None
    db_error = sqlite3.Error

    json_kinds = {"string": ("text",), "number": ("integer", "real"), "bool": ("true", "false"), "null": ("null",)}
    text_functions = TextFunctions("instr({0}, {1})", "length(CAST({0} AS BLOB))", "length({0})", "lower({0})", "{0}")

    def json_field(self, field: str) -> str:
        return f"json_extract(record, '$.{field}')"

    def json_metadata(self, key: str, *, shared: bool = False) -> JsonRef | None:
        """The JSON path is a parameter, built only from keys of :data:`SAFE_JSON_KEY`'s alphabet (no quotes)."""
        if not SAFE_JSON_KEY.fullmatch(key):
            return None
        own = f'$.metadata."{key}"'
        if not shared:
            return JsonRef("json_type(record, ?)", "json_extract(record, ?)", "json_extract(record, ?)", (own,), "?",
                           self.json_kinds, self.text_functions)  # fmt: skip
        m = SHARED_BODY  # the record's own keys, else its shared ones (:mod:`.shared_metadata`)
        return JsonRef(f"COALESCE(json_type(record, ?), json_type({m}, ?))", f"COALESCE(json_extract(record, ?), json_extract({m}, ?))",
                       f"COALESCE(json_extract(record, ?), json_extract({m}, ?))", (own, f'$."{key}"'), "?",
                       self.json_kinds, self.text_functions)  # fmt: skip

    def json_guard(self, condition: str, params: list[Any], *, shared: bool = False) -> tuple[str, list[Any]]:
        """Rows whose JSON holds ``\\u0000`` are not ruled out: ``json_extract`` cuts such a string at the NUL."""
        # (shared metadata never holds \u0000: :mod:`.shared_metadata` keeps such metadata in the record)
        return f"CASE WHEN instr(record, ?) > 0 THEN TRUE ELSE ({condition}) END", ["\\u0000", *params]

    def store_error(self, e: Exception, what: str) -> StoreError:
        if isinstance(e, sqlite3.Error) and _is_locked(e):
            return StoreLockedError(f"{what}: the database stayed locked past the busy timeout ({e})")
        return StoreError(f"{what}: {e}")

    @contextmanager
    def write_transaction(self, conn: sqlite3.Connection, what: str) -> Iterator[None]:
        """One ``BEGIN IMMEDIATE`` transaction: committed on success, rolled back on any error.
        SQLite moves ``data_version`` itself, so it yields None."""
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise self.store_error(e, what) from e
        try:
            yield None
        except BaseException as e:
            self._rollback(conn)
            if isinstance(e, sqlite3.Error):
                raise self.store_error(e, what) from e
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as e:
            self._rollback(conn)
            raise self.store_error(e, what) from e

    @staticmethod
    def _rollback(conn: sqlite3.Connection) -> None:
        if conn.in_transaction:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:  # pragma: no cover - nothing more to do
                log.exception("rollback failed")

    def read_version(self, conn: sqlite3.Connection) -> int:
        return int(conn.execute("PRAGMA data_version").fetchone()[0])

    def now(self) -> str:
        return utc_now_iso()

    def time_from_db(self, value: str) -> Any:
        return parse_time(value)

    def vector_param(self, vector: np.ndarray) -> bytes:
        return encode_vector(vector)

    def vector_cursor(self, conn: sqlite3.Connection) -> sqlite3.Connection:
        return conn

    def executemany(self, conn: sqlite3.Connection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        conn.executemany(sql, rows)

    def bulk_insert(self, conn: sqlite3.Connection, table: str, columns: str, rows: Sequence[Sequence[Any]]) -> None:
        """One prepared ``INSERT`` run over every row (inside the caller's transaction)."""
        if rows:
            conn.executemany(f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(rows[0]))})", rows)

    def id_chunks(self, column: str, ids: Sequence[str], size: int = CHUNK) -> Iterator[tuple[str, list[Any]]]:
        for start in range(0, len(ids), size):
            chunk = list(ids[start : start + size])
            yield f"{column} IN ({','.join('?' * len(chunk))})", chunk

    def next_seqs(self, conn: sqlite3.Connection, n: int) -> list[int]:
        sql = "SELECT MAX(s) FROM (" + " UNION ALL ".join(f"SELECT MAX(seq) AS s FROM {t}" for t in TABLES.values()) + ")"
        value = conn.execute(sql).fetchone()[0]
        first = 1 if value is None else int(value) + 1
        return list(range(first, first + n))

    def delete_returning(self, conn: sqlite3.Connection, table: str, where: str, params: list[Any], columns: str) -> list[Any]:
        rows = conn.execute(f"SELECT {columns} FROM {table} WHERE {where}", params).fetchall()
        if rows:
            conn.execute(f"DELETE FROM {table} WHERE {where}", params)
        return rows

    def set_vector_dim(self, conn: sqlite3.Connection, dim: int | None) -> None:
        return None  # blobs: any size

    def vector_size(self, info: EmbeddingInfo) -> tuple[str, int]:
        return "length(vector)", info.dim * 4

    def vacuum(self, conn: sqlite3.Connection) -> None:
        """``VACUUM`` rebuilds every page (free pages and the slack in used ones, which a database written
        before ``secure_delete`` was on may hold deleted text in, are gone), then the WAL that carried the
        rebuild is checkpointed and truncated."""
        conn.execute("VACUUM")
        self.after_erase(conn)

    def after_erase(self, conn: sqlite3.Connection) -> None:
        """Copy the WAL (whose frames still hold the deleted rows) into the file and truncate it to zero
        bytes. The deleted cells and freed pages were zeroed as they were deleted (``secure_delete``)."""
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            log.warning("erasure: another connection is reading; the WAL is truncated at its next checkpoint")
