"""The SQL :class:`~memdesk.store.base.Store`, composed of parts that each hold one thing.

:class:`SQLStore` owns a :class:`~memdesk.store.database.Database` (connection, transactions,
change detection, embedding info) and hands each protocol to the part that implements it:

========================  =============================================================
records, history          :class:`~.record_writes.RecordWriter`, :class:`~.record_reads.RecordReader`
forgetting a scope        :class:`~.erasure.ScopeEraser`
tenant API keys           :class:`~.key_table.KeyTable`
vector search             :class:`~.search_cache.RecordSearch`
raw message log           :class:`~.message_log.MessageTable`
collections, documents    :mod:`.collection_tables`
re-embedding              :class:`~.maintenance.VectorRewriter`
export, import, copy      :class:`~.portable.PortableTables`
========================  =============================================================

What differs between SQLite and PostgreSQL is one :class:`~memdesk.store.dialect.Dialect` object
and each backend's connection and migrations (:mod:`.sqlite`, :mod:`.postgres`). Vectors are
expected to be unit-norm (the Embedder contract); scores are dot products.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError
from ..records import HistoryEntry, HistoryEvent, MemoryRecord, MemoryType, RawMessage, Scope
from ..tenants import ApiKeyInfo, NewApiKey, Tenant
from .base import DEFAULT_PAGE, EmbeddingInfo, Forgotten, Page, ScoredRecord, VectorTable
from .conveniences import StoreConveniences
from .collection_tables import CollectionCache, CollectionSearch, SQLDocumentSet, SQLVectorCollection, collection_names
from .database import Database
from .erasure import ScopeEraser
from .key_table import KeyTable
from .dialect import Dialect
from .maintenance import VectorRewriter
from .message_log import MessageTable
from .portable import PortableTables, Restored
from .record_reads import RecordReader
from .record_writes import RecordWriter
from .search_cache import DEFAULT_CACHE_MAX_ROWS, RecordIndex, RecordSearch
from .usage import StorageUsage, storage_usage


def check_cache_rows(cache_max_rows: object) -> int | None:
    if cache_max_rows is not None and (
        isinstance(cache_max_rows, bool) or not isinstance(cache_max_rows, int) or cache_max_rows < 1
    ):
        raise ConfigError(f"cache_max_rows must be a positive integer or None, got {cache_max_rows!r}")
    return cache_max_rows


class SQLStore(StoreConveniences):
    """A :class:`~memdesk.store.base.Store` over one SQL connection: the parts, wired together.

    A backend's constructor builds its :class:`Database` (dialect + busy timeout), calls
    ``SQLStore.__init__``, opens ``self.db.conn`` and applies its migrations. Connections are
    used by one thread at a time under ``self.db.lock``, so a store is safe to share between threads.
    """

    def __init__(
        self,
        db: Database,
        cache_max_rows: int | None = DEFAULT_CACHE_MAX_ROWS,
        *,
        record_search: RecordIndex | None = None,
        collection_search: CollectionSearch | None = None,
    ) -> None:
        self.db = db
        self._search: RecordIndex = record_search or RecordSearch(db, check_cache_rows(cache_max_rows))
        self._messages = MessageTable(db)
        self._writer = RecordWriter(db, self._messages, self._search)
        self._reader = RecordReader(db)
        self._collections: CollectionSearch = collection_search or CollectionCache(db)
        self._rewriter = VectorRewriter(db)
        self._keys = KeyTable(db)
        self._eraser = ScopeEraser(db, self._search, self._collections)
        self._portable = PortableTables(db, self._writer, self._messages, self._search)

    @property
    def dialect(self) -> Dialect:
        return self.db.dialect

    @property
    def busy_timeout_ms(self) -> int:
        return self.db.busy_timeout_ms

    # -- lifecycle and metadata ----------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (idempotent); later calls raise StoreError."""
        self.db.close()

    def embedding_info(self) -> EmbeddingInfo | None:
        return self.db.embedding_info()

    def set_embedding_info(self, info: EmbeddingInfo) -> None:
        self.db.set_embedding_info(info)

    def migrations_applied(self) -> list[tuple[str, datetime]]:
        return self.db.migrations_applied()

    # -- RecordStore ---------------------------------------------------------------------------
    def write(self, records: Sequence[MemoryRecord] = (), vectors: np.ndarray | None = None, **batch: Any) -> list[str]:
        """The one write path (``messages=``, ``owners=``, ``claim=``): see :meth:`.record_writes.RecordWriter.write`."""
        return self._writer.write(records, vectors, **batch)

    def replace(self, record: MemoryRecord, vector: np.ndarray) -> None:
        self._writer.replace(record, vector)

    def delete(self, record_id: str) -> bool:
        return self._writer.delete(record_id)

    def delete_scope(self, scope: Scope) -> int:
        return self._writer.delete_scope(scope)

    def forget(self, scope: Scope, *, wildcard: bool = False, collections: Sequence[str] = ()) -> Forgotten:
        return self._eraser.forget(scope, wildcard=wildcard, collections=collections)

    def vacuum(self) -> None:
        self._eraser.vacuum()

    def get(self, record_id: str) -> MemoryRecord | None:
        return self._reader.get(record_id)

    def history(self, record_id: str) -> list[HistoryEntry]:
        return self._reader.history(record_id)

    # -- RecordQuery ---------------------------------------------------------------------------
    def search(self, vector: np.ndarray, scope: Scope, *args: Any, **options: Any) -> list[ScoredRecord]:
        """Top-k of one memory type (``memory_type``, ``k``, ``speaker``, ``where``): see
        :meth:`.base.RecordSearcher.search`, answered by the store's :class:`~.search_cache.RecordIndex`."""
        return self._search.search(vector, scope, *args, **options)

    def search_types(self, vector: np.ndarray, scope: Scope, *args: Any, **options: Any) -> dict[MemoryType, list[ScoredRecord]]:
        """:meth:`search` of several types (``memory_types``, ``k``, ``speaker``, ``where``): see
        :meth:`.base.RecordSearcher.search_types`."""
        return self._search.search_types(vector, scope, *args, **options)

    def page(self, scope: Scope, **options: Any) -> Page[MemoryRecord]:
        """A keyset page (``types=``, ``speaker=``, ``limit=``, ``cursor=``): see :meth:`.record_reads.RecordReader.page`."""
        return self._reader.page(scope, **options)

    def count(self, scope: Scope | None = None, memory_type: MemoryType | None = None) -> int:
        return self._reader.count(scope, memory_type)

    def has_scope(self, scope: Scope) -> bool:
        return self._reader.has_scope(scope)

    def usage(self, scope: Scope) -> StorageUsage:
        """What ``scope`` (wildcards allowed) stores: current records and bytes (see :mod:`.usage`)."""
        return storage_usage(self.db, scope)

    def scope_page(
        self, within: Scope | None = None, *, limit: int = DEFAULT_PAGE, cursor: str | None = None
    ) -> Page[Scope]:
        return self._reader.scope_page(within, limit=limit, cursor=cursor)

    def revision(self, scope: Scope | None = None) -> int:
        return self._search.revision(scope)

    def additions_since(self, scope: Scope, revision: int) -> list[str] | None:
        return self._search.additions_since(scope, revision)

    def get_vectors(self, memory_type: MemoryType, ids: Sequence[str]) -> np.ndarray:
        return self._reader.get_vectors(memory_type, ids)

    # -- MessageLog ----------------------------------------------------------------------------
    def message_page(self, scope: Scope, *, limit: int = DEFAULT_PAGE, cursor: str | None = None) -> Page[RawMessage]:
        return self._messages.page(scope, limit=limit, cursor=cursor)

    def recent_messages(self, scope: Scope, n: int) -> list[RawMessage]:
        return self._messages.recent(scope, n)

    def has_message(self, scope: Scope, message_id: str) -> bool:
        return self._messages.has(scope, message_id)

    def pending_messages(self, scope: Scope) -> list[RawMessage]:
        return self._messages.pending(scope)

    def pending_scopes(self) -> list[Scope]:
        return self._messages.pending_scopes()

    # -- Portability ---------------------------------------------------------------------------
    def history_page(
        self, scope: Scope | None, *, limit: int = DEFAULT_PAGE, cursor: str | None = None, event: HistoryEvent | None = None
    ) -> Page[HistoryEntry]:
        return self._portable.history_page(scope, limit=limit, cursor=cursor, event=event)

    def history_of(self, record_ids: Sequence[str]) -> dict[str, list[HistoryEntry]]:
        return self._portable.history_of(record_ids)

    def restore(self, records: Sequence[MemoryRecord] = (), vectors: np.ndarray | None = None, **options: Any) -> Restored:
        """Import as exported (``history=``, ``messages=``, ``on_conflict=``, ``check_only=``): see
        :meth:`.base.Portability.restore`."""
        return self._portable.restore(records, vectors, **options)

    # -- Collections ---------------------------------------------------------------------------
    def collection(self, name: str) -> SQLVectorCollection:
        return SQLVectorCollection(self.db, self._collections, name)

    def documents(self, name: str) -> SQLDocumentSet:
        return SQLDocumentSet(self.db, name)

    def collections(self) -> list[str]:
        return collection_names(self.db)

    # -- KeyStore ------------------------------------------------------------------------------
    def create_key(self, tenant: Tenant, name: str | None = None) -> NewApiKey:
        return self._keys.create_key(tenant, name)

    def find_key(self, key_hash: str) -> ApiKeyInfo | None:
        return self._keys.find_key(key_hash)

    def keys(self, user_id: str | None = None) -> list[ApiKeyInfo]:
        return self._keys.keys(user_id)

    def revoke_key(self, key_id: str) -> bool:
        return self._keys.revoke_key(key_id)

    def has_keys(self) -> bool:
        return self._keys.has_keys()

    # -- VectorMaintenance ---------------------------------------------------------------------
    def vector_tables(self) -> list[VectorTable]:
        return self._rewriter.vector_tables()

    def stale_vectors(self, info: EmbeddingInfo) -> dict[VectorTable, tuple[int, int]]:
        return self._rewriter.stale_vectors(info)

    def stale_page(
        self, table: VectorTable, info: EmbeddingInfo, *, limit: int = 512, cursor: str | None = None
    ) -> Page[tuple[str, str]]:
        return self._rewriter.stale_page(table, info, limit=limit, cursor=cursor)

    def rewrite_vectors(self, table: VectorTable, ids: Sequence[str], vectors: np.ndarray, info: EmbeddingInfo) -> None:
        self._rewriter.rewrite_vectors(table, ids, vectors, info)

    def switch_embedding(self, info: EmbeddingInfo) -> None:
        self._rewriter.switch_embedding(info)
