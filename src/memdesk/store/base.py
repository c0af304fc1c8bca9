"""The store seams: small protocols, the models they exchange, and the conveniences built on them.

A memdesk store is several small protocols, each a handful of methods, so a caller (or a new
backend) deals only with the part it needs:

- :class:`EmbeddingPin`: which embedding model wrote the vectors (and refusing another);
- :class:`RecordStore`: typed memory records: the one write path, replace, delete, get, history, forget;
- :class:`RecordQuery`: reads over scopes: vector search (:class:`RecordSearcher`, which a store's search
  index answers too), keyset pages, counts, ``has_scope``;
- :class:`MessageLog`: the raw message log (written only through :meth:`RecordStore.write`);
- :class:`VectorCollection` and :class:`DocumentSet`: named tables of (id, JSON payload) items,
  with a vector (a reasoning bank's examples) or without one (its manifest, its rejected items),
  opened through :class:`Collections`;
- :class:`VectorMaintenance`: the seam ``memdesk reembed`` works through;
- :class:`KeyStore`: tenant API keys, hashed;
- :class:`Portability`: a scope's history in write order and a verbatim restore (export, import, copy).

:class:`Store` is all of them together, as every backend (SQLite, PostgreSQL) provides them; it
passes the one conformance suite in ``tests/conformance``. What is built on the protocols (``scan``,
``messages``, ``scopes``, context-manager use) is :class:`~memdesk.store.conveniences.StoreConveniences`,
once for every backend.

Reads take a possibly-wildcard :class:`~memdesk.records.Scope` (unset fields match anything);
writes take an exact one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Iterator, Literal, Protocol, Sequence, TypeVar

import numpy as np
from pydantic import BaseModel, Field

from ..errors import InvalidInputError
from ..records import HistoryEntry, HistoryEvent, MemoryRecord, MemoryType, RawMessage, Scope
from ..tenants import ApiKeyInfo, NewApiKey, Tenant
from .collection_protocols import Collections, DocumentSet, VectorCollection  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from ..filters import RecordFilter

T = TypeVar("T")

DEFAULT_PAGE = 100
"""Items per page when a caller gives no ``limit``."""


class EmbeddingInfo(BaseModel):
    """Which embedding model and dimension wrote the store's vectors."""

    model_id: str
    dim: int


class ScoredRecord(BaseModel):
    record: MemoryRecord
    score: float


class Page(BaseModel, Generic[T]):
    """One page of a keyset-paginated listing: the items, and the cursor of the next page (None: last page).

    Cursors are opaque strings; pass one back unchanged to read on from where the page ended. A
    cursor stays valid while items are added or deleted (nothing is skipped or repeated that was
    there the whole time).
    """

    items: list[T]
    next_cursor: str | None = None


class Forgotten(BaseModel):
    """What :meth:`RecordStore.forget` erased: rows of each kind."""

    records: int = 0
    messages: int = 0
    history: int = 0
    scopes: int = 0
    collection_items: int = 0  # items of the named collections and document sets
    banks: int = 0  # reasoning banks (set by Memory.forget, which names their collections)
    keys: int = 0
    """Tenant API keys revoked: those bound to the forgotten scope (see :mod:`memdesk.store.erasure`)."""


@dataclass(frozen=True)
class VectorTable:
    """A place where a store keeps vectors: the records of one memory type, or one vector collection."""

    kind: Literal["records", "collection"]
    name: str

    def __str__(self) -> str:
        return f"{self.name} records" if self.kind == "records" else f"collection {self.name!r}"


class EmbeddingPin(Protocol):
    def embedding_info(self) -> EmbeddingInfo | None:
        """The model/dim that wrote the vectors, or None for a store with no vectors yet."""
        ...

    def set_embedding_info(self, info: EmbeddingInfo) -> None:
        """Record the model/dim; raises EmbeddingMismatchError if another one is recorded and vectors exist."""
        ...


