"""Collection search in SQL with pgvector (a reasoning bank's examples): one query per search, ``ORDER BY
vector <#> q, id LIMIT k`` under the collection's name; a collection of ``hnsw_min_rows`` items or more gets
a partial HNSW index of its own, as a large scope does (:mod:`.pg_search`)."""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from .database import Database
from .pg_search import EF_SEARCH, HNSW_MIN_ROWS, check_not_rewriting, create_hnsw, index_name


class PgCollectionSearch:
    """Collection search in SQL; a collection of ``hnsw_min_rows`` items or more gets a partial HNSW index."""

    def __init__(self, db: Database, hnsw_min_rows: int = HNSW_MIN_ROWS) -> None:
        self.db = db
        self.hnsw_min_rows = hnsw_min_rows

    def search(self, conn: Any, name: str, query: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        info = self.db.known_info
        if info is not None:
            check_not_rewriting(self.db, conn, info)
        d = self.db.dialect
        q = d.vector_param(query)
        indexed = conn.execute("SELECT to_regclass(%s) IS NOT NULL", [index_name("collection_items", name)]).fetchone()[0]
        ties = "" if indexed else ", id"  # the HNSW scan orders by distance alone (see PgRecordSearch._sql)
        with conn.transaction():
            conn.execute(f"SET LOCAL hnsw.ef_search = {EF_SEARCH}")
            rows = conn.execute(
                f"SELECT id, payload, (vector <#> {d.vector_mark}) * -1 FROM collection_items WHERE collection = %s "
                f"ORDER BY vector <#> {d.vector_mark}{ties} LIMIT %s",
                [q, name, q, k],
            ).fetchall()
        return [(i, payload, float(s)) for i, payload, s in rows]

    def rows(self, name: str) -> Iterator[tuple[str, str, bytes]]:
        cur = self.db.dialect.vector_cursor(self.db.connection())
        sql = "SELECT id, payload, vector, embedding_model FROM collection_items WHERE collection = %s ORDER BY pos"
        for item_id, payload, blob, model in cur.execute(sql, (name,)):
            self.db.check_row_model(model, blob)
            yield item_id, payload, blob

    def put(self, name: str, ids: Sequence[str], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        if len(ids) and self.hnsw_min_rows:
            with self.db.read("collection index") as conn:
                n = conn.execute("SELECT COUNT(*) FROM collection_items WHERE collection = %s", [name]).fetchone()[0]
                index = index_name("collection_items", name)
                if n >= self.hnsw_min_rows and conn.execute("SELECT to_regclass(%s)", [index]).fetchone()[0] is None:
                    create_hnsw(conn, index, "collection_items", "collection", name)
                    conn.execute("ANALYZE collection_items")

    def deleted(self, name: str, ids: Sequence[str] | None) -> None:
        return None


__all__ = ["PgCollectionSearch"]
