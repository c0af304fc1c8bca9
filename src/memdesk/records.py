"""Typed records at memdesk's edges: scopes, memory records, raw messages (search hits: :mod:`memdesk.hits`).

Embedding vectors are not fields of the records: they travel beside them as float32 numpy arrays
(``Store.put(records, vectors)``), which keeps the models light and the vectors exact.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timezone
from enum import Enum
from typing import Annotated, Any, Literal, Union, overload

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator

from .errors import InvalidInputError
from .scope import Scope


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def new_id() -> str:
    return uuid.uuid4().hex


class MemoryType(str, Enum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"

    @property
    def bit(self) -> int:
        return {MemoryType.EPISODIC: 0b100, MemoryType.SEMANTIC: 0b010, MemoryType.PROCEDURAL: 0b001}[self]


ALL_TYPES: tuple[MemoryType, ...] = (MemoryType.EPISODIC, MemoryType.SEMANTIC, MemoryType.PROCEDURAL)


class RouteMask(BaseModel):
    """ENGRAM's 3-bit routing mask: episodic, semantic, procedural (several may be set)."""

    model_config = ConfigDict(frozen=True)

    episodic: bool = False
    semantic: bool = False
    procedural: bool = False

    @property
    def bits(self) -> int:
        return (self.episodic << 2) | (self.semantic << 1) | int(self.procedural)

    @classmethod
    def from_bits(cls, bits: int) -> "RouteMask":
        if not 0 <= bits <= 7:
            raise InvalidInputError(f"route mask must be 0..7, got {bits}")
        return cls(episodic=bool(bits & 4), semantic=bool(bits & 2), procedural=bool(bits & 1))

    @property
    def types(self) -> list[MemoryType]:
        return [t for t in ALL_TYPES if getattr(self, t.value)]

    def __str__(self) -> str:
        return format(self.bits, "03b")


@overload
def _aware(v: datetime) -> datetime: ...
@overload
def _aware(v: None) -> None: ...
def _aware(v: datetime | None) -> datetime | None:
    """``v`` with a naive time read as UTC (the house's one reading of a naive time)."""
    if v is not None and v.tzinfo is None:
        return v.replace(tzinfo=timezone.utc)
    return v


#: Who wrote a message: the person (``user``), the assistant, a tool's output or a system prompt.
Role = Literal["user", "assistant", "tool", "system"]
ROLES: tuple[Role, ...] = ("user", "assistant", "tool", "system")

#: The ``source`` of text taken from an image caption (see :meth:`Message.text`).
IMAGE_CAPTION_SOURCE = "image_caption"
_CAPTION = re.compile(r"\s*\[shares an image: (.*)\]\s*$", re.DOTALL)


def split_caption(text: str) -> tuple[str, str | None]:
    """``(content, caption)`` of a text written by :meth:`Message.text` (``caption`` None when it has none)."""
    m = _CAPTION.search(text)
    if m is None:
        return text, None
    return text[: m.start()], m.group(1)


