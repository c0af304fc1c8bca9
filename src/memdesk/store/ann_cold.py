"""A large scope served from its persisted HNSW graph alone, without loading its rows.

On restart, a scope whose graph file is *current* is attached as a :class:`GraphIndex` instead of a
:class:`~memdesk.store.vector_index.VectorIndex` loaded from the database. A file is current when
(:func:`is_current`) it records the change-log id it reflects (its *stamp*, written with it, with which
database's: :func:`database_id`), the log
still holds every entry after that id (not pruned past it, and it reaches it: not an older or another
database), none of those entries names the scope or "everything" (another connection's write,
delete, forget, a model switch: :mod:`.database`), and the scope holds as many rows as the file. Any
doubt, and the scope is loaded and reconciled as before (:mod:`.ann_scopes`), then its file is
written again with a fresh stamp, so the next restart is cheap again.

A :class:`GraphIndex` maps the file's faiss graph into memory (:func:`.ann_files.open_mapped`) and
reads the labels' ids from flat arrays. A search walks the graph, scores the labels it found with the
vectors the graph holds (the same float32 dot product as exact search: every returned score is the
exact cosine) and reads only the payloads of the top ``k`` rows from the database (``fetch``). The
scope's matrix is never in memory. The first write to the scope (through the store's cache updates)
makes the graph a full :class:`~memdesk.store.ann.HNSWGraph` in memory (:meth:`GraphIndex.graph`:
the faiss index read again from the file mapped, the ids into dicts: about 30 s at 10^6 rows on
the loaded 2-core machine of bench/results/ann/), which then
changes incrementally as before. What needs the rows themselves (a speaker bank, a filter said in
SQL, a rebuild) is answered after the owner replaced the entry by a loaded, reconciled index
(:meth:`.search_cache.RecordSearch.search`).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any, Callable, Sequence

import numpy as np

from ..errors import StoreError
from .ann import DEFAULT_EF_CONSTRUCTION, DEFAULT_EF_SEARCH, HNSWGraph, stored_vectors, walk
from .ann_files import GraphFile, owned
from .shared_metadata import FULL_RECORD
from .vector_index import Hit

Fetch = Callable[[Sequence[str]], dict[str, str]]
"""Payloads (record JSON) of the given ids of the scope, from the database (absent ids are left out)."""


class GraphIndex:
    """A large scope's rows as its graph file knows them (see the module docstring)."""

    ann = None  # not a VectorIndex with a graph beside it: the graph is all there is

    def __init__(
        self,
        header: GraphFile,
        index: Any,
        source: IO[bytes],
        fetch: Fetch,
        *,
        ef_search: int = DEFAULT_EF_SEARCH,
        ef_construction: int = DEFAULT_EF_CONSTRUCTION,
        min_rows: int = 1,
    ) -> None:
        self.dim = header.dim
        self.header = header
        self.ef_search, self.ef_construction, self.min_rows = ef_search, ef_construction, min_rows
        self._mapped = index
        self._source = source  # the file mapped (kept open: read again from it, even if replaced meanwhile)
        self._fetch = fetch
        self._graph: HNSWGraph | None = None
        live = header.live()
        self._live = int(np.count_nonzero(live))
        self._bitmap = None if self._live == header.labels else np.packbits(live, bitorder="little")

    def __len__(self) -> int:
        return self.header.rows if self._graph is None else len(self._graph)

    @property
    def materialized(self) -> HNSWGraph | None:
        """The graph in memory, once a write made it (None before)."""
        return self._graph

    def graph(self) -> HNSWGraph:
        """The graph as a full :class:`HNSWGraph` in memory (made on first call; the mapping is dropped)."""
        if self._graph is None:
            h = self.header
            self._graph = HNSWGraph.restore(
                owned(self._source),
                h.members(),
                h.digest_list(),
                ef_search=self.ef_search,
                ef_construction=self.ef_construction,
                min_rows=self.min_rows,
            )
            self._mapped = None
        return self._graph

    def needs_rebuild(self) -> bool:
        return self._graph is not None and self._graph.needs_rebuild()

    # -- what the cache calls --------------------------------------------------------------------
    def upsert(self, item_id: str, vector: np.ndarray, payload: str, speaker: str | None = None) -> None:
        """A committed write: the row joins the graph (speakers are not kept here: a speaker search
        reloads the scope, and the reconciliation then takes them from the rows)."""
        self.graph().upsert(item_id, np.ascontiguousarray(vector, dtype=np.float32), 0)

    def remove(self, item_id: str) -> bool:
        graph = self.graph()
        if item_id not in graph.id_label:
            return False
        graph.remove(item_id)
        return True

    def top_k(self, query: np.ndarray, k: int, speaker: str | None = None) -> list[Hit]:
        """The approximate top ``k`` rows, best first, ties by id; scores exact (the graph's vectors)."""
        if speaker is not None:  # the owner replaces this entry by a loaded one first
            raise StoreError("a speaker search of a scope served from its graph file alone")
        q = np.ascontiguousarray(query, dtype=np.float32)
        if self._graph is not None:
            graph = self._graph
            live = graph.labels - graph.dead
            index, bitmap = graph._index, graph.live_bitmap()
            members: Callable[[int], list[str]] = graph.members.__getitem__
        else:
            live, index, bitmap = self._live, self._mapped, self._bitmap
            members = self.header.ids_of
        if live == 0 or k <= 0:
            return []
        labels = walk(index, q, min(k, live), self.ef_search, bitmap)
        scores = stored_vectors(index)[labels] @ q
        ranked = sorted(((-float(s), i) for s, label in zip(scores.tolist(), labels.tolist()) for i in members(label)))[:k]
        payloads = self._fetch([i for _, i in ranked])
        return [Hit(i, payloads[i], -s) for s, i in ranked if i in payloads]


