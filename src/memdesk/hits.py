"""The one result model of every face: :class:`MemoryItem` (a memory as a listing shows it) and
:class:`SearchHit` (a memory a search found, with its score and why).

Python, HTTP, MCP, the command line's ``--json`` and :class:`~memdesk.RemoteMemory` give the same JSON::

    {"id", "type", "text", "score", "cosine", "rank", "why",          # score .. why: search hits only
     "time", "temporal_anchor", "speaker", "role", "source", "metadata", "provenance", "scope", "record"}

Every field but the hit's own (``score``, ``cosine``, ``rank``, ``why``) is read from ``record``, the typed
record (:class:`~memdesk.records.EpisodicRecord`, :class:`~memdesk.records.SemanticRecord` or
:class:`~memdesk.records.ProceduralRecord`), so they can never disagree with it. ``text`` is what the memory
says, written once (:meth:`~memdesk.records.RecordBase.text`): a semantic memory's ``fact``; an episodic
memory's ``summary`` and a procedural memory's ``content``, each after its ``title`` only when the body does not
already start with it (the rule extractor's titles are the body's first clause). It is also the text embedded
for search. ``time`` is when it happened (the record's ``event_time``, None when the conversation did not
say), ``temporal_anchor`` the same as a person reads it ("2024-05-07", "May 2024").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, computed_field, model_serializer

from .records import MemoryRecord, MemoryType, Role
from .scope import Scope

__all__ = ["Answer", "Evidence", "MemoryItem", "SearchHit"]

#: the order of the keys in an item's JSON (the typed record last: it repeats the rest)
_ORDER = (
    "id", "type", "text", "score", "cosine", "rank", "why", "time", "temporal_anchor", "speaker", "role", "source",
    "metadata", "provenance", "scope",
)  # fmt: skip


class MemoryItem(BaseModel):
    """One memory as every face lists it (``get``, ``list`` / ``get_all``, what ``add`` wrote): the fields a
    client reads, the same for every memory type, and the typed ``record`` for those who want the rest."""

    record: MemoryRecord = Field(description="The typed record (its fields depend on its type).")

    @classmethod
    def of(cls, record: MemoryRecord) -> "MemoryItem":
        return cls.model_construct(record=record)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def id(self) -> str:
        return self.record.id

    @computed_field(description="episodic, semantic or procedural.")  # type: ignore[prop-decorator]
    @property
    def type(self) -> MemoryType:
        return MemoryType(self.record.type)

    @property
    def memory_type(self) -> MemoryType:
        """The older name of :attr:`type`."""
        return self.type

    @computed_field(  # type: ignore[prop-decorator]
        description="What the memory says: the fact; the summary / content after its title when the body "
        "does not start with it."
    )
    @property
    def text(self) -> str:
        return self.record.text()

    @computed_field(description="When it happened (its event time), if the conversation said.")  # type: ignore[prop-decorator]
    @property
    def time(self) -> datetime | None:
        return self.record.event_time

    @computed_field(description="When it happened as a person reads it, e.g. '2024-05-07' or 'May 2024'.")  # type: ignore[prop-decorator]
    @property
    def temporal_anchor(self) -> str | None:
        return self.record.temporal_anchor

    @computed_field(description="Who said it.")  # type: ignore[prop-decorator]
    @property
    def speaker(self) -> str | None:
        return self.record.speaker

    @computed_field(description="Role of the message it came from.")  # type: ignore[prop-decorator]
    @property
    def role(self) -> Role:
        return self.record.role

    @computed_field(description="Where its text came from, e.g. 'chat', 'tool:web_search'.")  # type: ignore[prop-decorator]
    @property
    def source(self) -> str | None:
        return self.record.source

    @computed_field  # type: ignore[prop-decorator]
    @property
    def metadata(self) -> dict[str, Any]:
        return self.record.metadata

    @computed_field(description="Ids of the messages it came from.")  # type: ignore[prop-decorator]
    @property
    def provenance(self) -> list[str]:
        return self.record.provenance

    @computed_field(description="Whose memory it is: user_id, agent_id, run_id.")  # type: ignore[prop-decorator]
    @property
    def scope(self) -> Scope:
        return self.record.scope

    @model_serializer(mode="wrap")  # no return annotation: the JSON schema stays the model's own
    def _ordered(self, handler: SerializerFunctionWrapHandler):  # type: ignore[no-untyped-def]
        out = handler(self)
        if not isinstance(out, dict):
            return out
        ordered = {k: out.pop(k) for k in _ORDER if k in out}
        record = out.pop("record", None)
        return {**ordered, **out, "record": record}


class SearchHit(MemoryItem):
    """One retrieved memory: the :class:`MemoryItem` fields, its score and why it matched.

    ``score`` is a calibrated relevance in [0, 1] that never rises down the list, on every read path
    (:mod:`memdesk.retrieval.relevance`, ``docs/scores.md``: a logistic map of the path's raw ranking value, fitted on
    labelled questions; 0.5 is an even chance that the record answers); the raw value (the fused default's
    standardized cosine + BM25 with its bonuses, ENGRAM's cosine, the RRF sum) is written in ``why``. ``cosine``
    is the query-record cosine similarity wherever the read path computed it (None for a candidate only BM25
    found in RRF fusion). ``memory_type`` is kept as the older name of ``type``.
    """

    score: float = Field(
        description="Calibrated relevance in [0, 1], never rising down the list; 0.5 is an even chance (docs/scores.md)."
    )
    cosine: float | None = Field(default=None, description="Cosine similarity of the query and the record.")
    rank: int = Field(description="Rank within its own type's top-k (0-based).")
    why: str = Field(description="Why it matched, e.g. 'semantic top-3 by cosine 0.612'.")

    def item(self) -> MemoryItem:
        """The memory without the search's fields."""
        return MemoryItem.of(self.record)


class Evidence(BaseModel):
    """The serialized evidence block handed to an answering model."""

    hits: list[SearchHit]
    text: str
    tokens: int = Field(description="Token count of ``text`` (cl100k_base).")


class Answer(BaseModel):
    """An answer with the evidence it stands on."""

    question: str
    answer: str
    extractive: bool = Field(description="True when the answer is the best evidence, not a generated answer.")
    evidence: Evidence
    model: str | None = None