class RecordBase(BaseModel):
    """Fields shared by every memory record.

    ``role`` and ``source`` are its provenance: the role of the message it came from and where its
    text came from (set by the caller, e.g. ``chat``, ``tool:web_search``, ``email``; ``image_caption``
    for text taken from an image caption). Records written before memdesk kept them read back as
    ``role="user"``, ``source=None`` unless the store's migration found their message's role.
    """

    # a serialized record always carries every field: say so in the JSON schema (OpenAPI), so generated
    # clients see `type`, `id` and `ingest_time` as required
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)

    id: str = Field(default_factory=new_id)
    scope: Scope
    speaker: str | None = None
    role: Role = Field(default="user", description="Role of the message the record came from.")
    source: str | None = Field(
        default=None, description="Where its text came from, e.g. 'chat', 'tool:web_search', 'email', 'image_caption'."
    )
    event_time: datetime | None = Field(
        default=None, description="When it happened, resolved from the conversation (not ingest time)."
    )
    temporal_anchor: str | None = Field(
        default=None, description="Human-readable absolute time anchor, e.g. '2023-05-07' or 'May 2023'."
    )
    ingest_time: datetime = Field(default_factory=utcnow)
    provenance: list[str] = Field(default_factory=list, description="Source message ids (e.g. LoCoMo dia_ids).")
    embedding_model: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    valid_to: datetime | None = Field(
        default=None,
        description="When it stops (or stopped) being true (set when a later memory superseded it: a change said ahead "
        "of its date ends it then); valid from its event_time.",
    )
    superseded_by: str | None = Field(default=None, description="The id of the memory that superseded it.")

    _aware_times = field_validator("event_time", "ingest_time", "valid_to")(_aware)

    def valid_at(self, when: datetime) -> bool:
        """Whether the memory held at ``when``: it had happened (or has no event time) and was not yet superseded."""
        return (self.event_time is None or self.event_time <= when) and (self.valid_to is None or self.valid_to > when)

    def closed_at(self, when: datetime) -> bool:
        """Whether a later memory had closed it by ``when``: superseded from a time at or before ``when``
        (a change said ahead of its date, "I leave the bakery at the end of next month", closes it only
        from that date; superseded with no end time: closed whenever)."""
        return self.superseded_by is not None and (self.valid_to is None or self.valid_to <= when)

    def said_time(self) -> datetime | None:
        """When the record's message was said (``metadata["said_at"]``), else added (``"added_at"``), as
        an aware time; None when neither is there or parses."""
        for key in ("said_at", "added_at"):
            value = self.metadata.get(key)
            if isinstance(value, str):
                try:
                    return _aware(datetime.fromisoformat(value))
                except ValueError:
                    continue
        return None

    def source_message(self) -> str | None:
        """The id of the message the record was made from: the first of its ``provenance`` (the ids after it are
        the turns it was read with, e.g. the question a reply answers); None when it names none."""
        return self.provenance[0] if self.provenance else None

    @property
    def memory_type(self) -> MemoryType:
        return MemoryType(self.type)  # type: ignore[attr-defined]

    def embed_text(self) -> str:
        """The text embedded and indexed for search: :meth:`text`, after ``metadata["embed_context"]`` when
        an extractor set one (the turn a reply answers, whose words these are), after ``metadata["asked_about"]``
        when ingest set one (the topic of the question the record's message answers,
        :mod:`memdesk.conversation.asked`). Both shape how the record is found, never its text."""
        head = [
            f"{v}:" if key == "asked_about" else v
            for key in ("asked_about", "embed_context")
            if isinstance(v := self.metadata.get(key), str) and v.strip()
        ]
        return " ".join([*head, self.text()])

    def body(self) -> str:  # pragma: no cover - overridden
        """The record's main text (summary, fact or instructions)."""
        raise NotImplementedError

    def text(self) -> str:
        """The record's text as shown (evidence lines, CLI, HTTP, MCP), written once: the body, after its
        title only when the body does not already start with it."""
        return self.body()

    def provenance_label(self) -> str:
        """Who it is from when that is not the user's own chat: ``"by assistant"``,
        ``"by tool, via tool:web_search"``, ``"via image_caption"``; ``""`` for the user's words."""
        parts = []
        if self.role != "user":
            parts.append(f"by {self.role}")
        if self.source not in (None, "chat"):
            parts.append(f"via {self.source}")
        return ", ".join(parts)


def _titled(title: str, body: str) -> str:
    """A record's text, written once: the body, after its title only when the body does not already
    start with it (the rule extractor's titles are the first clause of the body)."""
    if not title or body.startswith(title.rstrip(" .…")):
        return body
    return f"{title}: {body}"


class EpisodicRecord(RecordBase):
    """A time-bound event."""

    type: Literal["episodic"] = "episodic"
    title: str
    summary: str

    def body(self) -> str:
        return self.summary

    def text(self) -> str:
        return _titled(self.title, self.summary)


class SemanticRecord(RecordBase):
    """A stable fact or preference."""

    type: Literal["semantic"] = "semantic"
    fact: str

    def body(self) -> str:
        return self.fact


