"""Approximate search for one large scope: a faiss HNSW graph beside the scope's exact vectors.

:class:`HNSWGraph` proposes candidates; the scope's :class:`~memdesk.store.vector_index.VectorIndex`
stays the source of truth: every candidate is re-scored there (the same float32 dot product exact
search computes), so a returned score is always the true cosine and only *which* rows are found is
approximate. The graph is ``faiss.IndexHNSWFlat`` (inner product, ``M`` = 32, efConstruction
:data:`DEFAULT_EF_CONSTRUCTION` unless configured), whose labels are its own (0, 1, 2, ... in the
order vectors were added). A label is one distinct vector and holds the ids of every row with
exactly that vector: hundreds of equal vectors (a fact said again and again) would otherwise fill
each other's neighbour lists and cut the rest of the graph off from them (distance ties defeat
HNSW's neighbour heuristic).

Changes are incremental: a new row joins the label of its vector or adds one; a removed row leaves
its label, and a label with no rows left is dead (HNSW cannot delete): dead labels are excluded from
every search by a faiss ``IDSelectorBitmap``; an updated row moves to its new vector's label. The
owner rebuilds the graph when dead labels pass :data:`REBUILD_FRACTION` of all labels.

Speaker banks stay correct: a speaker with fewer rows than ``min_rows`` is searched exactly over
its own rows (gathered, so the cost follows the speaker's rows, not the scope's); a larger one is
searched in the graph with a bitmap of the labels holding that speaker's rows (a label whose rows
have several speakers is :data:`MIXED`: allowed, its rows checked one by one) and ``efSearch``
raised by the inverse of their share of the graph (at most :data:`MAX_EF`), so the filtered walk
sees about as many allowed labels as an unfiltered one.

The file a graph is persisted in is :mod:`.ann_files` (:func:`read_graph` still reads the older
format 1); :meth:`HNSWGraph.restore` makes a graph of a file's parts. A graph read back is checked
against the rows it is to serve (:meth:`HNSWGraph.reconcile`): rows whose record is gone or whose
vector bytes differ from the label's leave it, records the file lacks are added, so a file written
before any later change (by this process or another) serves exactly the rows the database holds
now. Only a file the change log shows to be current is served without that check (:mod:`.ann_cold`).
"""

from __future__ import annotations

import hashlib
import json
import math
import struct
from typing import IO, Any, Sequence

import numpy as np

from ..errors import ConfigError, StoreError
from .vector_index import Hit, VectorIndex, top_candidates

MAGIC = b"MDHNSW01"
FORMAT = 1
HNSW_M = 32
"""Neighbours per node on HNSW's upper layers (twice that on the bottom one): faiss's HNSW32."""
DEFAULT_EF_CONSTRUCTION = 200
"""Candidates kept while a row is linked in: the graph's quality (recall at a given efSearch) and its
build time grow with it (bench/results/ann/: faiss's default 40 fills at most 40 of a bottom node's 64
links and loses recall as a scope grows). It is recorded in the graph (faiss serializes it), so a graph
built with less is known and rebuilt (:meth:`HNSWGraph.weaker_than`)."""
DEFAULT_EF_SEARCH = 128
"""Candidates the walk keeps per query; recall and latency both grow with it (bench/bench_ann.py)."""
MAX_EF = 4096
MIXED = -2
"""The speaker code of a label whose rows have different speakers (a speaker search checks each row)."""
DEAD = -1
REBUILD_FRACTION = 0.3
"""Dead labels (removed or updated rows) past this share of the graph trigger a rebuild."""


def _faiss() -> Any:
    try:
        import faiss  # a core dependency (faiss-cpu); imported when the first large scope is indexed
    except ImportError as e:  # pragma: no cover - only without the dependency
        raise ConfigError("approximate search of large scopes needs faiss: pip install faiss-cpu") from e
    return faiss


