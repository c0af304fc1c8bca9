"""The one processing path of :meth:`Memory.add` and :meth:`Memory.reprocess`, and the pending log.

:func:`ingest` routes and extracts utterances (the admission policy and the processor), embeds the
records, resolves what they supersede and writes records and raw messages in one store transaction.
When processing or embedding fails, the messages are still logged, *pending*, and the exception is
re-raised (its type kept, a note added): nothing said is lost. :func:`reprocess` runs the pending
messages of a scope through the same :func:`ingest`, in log order, with what each message carried
(role, source, image caption, timestamp, metadata) and the turns before it as context. The store's
write transaction decides who processed a pending message: it is claimed once, so a concurrent
reprocess or a retried ``add`` never stores its records twice. ``add(..., wait=False)`` logs the messages
pending (:func:`defer`) and leaves them to the Memory's :class:`Worker` thread, which reprocesses them.
"""

from __future__ import annotations

import logging
from typing import Protocol, Sequence

import numpy as np
from pydantic import BaseModel, Field

from ..embed.base import Embedder
from ..records import ROLES, AddResult, MemoryRecord, Message, RawMessage, Scope, split_caption
from .base import Processed, Processor, Utterance
from .inputs import as_flag
from .decisions import ShowsKnown, with_known
from ..store.base import Store
from .admission import AdmissionPolicy
from .asked import mark_asked
from .supersede import Supersession
from .worker import Worker

log = logging.getLogger(__name__)


class Parts(Protocol):
    """What the processing path uses of a :class:`~memdesk.Memory`: its parts, its worker and its warnings."""

    store: Store
    embedder: Embedder
    processor: Processor
    admission: AdmissionPolicy
    supersession: Supersession
    context_turns: int
    _worker: Worker

    def _script_warnings(self, scope: Scope, texts: Sequence[str]) -> list[str]: ...


class Reprocessed(BaseModel):
    """What :meth:`Memory.reprocess` did."""

    messages: int = Field(description="Pending messages this call processed (claimed and written).")
    records: int = Field(description="Records written for them.")
    pending: int = Field(description="Messages under the scope still pending afterwards.")
    message_ids: list[str] = Field(default_factory=list, description="The ids of the messages processed, in log order.")


class PendingPass(BaseModel):
    """What one :func:`process_pending` pass over the whole database did."""

    scopes: int = Field(description="Scopes that had pending messages.")
    messages: int = Field(description="Pending messages processed (claimed and written).")
    records: int = Field(description="Records written for them.")
    failed: dict[str, str] = Field(
        default_factory=dict, description="Scope -> the error that left its messages pending (tried again next pass)."
    )


def message_of(raw: RawMessage) -> Message:
    """The message as it was added, from its raw log row (the image caption split from the content)."""
    content, caption = split_caption(raw.content)
    return Message(
        id=raw.id, speaker=raw.speaker, role=raw.role, content=content, timestamp=raw.timestamp,  # type: ignore[arg-type]
        image_caption=caption, source=raw.source, metadata=raw.metadata,
    )  # fmt: skip


def _raw(u: Utterance, *, route_mask: int | None) -> RawMessage:
    assert u.reference_time is not None
    return RawMessage(
        id=u.message_id, scope=u.scope, speaker=u.message.speaker, role=u.message.role, content=u.message.text(),
        timestamp=u.message.timestamp, ingest_time=u.reference_time, route_mask=route_mask,
        metadata=u.message.metadata, source=u.message.source, pending=route_mask is None,
    )  # fmt: skip