class RecordStore(Protocol):
    def write(
        self,
        records: Sequence[MemoryRecord] = (),
        vectors: np.ndarray | None = None,
        *,
        messages: Sequence[RawMessage] = (),
        owners: Sequence[str] | None = None,
        claim: bool = False,
        closes: Sequence[tuple[MemoryRecord, np.ndarray]] = (),
    ) -> list[str]:
        """The one write path: insert new records (one row of ``vectors`` each) and log raw messages,
        in ONE transaction, all or nothing; ``closes`` (closed copies of stored records the new ones supersede,
        with their vectors) are replaced in that transaction too.

        Re-logging a message id already logged in its scope is a no-op. With ``owners`` (the id of
        the message each record came from), a message already logged when the transaction starts
        (another writer got there first) is skipped together with its records, unless it is pending and
        this write processed it (it claims it). With ``claim`` (a reprocess) a message is never logged
        anew: one not logged pending any more (claimed, or forgotten meanwhile) is skipped with its
        records. Returns the ids of the messages skipped."""
        ...

    def replace(self, record: MemoryRecord, vector: np.ndarray) -> None:
        """Supersede an existing record (same id): the old version stays in history."""
        ...

    def get(self, record_id: str) -> MemoryRecord | None: ...

    def delete(self, record_id: str) -> bool:
        """Delete one record; its history becomes a tombstone (a DELETE entry without content).
        Returns False if it did not exist."""
        ...

    def delete_scope(self, scope: Scope) -> int:
        """Delete every record and raw message under ``scope`` (wildcards allowed). Returns records deleted."""
        ...

    def history(self, record_id: str) -> list[HistoryEntry]:
        """All versions of a record, oldest first (ADD, UPDATE...; after a delete, the tombstone alone)."""
        ...

    def forget(self, scope: Scope, *, wildcard: bool = False, collections: Sequence[str] = ()) -> Forgotten:
        """Erase the exact ``scope`` (with ``wildcard``: every exact scope under a partial one): its
        records, every history entry of them (no tombstone), its raw messages and scope entries, and
        the cached vectors; then the backend removes what it keeps of deleted rows where it can
        (SQLite: zeroed pages, WAL checkpointed). ``history`` of a forgotten record is empty.
        ``collections``: vector collections and document sets the scope owns (its reasoning banks),
        erased in the same transaction."""
        ...

    def vacuum(self) -> None:
        """Rewrite the database files so that no free space keeps deleted text: what a database written
        before erasure was complete (SQLite without ``secure_delete``, history before tombstones) may
        still hold after its rows went. Slow on a large database; takes the write lock while it runs."""
        ...


class RecordSearcher(Protocol):
    """Vector search over records: part of :class:`RecordQuery`, and all a store's search index
    (:class:`~memdesk.store.search_cache.RecordIndex`) answers."""

    def search(
        self,
        vector: np.ndarray,
        scope: Scope,
        memory_type: MemoryType,
        k: int,
        speaker: str | None = None,
        where: RecordFilter | None = None,
    ) -> list[ScoredRecord]:
        """Exact cosine top-k of one memory type under ``scope`` (and speaker bank if given), best first;
        with ``where``, the top-k among the records it keeps."""
        ...

    def search_types(
        self,
        vector: np.ndarray,
        scope: Scope,
        memory_types: Sequence[MemoryType],
        k: int,
        speaker: str | None = None,
        where: RecordFilter | None = None,
    ) -> dict[MemoryType, list[ScoredRecord]]:
        """:meth:`search` of each of ``memory_types``, keyed in that order: the same hits, in as few
        reads as the store can (PostgreSQL: one statement for every type)."""
        ...


