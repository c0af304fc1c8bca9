""":class:`IndexCache`: the :class:`~memdesk.store.vector_index.VectorIndex` objects of a store, per
(namespace, exact scope key), in one LRU.

A search names the keys it needs (the owner resolves a wildcard scope to its exact keys), each is found by
key, missing ones are loaded in one call of the owner's loader, and eviction pops the least recently searched
entries in O(1) each until the rows held fit ``max_rows`` (an index's rows, one per entry, and the vectors
its approximate index keeps a copy of: :func:`index_cost`). The owner updates loaded entries after each
committed write (:meth:`IndexCache.upsert`, :meth:`IndexCache.remove`), has them counted again when it
changes them otherwise (:meth:`IndexCache.recount`), and forgets the keys someone else changed
(:meth:`IndexCache.forget`), so a warm search runs no SQL and costs the same however many scopes the store
holds. It does not lock: the owning store serializes calls.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Generic, Hashable, Iterable, Mapping, Sequence, TypeVar

import numpy as np

from ..errors import ConfigError
from .vector_index import Hit, VectorIndex, search_indexes

K = TypeVar("K", bound=Hashable)


def index_cost(index: VectorIndex) -> int:
    """What an index counts against ``max_rows``: its rows, plus one for the entry itself (so many empty
    or tiny scopes are bounded too), plus the vectors its approximate index keeps a second copy of."""
    return len(index) + 1 + (index.ann.vectors_held if index.ann is not None else 0)


class IndexCache(Generic[K]):
    """Lazily loaded :class:`VectorIndex` objects per (namespace, exact scope key), in one LRU.

    ``load(namespace, keys)`` returns the indexes of those keys (a key with no rows may be absent:
    it is cached as an empty index, so a scope with nothing in it is not read again). The owner
    keeps loaded entries current with :meth:`upsert` and :meth:`remove` after its own committed
    writes, and calls :meth:`forget` (some keys) or :meth:`clear` (everything) when someone else
    changed the data.
    """

    def __init__(
        self, load: Callable[[str, Sequence[K]], Mapping[K, VectorIndex]], *, max_rows: int | None = None
    ) -> None:
        if max_rows is not None and max_rows < 1:
            raise ConfigError(f"max_rows must be >= 1 or None, got {max_rows}")
        self._load = load
        self.max_rows = max_rows
        #: Every loaded index, least recently searched first.
        self._entries: OrderedDict[tuple[str, K], VectorIndex] = OrderedDict()
        self._costs: dict[tuple[str, K], int] = {}  # index_cost of each entry when last counted
        self._rows = 0  # the sum of self._costs, kept as the entries change
        #: Moves on every change reported to the cache (and on :meth:`clear`): a cheap "did the
        #: data change?" check for anything derived from the rows (e.g. a lexical index).
        self.generation = 0

    @property
    def cached_rows(self) -> int:
        """What the loaded indexes count against ``max_rows`` (rows, plus one per index, plus the vectors
        an approximate index holds)."""
        return self._rows

    def _count(self, entry: tuple[str, K]) -> None:
        """Count ``entry``'s index again (rows changed, an approximate index attached)."""
        cost = index_cost(self._entries[entry])
        self._rows += cost - self._costs.get(entry, 0)
        self._costs[entry] = cost

    def _drop(self, entry: tuple[str, K]) -> None:
        del self._entries[entry]
        self._rows -= self._costs.pop(entry)

    def recount(self, namespace: str, keys: Sequence[K]) -> None:
        """Count the loaded indexes of ``keys`` again after their owner changed them (e.g. attached an
        approximate index with its own copy of the vectors), unloading others if that passes ``max_rows``."""
        for key in keys:
            if (namespace, key) in self._entries:
                self._count((namespace, key))
        self._evict(keep=len(keys))

    def __len__(self) -> int:
        return len(self._entries)

    def loaded(self, namespace: str, key: K) -> VectorIndex | None:
        return self._entries.get((namespace, key))

    def entries(self) -> list[tuple[str, K, VectorIndex]]:
        """Every loaded (namespace, key, index), least recently searched first."""
        return [(namespace, key, index) for (namespace, key), index in self._entries.items()]

    def clear(self) -> None:
        """Forget everything; the next search reloads lazily."""
        self.generation += 1
        self._entries.clear()
        self._costs.clear()
        self._rows = 0

    def forget(self, namespaces: Iterable[str], keys: Iterable[K]) -> None:
        """Forget the entries of ``keys`` in ``namespaces`` (someone else changed their rows)."""
        self.generation += 1
        names = list(namespaces)
        for key in keys:
            for namespace in names:
                if (namespace, key) in self._entries:
                    self._drop((namespace, key))

    def indexes(self, namespace: str, keys: Sequence[K], dim: int) -> list[VectorIndex]:
        """The indexes of ``keys`` (loading the missing ones in one call), now the most recently used."""
        entries = self._entries
        missing = [key for key in keys if (namespace, key) not in entries]
        if missing:
            loaded = self._load(namespace, missing)
            for key in missing:
                index = loaded.get(key)
                if index is None:
                    index = VectorIndex(dim)
                entries[(namespace, key)] = index
                self._count((namespace, key))
        out = []
        for key in keys:
            entries.move_to_end((namespace, key))
            out.append(entries[(namespace, key)])
        if missing:
            self._evict(keep=len(keys))
        return out

    def _evict(self, keep: int) -> None:
        """Unload least recently searched indexes (never the ``keep`` most recent) until the rows held
        fit ``max_rows``: O(1) per unloaded index. An unloaded index is reloaded when next searched."""
        if self.max_rows is None:
            return
        while self._rows > self.max_rows and len(self._entries) > keep:
            self._drop(next(iter(self._entries)))

    def search(
        self, namespace: str, keys: Sequence[K], query: np.ndarray, k: int, speaker: str | None = None
    ) -> list[Hit]:
        """Top ``k`` over the exact scope keys ``keys`` of ``namespace``, best first."""
        if k <= 0 or not keys:
            return []
        return search_indexes(self.indexes(namespace, keys, query.shape[0]), query, k, speaker)

    def upsert(
        self, namespace: str, key: K, item_id: str, vector: np.ndarray, payload: str, speaker: str | None = None
    ) -> None:
        """Reflect a committed insert/update in the loaded index of ``key`` (an unloaded one reads it when loaded)."""
        self.generation += 1
        index = self._entries.get((namespace, key))
        if index is not None:
            index.upsert(item_id, vector, payload, speaker)
            self._count((namespace, key))

    def remove(self, namespace: str, key: K, item_id: str) -> None:
        self.generation += 1
        index = self._entries.get((namespace, key))
        if index is not None and index.remove(item_id):
            self._count((namespace, key))
