"""Seams of the conversational write and read paths: Router, Extractor, Answerer.

A :class:`Processor` turns one utterance into its route mask and typed records. The default
(:class:`RoutedExtraction`) chains a Router and an Extractor; an LLM processor may do both in one
call (ENGRAM's single call per utterance) and implements :class:`Processor` directly.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, Sequence, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from ..records import MemoryRecord, Message, RouteMask, Scope
from ..hits import Answer, Evidence


class Utterance(BaseModel):
    """A message ready for routing: its stored id, its scope and the turns just before it."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    message_id: str
    message: Message
    scope: Scope
    context: list[Message] = Field(default_factory=list, description="Preceding turns, oldest first.")
    reference_time: datetime | None = Field(
        default=None,
        description="When the message was added: relative time in a message without a timestamp is read against it.",
    )
    known: list[MemoryRecord] = Field(
        default_factory=list,
        description="Stored current facts of the same speaker and role in the scope most similar to it, for a "
        "processor that decides add / update / no-op (filled by ingest, see memdesk.conversation.decisions).",
    )


class Processed(BaseModel):
    mask: RouteMask
    records: list[MemoryRecord]
    held: str | None = Field(
        default=None, description="Why the admission policy kept the message out of memory (raw log only)."
    )


@runtime_checkable
class Router(Protocol):
    def route(self, utterance: Utterance) -> RouteMask: ...


@runtime_checkable
class Extractor(Protocol):
    def extract(self, utterance: Utterance, mask: RouteMask) -> list[MemoryRecord]:
        """Records of the types set in ``mask``, with speaker, temporal anchor and provenance filled."""
        ...


@runtime_checkable
class Processor(Protocol):
    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        """One :class:`Processed` per utterance, in order."""
        ...


class RoutedExtraction:
    """The default Processor: route each utterance, then extract the selected types."""

    def __init__(self, router: Router, extractor: Extractor) -> None:
        self.router = router
        self.extractor = extractor

    def process(self, utterances: Sequence[Utterance]) -> list[Processed]:
        out = []
        for u in utterances:
            mask = self.router.route(u)
            records = self.extractor.extract(u, mask) if mask.bits else []
            out.append(Processed(mask=mask, records=records))
        return out


@runtime_checkable
class Answerer(Protocol):
    def answer(self, question: str, evidence: Evidence, *, question_time: str | None = None) -> Answer: ...


@runtime_checkable
class HoldsText(Protocol):
    """A part that caches text it was given or read (a retriever's BM25 indexes, a processor's replies):
    :meth:`Memory.forget <memdesk.conversation.memory.Memory.forget>` has it drop them all."""

    def drop_cached_text(self) -> None: ...