class HNSWGraph:
    """The HNSW graph of one scope's rows (see the module docstring)."""

    def __init__(
        self,
        dim: int,
        *,
        ef_search: int = DEFAULT_EF_SEARCH,
        ef_construction: int = DEFAULT_EF_CONSTRUCTION,
        min_rows: int = 1,
        index: Any = None,
    ) -> None:
        faiss = _faiss()
        self.dim = dim
        self.ef_search = ef_search
        self.ef_construction = ef_construction
        """The efConstruction a rebuild uses (a graph read from a file keeps its own for later adds)."""
        self.min_rows = min_rows
        if index is None:
            index = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = ef_construction
        self._index = index
        self.members: list[list[str]] = []
        """Per label: the ids of the rows holding exactly its vector ([]: a dead label)."""
        self.id_label: dict[str, int] = {}
        self._digests: list[bytes] = []
        self._by_digest: dict[bytes, int] = {}  # live labels by the digest of their vector's bytes
        self._codes = np.empty(0, dtype=np.int32)  # per label: its rows' speaker code, MIXED or DEAD
        self.dead = 0
        self.unsaved = 0
        """Changes since the graph was last written to (or read from) its file."""
        self._bitmap: np.ndarray | None = None  # live labels, packed; None when stale

    def __len__(self) -> int:
        return len(self.id_label)

    @property
    def labels(self) -> int:
        return len(self.members)

    @property
    def vectors_held(self) -> int:
        """Vectors the faiss graph stores (one per label, dead labels included until a rebuild)."""
        return len(self.members)

    # -- building and changing -----------------------------------------------------------------
    @classmethod
    def from_rows(cls, dim: int, ids: Sequence[str], matrix: np.ndarray, codes: np.ndarray, **options: Any) -> "HNSWGraph":
        graph = cls(dim, **options)
        graph._insert(ids, matrix, codes)
        graph.unsaved = len(ids)
        return graph

    def _insert(self, ids: Sequence[str], matrix: np.ndarray, codes: np.ndarray) -> None:
        """Rows into the graph; a row whose vector a live label already holds joins that label."""
        first, fresh, fresh_members, fresh_codes, pending = self.labels, [], [], [], {}
        for n, item_id in enumerate(ids):
            digest, code = _digest(matrix[n]), int(codes[n])
            label = self._by_digest.get(digest)
            if label is not None:
                self.members[label].append(item_id)
                self.id_label[item_id] = label
                if self._codes[label] != code:
                    self._codes[label] = MIXED
                continue
            j = pending.get(digest)
            if j is None:
                j = pending[digest] = len(fresh)
                fresh.append(n)
                fresh_members.append([])
                fresh_codes.append(code)
            elif fresh_codes[j] != code:
                fresh_codes[j] = MIXED
            fresh_members[j].append(item_id)
            self.id_label[item_id] = first + j
        if fresh:
            self._index.add(np.ascontiguousarray(matrix[fresh], dtype=np.float32))
            self.members.extend(fresh_members)
            self._digests.extend(pending)
            self._by_digest.update((d, first + j) for d, j in pending.items())
            self._codes = np.concatenate([self._codes, np.asarray(fresh_codes, dtype=np.int32)])
        self._bitmap = None

    def _detach(self, item_id: str) -> None:
        label = self.id_label.pop(item_id)
        members = self.members[label]
        members.remove(item_id)
        if not members:  # the label dies (its other rows' speakers, if it was MIXED, stay conservative)
            self._codes[label] = DEAD
            del self._by_digest[self._digests[label]]
            self.dead += 1
            self._bitmap = None

    def upsert(self, item_id: str, vector: np.ndarray, code: int) -> None:
        """A row was added or rewritten: it joins the label of its (new) vector."""
        label = self.id_label.get(item_id)
        if label is not None and self._digests[label] == _digest(vector):
            if len(self.members[label]) == 1:
                self._codes[label] = code
            elif self._codes[label] != code:
                self._codes[label] = MIXED
        else:
            if label is not None:
                self._detach(item_id)
            self._insert([item_id], vector.reshape(1, -1), np.array([code], dtype=np.int32))
        self.unsaved += 1

    def remove(self, item_id: str) -> None:
        if item_id in self.id_label:
            self._detach(item_id)
            self.unsaved += 1

    def needs_rebuild(self) -> bool:
        return self.dead > REBUILD_FRACTION * max(self.labels, 1) or weaker_than(self._index, self.ef_construction)

    def reconcile(self, index: VectorIndex) -> int:
        """Make the graph serve exactly ``index``'s rows (a graph read from a file, or built from a
        snapshot, may be older than them): rows gone or changed leave their label, rows the graph
        lacks are added. Returns the number of rows dropped or added."""
        pairs = [(label, i) for label, ids in enumerate(self.members) for i in ids]
        rows = np.fromiter((_pos(index.position(i)) for _, i in pairs), dtype=np.int64, count=len(pairs))
        labels = np.fromiter((a for a, _ in pairs), dtype=np.int64, count=len(pairs))
        same = rows >= 0
        stored, block = self._stored(), 8192  # compared in blocks: no second copy of the whole matrix
        for s in range(0, len(pairs), block):
            part = np.flatnonzero(same[s : s + block]) + s
            if part.size:
                same[part] = np.all(stored[labels[part]] == index.vectors_at(rows[part]), axis=1)
        dropped = [pairs[n][1] for n in np.flatnonzero(~same).tolist()]
        for item_id in dropped:
            self._detach(item_id)
        if same.any():  # the speakers of the rows that stay, from the index (a file does not hold them)
            lab, codes = labels[same], index.codes_at(rows[same]).astype(np.int64)
            low = np.full(self.labels, np.iinfo(np.int64).max)
            high = np.full(self.labels, np.iinfo(np.int64).min)
            np.minimum.at(low, lab, codes)
            np.maximum.at(high, lab, codes)
            live = np.unique(lab)
            self._codes[live] = np.where(low[live] == high[live], low[live], MIXED)
        missing = [i for i in index.rows()[0] if i not in self.id_label]
        if missing:
            at = np.fromiter((_pos(index.position(i)) for i in missing), dtype=np.int64, count=len(missing))
            self._insert(missing, index.vectors_at(at), index.codes_at(at))
        self._bitmap = None
        self.unsaved += len(dropped) + len(missing)
        return len(dropped) + len(missing)

    def _stored(self) -> np.ndarray:
        """The graph's own copy of the vectors, by label (a view, not a copy)."""
        return stored_vectors(self._index)

    # -- searching -------------------------------------------------------------------------------
    def _walk(self, query: np.ndarray, k: int, ef: int, bitmap: np.ndarray | None) -> list[str]:
        """The ids of the rows of the ``k`` labels the walk finds nearest (every row of a label)."""
        return [i for x in walk(self._index, query, k, ef, bitmap).tolist() for i in self.members[x]]

    def live_bitmap(self) -> np.ndarray | None:
        """The live labels, packed for faiss (None: every label lives)."""
        if not self.dead:
            return None
        if self._bitmap is None:
            self._bitmap = np.packbits(self._codes != DEAD, bitorder="little")
        return self._bitmap

    def top_k(self, index: VectorIndex, query: np.ndarray, k: int, speaker: str | None = None) -> list[Hit]:
        """The approximate top ``k`` of ``index`` (the rows this graph covers), re-scored exactly there."""
        live = self.labels - self.dead
        if live == 0 or k <= 0:
            return []
        q = np.ascontiguousarray(query, dtype=np.float32)
        if speaker is None:
            return index.hits_for(self._walk(q, min(k, live), self.ef_search, self.live_bitmap()), q)
        rows = index.speaker_rows(speaker)
        if rows.size == 0:
            return []
        code = int(index.codes_at(rows[:1])[0])
        if rows.size < self.min_rows:  # a small bank: exact over its own rows
            scores = index.vectors_at(rows) @ q
            best = top_candidates(scores, k)
            return index.hits_at(rows[best], scores[best])
        allowed = (self._codes == code) | (self._codes == MIXED)
        bitmap, n_allowed = np.packbits(allowed, bitorder="little"), int(np.count_nonzero(allowed))
        ef = min(MAX_EF, math.ceil(self.ef_search * live / max(n_allowed, 1)))
        want = min(k, n_allowed)
        while True:  # a MIXED label may hold rows of other speakers only: ask again for more
            hits = index.hits_for(self._walk(q, want, ef, bitmap), q, code=code)
            if len(hits) >= min(k, rows.size) or want >= n_allowed:
                return hits
            want = min(2 * want, n_allowed)

    @classmethod
    def restore(cls, index: Any, members: list[list[str]], digests: list[bytes], **options: Any) -> "HNSWGraph":
        """A graph from its parts as a file holds them (the faiss index, each label's ids and the
        digest of its vector); speakers unknown (:data:`MIXED`) until :meth:`reconcile`."""
        graph = cls(index.d, index=index, **options)
        graph.members = members
        graph.id_label = {i: n for n, m in enumerate(members) for i in m}
        graph._digests = digests
        graph._by_digest = {d: n for n, d in enumerate(digests) if members[n]}
        graph._codes = np.where(np.array([bool(m) for m in members], dtype=bool), MIXED, DEAD).astype(np.int32)
        graph.dead = sum(1 for m in members if not m)
        return graph


