"""What ``memdesk copy`` compares at the end: counts per kind and an order-independent checksum of a database.

Each item (a record with its vector bytes, a history entry, a raw message, a collection item, a document) is hashed
with SHA-256 over its length-prefixed parts; a kind's checksum is the sum of its items' hashes modulo 2^256, so it
does not depend on the order the items are read in. :func:`digest` reads a whole database through the store
protocols; :class:`Digester` is fed items one page at a time, so a copy can digest its source from the pages it
copies (:func:`~memdesk.portability.copy.copy_store`) instead of reading them twice.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from datetime import timezone

from pydantic import BaseModel, Field

from ..records import HistoryEntry, MemoryRecord, MemoryType, RawMessage, Scope
from ..store.base import Store
from ..store.codec import scope_key

BATCH = 1000
"""Items per page read from a store."""


class Digest(BaseModel):
    """Counts per kind and an order-independent SHA-256 of a database's content."""

    counts: dict[str, int] = Field(default_factory=dict)
    sums: dict[str, str] = Field(default_factory=dict)


def pages(read: Callable[[str | None], object]) -> Iterator[list]:
    """The items of every page ``read(cursor)`` returns, a page at a time, following ``next_cursor``."""
    cursor: str | None = None
    while True:
        page = read(cursor)
        yield page.items  # type: ignore[attr-defined]
        cursor = page.next_cursor  # type: ignore[attr-defined]
        if cursor is None:
            return


def scopes(store: Store) -> Iterator[Scope]:
    for items in pages(lambda c: store.scope_page(None, limit=BATCH, cursor=c)):
        yield from items


def scope_records(store: Store, scope: Scope) -> Iterator[list[MemoryRecord]]:
    """Pages of the exact ``scope``'s current records (a page read under it may hold its sub-scopes' too)."""
    for items in pages(lambda c: store.page(scope, limit=BATCH, cursor=c)):
        yield [r for r in items if r.scope == scope]


def scope_messages(store: Store, scope: Scope) -> Iterator[list[RawMessage]]:
    """Pages of the exact ``scope``'s raw messages, in log order."""
    for items in pages(lambda c: store.message_page(scope, limit=BATCH, cursor=c)):
        yield [m for m in items if m.scope == scope]


def vectors(store: Store, records: list[MemoryRecord]) -> tuple[object, dict[str, bytes]]:
    """The records' vectors: a float32 matrix in their order, and each one's little-endian float32 bytes by id."""
    import numpy as np

    rows = {}
    for mt in MemoryType:
        ids = [r.id for r in records if r.memory_type == mt]
        if ids:
            rows.update(zip(ids, store.get_vectors(mt, ids)))
    matrix = np.vstack([rows[r.id] for r in records]) if records else None
    return matrix, {i: v.astype("<f4").tobytes() for i, v in rows.items()}


def _bytes(part: object) -> bytes:
    if isinstance(part, bytes):
        return b"b" + part
    if isinstance(part, str):
        return b"s" + part.encode("utf-8", "surrogatepass")
    return b"r" + repr(part).encode()  # ints and None


class Digester:
    """Counts and checksums of the items it is fed (see the module)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self._sums: dict[str, int] = {}

    def seen(self, kind: str, *parts: object) -> None:
        h = hashlib.sha256()
        for part in parts:
            b = _bytes(part)
            h.update(len(b).to_bytes(8, "big"))
            h.update(b)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self._sums[kind] = (self._sums.get(kind, 0) + int.from_bytes(h.digest(), "big")) % (1 << 256)

    def records(self, records: Iterable[MemoryRecord], blobs: dict[str, bytes]) -> None:
        for r in records:
            self.seen("records", r.model_dump_json(), blobs[r.id])

    def messages(self, messages: Iterable[RawMessage]) -> None:
        for m in messages:
            self.seen("messages", m.model_dump_json(exclude={"seq"}))

    def history(self, entries: Iterable[HistoryEntry]) -> None:
        for e in entries:
            record = None if e.record is None else e.record.model_dump_json()
            self.seen("history", e.record_id, e.version, e.event.value, e.memory_type.value, scope_key(e.scope), record,
                      e.changed_at.astimezone(timezone.utc).isoformat())  # fmt: skip

    def collections(self, store: Store) -> None:
        """Every vector collection's items and its ``::meta`` and ``::rejected`` documents."""
        for name in store.collections():
            ids, payloads, matrix = store.collection(name).export()
            for i, (item_id, payload) in enumerate(zip(ids, payloads)):
                self.seen("collection_items", name, item_id, payload, matrix[i].astype("<f4").tobytes())
            for doc in (f"{name}::meta", f"{name}::rejected"):
                for item_id, payload in store.documents(doc).get():
                    self.seen("documents", doc, item_id, payload)

    def result(self) -> Digest:
        return Digest(counts=dict(self.counts), sums={k: f"{v:064x}" for k, v in self._sums.items()})


def digest_history(store: Store, into: Digester) -> None:
    """Every history entry of ``store`` (ADD, UPDATE and DELETE tombstones), read by keyset."""
    for entries in pages(lambda c: store.history_page(None, limit=BATCH, cursor=c)):
        into.history(entries)


def digest(store: Store) -> Digest:
    """Counts and order-independent checksums of a database's records (content and vector bytes), history,
    messages and collection items, read through the protocols."""
    into = Digester()
    for scope in scopes(store):
        for records in scope_records(store, scope):
            into.records(records, vectors(store, records)[1])
        for messages in scope_messages(store, scope):
            into.messages(messages)
    digest_history(store, into)
    into.collections(store)
    return into.result()


__all__ = ["Digest", "Digester", "digest", "digest_history", "pages", "scope_messages", "scope_records", "scopes", "vectors"]