def ingest(
    memory: Parts, scope: Scope, utterances: Sequence[Utterance], *, ids: Sequence[str], claim: bool = False
) -> AddResult:
    """Process ``utterances`` (all of ``scope``) and write their records and raw messages atomically.

    A message someone else processed first (another ingest of the same id, a concurrent reprocess) is
    skipped with its records. If the processor, the embedder or the supersession check raises, the
    messages are logged pending and the exception is re-raised with a note saying so. ``claim``: the
    utterances are messages read pending (:func:`reprocess`); one a forget erased meanwhile is skipped
    with its records and never logged again (the store's ``write(claim=True)``)."""
    try:
        if isinstance(memory.processor, ShowsKnown) and memory.processor.known_facts > 0:  # the facts it decides against
            utterances = with_known(
                utterances, store=memory.store, embedder=memory.embedder, admission=memory.admission,
                k=memory.processor.known_facts,
            )  # fmt: skip
        processed = memory.admission.process(memory.processor, utterances, context_turns=memory.context_turns)
        records, owners = _records(memory, utterances, processed)
        vectors = memory.embedder.embed([r.embed_text() for r in records])
        closed = memory.supersession.resolve(memory.store, records, vectors)  # memories these records supersede
        closed = _embed_narrowed(memory, closed)
        records, vectors, owners, closed = _split_off(records, vectors, owners, closed)
    except Exception as e:
        _keep_pending(memory, scope, utterances, e, logged=claim)
        raise
    raws = [_raw(u, route_mask=p.mask.bits) for u, p in zip(utterances, processed)]
    # a concurrent ingest may have logged (or claimed) some of these messages since they were read: the
    # store skips them (and their records) inside its write transaction
    # the closing goes in the same transaction as the new records: a crash never keeps one without the other
    skipped = set(memory.store.write(records, vectors, messages=raws, owners=owners, claim=claim, closes=closed))
    owner_of = {r.id: owner for r, owner in zip(records, owners)}
    superseded = [old for old, _ in closed if old.superseded_by is not None and owner_of[old.superseded_by] not in skipped]
    return AddResult(
        message_ids=list(ids),
        routes={u.message_id: str(p.mask) for u, p in zip(utterances, processed) if u.message_id not in skipped},
        records=[r for r, owner in zip(records, owners) if owner not in skipped and not r.metadata.get("split_from")],
        warnings=memory._script_warnings(scope, [u.message.text() for u in utterances]),
        superseded=superseded,
    )


def _embed_narrowed(memory: Parts, closed: list[tuple[MemoryRecord, np.ndarray]]) -> list[tuple[MemoryRecord, np.ndarray]]:
    """The memories to close or narrow, a narrowed one (not closed: its text changed) and one split off a memory
    (:mod:`.remainder`) with the vector of its text."""
    narrowed = [i for i, (r, _) in enumerate(closed) if r.superseded_by is None or r.metadata.get("split_from")]
    if not narrowed:
        return closed
    vectors = memory.embedder.embed([closed[i][0].embed_text() for i in narrowed])
    out = list(closed)
    for i, vector in zip(narrowed, vectors):
        out[i] = (closed[i][0], vector)
    return out


def _split_off(
    records: list[MemoryRecord], vectors: np.ndarray, owners: list[str], closed: list[tuple[MemoryRecord, np.ndarray]]
) -> tuple[list[MemoryRecord], np.ndarray, list[str], list[tuple[MemoryRecord, np.ndarray]]]:
    """The records to write with the records split off stored memories (:mod:`.remainder`: what went of one, closed
    from birth) added, owned by the message of the record that closed them; and the stored memories to close or narrow."""
    split = [(r, v) for r, v in closed if r.metadata.get("split_from")]
    if not split:
        return records, vectors, owners, closed
    owner_of = {r.id: o for r, o in zip(records, owners)}
    return (
        [*records, *(r for r, _ in split)], np.vstack([vectors, *(v[None, :] for _, v in split)]),
        [*owners, *(owner_of[r.superseded_by or ""] for r, _ in split)], [(r, v) for r, v in closed if not r.metadata.get("split_from")],
    )  # fmt: skip


def _records(
    memory: Parts, utterances: Sequence[Utterance], processed: Sequence[Processed]
) -> tuple[list[MemoryRecord], list[str]]:
    records: list[MemoryRecord] = []
    for u, p in zip(utterances, processed):
        for r in p.records:
            r.embedding_model = memory.embedder.model_id
            said = {k: v for k, v in u.message.metadata.items() if k != "replaces"}  # only a processor's decision closes
            r.metadata = {**said, **r.metadata}  # the message's metadata (the processor's keys win)
        records.extend(p.records)
    shown = memory.admission.context_roles if memory.admission.enabled else ROLES
    mark_asked(utterances, [p.records for p in processed], shown)  # what a reply was asked about: how it is found (.asked)
    owners = [u.message_id for u, p in zip(utterances, processed) for _ in p.records]
    return records, owners


