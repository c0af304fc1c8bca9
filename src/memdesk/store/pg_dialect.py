"""PostgreSQL's SQL dialect: parameters, JSON access, vectors, upserts, errors, bulk inserts with COPY."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Iterator, Sequence

import numpy as np
import psycopg
from psycopg import errors as pg_errors
from psycopg import sql

from ..errors import InvalidInputError, StoreError, StoreLockedError
from .base import EmbeddingInfo
from .schema import TABLES
from .pg_vectors import PgVector
from .schema import CHUNK
from .pg_copy import copy_rows
from .shared_metadata import SHARED_BODY
from .sql_filter import JsonRef, TextFunctions



log = logging.getLogger(__name__)


def _store_error(e: psycopg.Error, what: str) -> Exception:
    if isinstance(e, pg_errors.LockNotAvailable):
        return StoreLockedError(f"{what}: the database stayed locked past the lock timeout ({e})")
    if isinstance(e, psycopg.DataError) and "NUL" in str(e):
        return InvalidInputError(f"{what}: PostgreSQL text cannot hold NUL characters ({e})")
    if isinstance(e, pg_errors.CharacterNotInRepertoire) and "0x00" in str(e):  # the server's word for it (a COPY)
        return InvalidInputError(f"{what}: PostgreSQL text cannot hold NUL characters ({e})")
    return StoreError(f"{what}: {e}")


def hnsw_indexes(conn: "psycopg.Connection", table: str) -> list[str]:
    """Names of the HNSW indexes on ``table``."""
    rows = conn.execute(
        "SELECT i.relname FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_am a ON a.oid = i.relam "
        "WHERE x.indrelid = %s::regclass AND a.amname = 'hnsw'",
        [table],
    ).fetchall()
    return [r[0] for r in rows]


def set_vector_dim(conn: "psycopg.Connection", dim: int | None) -> None:
    """Make every ``vector`` column ``vector(dim)`` (what an HNSW index needs), or plain ``vector``
    for None (while ``memdesk reembed`` writes vectors of another dimension; HNSW indexes are
    dropped then, and rebuilt afterwards by ``index_large_scopes``)."""
    from psycopg import sql

    wanted = "vector" if dim is None else f"vector({int(dim)})"
    for table in (*TABLES.values(), "collection_items"):
        row = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'vector'",
            [table],
        ).fetchone()
        if row is not None and row[0] != wanted:
            if dim is None:
                for index in hnsw_indexes(conn, table):
                    conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(index)))
            conn.execute(f"ALTER TABLE {table} ALTER COLUMN vector TYPE {wanted}")


class PostgresDialect:
    """PostgreSQL's side of :class:`~memdesk.store.dialect.Dialect` (psycopg 3, pgvector)."""

    param = "%s"
    vector_mark = "%b"
    time_mark = "%s::timestamptz"
    position = "pos"
    load_page = 5000
    db_error = psycopg.Error

    json_kinds = {"string": ("string",), "number": ("number",), "bool": ("boolean",), "null": ("null",)}
    text_functions = TextFunctions("strpos({0}, {1})", "octet_length(convert_to({0}, 'UTF8'))", "char_length({0})",
                                   "translate({0}, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')", '({0}) COLLATE "C"')  # fmt: skip

    def __init__(self) -> None:
        self._column_types: dict[str, dict[str, int]] = {}  # bulk_insert's COPY sends each column as its type

    def json_field(self, field: str) -> str:
        return f"(j ->> '{field}')"  # j: the row's record as jsonb, parsed once (json_guard)

    def json_metadata(self, key: str, *, shared: bool = False) -> JsonRef:
        if not shared:
            value = "(j -> 'metadata' -> %s::text)"
            return JsonRef(f"jsonb_typeof{value}", "(j -> 'metadata' ->> %s::text)", f"({value})::numeric",
                           (key,), "%s", self.json_kinds, self.text_functions)  # fmt: skip
        value = "COALESCE(j -> 'metadata' -> %s::text, m -> %s::text)"  # own keys, else shared (:mod:`.shared_metadata`)
        return JsonRef(f"jsonb_typeof({value})", "COALESCE(j -> 'metadata' ->> %s::text, m ->> %s::text)", f"({value})::numeric",
                       (key, key), "%s", self.json_kinds, self.text_functions)  # fmt: skip

    def json_guard(self, condition: str, params: list[Any], *, shared: bool = False) -> tuple[str, list[Any]]:
        """Rows whose JSON holds ``\\u0000`` (which ``jsonb`` refuses) are not ruled out: the Python check decides.
        Others are parsed once as ``j`` (``OFFSET 0`` keeps the planner from inlining one parse per use)."""
        m = f", ({SHARED_BODY})::jsonb AS m" if shared else ""  # the row's shared metadata (:mod:`.shared_metadata`)
        j = f"(SELECT {condition} FROM (SELECT record::jsonb AS j{m} OFFSET 0) AS parsed)"
        # (shared metadata never holds \u0000: :mod:`.shared_metadata` keeps such metadata in the record)
        return f"CASE WHEN strpos(record, %s) > 0 THEN TRUE ELSE {j} END", ["\\u0000", *params]

    def store_error(self, e: Exception, what: str) -> Exception:
        return _store_error(e, what)

    @contextmanager
    def write_transaction(self, conn: psycopg.Connection[Any], what: str) -> Iterator[int]:
        """One transaction that first increments ``changes.counter``: the row lock every writer
        queues on (what ``BEGIN IMMEDIATE`` does on SQLite). Yields the counter it set."""
        try:
            with conn.transaction():
                row = conn.execute(
                    "UPDATE changes SET counter = counter + 1, last_xact = txid_current() RETURNING counter"
                ).fetchone()
                yield int(row[0]) if row is not None else -1
        except psycopg.Error as e:
            raise _store_error(e, what) from e

    def read_version(self, conn: psycopg.Connection[Any]) -> int:
        row = conn.execute("SELECT counter FROM changes").fetchone()
        if row is None:
            raise StoreError("the changes row is missing: the memdesk schema was altered by hand")
        return int(row[0])

    def now(self) -> datetime:
        return datetime.now(timezone.utc)

    def time_from_db(self, value: datetime) -> datetime:
        return value

    def vector_param(self, vector: np.ndarray) -> PgVector:
        return PgVector(vector)

    def vector_cursor(self, conn: psycopg.Connection[Any]) -> psycopg.Cursor[Any]:
        return conn.cursor(binary=True)

    def executemany(self, conn: psycopg.Connection[Any], query: str, rows: Sequence[Sequence[Any]]) -> None:
        conn.cursor().executemany(query, rows)

    def bulk_insert(self, conn: psycopg.Connection[Any], table: str, columns: str, rows: Sequence[Sequence[Any]]) -> None:
        copy_rows(conn, table, columns, rows, self._column_types)

    def id_chunks(self, column: str, ids: Sequence[str], size: int = CHUNK) -> Iterator[tuple[str, list[Any]]]:
        if ids:  # one array parameter, however many ids
            yield f"{column} = ANY(%s::text[])", [list(ids)]

    def next_seqs(self, conn: psycopg.Connection[Any], n: int) -> list[int]:
        return [int(r[0]) for r in conn.execute("SELECT nextval('record_seq') FROM generate_series(1, %s)", [n])]

    def delete_returning(
        self, conn: psycopg.Connection[Any], table: str, where: str, params: list[Any], columns: str
    ) -> list[Any]:
        return conn.execute(f"DELETE FROM {table} WHERE {where} RETURNING {columns}", params).fetchall()

    def set_vector_dim(self, conn: psycopg.Connection[Any], dim: int | None) -> None:
        set_vector_dim(conn, dim)

    def vector_size(self, info: EmbeddingInfo) -> tuple[str, int]:
        return "vector_dims(vector)", info.dim

    def vacuum(self, conn: psycopg.Connection[Any]) -> None:
        """``VACUUM FULL`` of every table in memdesk's schema: each is rewritten into new files, so dead row
        versions (deleted or forgotten text) are gone from disk. It locks each table while it runs."""
        tables = conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY 1").fetchall()
        for (table,) in tables:
            conn.execute(sql.SQL("VACUUM FULL {}").format(sql.Identifier(table)))

    def after_erase(self, conn: psycopg.Connection[Any]) -> None:
        """Nothing: the deleted row versions stay in the table files until :meth:`vacuum` rewrites them
        (the operator runs ``memdesk vacuum`` after a forget; a ``VACUUM FULL`` takes each table's lock)."""
