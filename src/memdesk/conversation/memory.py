"""The ``Memory`` facade: wires Processor, Embedder, Store, Retriever, Serializer and Answerer.

It holds no pipeline logic of its own beyond input normalization and orchestration; each step is a
part passed in through the constructor (see :meth:`Memory.open` for the defaults from settings).
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any, Mapping, Sequence


from ..runtime import tracing
from ..runtime.closing import ClosesOnExit
from ..embed.base import Embedder, embed_queries, unsupported_script
from ..factory import memory_parts
from ..settings import Settings
from ..errors import EmptyInputError, InvalidInputError, MessageTooLargeError
from ..records import (
    AddResult,
    MemoryRecord,
    MemoryType,
    Scope,
    new_id,
    utcnow,
)
from ..hits import Answer, Evidence, SearchHit
from ..retrieval.packing import fit
from ..retrieval.question_time import parse_asked_at
from ..retrieval.retrieve import Merge, Mode, Retriever, Serializer
from ..filters import RecordFilter, as_filter
from ..store.base import EmbeddingInfo, Store
from .supersede import Supersession
from ..text.textcheck import check_text
from .admission import AdmissionPolicy
from .curation import Curation
from .base import Answerer, Processor, Utterance
from .ingest import Reprocessed, Worker, context_message, defer, ingest, reprocess
from .quota import StorageQuota
from .worker import DEFAULT_MAX_PENDING
from .inputs import DEFAULT_MAX_MESSAGE_CHARS, MessageInput, as_flag, as_scope, as_types, normalize_messages

log = logging.getLogger(__name__)

class Memory(Curation, ClosesOnExit):
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
        quota: StorageQuota | None = None,
    ) -> None:
        if isinstance(max_message_chars, bool) or not isinstance(max_message_chars, int) or max_message_chars < 1:
            raise InvalidInputError(f"max_message_chars must be a positive integer, got {max_message_chars!r}")
        self.max_message_chars = max_message_chars
        self.store = store
        self.embedder = embedder
        self.processor = processor
        self.retriever = retriever or Retriever(store)
        self.serializer = serializer or getattr(self.retriever, "serializer", None) or Serializer()  # the packer's
        self._answerer = answerer
        self.admission = admission or AdmissionPolicy()
        self.supersession = supersession or Supersession()
        self.context_turns = context_turns
        self.quota = quota or StorageQuota()  # per tenant, off by default (:mod:`memdesk.conversation.quota`)
        self.quota.usable_with(store)
        self._script_warned: set[tuple[str, str]] = set()  # (scope key, script) already warned about
        self._worker = Worker(self._process_pending, max_pending=max_pending)  # add(wait=False)'s thread, fair between tenants
        self.store.set_embedding_info(EmbeddingInfo(model_id=embedder.model_id, dim=embedder.dim))

    # -- construction ----------------------------------------------------------------------
    @classmethod
    def open(cls, settings: Any = None, **overrides: Any) -> "Memory":
        """A Memory built from settings (``MEMDESK_*`` environment, config file, overrides).

        ``settings`` is a :class:`~memdesk.settings.Settings` or None; a database is named by the
        ``database_url`` override (``Memory.open(database_url="sqlite:///memory.db")``)."""
        if settings is not None and not isinstance(settings, Settings):
            raise InvalidInputError(
                f"Memory.open takes a Settings (or keyword overrides), not {type(settings).__name__}: "
                f"to name a database, use Memory.open(database_url='sqlite:///PATH')"
            )
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
        ``max_message_chars`` a :class:`MessageTooLargeError`; a tenant at or past its storage ``quota``
        gets a :class:`~memdesk.errors.QuotaExceededError` and nothing is logged.
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
        self.quota.check(self.store, scope)  # a tenant past its storage quota adds nothing (QuotaExceededError)
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

    def _process_pending(self, scope: Scope, limit: int) -> int:
        """The worker's turn: process up to ``limit`` pending messages of ``scope``; how many stay pending."""
        return reprocess(self, scope, limit=limit).pending

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
        from .answer import ExtractiveAnswerer

        if not isinstance(self.answerer, ExtractiveAnswerer):
            return self.answerer.answer(question, evidence, question_time=question_time)
        asked_at = search_args.get("asked_at") or utcnow()  # what was replaced by then, as the search read it
        narrowed = any(search_args.get(k) is not None for k in ("filters", "as_of", "types", "speaker"))
        same_message = getattr(self.retriever, "same_message", None)
        if same_message is not None and not narrowed:
            # the offline answer may add a statement of its record's message that the block left out (current
            # records of the same scope only: not when the caller narrowed what may be read)
            def mates(record: MemoryRecord) -> list[MemoryRecord]:
                return same_message(as_scope(scope), record)

            return self.answerer.answer(question, evidence, question_time=question_time, mates=mates, asked_at=asked_at)
        return self.answerer.answer(question, evidence, question_time=question_time, asked_at=asked_at)


def build_memory(
    settings: Settings, *, store: Store | None = None, embedder: Embedder | None = None, chat_model: Any = None
) -> Memory:
    """The Memory the settings describe (what ``Memory.open()`` returns); ``store``, ``embedder`` and
    ``chat_model`` replace the ones the settings would build (:func:`memdesk.factory.memory_parts`)."""
    parts, owned = memory_parts(settings, store=store, embedder=embedder, chat_model=chat_model)
    try:
        return Memory(**parts)
    except BaseException:
        if owned:
            parts["store"].close()
        raise
