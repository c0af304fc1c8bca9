"""The fused read path's per-scope indexes (:class:`~memdesk.retrieval.scope_index.ScopeIndex`), kept in a small LRU cache.

An index is built on the first fused query of a (scope, types, filter, stemming) and checked against the store's
revision *for that scope* (:meth:`Store.revision`) on every use, so a write to another tenant keeps it warm. When the
revision moved because new records were written under the scope, and nothing else changed there
(:meth:`Store.additions_since`), the index takes those records in (:meth:`ScopeIndex.extended`) instead of being
rebuilt; any other change (a replace, a delete, a superseded fact, another process's write) rebuilds it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import numpy as np
from cachetools import LRUCache

from ..filters import RecordFilter
from ..records import MemoryRecord, MemoryType, Scope
from ..runtime import aio
from ..store.base import Store
from ..store.codec import scope_matches, scope_tuple
from ..store.filtered import scan_where
from .scope_index import TYPE_PRIOR, ScopeIndex

__all__ = ["ScopeIndexCache"]

_Key = tuple[str | None, str | None, str | None, tuple[MemoryType, ...], str, bool]

EXTEND_MAX = 256
"""Records a cached index takes in place of a rebuild (or a quarter of its size, if that is more)."""


class ScopeIndexCache:
    """LRU cache of :class:`ScopeIndex` per (scope, types, filter, stemming), checked against the
    store's revision for that scope on every use."""

    def __init__(
        self, store: Store, size: int = 16, tokenizer: Callable[[str], list[str]] | None = None, type_prior: float = TYPE_PRIOR
    ) -> None:
        self.type_prior = type_prior
        self.store = store
        self.size = size
        self.tokenizer = tokenizer
        self._cache: LRUCache[_Key, tuple[int, ScopeIndex]] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """Indexes held now."""
        return len(self._cache)

    def clear(self) -> None:
        """Drop every index (and so every record and text they hold)."""
        with self._lock:
            self._cache.clear()

    def get(self, scope: Scope, types: Sequence[MemoryType], where: RecordFilter, stem: bool = True) -> ScopeIndex:
        """The index of the ``types`` records under ``scope`` that ``where`` keeps (``where.types`` is ignored)."""
        where = where.model_copy(update={"types": None})
        key: _Key = (scope.user_id, scope.agent_id, scope.run_id, tuple(types), where.model_dump_json(), stem)
        revision = self.store.revision(scope)
        with self._lock:
            cached = self._cache.get(key)  # a hit is now the most recently used
            if cached is not None and cached[0] == revision:
                return cached[1]
        grown = self._extended(cached, scope, types, where) if cached is not None else None
        if grown is not None:
            return self._keep(key, revision, grown)
        records: list[MemoryRecord] = []
        blocks: list[np.ndarray] = []
        for t in types:
            recs = list(scan_where(self.store, scope, where.model_copy(update={"types": (t,)})))
            if recs:
                records.extend(recs)
                blocks.append(self.store.get_vectors(t, [r.id for r in recs]))
        dim = blocks[0].shape[1] if blocks else 0
        vectors = np.vstack(blocks) if blocks else np.zeros((0, dim), dtype=np.float32)
        index = aio.offload(ScopeIndex, records, vectors, self.tokenizer if stem else None, self.type_prior)  # CPU: off the event loop
        return self._keep(key, revision, index)

    def for_read(self, scope: Scope, types: Sequence[MemoryType], where: RecordFilter, stem: bool = True) -> tuple[ScopeIndex, bool]:
        """The index a read under ``where`` uses, and whether the reader drops the records closed by its read time: for
        the default validity the index holds every record whatever the time (one index per scope, not one per moment
        asked), and the reader leaves out those closed by then (:meth:`ScopeIndex.closed_at`)."""
        drop = where.current_only
        return self.get(scope, types, where.model_copy(update={"include_superseded": True, "now": None}) if drop else where, stem), drop

    def _keep(self, key: _Key, revision: int, index: ScopeIndex) -> ScopeIndex:
        with self._lock:
            self._cache[key] = (revision, index)  # past ``size``, the least recently used goes
        return index

    def _extended(
        self, cached: tuple[int, ScopeIndex], scope: Scope, types: Sequence[MemoryType], where: RecordFilter
    ) -> ScopeIndex | None:
        """The cached index with the records written since it was built, when the store can say that
        writes of new records are all that happened under the scope (:meth:`Store.additions_since`) and
        they are few next to the index (at most :data:`EXTEND_MAX` or a quarter of it); None: rebuild."""
        revision, index = cached
        added = self.store.additions_since(scope, revision)
        if added is None or len(added) > max(EXTEND_MAX, len(index.records) // 4):
            return None
        if any(record_id in index.position for record_id in added):
            return None  # built after those records were committed and before the store counted them
        records = [self.store.get(record_id) for record_id in added]
        if any(r is None or not scope_matches(scope, scope_tuple(r.scope)) for r in records):
            return None  # deleted since, or not under this scope after all: rebuild from the store
        kept = [r for r in records if r is not None and MemoryType(r.type) in types and where.matches(r)]
        if not kept:
            return index
        by_type: dict[str, list[MemoryRecord]] = {}
        for r in kept:
            by_type.setdefault(r.type, []).append(r)
        ordered = [r for group in by_type.values() for r in group]
        vectors = np.vstack([self.store.get_vectors(MemoryType(t), [r.id for r in group]) for t, group in by_type.items()])
        return aio.offload(index.extended, ordered, vectors)