class RecordQuery(RecordSearcher, Protocol):
    def page(
        self,
        scope: Scope,
        *,
        types: Sequence[MemoryType] | None = None,
        speaker: str | None = None,
        limit: int = DEFAULT_PAGE,
        cursor: str | None = None,
        where: RecordFilter | None = None,
    ) -> Page[MemoryRecord]:
        """Current records under ``scope`` by type (episodic, semantic, procedural, or ``types``' order),
        then insertion order; up to ``limit`` after ``cursor``. With ``where``, only the records it keeps
        (the store narrows in its own query): a page may then hold fewer than ``limit``."""
        ...

    def count(self, scope: Scope | None = None, memory_type: MemoryType | None = None) -> int: ...

    def has_scope(self, scope: Scope) -> bool:
        """True if some exact scope under ``scope`` holds records or raw messages (an index probe)."""
        ...

    def scope_page(
        self, within: Scope | None = None, *, limit: int = DEFAULT_PAGE, cursor: str | None = None
    ) -> Page[Scope]:
        """The exact scopes with records or raw messages (those under ``within`` if given), in the order
        first written, up to ``limit`` after ``cursor``."""
        ...

    def revision(self, scope: Scope | None = None) -> int:
        """A number that changes whenever a memory record under ``scope`` changes (any record if
        None), written here or by another process: lets callers cache what they derive from one
        scope's records, e.g. a lexical index, and keep it while other scopes are written. Values
        are comparable only within one store object and one scope; one may also move when nothing
        under the scope changed (rarely: a scope not asked about for long, or an unknown change)."""
        ...

    def additions_since(self, scope: Scope, revision: int) -> list[str] | None:
        """Ids of the records written under ``scope`` since it had ``revision``, when nothing else changed
        under it since (no replace, delete or other process's write, as far back as this store keeps
        its feed of changes); None when it cannot say so: rebuild what was derived from ``revision``."""
        ...

    def get_vectors(self, memory_type: MemoryType, ids: Sequence[str]) -> np.ndarray:
        """The stored float32 vectors of ``ids`` in that order, bit-exact."""
        ...


class MessageLog(Protocol):
    def message_page(self, scope: Scope, *, limit: int = DEFAULT_PAGE, cursor: str | None = None) -> Page[RawMessage]:
        """Raw messages under ``scope`` in log order, up to ``limit`` after ``cursor``."""
        ...

    def recent_messages(self, scope: Scope, n: int) -> list[RawMessage]:
        """The last ``n`` messages under ``scope``, oldest first."""
        ...

    def has_message(self, scope: Scope, message_id: str) -> bool:
        """Whether a message with that id is logged under exactly ``scope`` (no wildcards: what a write would skip)."""
        ...

    def pending_messages(self, scope: Scope) -> list[RawMessage]:
        """The messages under ``scope`` (wildcards allowed) logged pending (not processed yet), in log order."""
        ...

    def pending_scopes(self) -> list[Scope]:
        """Every scope that has pending messages, oldest pending first: for operator tools (``memdesk worker``)
        that process the whole database, never for a tenant's call."""
        ...


class VectorMaintenance(Protocol):
    """What ``memdesk reembed`` needs: find vectors not written by a model, rewrite them, switch the model."""

    def vector_tables(self) -> list[VectorTable]:
        """Every table that holds vectors now (memory types and collections)."""
        ...

    def stale_vectors(self, info: EmbeddingInfo) -> dict[VectorTable, tuple[int, int]]:
        """{table: (rows whose vector was not written by ``info``, how many of those have no text to embed)}
        for every table that has such rows."""
        ...

    def stale_page(
        self, table: VectorTable, info: EmbeddingInfo, *, limit: int = 512, cursor: str | None = None
    ) -> Page[tuple[str, str]]:
        """(id, text to embed) of rows of ``table`` not written by ``info``, in insertion order."""
        ...

    def rewrite_vectors(self, table: VectorTable, ids: Sequence[str], vectors: np.ndarray, info: EmbeddingInfo) -> None:
        """Atomically replace the vectors of ``ids`` with ones made by ``info`` (no history entry)."""
        ...

    def switch_embedding(self, info: EmbeddingInfo) -> None:
        """Record ``info`` as the store's model; ReembedError naming the tables that still hold other vectors."""
        ...


