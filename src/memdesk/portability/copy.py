"""Copying a whole database onto another (SQLite ↔ PostgreSQL), through the store protocols only.

In batches, each one destination transaction (:meth:`~memdesk.store.base.Portability.restore`):

1. the embedding model (the destination must have none or the same);
2. every exact scope's current records with their vectors (bit-exact) and every version of their history;
3. the history entries left (the tombstones of deleted records);
4. every scope's raw messages, pending or processed, in log order;
5. every vector collection (reasoning banks' examples) with its ``::meta`` and ``::rejected`` document sets.

On PostgreSQL each batch's rows go in with ``COPY`` (:meth:`~memdesk.store.dialect.Dialect.bulk_insert`; SQLite: one
prepared ``INSERT`` over the batch). The destination's vector indexes (pgvector HNSW of its large scopes) are built
after the load (``index``), not maintained row by row. Everything already in the destination is skipped (``on_conflict="skip"``), so a copy that was interrupted is
resumed by running it again. At the end both databases are read again and compared (:func:`digest`): counts per
kind and an order-independent SHA-256 of every row's content must be equal, else :class:`CopyMismatchError`.
Copy from a quiescent source (a stopped server): writes during the copy may be missed and fail the comparison.
Tenant API keys are not copied (the destination gets new ones: ``memdesk keys create``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from datetime import timezone

from pydantic import BaseModel, Field

from ..errors import CopyMismatchError, EmbeddingMismatchError
from ..records import HistoryEntry, HistoryEvent, MemoryType, Scope
from ..store.base import Store
from ..store.codec import scope_key

BATCH = 1000
Progress = Callable[[str, int], None]
"""Called as ``progress(kind, n)`` after each batch of ``n`` items of ``kind`` is read from the source."""


class Digest(BaseModel):
    """Counts per kind and an order-independent SHA-256 of a database's content."""

    counts: dict[str, int] = Field(default_factory=dict)
    sums: dict[str, str] = Field(default_factory=dict)


class CopyResult(BaseModel):
    written: dict[str, int]
    skipped: int
    indexes: list[str] = Field(default_factory=list, description="Vector indexes built after the load.")
    source: Digest
    destination: Digest


def _sum(acc: dict[str, int], kind: str, *parts: object) -> None:
    h = hashlib.sha256(json.dumps(parts, ensure_ascii=False, default=str, separators=(",", ":")).encode()).digest()
    acc[kind] = (acc.get(kind, 0) + int.from_bytes(h, "big")) % (1 << 256)


def _pages(read: Callable[[str | None], object]) -> Iterator[list]:
    cursor: str | None = None
    while True:
        page = read(cursor)
        yield page.items  # type: ignore[attr-defined]
        cursor = page.next_cursor  # type: ignore[attr-defined]
        if cursor is None:
            return


def scopes(store: Store) -> Iterator[Scope]:
    for items in _pages(lambda c: store.scope_page(None, limit=BATCH, cursor=c)):
        yield from items


def _records(store: Store, scope: Scope) -> Iterator[list]:
    """Pages of the exact ``scope``'s current records (a page read under it may hold its sub-scopes' too)."""
    for items in _pages(lambda c: store.page(scope, limit=BATCH, cursor=c)):
        yield [r for r in items if r.scope == scope]


def _vectors(store: Store, records: list) -> tuple[object, dict[str, bytes]]:
    import numpy as np

    rows = {}
    for mt in MemoryType:
        ids = [r.id for r in records if r.memory_type == mt]
        if ids:
            rows.update(zip(ids, store.get_vectors(mt, ids)))
    matrix = np.vstack([rows[r.id] for r in records]) if records else None
    return matrix, {i: v.astype("<f4").tobytes() for i, v in rows.items()}


def _entry_parts(e: HistoryEntry) -> tuple:
    return (e.record_id, e.version, e.event.value, e.memory_type.value, scope_key(e.scope),
            None if e.record is None else e.record.model_dump_json(), e.changed_at.astimezone(timezone.utc).isoformat())  # fmt: skip


def digest(store: Store) -> Digest:
    """Counts and order-independent checksums of a database's records (content and vector bytes), history,
    messages and collection items, read through the protocols."""
    acc: dict[str, int] = {}
    counts: dict[str, int] = {}

    def seen(kind: str, *parts: object) -> None:
        counts[kind] = counts.get(kind, 0) + 1
        _sum(acc, kind, *parts)

    for scope in scopes(store):
        for records in _records(store, scope):
            _, blobs = _vectors(store, records)
            for r in records:
                seen("records", r.model_dump_json(), blobs[r.id].hex())
        for items in _pages(lambda c, s=scope: store.message_page(s, limit=BATCH, cursor=c)):
            for m in items:
                if m.scope == scope:
                    seen("messages", m.model_dump_json(exclude={"seq"}))
    for items in _pages(lambda c: store.history_page(None, limit=BATCH, cursor=c)):
        for e in items:
            seen("history", *_entry_parts(e))
    for name in store.collections():
        ids, payloads, matrix = store.collection(name).export()
        for i, (item_id, payload) in enumerate(zip(ids, payloads)):
            seen("collection_items", name, item_id, payload, matrix[i].astype("<f4").tobytes().hex())
        for doc in (f"{name}::meta", f"{name}::rejected"):
            for item_id, payload in store.documents(doc).get():
                seen("documents", doc, item_id, payload)
    return Digest(counts=counts, sums={k: f"{v:064x}" for k, v in acc.items()})