def walk(index: Any, query: np.ndarray, k: int, ef: int, bitmap: np.ndarray | None) -> np.ndarray:
    """The labels of the ``k`` vectors a faiss HNSW walk finds nearest ``query`` (``bitmap``: the labels allowed)."""
    faiss = _faiss()
    selector = None if bitmap is None else faiss.IDSelectorBitmap(index.ntotal, faiss.swig_ptr(bitmap))
    params = faiss.SearchParametersHNSW(efSearch=max(ef, k), sel=selector)
    _, found = index.search(query.reshape(1, -1), k, params=params)
    return found[0][found[0] >= 0]


def weaker_than(index: Any, ef_construction: int) -> bool:
    """Whether a faiss HNSW graph was built with a smaller efConstruction than ``ef_construction`` (or
    another ``M``), as a file written before the default was raised may be: then it is rebuilt (a graph
    built with more is kept)."""
    hnsw = index.hnsw
    return int(hnsw.efConstruction) < ef_construction or int(hnsw.nb_neighbors(1)) != HNSW_M


def stored_vectors(index: Any) -> np.ndarray:
    """A faiss HNSWFlat index's own copy of its vectors, by label (a view, not a copy)."""
    faiss = _faiss()
    storage = faiss.downcast_index(index.storage)
    return faiss.rev_swig_ptr(storage.get_xb(), index.ntotal * index.d).reshape(index.ntotal, index.d)