class KeyStore(Protocol):
    """Tenant API keys, stored as SHA-256 digests (a :class:`~memdesk.tenants.TenantKeys` for the server)."""

    def create_key(self, tenant: Tenant, name: str | None = None) -> NewApiKey:
        """A new key bound to ``tenant``; the key itself is in the result only, never stored."""
        ...

    def find_key(self, key_hash: str) -> ApiKeyInfo | None:
        """The key whose digest is ``key_hash`` (its last use noted), or None."""
        ...

    def keys(self, user_id: str | None = None) -> list[ApiKeyInfo]:
        """Every key (of ``user_id`` if given), oldest first."""
        ...

    def revoke_key(self, key_id: str) -> bool:
        """Delete a key; False if there is none with that id."""
        ...

    def has_keys(self) -> bool: ...


OnConflict = Literal["fail", "skip", "replace"]
ON_CONFLICT: tuple[str, ...] = ("fail", "skip", "replace")


class Restored(BaseModel):
    """What :meth:`~memdesk.store.base.Portability.restore` wrote, skipped or (``check_only``) found clashing."""

    records: int = 0
    history: int = 0
    messages: int = 0
    replaced: int = 0
    skipped_records: list[str] = Field(default_factory=list)
    skipped_messages: list[str] = Field(default_factory=list)
    conflicts: list[str] = Field(default_factory=list, description="'record:<id>' or 'message:<scope key>/<id>'.")


def check_on_conflict(value: object) -> OnConflict:
    if value not in ON_CONFLICT:
        raise InvalidInputError(f"on_conflict must be one of {', '.join(ON_CONFLICT)}, not {value!r}")
    return value  # type: ignore[return-value]


class Portability(Protocol):
    """What ``memdesk export``, ``import`` and ``copy`` need beyond the other protocols (:mod:`memdesk.portability`)."""

    def history_page(
        self, scope: Scope | None, *, limit: int = DEFAULT_PAGE, cursor: str | None = None, event: HistoryEvent | None = None
    ) -> Page[HistoryEntry]:
        """Every history entry written under ``scope`` (wildcards allowed: ADD, UPDATE, and the DELETE
        tombstones of records deleted from it; None: the whole database, for operator tools such as
        ``memdesk copy``, never a tenant's call), oldest first, up to ``limit`` after ``cursor``; with
        ``event``, only the entries of that event (``DELETE``: the tombstones)."""
        ...

    def history_of(self, record_ids: Sequence[str]) -> dict[str, list[HistoryEntry]]:
        """:meth:`RecordStore.history` of many records in one read: {id: entries oldest first} (ids without
        history left out)."""
        ...

    def restore(
        self,
        records: Sequence[MemoryRecord] = (),
        vectors: np.ndarray | None = None,
        *,
        history: Sequence[HistoryEntry] = (),
        messages: Sequence[RawMessage] = (),
        on_conflict: OnConflict = "fail",
        check_only: bool = False,
    ) -> Restored:
        """Write records (one row of ``vectors`` each), history entries and raw messages as exported, in ONE
        transaction: ids, times, versions, ``pending`` and route masks kept; positions assigned in the order
        given; a record's version is the highest of its entries in ``history`` (1 without). A record id the store holds (current or in history) or a message's (scope, id) clashes:
        ``on_conflict`` "fail" raises ImportConflictError before writing, "skip" leaves the stored one,
        "replace" erases it (its history too) first. ``check_only``: report ``conflicts`` (``vectors`` may be
        None), write nothing."""
        ...


class Store(
    EmbeddingPin, RecordStore, RecordQuery, MessageLog, Collections, VectorMaintenance, KeyStore, Portability, Protocol
):
    """Everything a memdesk store provides (every backend implements all of it)."""

    def scan(
        self, scope: Scope, memory_type: MemoryType | None = None, speaker: str | None = None
    ) -> Iterator[MemoryRecord]: ...

    def messages(self, scope: Scope, last: int | None = None) -> list[RawMessage]: ...

    def scopes(self, within: Scope | None = None) -> list[Scope]: ...

    def close(self) -> None: ...