class ProceduralRecord(RecordBase):
    """An instruction, workflow or how-to."""

    type: Literal["procedural"] = "procedural"
    title: str
    content: str = Field(description="Normalized instruction content.")

    def body(self) -> str:
        return self.content

    def text(self) -> str:
        return _titled(self.title, self.content)


MemoryRecord = Annotated[Union[EpisodicRecord, SemanticRecord, ProceduralRecord], Field(discriminator="type")]
RECORD_CLASSES: dict[MemoryType, type[RecordBase]] = {
    MemoryType.EPISODIC: EpisodicRecord,
    MemoryType.SEMANTIC: SemanticRecord,
    MemoryType.PROCEDURAL: ProceduralRecord,
}


class Message(BaseModel):
    """One utterance as it arrives. ``id`` is the caller's id (e.g. a LoCoMo dia_id) if it has one."""

    model_config = ConfigDict(extra="forbid")

    id: str | None = None
    speaker: str | None = None
    role: Role = "user"
    content: str
    timestamp: datetime | None = None
    image_caption: str | None = None
    source: str | None = Field(
        default=None, max_length=200, description="Where the text came from, e.g. 'chat', 'tool:web_search', 'email'."
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    _aware_times = field_validator("timestamp")(_aware)

    def text(self) -> str:
        """The text to remember: the content, plus the caption of a shared image."""
        if self.image_caption:
            cap = f"[shares an image: {self.image_caption}]"
            return f"{self.content} {cap}".strip() if self.content else cap
        return self.content


class RawMessage(BaseModel):
    """A message as persisted in the raw log: nothing said is ever lost."""

    id: str
    scope: Scope
    speaker: str | None
    role: str
    content: str
    timestamp: datetime | None
    ingest_time: datetime
    route_mask: int | None = None
    seq: int = 0
    metadata: dict[str, Any] = Field(default_factory=dict)
    source: str | None = Field(default=None, description="The message's source as the caller gave it (e.g. 'tool:web_search').")
    pending: bool = Field(
        default=False,
        description="Logged but not processed yet (processing failed, or it was deferred): Memory.reprocess turns it "
        "into memories. A processed message has its route_mask; one logged only (never meant for memory) has neither.",
    )

    _aware_times = field_validator("timestamp", "ingest_time")(_aware)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def status(self) -> Literal["pending", "processed", "logged"]:
        """``pending``, ``processed`` (its ``route_mask`` says where it went) or ``logged`` (raw log only)."""
        return "pending" if self.pending else "processed" if self.route_mask is not None else "logged"


class HistoryEvent(str, Enum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    DELETE = "DELETE"


class HistoryEntry(BaseModel):
    """One version of a record: what it was and what happened to it.

    A ``DELETE`` entry is a tombstone: the record's id, type and scope and when it was deleted, never its
    content (``record`` is None), and deleting a record also erases the content of its earlier versions
    (a deleted record's history is its tombstone alone)."""

    record_id: str
    version: int
    event: HistoryEvent
    memory_type: MemoryType
    scope: Scope
    record: MemoryRecord | None = Field(description="The version's content; None for a DELETE tombstone.")
    changed_at: datetime


class AddResult(BaseModel):
    """What ``Memory.add`` did: messages logged, how each was routed, records written."""

    message_ids: list[str]
    routes: dict[str, str] = Field(description="message id -> 3-bit mask, e.g. '110'.")
    records: list[MemoryRecord]
    warnings: list[str] = Field(
        default_factory=list, description="Things the caller should know, e.g. text the embedder cannot embed well."
    )
    pending: list[str] = Field(
        default_factory=list,
        description="Ids of the messages logged pending, to be processed in the background (add with wait=False).",
    )
    superseded: list[MemoryRecord] = Field(
        default_factory=list,
        description="The earlier memories these records closed, as closed (valid_to, superseded_by: the new "
        "record's id); they stay in history and in as_of reads.",
    )

    @property
    def counts(self) -> dict[str, int]:
        out = {t.value: 0 for t in ALL_TYPES}
        for r in self.records:
            out[r.type] += 1
        return out
