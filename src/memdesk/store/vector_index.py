"""Exact cosine search in memory with numpy, shared by every store backend.

:class:`VectorIndex` holds the unit vectors of one (namespace, exact scope): a growable float32
matrix, the ids, a payload string per row (a record's JSON, or a collection item's payload) and
speaker codes for speaker-bank filtering. Search is one matrix-vector product plus
``np.argpartition``; vectors are unit-norm, so the dot product is the cosine.

:class:`~memdesk.store.index_cache.IndexCache` keeps those indexes per (namespace, exact scope key) in
one LRU. Nothing here locks: the owning store serializes calls.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Protocol, Sequence

import numpy as np

from ..errors import InvalidInputError, StoreError

class Hit(NamedTuple):
    """One search result: the row's id, its payload and its score (dot product)."""

    id: str
    payload: str
    score: float


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` largest scores, best first (argpartition, then a sort of k items)."""
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.intp)
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(n)
    return part[np.argsort(-scores[part], kind="stable")]


def top_candidates(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` largest scores plus every position tied with the k-th, best first.

    Exact search hands these to :func:`merge_hits`, which breaks the tie by id: argpartition alone
    would keep an arbitrary one of several rows tied at the cut.
    """
    rows = top_indices(scores, k)
    if rows.size < k or rows.size == scores.shape[0]:
        return rows
    tied = np.flatnonzero(scores == scores[rows[-1]])
    if tied.size > np.count_nonzero(scores[rows] == scores[rows[-1]]):
        extra = np.setdiff1d(tied, rows, assume_unique=True)
        rows = np.concatenate([rows, extra])
    return rows


def merge_hits(hits: Iterable[Hit], k: int) -> list[Hit]:
    """The best ``k`` of several result lists; ties broken by id for a stable order."""
    return sorted(hits, key=lambda h: (-h.score, h.id))[:k]


class Approximate(Protocol):
    """An approximate index attached to a :class:`VectorIndex` (:class:`~memdesk.store.ann.HNSWGraph`):
    told about every row change, asked for the top k instead of the exact scan."""

    def upsert(self, item_id: str, vector: np.ndarray, code: int) -> None: ...

    def remove(self, item_id: str) -> None: ...

    def top_k(self, index: "VectorIndex", query: np.ndarray, k: int, speaker: str | None = None) -> list[Hit]: ...

    @property
    def vectors_held(self) -> int:
        """Vectors this index keeps a copy of (counted against the cache's ``max_rows`` beside the rows)."""
        ...


class VectorIndex:
    """Vectors of one exact scope, with ids, payloads and speaker codes; incrementally updatable.

    ``ann``: an approximate index over the same rows (set by the owner for a large scope); when set,
    :meth:`top_k` asks it and every row change is passed on to it.
    """

    ann: Approximate | None = None

    def __init__(self, dim: int, capacity: int = 0) -> None:
        if dim <= 0:
            raise InvalidInputError(f"dimension must be positive, got {dim}")
        self.dim = dim
        self._vectors = np.empty((max(capacity, 0), dim), dtype=np.float32)
        self._codes = np.empty(max(capacity, 0), dtype=np.int32)
        self._ids: list[str] = []
        self._payloads: list[str] = []
        self._pos: dict[str, int] = {}
        self._speaker_codes: dict[str | None, int] = {}

    @classmethod
    def build(
        cls,
        dim: int,
        ids: Sequence[str],
        payloads: Sequence[str],
        speakers: Sequence[str | None],
        matrix: np.ndarray,
    ) -> "VectorIndex":
        """An index over ``matrix`` (one row per id). A C-contiguous float32 ``(n, dim)`` matrix is
        used as it is, not copied: the caller hands it over."""
        n = len(ids)
        if matrix.shape != (n, dim):
            raise InvalidInputError(f"a matrix of shape {matrix.shape} for {n} ids of dimension {dim}")
        index = cls(dim)
        index._vectors = np.ascontiguousarray(matrix, dtype=np.float32)
        index._codes = np.fromiter((index._code(s) for s in speakers), dtype=np.int32, count=n)
        index._ids = list(ids)
        index._payloads = list(payloads)
        index._pos = {i: p for p, i in enumerate(index._ids)}
        return index

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._pos

    def _code(self, speaker: str | None) -> int:
        code = self._speaker_codes.get(speaker)
        if code is None:
            code = self._speaker_codes[speaker] = len(self._speaker_codes)
        return code

    def _grow(self) -> None:
        cap = max(16, self._vectors.shape[0] * 2)
        vectors = np.empty((cap, self.dim), dtype=np.float32)
        vectors[: len(self)] = self._vectors[: len(self)]
        codes = np.empty(cap, dtype=np.int32)
        codes[: len(self)] = self._codes[: len(self)]
        self._vectors, self._codes = vectors, codes

    def upsert(self, item_id: str, vector: np.ndarray, payload: str, speaker: str | None = None) -> None:
        """Add a row, or overwrite the row with the same id."""
        if vector.shape != (self.dim,):
            raise InvalidInputError(f"vector of shape {vector.shape} in an index of dimension {self.dim}")
        pos = self._pos.get(item_id)
        if pos is None:
            pos = len(self)
            if pos == self._vectors.shape[0]:
                self._grow()
            self._ids.append(item_id)
            self._payloads.append(payload)
            self._pos[item_id] = pos
        else:
            self._payloads[pos] = payload
        self._vectors[pos] = vector
        code = self._codes[pos] = self._code(speaker)
        if self.ann is not None:
            self.ann.upsert(item_id, self._vectors[pos], code)

    def remove(self, item_id: str) -> bool:
        """Remove a row (the last row moves into its place). False if absent."""
        pos = self._pos.pop(item_id, None)
        if pos is None:
            return False
        if self.ann is not None:
            self.ann.remove(item_id)
        last = len(self) - 1
        if pos != last:
            moved = self._ids[last]
            self._vectors[pos] = self._vectors[last]
            self._codes[pos] = self._codes[last]
            self._ids[pos] = moved
            self._payloads[pos] = self._payloads[last]
            self._pos[moved] = pos
        self._ids.pop()
        self._payloads.pop()
        return True

    def top_k(self, query: np.ndarray, k: int, speaker: str | None = None) -> list[Hit]:
        """The ``k`` rows with the largest dot product with ``query``, best first, plus any row tied
        with the k-th (so a caller's :func:`merge_hits` breaks the tie by id).

        With ``speaker``, only rows of that speaker are candidates.
        """
        n = len(self)
        if n == 0 or k <= 0:
            return []
        if self.ann is not None:
            return self.ann.top_k(self, query, k, speaker)
        if speaker is None:
            scores = self._vectors[:n] @ query
            rows = top_candidates(scores, k)
            picked = scores[rows]
        else:
            code = self._speaker_codes.get(speaker)
            if code is None:
                return []
            candidates = np.flatnonzero(self._codes[:n] == code)
            if candidates.size == 0:
                return []
            scores = (self._vectors[:n] @ query)[candidates]  # one matvec beats gathering the rows first
            best = top_candidates(scores, k)
            rows, picked = candidates[best], scores[best]
        return [Hit(self._ids[r], self._payloads[r], float(s)) for r, s in zip(rows.tolist(), picked.tolist())]


    # -- what an approximate index reads -----------------------------------------------------------
    def rows(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(ids, their vectors, their speaker codes), by position: views, not copies."""
        n = len(self)
        return self._ids, self._vectors[:n], self._codes[:n]

    def position(self, item_id: str) -> int | None:
        return self._pos.get(item_id)

    def vectors_at(self, rows: np.ndarray) -> np.ndarray:
        return self._vectors[rows]

    def codes_at(self, rows: np.ndarray) -> np.ndarray:
        return self._codes[rows]

    def speaker_rows(self, speaker: str | None) -> np.ndarray:
        """Positions of the rows of ``speaker``."""
        code = self._speaker_codes.get(speaker)
        if code is None:
            return np.zeros(0, dtype=np.intp)
        return np.flatnonzero(self._codes[: len(self)] == code)

    def hits_at(self, rows: np.ndarray, scores: np.ndarray) -> list[Hit]:
        return [Hit(self._ids[r], self._payloads[r], float(s)) for r, s in zip(rows.tolist(), scores.tolist())]

    def hits_for(self, ids: Iterable[str], query: np.ndarray, code: int | None = None) -> list[Hit]:
        """Hits for the rows ``ids`` (unknown ones skipped; with ``code``, only that speaker's), scored here exactly."""
        rows = np.fromiter((p for p in (self._pos.get(i) for i in ids) if p is not None), dtype=np.intp)
        if code is not None:
            rows = rows[self._codes[rows] == code]
        return self.hits_at(rows, self._vectors[rows] @ query) if rows.size else []


class IndexBuilder:
    """Builds one :class:`VectorIndex` from rows streamed out of the database, their vectors copied
    once, a few thousand at a time, into one preallocated float32 matrix (no intermediate list of
    every vector, no second copy of the matrix)."""

    _CHUNK = 4096

    def __init__(self, dim: int, expected: int) -> None:
        self.dim = dim
        self._matrix = np.empty((max(expected, 0), dim), dtype=np.float32)
        self._n = 0
        self._pending: list[bytes] = []
        self.ids: list[str] = []
        self.payloads: list[str] = []
        self.speakers: list[str | None] = []

    def add(self, item_id: str, payload: str, speaker: str | None, blob: bytes) -> None:
        if len(blob) != self.dim * 4:
            raise StoreError(f"a stored vector has {len(blob)} bytes, but the recorded dimension {self.dim} needs {self.dim * 4}")
        self.ids.append(item_id)
        self.payloads.append(payload)
        self.speakers.append(speaker)
        self._pending.append(blob)
        if len(self._pending) >= self._CHUNK:
            self._flush()

    def _flush(self) -> None:
        m = len(self._pending)
        if not m:
            return
        if self._n + m > self._matrix.shape[0]:  # more rows than counted (written meanwhile): grow
            grown = np.empty((max(2 * self._matrix.shape[0], self._n + m), self.dim), dtype=np.float32)
            grown[: self._n] = self._matrix[: self._n]
            self._matrix = grown
        self._matrix[self._n : self._n + m] = np.frombuffer(b"".join(self._pending), dtype="<f4").reshape(m, self.dim)
        self._n += m
        self._pending.clear()

    def build(self) -> VectorIndex:
        self._flush()
        matrix = self._matrix if self._n == self._matrix.shape[0] else self._matrix[: self._n]
        return VectorIndex.build(self.dim, self.ids, self.payloads, self.speakers, matrix)


def search_indexes(indexes: Sequence[VectorIndex], query: np.ndarray, k: int, speaker: str | None = None) -> list[Hit]:
    """Top ``k`` over several indexes (the exact scopes of one search), best first, ties by id."""
    if len(indexes) == 1:
        return merge_hits(indexes[0].top_k(query, k, speaker), k)
    return merge_hits((h for index in indexes for h in index.top_k(query, k, speaker)), k)
