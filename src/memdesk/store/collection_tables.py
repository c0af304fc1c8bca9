"""Named collections: vector collections (``collection_items``) and vector-free document sets (``documents``).

A :class:`SQLVectorCollection` is a handle on the items of one name: (id, payload JSON, vector,
the text the vector embeds), searched by the same exact cosine code as memory records through a
cache shared by every handle of the store (:class:`CollectionCache`). A :class:`SQLDocumentSet`
holds (id, payload JSON) items that need no vector, such as a reasoning bank's manifest and its
rejected items. Both are upserts: putting an existing id replaces its payload (and vector) and
keeps its place in insertion order.
"""

from __future__ import annotations

from typing import Any, Iterator, Protocol, Sequence

import numpy as np

from ..errors import InvalidInputError
from .codec import check_ids, check_json, check_k, check_matrix, check_name, check_unique, decode_matrix
from .database import Changes, Database
from .ann_scopes import LargeScopes
from .search_cache import query_vector
from .index_cache import IndexCache
from .vector_index import IndexBuilder, VectorIndex, search_indexes

_KEY = ""  # a collection is one index: one scope key


def _graph_namespace(name: str) -> str:
    """Where a collection's HNSW graph is kept (apart from the memory types' namespaces)."""
    return f"collection\x00{name}"


def _check_payloads(payloads: Any, n: int) -> list[str]:
    if isinstance(payloads, (str, bytes)) or not isinstance(payloads, Sequence) or len(payloads) != n:
        raise InvalidInputError("payloads must be a sequence of JSON strings, one per id")
    return [check_json(p) for p in payloads]


def _check_texts(texts: Any, n: int) -> list[str | None]:
    if texts is None:
        return [None] * n
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Sequence) or len(texts) != n:
        raise InvalidInputError("texts must be a sequence of strings, one per id")
    for t in texts:
        if not isinstance(t, str):
            raise InvalidInputError(f"every text must be a string, got {type(t).__name__}")
    return list(texts)


class CollectionSearch(Protocol):
    """How a store searches its vector collections, told about each committed change."""

    def search(self, conn: Any, name: str, query: np.ndarray, k: int) -> list[tuple[str, str, float]]: ...

    def rows(self, name: str) -> Iterator[tuple[str, str, bytes]]: ...

    def put(self, name: str, ids: Sequence[str], matrix: np.ndarray, payloads: Sequence[str]) -> None: ...

    def deleted(self, name: str, ids: Sequence[str] | None) -> None: ...


