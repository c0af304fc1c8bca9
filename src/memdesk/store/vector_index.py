"""Exact cosine search in memory with numpy, shared by every store backend.

:class:`VectorIndex` holds the unit vectors of one (namespace, exact scope): a growable float32
matrix, the ids, a payload string per row (a record's JSON, or a collection item's payload) and
speaker codes for speaker-bank filtering. Search is one matrix-vector product plus
``np.argpartition``; vectors are unit-norm, so the dot product is the cosine.

:class:`IndexCache` keeps those indexes per namespace (a memory type, or a collection) and scope
key, loads them lazily through callbacks the backend provides, and is updated incrementally by the
backend after each committed write, so a warm search runs no SQL. A wildcard scope search unions
the indexes of the exact scopes it matches. Neither class locks: the owning store serializes calls.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Generic, Hashable, Iterable, NamedTuple, Sequence, TypeVar

import numpy as np

from ..errors import ConfigError, InvalidInputError
from .codec import decode_matrix

K = TypeVar("K", bound=Hashable)


class Hit(NamedTuple):
    """One search result: the row's id, its payload and its score (dot product)."""

    id: str
    payload: str
    score: float


class IndexRow(NamedTuple, Generic[K]):  # type: ignore[misc]
    """One stored row as a loader yields it: scope key, id, payload, speaker, float32 vector blob."""

    key: K
    id: str
    payload: str
    speaker: str | None
    blob: bytes


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


class VectorIndex:
    """Vectors of one exact scope, with ids, payloads and speaker codes; incrementally updatable."""

    def __init__(self, dim: int, capacity: int = 16) -> None:
        if dim <= 0:
            raise InvalidInputError(f"dimension must be positive, got {dim}")
        self.dim = dim
        self._vectors = np.empty((max(capacity, 1), dim), dtype=np.float32)
        self._codes = np.empty(max(capacity, 1), dtype=np.int32)
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
        """An index over ``matrix`` (one row per id) in one step."""
        n = len(ids)
        index = cls(dim, capacity=max(16, n))
        if n:
            index._vectors[:n] = matrix
            index._codes[:n] = [index._code(s) for s in speakers]
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
        cap = self._vectors.shape[0] * 2
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
        self._codes[pos] = self._code(speaker)

    def remove(self, item_id: str) -> bool:
        """Remove a row (the last row moves into its place). False if absent."""
        pos = self._pos.pop(item_id, None)
        if pos is None:
            return False
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


