"""Many new rows into one PostgreSQL table with ``COPY ... FROM STDIN (FORMAT BINARY)``: one statement, so
the statement triggers (``changes``, ``change_log``) fire once and no row costs a round trip.

The values are the ones an ``INSERT`` of the shared SQL store binds (:mod:`.record_writes`, :mod:`.portable`):
text, integers, :class:`~.pg_vectors.PgVector` (bit-exact binary) and, for ``timestamptz`` columns, aware
datetimes or the ISO-8601 strings the ``%s::timestamptz`` mark casts (parsed here: binary COPY has no cast).
Each column is sent as the type the table declares (read from the catalog), so an ``int`` goes to an
``integer`` column as 4 bytes and to a ``bigint`` one as 8.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Sequence

import psycopg

TIMESTAMPTZ_OID = 1184


def column_types(conn: psycopg.Connection[Any], table: str) -> dict[str, int]:
    """{column name: type oid} of ``table`` (resolved on the connection's search path)."""
    rows = conn.execute(
        "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped",
        [table],
    ).fetchall()
    return {str(name): int(oid) for name, oid in rows}


def copy_rows(
    conn: psycopg.Connection[Any], table: str, columns: str, rows: Sequence[Sequence[Any]], known: dict[str, dict[str, int]]
) -> None:
    """``COPY table (columns) FROM STDIN`` in binary, inside the caller's transaction. ``known``: the column
    types read so far, by table (the caller's cache: read again when a column is missing from it)."""
    if not rows:
        return
    names = [c.strip().strip('"') for c in columns.split(",")]
    types = known.get(table, {})
    if any(n not in types for n in names):
        types = known[table] = column_types(conn, table)
    oids = [types[n] for n in names]
    times = [i for i, oid in enumerate(oids) if oid == TIMESTAMPTZ_OID]
    with conn.cursor().copy(f"COPY {table} ({columns}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types(oids)
        for row in rows:
            if times:
                row = list(row)
                for i in times:
                    if isinstance(row[i], str):
                        row[i] = datetime.fromisoformat(row[i])
            copy.write_row(row)


__all__ = ["column_types", "copy_rows"]