def is_current(conn: Any, param: str, table: str, scope_key: str, header: GraphFile) -> bool:
    """Whether a graph file stamped ``header.stamp`` still shows the scope's rows (see the module docstring)."""
    if header.stamp <= 0 or header.database != database_id(conn):
        return False
    floor = conn.execute("SELECT floor FROM change_floor").fetchone()
    top = conn.execute("SELECT MAX(id) FROM change_log").fetchone()
    if floor is None or int(floor[0]) > header.stamp or top is None or top[0] is None or int(top[0]) < header.stamp:
        return False
    later = conn.execute(
        f"SELECT 1 FROM change_log WHERE id > {param} AND (scope_key = {param} "
        "OR (scope_key IS NULL AND collection IS NULL)) LIMIT 1",
        (header.stamp, scope_key),
    ).fetchone()
    if later is not None:
        return False
    (rows,) = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE scope_key = {param}", (scope_key,)).fetchone()
    return int(rows) == header.rows


def database_id(conn: Any) -> str:
    """Tells databases apart: when this one's first migration ran (a file copied over the database, or
    a backup restored under it, is another database and its change-log ids mean nothing to the file)."""
    row = conn.execute("SELECT applied_at FROM migrations ORDER BY rowid LIMIT 1").fetchone()
    return "" if row is None else str(row[0])


def fetcher(conn: Callable[[], Any], param: str, table: str, scope_key: str) -> Fetch:
    """A :data:`Fetch` reading ``table``'s record JSON of one scope (``conn``: the store's connection)."""

    def fetch(ids: Sequence[str]) -> dict[str, str]:
        if not ids:
            return {}
        marks = ", ".join([param] * len(ids))
        sql = f"SELECT id, {FULL_RECORD}, scope_key FROM {table} WHERE id IN ({marks})"  # by primary key, not the scope's index
        return {r[0]: r[1] for r in conn().execute(sql, ids).fetchall() if r[2] == scope_key}

    return fetch


def graph_of(index: Any) -> HNSWGraph | None:
    """The in-memory graph of a cache entry (a loaded index's, or a :class:`GraphIndex`'s once made)."""
    if isinstance(index, GraphIndex):
        return index.materialized
    graph = index.ann
    return graph if isinstance(graph, HNSWGraph) else None


def exists(path: Path | None) -> bool:
    return path is not None and path.exists()


__all__ = ["GraphIndex", "fetcher", "is_current"]
