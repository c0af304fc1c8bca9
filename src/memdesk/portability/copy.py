"""Copying a whole database onto another (SQLite ↔ PostgreSQL), through the store protocols only.

In batches, each one destination transaction (:meth:`~memdesk.store.base.Portability.restore`):

1. the embedding model (the destination must have none or the same);
2. every exact scope's current records with their vectors (bit-exact) and every version of their history;
3. the history entries left (the tombstones of deleted records);
4. every scope's raw messages, pending or processed, in log order;
5. every vector collection (reasoning banks' examples) with its ``::meta`` and ``::rejected`` document sets.

On PostgreSQL each batch's rows go in with ``COPY`` (:meth:`~memdesk.store.dialect.Dialect.bulk_insert`; SQLite: one
prepared ``INSERT`` over the batch). The destination's vector indexes (pgvector HNSW of its large scopes) are built
after the load (``index``), not maintained row by row. Everything already in the destination is skipped
(``on_conflict="skip"``), so a copy that was interrupted is resumed by running it again. At the end the two are
compared (:mod:`.checksums`): counts per kind and an order-independent SHA-256 of every row's content must be equal,
else :class:`CopyMismatchError`. The destination is read again in full; of the source, the records, vectors and
messages are digested from the pages the copy read (each is read once, skipped ones too), its history and
collections are read again on their own.
Copy from a quiescent source (a stopped server): writes during the copy may be missed and fail the comparison.
Tenant API keys are not copied (the destination gets new ones: ``memdesk keys create``).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from pydantic import BaseModel, Field

from ..errors import CopyMismatchError, EmbeddingMismatchError
from ..records import HistoryEvent
from ..store.base import Store
from . import checksums
from .checksums import Digest, Digester, digest, digest_history, pages, scope_messages, scope_records, scopes, vectors

Progress = Callable[[str, int], None]
"""Called as ``progress(kind, n)`` after each batch of ``n`` items of ``kind`` is read from the source."""


class CopyResult(BaseModel):
    written: dict[str, int]
    skipped: int
    indexes: list[str] = Field(default_factory=list, description="Vector indexes built after the load.")
    source: Digest
    destination: Digest


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
    seen = Digester()  # the source's digest, from the pages copied (each is read once)
    all_scopes = list(scopes(src))
    for scope in all_scopes:
        for records in scope_records(src, scope):
            if not records:
                continue
            matrix, blobs = vectors(src, records)
            if verify:
                seen.records(records, blobs)
            history = src.history_of([r.id for r in records])
            done = dst.restore(records, matrix, history=[e for r in records for e in history.get(r.id, [])],
                               on_conflict="skip")  # fmt: skip
            written["records"] += done.records
            written["history"] += done.history
            skipped += len(done.skipped_records)
            note("records", len(records))
    for tombstones in pages(lambda c: src.history_page(None, limit=checksums.BATCH, cursor=c, event=HistoryEvent.DELETE)):
        # the current records' entries came with them; what is left is the tombstones of deleted records
        if tombstones:
            done = dst.restore(history=tombstones, on_conflict="skip")
            written["history"] += done.history
        note("history", len(tombstones))
    for scope in all_scopes:
        for mine in scope_messages(src, scope):
            if mine:
                if verify:
                    seen.messages(mine)
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
    source = destination = Digest()
    if verify:
        digest_history(src, seen)  # every entry, read on its own (the copy read them by record and tombstone)
        seen.collections(src)
        source = seen.result()
        destination = digest(dst)
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