class IndexCache(Generic[K]):
    """Lazily loaded :class:`VectorIndex` objects per namespace and exact scope key.

    ``list_keys(namespace)`` returns every scope key that has rows in a namespace;
    ``load_rows(namespace, keys)`` yields the :class:`IndexRow` rows of those keys. Both are called
    only on a cold cache; afterwards the owner keeps the cache current with :meth:`upsert`,
    :meth:`remove` and :meth:`drop`, and calls :meth:`clear` when someone else changed the data.
    """

    def __init__(
        self,
        list_keys: Callable[[str], Iterable[K]],
        load_rows: Callable[[str, Sequence[K]], Iterable[IndexRow[K]]],
        *,
        max_rows: int | None = None,
    ) -> None:
        if max_rows is not None and max_rows < 1:
            raise ConfigError(f"max_rows must be >= 1 or None, got {max_rows}")
        self._list_keys = list_keys
        self._load_rows = load_rows
        self.max_rows = max_rows
        self._keys: dict[str, set[K]] = {}
        self._indexes: dict[str, dict[K, VectorIndex]] = {}
        #: (namespace, key) of every loaded index, least recently searched first.
        self._lru: OrderedDict[tuple[str, K], None] = OrderedDict()
        #: Moves on every change reported to the cache (and on :meth:`clear`): a cheap "did the
        #: data change?" check for anything derived from the rows (e.g. a lexical index).
        self.generation = 0

    def clear(self) -> None:
        """Forget everything; the next search reloads lazily."""
        self.generation += 1
        self._keys.clear()
        self._indexes.clear()
        self._lru.clear()

    def loaded(self, namespace: str, key: K) -> VectorIndex | None:
        return self._indexes.get(namespace, {}).get(key)

    def _known_keys(self, namespace: str) -> set[K]:
        keys = self._keys.get(namespace)
        if keys is None:
            keys = self._keys[namespace] = set(self._list_keys(namespace))
        return keys

    def _ensure(self, namespace: str, keys: Sequence[K], dim: int) -> list[VectorIndex]:
        indexes = self._indexes.setdefault(namespace, {})
        missing = [key for key in keys if key not in indexes]
        if missing:
            grouped: dict[K, tuple[list[str], list[str], list[str | None], list[bytes]]] = {
                key: ([], [], [], []) for key in missing
            }
            for row in self._load_rows(namespace, missing):
                ids, payloads, speakers, blobs = grouped[row.key]
                ids.append(row.id)
                payloads.append(row.payload)
                speakers.append(row.speaker)
                blobs.append(row.blob)
            for key, (ids, payloads, speakers, blobs) in grouped.items():
                indexes[key] = VectorIndex.build(dim, ids, payloads, speakers, decode_matrix(blobs, dim))
        out = [indexes[key] for key in keys]
        for key in keys:
            self._lru[(namespace, key)] = None
            self._lru.move_to_end((namespace, key))
        if missing:
            self._evict(keep={(namespace, key) for key in keys})
        return out

    @property
    def cached_rows(self) -> int:
        """Rows held by the loaded indexes."""
        return sum(len(index) for by_key in self._indexes.values() for index in by_key.values())

    def _evict(self, keep: set[tuple[str, K]]) -> None:
        """Unload least recently searched indexes (never those in ``keep``) until at most ``max_rows``
        rows stay loaded. An unloaded index is reloaded from the database when next searched."""
        if self.max_rows is None:
            return
        total = self.cached_rows
        for ns_key in list(self._lru):
            if total <= self.max_rows:
                break
            if ns_key in keep:
                continue
            namespace, key = ns_key
            index = self._indexes.get(namespace, {}).pop(key, None)
            del self._lru[ns_key]
            if index is not None:
                total -= len(index)

    def search(
        self,
        namespace: str,
        match: Callable[[K], bool],
        query: np.ndarray,
        k: int,
        speaker: str | None = None,
    ) -> list[Hit]:
        """Top ``k`` over every scope key in ``namespace`` that ``match`` accepts, best first."""
        if k <= 0:
            return []
        keys = [key for key in self._known_keys(namespace) if match(key)]
        if not keys:
            return []
        indexes = self._ensure(namespace, keys, query.shape[0])
        if len(indexes) == 1:
            return merge_hits(indexes[0].top_k(query, k, speaker), k)
        return merge_hits((h for index in indexes for h in index.top_k(query, k, speaker)), k)

    def upsert(
        self, namespace: str, key: K, item_id: str, vector: np.ndarray, payload: str, speaker: str | None = None
    ) -> None:
        """Reflect a committed insert/update in whatever is loaded."""
        self.generation += 1
        keys = self._keys.get(namespace)
        indexes = self._indexes.setdefault(namespace, {})
        index = indexes.get(key)
        if index is None and keys is not None and key not in keys:
            # the key list is complete, so a new key has no other rows: start its index here
            index = indexes[key] = VectorIndex(vector.shape[0])
            self._lru[(namespace, key)] = None
        if keys is not None:
            keys.add(key)
        if index is not None:
            index.upsert(item_id, vector, payload, speaker)

    def remove(self, namespace: str, key: K, item_id: str) -> None:
        self.generation += 1
        index = self.loaded(namespace, key)
        if index is not None:
            index.remove(item_id)

    def drop(self, namespace: str, keys: Iterable[K]) -> None:
        """Forget scope keys whose rows were all deleted."""
        self.generation += 1
        known = self._keys.get(namespace)
        indexes = self._indexes.get(namespace, {})
        for key in keys:
            indexes.pop(key, None)
            self._lru.pop((namespace, key), None)
            if known is not None:
                known.discard(key)