def copy_store(
    src: Store, dst: Store, *, progress: Progress | None = None, verify: bool = True,
    index: Callable[[], list[str]] | None = None,
) -> CopyResult:  # fmt: skip
    """Copy every row of ``src`` into ``dst``; see the module docstring. ``index``: called once every row is in,
    before the verification, to build the destination's vector indexes (e.g. ``PostgresStore.index_large_scopes``:
    built once over the loaded rows rather than maintained row by row; it builds only the missing ones, so a
    resumed copy ends with them too); returns their names."""
    note = progress or (lambda kind, n: None)
    info = src.embedding_info()
    if info is not None:
        theirs = dst.embedding_info()
        if theirs is not None and theirs != info:
            raise EmbeddingMismatchError(theirs.model_id, theirs.dim, info.model_id, info.dim)
        dst.set_embedding_info(info)
    written = {"records": 0, "history": 0, "messages": 0, "collection_items": 0, "documents": 0}
    skipped = 0
    all_scopes = list(scopes(src))
    for scope in all_scopes:
        for records in _records(src, scope):
            if not records:
                continue
            matrix, _ = _vectors(src, records)
            history = src.history_of([r.id for r in records])
            done = dst.restore(records, matrix, history=[e for r in records for e in history.get(r.id, [])],
                               on_conflict="skip")  # fmt: skip
            written["records"] += done.records
            written["history"] += done.history
            skipped += len(done.skipped_records)
            note("records", len(records))
    for tombstones in _pages(lambda c: src.history_page(None, limit=BATCH, cursor=c, event=HistoryEvent.DELETE)):
        # the current records' entries came with them; what is left is the tombstones of deleted records
        if tombstones:
            done = dst.restore(history=tombstones, on_conflict="skip")
            written["history"] += done.history
        note("history", len(tombstones))
    for scope in all_scopes:
        for items in _pages(lambda c, s=scope: src.message_page(s, limit=BATCH, cursor=c)):
            mine = [m for m in items if m.scope == scope]
            if mine:
                done = dst.restore(messages=mine, on_conflict="skip")
                written["messages"] += done.messages
                skipped += len(done.skipped_messages)
                note("messages", len(mine))
    for name in src.collections():
        written["collection_items"] += _copy_collection(src, dst, name)
        for doc in (f"{name}::meta", f"{name}::rejected"):
            items = src.documents(doc).get()
            have = {i for i, _ in dst.documents(doc).get([i for i, _ in items])} if items else set()
            items = [(i, p) for i, p in items if i not in have]
            if items:
                dst.documents(doc).put([i for i, _ in items], [p for _, p in items])
                written["documents"] += len(items)
        note("collections", 1)
    indexes = [] if index is None else index()
    if indexes:
        note("indexes", len(indexes))
    source = digest(src) if verify else Digest()
    destination = digest(dst) if verify else Digest()
    if verify and source != destination:
        diff = sorted(k for k in set(source.counts) | set(destination.counts)
                      if source.counts.get(k) != destination.counts.get(k) or source.sums.get(k) != destination.sums.get(k))  # fmt: skip
        raise CopyMismatchError(f"the copy differs from its source in {diff}: {source.counts} vs {destination.counts}",
                                source, destination)  # fmt: skip
    return CopyResult(written=written, skipped=skipped, indexes=indexes, source=source, destination=destination)


def vector_indexes(store: Store) -> Callable[[], list[str]] | None:
    """What builds ``store``'s vector indexes once a copy has loaded it: a PostgreSQL store searching in SQL (with
    pgvector >= 0.5) builds its large scopes' HNSW indexes; None for the others (SQLite builds its ANN index when
    a search first needs it)."""
    try:
        from ..store.pg_search import MIN_PGVECTOR
        from ..store.postgres import PostgresStore
    except ImportError:  # psycopg is not installed: the store is not a PostgreSQL one
        return None
    if isinstance(store, PostgresStore) and store.search_mode == "sql" and store.pgvector_version >= MIN_PGVECTOR:
        return store.index_large_scopes
    return None


def _copy_collection(src: Store, dst: Store, name: str) -> int:
    ids, payloads, matrix = src.collection(name).export()
    if not ids:
        return 0
    target = dst.collection(name)
    have = {i for i, _ in target.get(ids)}
    keep = [n for n, i in enumerate(ids) if i not in have]
    if keep:
        texts = []
        for n in keep:
            try:
                texts.append(json.loads(payloads[n]).get("embedding_text"))
            except (ValueError, AttributeError):
                texts.append(None)
        target.put([ids[n] for n in keep], [payloads[n] for n in keep], matrix[keep], texts)
    return len(keep)


__all__ = ["CopyMismatchError", "CopyResult", "Digest", "copy_store", "digest", "scopes", "vector_indexes"]
