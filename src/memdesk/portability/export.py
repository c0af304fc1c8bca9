"""Writing a scope to an export file (:mod:`.format`), through the store protocols only.

What goes in: the scope's current records (each with its history entries written under the scope), the
tombstones of records deleted from it, its raw messages (pending or processed) in log order, and the reasoning
banks it owns (:mod:`memdesk.reasoning.ownership`: manifest, rejected items, examples). The exact scope only
unless ``wildcard`` (then every scope under a partial one), as :meth:`memdesk.Memory.forget` reads it: an export
holds what a forget of the same scope would erase, and nothing else.

The scope's history is read first and held by record id (one entry per version: a scope of 10^5 records with a
few versions each holds some 100 MB while it is written); records, messages and bank items are read a page at a
time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import IO

from ..records import HistoryEntry, MemoryType, Scope
from ..store.base import Store
from .format import (
    BankItemLine, BankLine, DeletedLine, EndLine, Header, KindCounts, MessageLine, RecordLine, encode_vector, write_line,
)  # fmt: skip

PAGE = 500


class ExportCounts(KindCounts):
    """How many of each kind an export wrote."""

    deleted: int = 0
    pending: int = 0


def _under(scope: Scope, wildcard: bool) -> Callable[[Scope], bool]:
    return (lambda s: scope.matches(s)) if wildcard else (lambda s: s == scope)


def scope_history(store: Store, scope: Scope, keep: Callable[[Scope], bool]) -> dict[str, list[HistoryEntry]]:
    """The history entries written under ``scope`` (those ``keep`` keeps), by record id, oldest first."""
    out: dict[str, list[HistoryEntry]] = {}
    cursor: str | None = None
    while True:
        page = store.history_page(scope, limit=PAGE * 4, cursor=cursor)
        for e in page.items:
            if keep(e.scope):
                out.setdefault(e.record_id, []).append(e)
        if page.next_cursor is None:
            return out
        cursor = page.next_cursor


def export_scope(
    store: Store, scope: Scope, out: IO[str], *, wildcard: bool = False, vectors: bool = False, memdesk_version: str
) -> ExportCounts:
    """Write ``scope`` (exact unless ``wildcard``) to ``out`` as a memdesk export; see the module docstring."""
    from ..reasoning.ownership import owned_banks

    keep = _under(scope, wildcard)
    info = store.embedding_info() if vectors else None
    header = Header(memdesk_version=memdesk_version, created_at=datetime.now(timezone.utc), scope=scope,
                    wildcard=wildcard, vectors=vectors and info is not None, embedder=info)  # fmt: skip
    write_line(out, header)
    counts = ExportCounts()
    history = scope_history(store, scope, keep)
    cursor: str | None = None
    while True:
        page = store.page(scope, limit=PAGE, cursor=cursor)
        records = [r for r in page.items if keep(r.scope)]
        found = {}
        if header.vectors:
            for mt in MemoryType:
                ids = [r.id for r in records if r.memory_type == mt]
                if ids:
                    found.update(zip(ids, store.get_vectors(mt, ids)))
        for r in records:
            entries = history.pop(r.id, [])
            vec = encode_vector(found[r.id]) if r.id in found else None
            write_line(out, RecordLine(record=r, vector=vec, history=entries))
            counts.records += 1
            counts.history += len(entries)
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    for record_id, entries in history.items():  # what is left: records no longer current under the scope
        write_line(out, DeletedLine(record_id=record_id, history=entries))
        counts.deleted += 1
        counts.history += len(entries)
    cursor = None
    while True:
        mpage = store.message_page(scope, limit=PAGE, cursor=cursor)
        for m in mpage.items:
            if keep(m.scope):
                write_line(out, MessageLine(message=m))
                counts.messages += 1
                counts.pending += int(m.pending)
        if mpage.next_cursor is None:
            break
        cursor = mpage.next_cursor
    for collection, _ in owned_banks(store, scope, wildcard=wildcard):
        _export_bank(store, collection, out, header.vectors, counts)
    write_line(out, EndLine(counts={"record": counts.records, "deleted": counts.deleted, "message": counts.messages,
                                    "bank": counts.banks, "bank_item": counts.bank_items}))  # fmt: skip
    return counts


def _export_bank(store: Store, collection: str, out: IO[str], vectors: bool, counts: ExportCounts) -> None:
    from ..reasoning.bank import MemoryBank

    bank = MemoryBank(store, collection)
    sets = {name: store.documents(name).get() for name in bank.tables()[1:]}
    write_line(out, BankLine(collection=collection, documents={k: v for k, v in sets.items() if v}))
    counts.banks += 1
    ids, payloads, matrix = store.collection(collection).export()
    for i, (item_id, payload) in enumerate(zip(ids, payloads)):
        vec = encode_vector(matrix[i]) if vectors else None
        write_line(out, BankItemLine(collection=collection, id=item_id, payload=payload, vector=vec))
        counts.bank_items += 1


__all__ = ["ExportCounts", "export_scope", "scope_history"]
