"""What a :class:`~memdesk.Memory` offers to curate what it holds: get, list, page, update, delete, forget,
history, export and import, each checked against the caller's scope (a record outside it is "not found")."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Mapping, Sequence

from pydantic import ValidationError

from ..errors import EmptyInputError, InvalidInputError, MessageTooLargeError, RecordNotFoundError
from ..runtime import tracing
from ..filters import RecordFilter, as_filter
from ..records import HistoryEntry, MemoryRecord, MemoryType, RawMessage, Scope
from ..retrieval.retrieve import Retriever
from ..store.base import Forgotten, Page, Store
from ..store.filtered import page_where, scan_where
from ..embed.base import Embedder
from ..text.textcheck import check_strings, check_text
from .base import HoldsText
from .inputs import as_flag, as_scope, as_types

log = logging.getLogger(__name__)


class Curation:
    """The curation half of :class:`~memdesk.Memory` (its store, embedder and retriever are set by Memory)."""

    store: Store
    embedder: Embedder
    retriever: Retriever

    def get(self, record_id: str, *, scope: Scope) -> MemoryRecord:
        """The record ``record_id`` if it lies under ``scope`` (unset fields are wildcards); a record outside
        the scope raises :class:`RecordNotFoundError` exactly as a missing one does, so ids reveal nothing."""
        scope = as_scope(scope)
        check_text(record_id, "record id")
        record = self.store.get(record_id)
        if record is None or not scope.matches(record.scope):
            raise RecordNotFoundError.under(record_id, scope)
        return record

    def get_all(
        self,
        *,
        scope: Scope,
        types: Sequence[MemoryType | str] | None = None,
        speaker: str | None = None,
        filters: RecordFilter | Mapping[str, Any] | None = None,
        as_of: datetime | None = None,
    ) -> list[MemoryRecord]:
        """Every current memory under ``scope`` (that held ``as_of``, if given; that ``filters`` keeps),
        by type (episodic, semantic, procedural) then age."""
        check_text(speaker, "speaker")
        return list(scan_where(self.store, as_scope(scope), as_filter(filters, types=as_types(types), speaker=speaker, as_of=as_of)))

    def page(
        self,
        *,
        scope: Scope,
        types: Sequence[MemoryType | str] | None = None,
        speaker: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
        filters: RecordFilter | Mapping[str, Any] | None = None,
        as_of: datetime | None = None,
    ) -> Page[MemoryRecord]:
        """One page of :meth:`get_all`'s listing: up to ``limit`` memories after ``cursor`` (a
        ``next_cursor`` from the previous page), read by keyset."""
        check_text(speaker, "speaker")
        check_text(cursor, "cursor")
        where = as_filter(filters, types=as_types(types), speaker=speaker, as_of=as_of)
        return page_where(self.store, as_scope(scope), where, limit=limit, cursor=cursor)

    def messages(self, *, scope: Scope) -> list[RawMessage]:
        """The raw message log under ``scope``: everything ever said, routed or not; each message's
        ``status`` says whether it is ``pending`` (see :meth:`reprocess`) or ``processed`` (its ``route_mask``)."""
        return self.store.messages(as_scope(scope))

    @tracing.memory_span("update_memory", before=tracing.record_id_attributes, after=tracing.one)
    def update(self, record_id: str, text: str | None = None, *, scope: Scope, **fields: Any) -> MemoryRecord:
        """Supersede a record under ``scope`` with new text/fields; the old version stays in :meth:`history`.

        A new ``text`` also rewrites what depends on it, unless given explicitly: the title of an
        episodic or procedural record, and the event time and temporal anchor (from the text's own
        time expressions, read against when the record was said, else added; without any, the
        anchor falls back to that time). The embedding is always recomputed."""
        old = self.get(record_id, scope=scope)
        check_strings(fields, "fields")
        if text is not None:
            if not isinstance(text, str) or not text.strip():
                raise EmptyInputError("empty text")
            check_text(text, "text")
            if len(text) > self.max_message_chars:
                raise MessageTooLargeError(f"text has {len(text):,} characters; the limit is {self.max_message_chars:,}")
            main = {"episodic": "summary", "semantic": "fact", "procedural": "content"}[old.type]
            fields = {**_derived_fields(old, text), **fields, main: text}
        if not fields:
            raise InvalidInputError("nothing to update: give text or fields")
        protected = {"id", "type", "scope", "ingest_time", "role", "source"} & set(fields)  # provenance stays
        if protected:
            raise InvalidInputError(f"cannot update {sorted(protected)}")
        try:
            new = type(old).model_validate({**old.model_dump(), **fields, "embedding_model": self.embedder.model_id})
        except ValidationError as e:
            raise InvalidInputError(f"invalid update: {e.errors()[0]['loc']}: {e.errors()[0]['msg']}") from e
        self.store.replace(new, self.embedder.embed([new.embed_text()])[0])
        return new

    @tracing.memory_span("delete_memory", before=tracing.record_id_attributes, after=tracing.one)
    def delete(self, record_id: str, *, scope: Scope) -> None:
        """Delete one record under ``scope`` (a record outside it is not found). Its :meth:`history` keeps
        a tombstone alone (id, type, scope, when; ``record`` None): the content of every version goes, from
        the caches too, and on SQLite from the database files (as :meth:`forget`). What was said stays in the
        raw message log (:meth:`forget` erases that)."""
        scope = as_scope(scope)
        self.get(record_id, scope=scope)
        if not self.store.delete(record_id):
            raise RecordNotFoundError.under(record_id, scope)
        self._drop_cached_text()

    def forget(self, scope: Scope, *, wildcard: bool = False) -> Forgotten:
        """Erase everything stored for the exact ``scope``: its records, every version of them in
        :meth:`history` (no tombstone: their history is not found afterwards), its raw messages and
        scope entries, the tenant API keys bound to it (``Forgotten.keys``; see :mod:`memdesk.store.erasure`),
        and every cache that holds their text or vectors (the search caches, the BM25 indexes, the processor's). On SQLite no byte of the database files keeps the text afterwards.

        The exact scope only: ``Scope(user_id="ana")`` leaves ana's records under an agent or run.
        ``wildcard=True`` forgets every scope under a partial one (every agent and run of ana).

        The reasoning banks the scope owns (:mod:`memdesk.reasoning.ownership`) go in the same transaction."""
        from ..reasoning.ownership import bank_tables, owned_banks

        as_flag("wildcard", wildcard)
        scope = as_scope(scope)
        banks = [c for c, _ in owned_banks(self.store, scope, wildcard=wildcard)]
        tables = [t for c in banks for t in bank_tables(self.store, c)]
        forgotten = self.store.forget(scope, wildcard=wildcard, collections=tables)
        forgotten = forgotten.model_copy(update={"banks": len(banks)})
        self._drop_cached_text()
        return forgotten

    def _drop_cached_text(self) -> None:
        for part in (self.retriever, self.processor, self._answerer):
            if isinstance(part, HoldsText):
                part.drop_cached_text()

    @tracing.memory_span("delete_memory", after=tracing.deleted)
    def delete_all(self, *, scope: Scope, wildcard: bool = False) -> int:
        """:meth:`forget` ``scope`` (exact unless ``wildcard``); returns the number of records deleted."""
        return self.forget(scope, wildcard=wildcard).records

    def history(self, record_id: str, *, scope: Scope) -> list[HistoryEntry]:
        """Every version of a record under ``scope``, oldest first; a deleted record's is its tombstone
        (a DELETE entry whose ``record`` is None)."""
        scope = as_scope(scope)
        check_text(record_id, "record id")
        entries = self.store.history(record_id)
        # a record's scope never changes (update refuses it), so any version says whose it is
        if not entries or not scope.matches(entries[0].scope):
            raise RecordNotFoundError.under(record_id, scope)
        return entries

    def export(self, scope: Scope, file: Any, *, wildcard: bool = False, vectors: bool = False) -> Any:
        """Write everything :meth:`forget` would erase of ``scope`` to ``file`` (a text stream) as a memdesk
        export: records with their history, raw messages, owned banks (:mod:`memdesk.portability`)."""
        from .. import __version__
        from ..portability.export import export_scope

        return export_scope(self.store, as_scope(scope), file, wildcard=as_flag("wildcard", wildcard),
                            vectors=as_flag("vectors", vectors), memdesk_version=__version__)  # fmt: skip

    def import_(self, path: Any, *, on_conflict: str = "fail") -> Any:
        """Restore a memdesk export file into this memory's store (``on_conflict``: fail, skip or replace)."""
        from ..portability.importer import import_file

        result = import_file(self.store, self.embedder, path, on_conflict=on_conflict)  # type: ignore[arg-type]
        self._drop_cached_text()
        return result


def _derived_fields(old: MemoryRecord, text: str) -> dict[str, Any]:
    """The fields of ``old`` that its new ``text`` decides (see :meth:`Memory.update`)."""
    from .extract import text_fields

    reference = old.said_time() or old.ingest_time
    out = text_fields(MemoryType(old.type), text, reference)
    if "temporal_anchor" not in out:
        out["event_time"], out["temporal_anchor"] = reference, reference.date().isoformat()
    out["metadata"] = {k: v for k, v in old.metadata.items() if k != "time_expressions"} | {"edited": True}
    return out
