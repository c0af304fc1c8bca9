"""The ``Memory`` facade: wires Processor, Embedder, Store, Retriever, Serializer and Answerer.

It holds no pipeline logic of its own beyond input normalization and orchestration; each step is a
part passed in through the constructor (see :meth:`Memory.open` for the defaults from settings).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Mapping, Sequence

from pydantic import ValidationError

from ..runtime import tracing
from ..runtime.closing import ClosesOnExit
from ..embed.base import Embedder, embed_queries, unsupported_script
from ..errors import EmptyInputError, InvalidInputError, MessageTooLargeError, RecordNotFoundError
from ..records import (
    AddResult,
    Answer,
    Evidence,
    HistoryEntry,
    MemoryRecord,
    MemoryType,
    RawMessage,
    Scope,
    SearchHit,
    new_id,
    utcnow,
)
from ..retrieval.packing import fit
from ..retrieval.question_time import parse_asked_at
from ..retrieval.retrieve import Merge, Mode, Retriever, Serializer
from ..filters import RecordFilter, as_filter
from ..store.base import EmbeddingInfo, Forgotten, Page, Store
from ..store.filtered import page_where, scan_where
from .supersede import Supersession
from ..text.textcheck import check_strings, check_text
from .admission import AdmissionPolicy
from .base import Answerer, HoldsText, Processor, Utterance
from .ingest import Reprocessed, Worker, context_message, defer, ingest, reprocess
from .worker import DEFAULT_MAX_PENDING
from .inputs import DEFAULT_MAX_MESSAGE_CHARS, MessageInput, as_flag, as_scope, as_types, normalize_messages

log = logging.getLogger(__name__)

class Memory(ClosesOnExit):
    """Typed conversational memory (ENGRAM) over a Store.

    >>> mem = Memory.open()                                     # doctest: +SKIP
    >>> mem.add(["I moved to Lisbon last month."], scope=Scope(user_id="ana"))  # doctest: +SKIP
    >>> mem.search("Where does Ana live?", scope=Scope(user_id="ana"))         # doctest: +SKIP
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        processor: Processor,
        *,
        answerer: Answerer | None = None,
        retriever: Retriever | None = None,
        serializer: Serializer | None = None,
        admission: AdmissionPolicy | None = None,
        supersession: Supersession | None = None,
        context_turns: int = 4,
        max_message_chars: int = DEFAULT_MAX_MESSAGE_CHARS,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> None:
        if isinstance(max_message_chars, bool) or not isinstance(max_message_chars, int) or max_message_chars < 1:
            raise InvalidInputError(f"max_message_chars must be a positive integer, got {max_message_chars!r}")
        self.max_message_chars = max_message_chars
        self.store = store
        self.embedder = embedder
        self.processor = processor
        self.retriever = retriever or Retriever(store)
        self.serializer = serializer or getattr(self.retriever, "serializer", None) or Serializer()  # the packer's block
        self._answerer = answerer
        self.admission = admission or AdmissionPolicy()
        self.supersession = supersession or Supersession()
        self.context_turns = context_turns
        self._script_warned: set[tuple[str, str]] = set()  # (scope key, script) already warned about
        self._worker = Worker(self, max_pending=max_pending)  # add(wait=False)'s thread, fair between tenants
        self.store.set_embedding_info(EmbeddingInfo(model_id=embedder.model_id, dim=embedder.dim))

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def open(cls, settings: Any = None, **overrides: Any) -> "Memory":
        """A Memory built from settings (``MEMDESK_*`` environment, config file, overrides)."""
        from ..factory import build_memory
        from ..settings import Settings

        return build_memory(settings or Settings.load(**overrides))

    def close(self) -> None:
        """Process what ``add(..., wait=False)`` left queued, then close the store."""
        self._worker.close()
        self.store.close()

    @property
    def answerer(self) -> Answerer:
        if self._answerer is None:
            from .answer import ExtractiveAnswerer

            self._answerer = ExtractiveAnswerer()
        return self._answerer

    # -- write path --------------------------------------------------------------------------
    @tracing.memory_span("create_memory", after=tracing.added)
    def add(
        self,
        messages: MessageInput | Sequence[MessageInput],
        *,
        scope: Scope,
        timestamp: datetime | None = None,
        speaker: str | None = None,
        wait: bool = True,
    ) -> AddResult:
        """Log messages, route and extract them into typed records, embed and store them atomically.

        ``messages`` is a string, a dict (``content``, ``role``, ``speaker``, ``timestamp``, ``id``,
        ``image_caption``, ``source``), a :class:`Message`, or a list of them. ``timestamp`` fills messages
        that carry none, ``speaker`` the user-role messages that carry none. What becomes memory is decided
        by the admission policy (:mod:`memdesk.conversation.admission`); the raw log keeps every message.
        Messages whose id is already logged in this scope are skipped (re-running an ingest adds nothing
        twice), unless they are logged pending: those are processed now. If the processor or the embedder
        fails, the messages are still logged, pending (see :meth:`reprocess`), and the error is raised
        with its type and a note. ``wait=False`` validates and logs the messages pending, returns at once
        (their ids, no records) and lets the Memory's own thread process them (:meth:`wait_pending`
        waits for it; :meth:`close` finishes its queue): at least once, never twice. Invalid input raises before anything is written: text that is not valid UTF-8 (a lone
        surrogate) or holds NUL is an :class:`InvalidInputError`, a message longer than
        ``max_message_chars`` a :class:`MessageTooLargeError`.
        """
        scope = as_scope(scope)
        as_flag("wait", wait)
        batch = normalize_messages(messages, timestamp=timestamp, speaker=speaker)
        for i, m in enumerate(batch):
            if len(m.text()) > self.max_message_chars:
                raise MessageTooLargeError(
                    f"message {i} has {len(m.text()):,} characters; the limit is {self.max_message_chars:,} "
                    "(setting max_message_chars): split it into smaller messages"
                )
        ids = [m.id or new_id() for m in batch]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("duplicate message ids in one add() call")
        logged = {i for i in ids if self.store.has_message(scope, i)}
        # a message logged pending (its processing failed) is processed now, not skipped
        pending = {m.id for m in self.store.pending_messages(scope) if m.scope == scope} if logged else set()
        fresh = [(i, m) for i, m in zip(ids, batch) if i not in logged or i in pending]
        if not fresh:
            return AddResult(message_ids=ids, routes={}, records=[])
        # the policy shows the processor only some roles as context: give it a wider window to choose from
        window = self.context_turns * 4
        again = {i for i, _ in fresh}
        recent = [
            context_message(r)
            for r in (self.store.recent_messages(scope, window + len(again)) if window else [])
            if r.id not in again
        ][-window:] if window else []
        now = utcnow()
        utterances = []
        for mid, msg in fresh:
            # relative time in a message without a timestamp is read against the time it is added
            utterances.append(
                Utterance(message_id=mid, message=msg, scope=scope, context=recent[-window:] if window else [], reference_time=now)
            )
            recent.append(msg)
        return ingest(self, scope, utterances, ids=ids) if wait else defer(self, scope, utterances, ids=ids)

    def wait_pending(self) -> None:
        """Wait until what ``add(..., wait=False)`` queued so far is processed (or failed: still pending)."""
        self._worker.join()

    def reprocess(self, scope: Scope, *, wildcard: bool = False) -> Reprocessed:
        """Process the messages logged *pending* under the exact ``scope`` (every scope under a partial
        one with ``wildcard=True``): those whose processing failed in :meth:`add`. They go in log order
        through add's own path (same admission policy, same provenance: a tool message or an image
        caption is never the user's words), their records and their processed status in one transaction.
        Nothing is processed twice: a message another reprocess or a retried :meth:`add` claimed first is
        skipped with its records. If processing fails again the messages stay pending and the error is raised."""
        return reprocess(self, as_scope(scope), wildcard=wildcard)

    def _script_warnings(self, scope: Scope, texts: Sequence[str]) -> list[str]:
        """One warning per scope and script the embedder does not embed well (logged and returned)."""
        out = []
        for text in texts:
            script = unsupported_script(self.embedder, text)
            if script is None or (scope.key(), script) in self._script_warned:
                continue
            self._script_warned.add((scope.key(), script))
            msg = (
                f"{self.embedder.model_id} does not embed {script} text well: search in scope {scope} may miss it "
                "(the message and its records are kept; set MEMDESK_EMBEDDER=multilingual and run memdesk reembed)"
            )
            log.warning(msg)
            out.append(msg)
        return out

    # -- read path --------------------------------------------------------------------------
    @tracing.memory_span("search_memory", before=tracing.query_attributes, after=tracing.count)
    def search(
        self,
        query: str,
        *,
        scope: Scope,
        k: int | None = None,
        K: int | None = None,
        types: Sequence[MemoryType | str] | None = None,
        speaker: str | None = None,
        mode: Mode = "typed",
        merge: Merge | None = None,
        hybrid: bool | None = None,
        filters: RecordFilter | Mapping[str, Any] | None = None,
        as_of: datetime | None = None,
        asked_at: datetime | None = None,
    ) -> list[SearchHit]:
        """Top-k per type under ``scope`` (and ``speaker``'s bank), merged, de-duplicated, truncated to K.
        ``hybrid`` fuses a BM25 ranking of the same records (default: the retriever's setting). A scope
        that holds nothing gives no hits, as :meth:`get_all` gives no records.

        Current memories rank first (a superseded one's score is weighted down by the retriever's
        ``superseded_weight``, or it is dropped when that is None) unless ``as_of`` asks for those
        that held at that time; ``filters`` (a :class:`~memdesk.filters.RecordFilter` or its fields as a
        dict: ``metadata``, ``roles``, ``sources``, ``since``, ``until``, ``include_superseded``...) narrows further.
        ``asked_at`` (when the question is asked; default now) dates its time expressions: on the default
        read path a record dated when "two weeks ago" or "on May 3" points ranks higher
        (:mod:`memdesk.retrieval.question_time`); pass it when replaying a question asked at another time."""
        scope = as_scope(scope)
        if asked_at is not None and not isinstance(asked_at, datetime):
            raise InvalidInputError(f"asked_at must be a datetime, not {type(asked_at).__name__}")
        if not isinstance(query, str) or not query.strip():
            raise EmptyInputError("empty query")
        check_text(query, "query")
        check_text(speaker, "speaker")
        where = as_filter(filters, types=as_types(types), speaker=speaker, as_of=as_of)
        vector = embed_queries(self.embedder, [query])[0]
        return self.retriever.retrieve(
            vector, scope, k=k, K=K, mode=mode, merge=merge, query_text=query, hybrid=hybrid, where=where,
            asked_at=asked_at or utcnow(),
        )

    @tracing.memory_span(
        "retrieval", name="retrieval memdesk", before=tracing.retrieval_attributes, after=tracing.evidence_attributes
    )
    def evidence(self, query: str, *, scope: Scope, **search_args: Any) -> Evidence:
        """The serialized evidence block for ``query`` (hits, text, token count), within the retriever's token budget
        (the lowest-ranked hits are left out when this Memory's serializer writes a longer block than the packer's)."""
        hits = self.search(query, scope=scope, **search_args)
        budget = getattr(self.retriever, "token_budget", None)
        if budget and self.serializer is not getattr(self.retriever, "serializer", None):
            hits = fit(hits, self.serializer, budget)
        return self.serializer.serialize(hits)

    @tracing.memory_span("answer", before=tracing.query_attributes, after=tracing.answer_attributes)
    def answer(self, question: str, *, scope: Scope, question_time: str | None = None, **search_args: Any) -> Answer:
        """Retrieve evidence and answer from it (extractive offline; generated with a chat model).
        ``question_time`` is shown to the answering model; when it is a date or an ISO time and
        ``asked_at`` is not given, it also dates the question's time expressions for retrieval."""
        check_text(question_time, "question_time")
        if question_time and search_args.get("asked_at") is None:
            search_args["asked_at"] = parse_asked_at(question_time)
        evidence = self.evidence(question, scope=scope, **search_args)
        return self.answerer.answer(question, evidence, question_time=question_time)

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