class CollectionCache:
    """The in-process vectors of every vector collection of one database (one index per name)."""

    def __init__(self, db: Database, *, ann: LargeScopes | None = None, files: LargeScopes | None = None) -> None:
        self.db = db
        self.cache: IndexCache[str] = IndexCache(self._load)
        #: HNSW graphs for large collections, shared with the record search (None: exact only)
        self.ann = ann
        self.files = files if files is not None else ann  # whose graph files a delete erases
        db.on_change(self._changed)

    def _changed(self, changes: Changes | None) -> None:
        if changes is None:
            self.cache.clear()
            if self.ann is not None:
                self.ann.clear()
        else:
            for name in changes.collections:
                self.cache.forget([name], [_KEY])

    def rows(self, name: str) -> Iterator[tuple[str, str, bytes]]:
        """(id, payload, vector bytes) of every item of ``name`` in insertion order, vectors checked
        against the recorded model."""
        cur = self.db.dialect.vector_cursor(self.db.connection())
        sql = (
            "SELECT id, payload, vector, embedding_model FROM collection_items "
            f"WHERE collection = {self.db.dialect.param} ORDER BY {self.db.dialect.position}"
        )
        for item_id, payload, blob, model in cur.execute(sql, (name,)):
            self.db.check_row_model(model, blob)
            yield item_id, payload, blob

    # -- what SQLVectorCollection calls ----------------------------------------------------------
    def search(self, conn: Any, name: str, query: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        indexes = self.cache.indexes(name, [_KEY], query.shape[0])
        info = self.db.known_info
        if self.ann is not None and info is not None:
            self.ann.attach(
                _graph_namespace(name), [_KEY], indexes, info.model_id,
                sync=lambda: self.db.sync(conn),
                still_loaded=lambda key: self.cache.loaded(name, _KEY) is not None,
            )  # fmt: skip
        return [(h.id, h.payload, h.score) for h in search_indexes(indexes, query, k)]

    def put(self, name: str, ids: Sequence[str], matrix: np.ndarray, payloads: Sequence[str]) -> None:
        for n, (i, body) in enumerate(zip(ids, payloads)):
            self.cache.upsert(name, _KEY, i, matrix[n], body)

    def deleted(self, name: str, ids: Sequence[str] | None) -> None:
        if ids is None:
            self.cache.forget([name], [_KEY])
            if self.files is not None:
                self.files.erase(_graph_namespace(name), [_KEY])
        else:
            for i in ids:
                self.cache.remove(name, _KEY, i)

    def _load(self, name: str, keys: Sequence[str]) -> dict[str, VectorIndex]:
        info = self.db.known_info
        if info is None:
            return {}
        builder = IndexBuilder(info.dim, _count(self.db, "collection_items", name, locked=True))
        for item_id, payload, blob in self.rows(name):
            builder.add(item_id, payload, None, blob)
        return {_KEY: builder.build()}


class SQLVectorCollection:
    """The vector collection ``name`` of one database (see :class:`~memdesk.store.base.VectorCollection`)."""

    def __init__(self, db: Database, cache: "CollectionSearch", name: str) -> None:
        self.db = db
        self._cache = cache
        self.name = check_name(name, "collection name")

    def __repr__(self) -> str:
        return f"SQLVectorCollection({self.name!r})"

    def put(
        self, ids: Sequence[str], payloads: Sequence[str], vectors: np.ndarray, texts: Sequence[str] | None = None
    ) -> None:
        """Insert or replace items (id, payload JSON, vector, embedded text) atomically."""
        item_ids = check_ids(ids)
        check_unique(item_ids, "ids")
        bodies = _check_payloads(payloads, len(item_ids))
        embedded = _check_texts(texts, len(item_ids))
        if not item_ids:
            return
        matrix = check_matrix(vectors, len(item_ids))
        d = self.db.dialect
        p = d.param
        with self.db.lock:
            with self.db.tx("collection put") as conn:
                info = self.db.require_info(conn, matrix.shape[1])
                d.executemany(
                    conn,
                    "INSERT INTO collection_items (collection, id, payload, vector, embedding_model, embed_text) "
                    f"VALUES ({p}, {p}, {p}, {d.vector_mark}, {p}, {p}) ON CONFLICT (collection, id) DO UPDATE SET "
                    "payload = excluded.payload, vector = excluded.vector, embedding_model = excluded.embedding_model, "
                    "embed_text = excluded.embed_text",
                    [
                        (self.name, i, body, d.vector_param(matrix[n]), info.model_id, text)
                        for n, (i, body, text) in enumerate(zip(item_ids, bodies, embedded))
                    ],
                )
            self._cache.put(self.name, item_ids, matrix, bodies)

    def get(self, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, payload) of every item in insertion order, or of ``ids`` in that order (missing ids skipped)."""
        return _get(self.db, "collection_items", self.name, ids)

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        """(id, payload JSON, score) of the ``k`` nearest items, best first (ties by id)."""
        k = check_k(k)
        with self.db.read("collection search") as conn:
            query, info = query_vector(self.db, conn, vector)
            if info is None or k == 0:
                return []
            return self._cache.search(conn, self.name, query, k)

    def count(self) -> int:
        return _count(self.db, "collection_items", self.name)

    def export(self) -> tuple[list[str], list[str], np.ndarray]:
        """(ids, payloads, float32 vector matrix) of every item, in insertion order.

        For building a derived index (e.g. :class:`~memdesk.store.ivf.IVFIndex`); read straight
        from the database, so it is a consistent snapshot. An empty collection gives empty lists
        and a ``(0, dim)`` matrix (``dim`` 0 while the store has no embedding info).
        """
        with self.db.read("collection export") as conn:
            self.db.sync(conn)
            info = self.db.cached_info(conn)
            ids: list[str] = []
            payloads: list[str] = []
            blobs: list[bytes] = []
            if info is not None:
                for item_id, payload, blob in self._cache.rows(self.name):
                    ids.append(item_id)
                    payloads.append(payload)
                    blobs.append(blob)
        return ids, payloads, decode_matrix(blobs, info.dim if info is not None else 0)

    def delete(self, ids: Sequence[str] | None = None) -> int:
        """Delete ``ids`` (every item if None). Returns the number deleted."""
        wanted = None if ids is None else list(dict.fromkeys(check_ids(ids)))
        deleted = _delete(self.db, "collection_items", self.name, wanted)
        self._cache.deleted(self.name, wanted)
        return deleted


class SQLDocumentSet:
    """The vector-free document set ``name`` of one database (see :class:`~memdesk.store.base.DocumentSet`)."""

    def __init__(self, db: Database, name: str) -> None:
        self.db = db
        self.name = check_name(name, "document set name")

    def __repr__(self) -> str:
        return f"SQLDocumentSet({self.name!r})"

    def put(self, ids: Sequence[str], payloads: Sequence[str]) -> None:
        """Insert or replace items (id, payload JSON) atomically."""
        item_ids = check_ids(ids)
        check_unique(item_ids, "ids")
        bodies = _check_payloads(payloads, len(item_ids))
        if not item_ids:
            return
        p = self.db.dialect.param
        with self.db.tx("documents put") as conn:
            self.db.dialect.executemany(
                conn,
                f"INSERT INTO documents (collection, id, payload) VALUES ({p}, {p}, {p}) "
                "ON CONFLICT (collection, id) DO UPDATE SET payload = excluded.payload",
                [(self.name, i, body) for i, body in zip(item_ids, bodies)],
            )

    def get(self, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        return _get(self.db, "documents", self.name, ids)

    def count(self) -> int:
        return _count(self.db, "documents", self.name)

    def delete(self, ids: Sequence[str] | None = None) -> int:
        return _delete(self.db, "documents", self.name, None if ids is None else list(dict.fromkeys(check_ids(ids))))


# -- shared by both kinds --------------------------------------------------------------------------
def _get(db: Database, table: str, name: str, ids: Sequence[str] | None) -> list[tuple[str, str]]:
    sql = f"SELECT id, payload FROM {table} WHERE collection = {db.dialect.param}"
    with db.read(f"{table} get") as conn:
        if ids is None:
            return [(i, p) for i, p in conn.execute(f"{sql} ORDER BY {db.dialect.position}", (name,)).fetchall()]
        wanted = check_ids(ids)
        found: dict[str, str] = {}
        for cond, params in db.dialect.id_chunks("id", list(dict.fromkeys(wanted))):
            found.update((r[0], r[1]) for r in conn.execute(f"{sql} AND {cond}", [name, *params]))
    return [(i, found[i]) for i in wanted if i in found]


def _count(db: Database, table: str, name: str, *, locked: bool = False) -> int:
    sql = f"SELECT COUNT(*) FROM {table} WHERE collection = {db.dialect.param}"
    if locked:  # inside a read the caller holds
        row = db.connection().execute(sql, (name,)).fetchone()
    else:
        with db.read(f"{table} count") as conn:
            row = conn.execute(sql, (name,)).fetchone()
    return int(row[0]) if row is not None else 0


def _delete(db: Database, table: str, name: str, ids: list[str] | None) -> int:
    sql = f"DELETE FROM {table} WHERE collection = {db.dialect.param}"
    with db.lock:
        with db.tx(f"{table} delete") as conn:
            if ids is None:
                return int(conn.execute(sql, (name,)).rowcount)
            deleted = 0
            for cond, params in db.dialect.id_chunks("id", ids):
                deleted += conn.execute(f"{sql} AND {cond}", [name, *params]).rowcount
            return deleted


def collection_names(db: Database) -> list[str]:
    """Names of the vector collections that hold items, sorted."""
    with db.read("collections") as conn:
        return [r[0] for r in conn.execute("SELECT DISTINCT collection FROM collection_items ORDER BY collection")]