def _keep_pending(
    memory: Parts, scope: Scope, utterances: Sequence[Utterance], error: Exception, *, logged: bool = False
) -> None:
    """Log the utterances' messages pending (those logged already stay as they are) and note it on ``error``.
    ``logged``: they were read pending from the log, where they stay (one forgotten meanwhile is not logged again)."""
    try:
        if not logged:
            memory.store.write(messages=[_raw(u, route_mask=None) for u in utterances])
    except Exception as failed:  # the store is down too: say so on the original error
        error.add_note(f"memdesk: the {len(utterances)} message(s) could not be kept pending either: {failed}")
        raise error from failed
    note = (
        f"memdesk: {len(utterances)} message(s) kept pending in the raw log of scope {scope} "
        f"({type(error).__name__}); Memory.reprocess(scope) or `memdesk reprocess` processes them"
    )
    error.add_note(note)
    log.warning("%s: %s", note, error)


def reprocess(memory: Parts, scope: Scope, *, wildcard: bool = False, limit: int | None = None) -> Reprocessed:
    """Process the pending messages under ``scope`` (exact, or every scope under it with ``wildcard``),
    scope by scope in log order, through :func:`ingest`; only the first ``limit`` of them when given (the
    worker's batch)."""
    as_flag("wildcard", wildcard)
    groups: dict[str, list[RawMessage]] = {}
    for raw in _pending(memory, scope, wildcard)[:limit]:
        groups.setdefault(raw.scope.key(), []).append(raw)
    done: list[str] = []
    records = 0
    for raws in groups.values():
        result = ingest(memory, raws[0].scope, _utterances(memory, raws), ids=[r.id for r in raws], claim=True)
        done += [r.id for r in raws if r.id in result.routes]
        records += len(result.records)
    return Reprocessed(messages=len(done), records=records, pending=len(_pending(memory, scope, wildcard)), message_ids=done)


def _pending(memory: Parts, scope: Scope, wildcard: bool) -> list[RawMessage]:
    return [m for m in memory.store.pending_messages(scope) if wildcard or m.scope == scope]


def context_message(raw: RawMessage) -> Message:
    """A logged message as a context turn for the processor (its caption, if any, stays in the content)."""
    return Message(
        content=raw.content, speaker=raw.speaker, role=raw.role, timestamp=raw.timestamp, id=raw.id,  # type: ignore[arg-type]
        source=raw.source,
    )  # fmt: skip


def _utterances(memory: Parts, raws: Sequence[RawMessage]) -> list[Utterance]:
    """The pending ``raws`` of one scope as utterances, each with the turns logged before it as context."""
    scope, window = raws[0].scope, memory.context_turns * 4
    log = [m for m in memory.store.messages(scope) if m.scope == scope and m.seq < raws[-1].seq] if window else []
    return [
        Utterance(
            message_id=raw.id, message=message_of(raw), scope=scope, reference_time=raw.ingest_time,
            context=[context_message(m) for m in log if m.seq < raw.seq][-window:] if window else [],
        )  # fmt: skip
        for raw in raws
    ]


def defer(memory: Parts, scope: Scope, utterances: Sequence[Utterance], *, ids: Sequence[str]) -> AddResult:
    """Log ``utterances`` pending and hand their scope to the Memory's worker (``add(..., wait=False)``); past the
    tenant's room in the worker's queue, :class:`~memdesk.errors.TooManyRequestsError` and nothing is logged."""
    memory._worker.admit(scope, len(utterances))
    try:
        memory.store.write(messages=[_raw(u, route_mask=None) for u in utterances])
    except BaseException:
        memory._worker.give_back(scope, len(utterances))
        raise
    memory._worker.submit(scope)
    return AddResult(message_ids=list(ids), routes={}, records=[], pending=list(ids))


def process_pending(memory: Parts) -> PendingPass:
    """Process the pending messages of every scope in the database (``memdesk worker``: an operator's process,
    not a tenant's call), scope by scope through :func:`reprocess`. A scope whose processing fails keeps its
    messages pending and is named in ``failed``; the other scopes are processed all the same."""
    scopes = memory.store.pending_scopes()
    messages = records = 0
    failed: dict[str, str] = {}
    for scope in scopes:
        try:
            done = reprocess(memory, scope)
        except Exception as e:  # noqa: BLE001 -- one scope's failure (a model down, bad output) must not stop the rest
            failed[str(scope)] = f"{type(e).__name__}: {e}"
            log.warning("memdesk worker: the pending messages of %s stay pending: %s", scope, failed[str(scope)])
            continue
        messages += done.messages
        records += done.records
    return PendingPass(scopes=len(scopes), messages=messages, records=records, failed=failed)


__all__ = [
    "PendingPass", "Reprocessed", "Worker", "context_message", "defer", "ingest", "message_of", "process_pending",
    "reprocess",
]  # fmt: skip
