"""Re-embedding: find the vectors another model wrote, rewrite them, switch the recorded model.

:class:`VectorRewriter` implements :class:`~memdesk.store.base.VectorMaintenance` for the SQL
stores (``memdesk reembed`` is :func:`memdesk.store.reembed.reembed_store` over it). A row is *stale*
for an :class:`EmbeddingInfo` when its ``embedding_model`` or its vector's size differs, so a
rewrite that stopped half-way resumes where it stopped. Record rows are re-embedded from their
record's :meth:`embed_text`, collection items from the text stored beside them.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import InvalidInputError, RecordNotFoundError, ReembedError
from ..records import MemoryType
from .base import EmbeddingInfo, Page, VectorTable
from .codec import check_ids, check_limit, check_matrix, check_unique, position_cursor, record_from_json, record_json
from .database import Database, check_info
from .schema import TABLES


class VectorRewriter:
    """The re-embedding seam of one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def _stale(self, info: EmbeddingInfo) -> tuple[str, list[Any]]:
        size, expected = self.db.dialect.vector_size(info)
        p = self.db.dialect.param
        return f"(embedding_model != {p} OR {size} != {p})", [info.model_id, expected]

    def vector_tables(self) -> list[VectorTable]:
        """The memory types that hold records, then the collections that hold items."""
        out: list[VectorTable] = []
        with self.db.read("vector_tables") as conn:
            for mt, table in TABLES.items():
                if conn.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone() is not None:
                    out.append(VectorTable("records", mt.value))
            names = conn.execute("SELECT DISTINCT collection FROM collection_items ORDER BY collection").fetchall()
        return out + [VectorTable("collection", r[0]) for r in names]

    def stale_vectors(self, info: EmbeddingInfo) -> dict[VectorTable, tuple[int, int]]:
        """{table: (rows not written by ``info``, of those the ones without a text to embed)}."""
        info = check_info(info)
        stale, params = self._stale(info)
        out: dict[VectorTable, tuple[int, int]] = {}
        with self.db.read("stale_vectors") as conn:
            for mt, table in TABLES.items():
                row = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {stale}", params).fetchone()
                if row is not None and row[0]:
                    out[VectorTable("records", mt.value)] = (int(row[0]), 0)
            sql = (
                "SELECT collection, COUNT(*), SUM(CASE WHEN embed_text IS NULL THEN 1 ELSE 0 END) "
                f"FROM collection_items WHERE {stale} GROUP BY collection ORDER BY collection"
            )
            for name, n, textless in conn.execute(sql, params).fetchall():
                out[VectorTable("collection", name)] = (int(n), int(textless or 0))
        return out

    def stale_page(
        self, table: VectorTable, info: EmbeddingInfo, *, limit: int = 512, cursor: str | None = None
    ) -> Page[tuple[str, str]]:
        """(id, text to embed) of the rows of ``table`` not written by ``info``, in insertion order.

        ReembedError for a collection item stored without its text (it cannot be re-embedded)."""
        info = check_info(info)
        limit = check_limit(limit)
        after = position_cursor(cursor, "v")
        stale, params = self._stale(info)
        p, pos = self.db.dialect.param, self.db.dialect.position
        with self.db.read("stale_page") as conn:
            if table.kind == "records":
                mt = MemoryType(table.name)
                sql = f"SELECT id, record, seq FROM {TABLES[mt]} WHERE {stale} AND seq > {p} ORDER BY seq LIMIT {p}"
                rows = conn.execute(sql, [*params, after, limit + 1]).fetchall()
                items = [(i, record_from_json(mt, payload).embed_text(), int(seq)) for i, payload, seq in rows]
            else:
                sql = (
                    f"SELECT id, embed_text, {pos} FROM collection_items "
                    f"WHERE collection = {p} AND {stale} AND {pos} > {p} ORDER BY {pos} LIMIT {p}"
                )
                rows = conn.execute(sql, [table.name, *params, after, limit + 1]).fetchall()
                if any(text is None for _, text, _ in rows):
                    raise ReembedError(f"{table} holds items stored without their embedded text", [str(table)])
                items = [(i, text, int(at)) for i, text, at in rows]
        more = len(items) > limit
        items = items[:limit]
        return Page(items=[(i, text) for i, text, _ in items], next_cursor=f"v{items[-1][2]}" if more else None)

    def rewrite_vectors(self, table: VectorTable, ids: Sequence[str], vectors: np.ndarray, info: EmbeddingInfo) -> None:
        """Atomically replace the vectors of ``ids`` in ``table`` with ones made by ``info``.

        No history entry is written (the content did not change); a record's ``embedding_model``
        field, when set, becomes ``info.model_id``. Until :meth:`switch_embedding`, a search of a
        table holding rewritten vectors raises EmbeddingMismatchError.
        """
        info = check_info(info)
        wanted = check_ids(ids)
        check_unique(wanted, "ids")
        if not wanted:
            return
        matrix = check_matrix(vectors, len(wanted))
        if matrix.shape[1] != info.dim:
            raise InvalidInputError(f"vectors have dimension {matrix.shape[1]} but info says {info.dim}")
        d = self.db.dialect
        p = d.param
        with self.db.lock:
            with self.db.tx("rewrite_vectors") as conn:
                current = self.db.read_info(conn)
                if current is not None and current.dim != info.dim:
                    d.set_vector_dim(conn, None)  # vectors of two dimensions side by side until the switch
                d.executemany(  # searches that cannot check every row (in SQL) refuse until the switch
                    conn,
                    f"INSERT INTO meta (key, value) VALUES ({p}, {p}) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    [("reembed_model", info.model_id)],
                )
                if table.kind == "records":
                    mt = MemoryType(table.name)
                    payloads: dict[str, str] = {}
                    for cond, params in d.id_chunks("id", wanted):
                        payloads.update(conn.execute(f"SELECT id, record FROM {TABLES[mt]} WHERE {cond}", params).fetchall())
                    missing = [i for i in wanted if i not in payloads]
                    if missing:
                        raise RecordNotFoundError(f"no {mt.value} record(s) with id {missing[:5]}")
                    rows = []
                    for i, item_id in enumerate(wanted):
                        rec = record_from_json(mt, payloads[item_id])
                        if rec.embedding_model is not None:
                            rec = rec.model_copy(update={"embedding_model": info.model_id})
                        rows.append((d.vector_param(matrix[i]), info.model_id, record_json(rec), item_id))
                    sql = f"UPDATE {TABLES[mt]} SET vector = {d.vector_mark}, embedding_model = {p}, record = {p} WHERE id = {p}"
                    d.executemany(conn, sql, rows)
                else:
                    present: set[str] = set()
                    for cond, params in d.id_chunks("id", wanted):
                        sql = f"SELECT id FROM collection_items WHERE collection = {p} AND {cond}"
                        present.update(r[0] for r in conn.execute(sql, [table.name, *params]))
                    missing = [i for i in wanted if i not in present]
                    if missing:
                        raise RecordNotFoundError(f"no item(s) {missing[:5]} in {table}")
                    d.executemany(
                        conn,
                        f"UPDATE collection_items SET vector = {d.vector_mark}, embedding_model = {p} "
                        f"WHERE collection = {p} AND id = {p}",
                        [(d.vector_param(matrix[i]), info.model_id, table.name, item_id) for i, item_id in enumerate(wanted)],
                    )
            self.db.invalidate()

    def switch_embedding(self, info: EmbeddingInfo) -> None:
        """Record ``info`` once no vector by another model remains; ReembedError naming where some remain."""
        info = check_info(info)
        stale, params = self._stale(info)
        with self.db.lock:
            with self.db.tx("switch_embedding") as conn:
                remaining = []
                for mt, table in TABLES.items():
                    if conn.execute(f"SELECT 1 FROM {table} WHERE {stale} LIMIT 1", params).fetchone() is not None:
                        remaining.append(str(VectorTable("records", mt.value)))
                sql = f"SELECT DISTINCT collection FROM collection_items WHERE {stale} ORDER BY collection"
                remaining += [str(VectorTable("collection", r[0])) for r in conn.execute(sql, params).fetchall()]
                if remaining:
                    raise ReembedError(
                        f"cannot switch the store to {info.model_id!r} (dim {info.dim}): vectors by another model "
                        f"remain in {', '.join(remaining)}; rewrite them first",
                        remaining,
                    )
                self.db.write_info(conn, info)
                conn.execute("DELETE FROM meta WHERE key = 'reembed_model'")
                self.db.dialect.set_vector_dim(conn, info.dim)
            self.db.invalidate()
