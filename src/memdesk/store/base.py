"""The Store seam: typed memory records with vectors, a raw message log, history, cosine search.

Every backend (SQLite, PostgreSQL) implements :class:`Store` and passes the one conformance suite in
``tests/conformance``. Reads take a possibly-wildcard :class:`Scope` (unset fields match anything);
writes take an exact one.
"""

from __future__ import annotations

from typing import Iterator, Protocol, Sequence, runtime_checkable

import numpy as np
from pydantic import BaseModel

from ..records import HistoryEntry, MemoryRecord, MemoryType, RawMessage, Scope


class EmbeddingInfo(BaseModel):
    """Which embedding model and dimension wrote the store's vectors."""

    model_id: str
    dim: int


class ScoredRecord(BaseModel):
    record: MemoryRecord
    score: float


@runtime_checkable
class Store(Protocol):
    # -- lifecycle / metadata ---------------------------------------------------------------
    def close(self) -> None: ...

    def embedding_info(self) -> EmbeddingInfo | None:
        """The model/dim that wrote the vectors, or None for a store with no vectors yet."""
        ...

    def set_embedding_info(self, info: EmbeddingInfo) -> None:
        """Record the model/dim; raises EmbeddingMismatchError if another one is recorded and vectors exist."""
        ...

    def scopes(self) -> list[Scope]:
        """Every exact scope that has been written."""
        ...

    # -- records ----------------------------------------------------------------------------
    def put(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        """Insert new records (one row of ``vectors`` each) atomically: all or nothing."""
        ...

    def replace(self, record: MemoryRecord, vector: np.ndarray) -> None:
        """Supersede an existing record (same id): the old version stays in history."""
        ...

    def get(self, record_id: str) -> MemoryRecord | None: ...

    def get_vectors(self, memory_type: MemoryType, ids: Sequence[str]) -> np.ndarray: ...

    def delete(self, record_id: str) -> bool:
        """Delete one record (history keeps it). Returns False if it did not exist."""
        ...

    def delete_scope(self, scope: Scope) -> int:
        """Delete every record and raw message under ``scope`` (wildcards allowed). Returns records deleted."""
        ...

    def scan(
        self, scope: Scope, memory_type: MemoryType | None = None, speaker: str | None = None
    ) -> Iterator[MemoryRecord]:
        """Every current record under ``scope`` in insertion order."""
        ...

    def count(self, scope: Scope | None = None, memory_type: MemoryType | None = None) -> int: ...

    def revision(self) -> int:
        """A number that changes whenever any memory record changes (here or in another process):
        lets callers cache what they derive from records, e.g. a lexical index."""
        ...

    def history(self, record_id: str) -> list[HistoryEntry]:
        """All versions of a record, oldest first (ADD, UPDATE..., DELETE)."""
        ...

    def search(
        self,
        vector: np.ndarray,
        scope: Scope,
        memory_type: MemoryType,
        k: int,
        speaker: str | None = None,
    ) -> list[ScoredRecord]:
        """Exact cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first."""
        ...

    # -- raw message log --------------------------------------------------------------------
    def log_messages(self, messages: Sequence[RawMessage]) -> None:
        """Append messages to the raw log atomically. Re-logging an existing id is a no-op."""
        ...

    def messages(self, scope: Scope, last: int | None = None) -> list[RawMessage]:
        """Raw messages under ``scope`` in insertion order (only the ``last`` N if given)."""
        ...

    def write(
        self,
        messages: Sequence[RawMessage],
        records: Sequence[MemoryRecord],
        vectors: np.ndarray,
        *,
        owners: Sequence[str] | None = None,
    ) -> list[str]:
        """Log messages and put their records in ONE transaction: all or nothing (resumable ingest).
        With ``owners`` (one source message id per record), messages already logged when the transaction
        starts are skipped with their records; returns the skipped message ids."""
        ...

    def has_message(self, scope: Scope, message_id: str) -> bool: ...

    # -- generic vector tables (the reasoning bank uses these) -----------------------------
    # A "collection" is a named table of (id, payload JSON, vector) rows, searched by the
    # same cosine code as memory records. MAC's bank of solved examples is one.
    def collection_put(self, collection: str, ids: Sequence[str], payloads: Sequence[str], vectors: np.ndarray) -> None: ...

    def collection_search(self, collection: str, vector: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        """(id, payload JSON, score) best first."""
        ...

    def collection_get(self, collection: str, ids: Sequence[str] | None = None) -> list[tuple[str, str]]: ...

    def collection_count(self, collection: str) -> int: ...

    def collection_export(self, collection: str) -> tuple[list[str], list[str], np.ndarray]:
        """(ids, payload JSONs, float32 ``(n, dim)`` vectors) of every item, in insertion order."""
        ...