def _digest(row: np.ndarray) -> bytes:
    """Identifies a vector by its bytes (128-bit BLAKE2b: equal vectors share a label)."""
    return hashlib.blake2b(np.ascontiguousarray(row, dtype=np.float32).tobytes(), digest_size=16).digest()


def _pos(position: int | None) -> int:
    return -1 if position is None else position


def read_graph(src: IO[bytes], model_id: str, dim: int, **options: Any) -> HNSWGraph:
    """A graph from a file :meth:`HNSWGraph.write` wrote for ``model_id`` / ``dim``; StoreError if the
    file is not one (another format, model or dimension, or damaged). Not yet reconciled."""
    faiss = _faiss()
    head = src.read(len(MAGIC) + 8)
    if len(head) != len(MAGIC) + 8 or head[: len(MAGIC)] != MAGIC:
        raise StoreError("not a memdesk HNSW index file")
    (size,) = struct.unpack("<Q", head[len(MAGIC) :])
    try:
        header = json.loads(src.read(size))
    except ValueError as e:
        raise StoreError(f"a damaged HNSW index header: {e}") from e
    if header.get("format") != FORMAT or header.get("model_id") != model_id or header.get("dim") != dim:
        raise StoreError("an HNSW index file of another format, model or dimension")
    members = header.get("members")
    try:
        index = faiss.read_index(faiss.PyCallbackIOReader(src.read))
    except RuntimeError as e:
        raise StoreError(f"a damaged HNSW index: {e}") from e
    if not isinstance(members, list) or index.ntotal != len(members) or index.d != dim:
        raise StoreError("an HNSW index file whose labels do not match its graph")
    stored = stored_vectors(index)
    return HNSWGraph.restore(index, [list(m) for m in members], [_digest(stored[n]) for n in range(len(members))], **options)


__all__ = ["DEFAULT_EF_CONSTRUCTION", "DEFAULT_EF_SEARCH", "HNSWGraph", "read_graph", "stored_vectors", "walk", "weaker_than"]
