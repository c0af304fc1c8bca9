"""The typed edges of :class:`~memdesk.reasoning.service.ReasoningBanks`: what a caller sends and gets back,
the same models in process, over HTTP, through MCP and from ``RemoteMemory``."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..llm.base import Usage
from .datasets import AnswerKind
from .methods import Method
from .solved_examples import EmbeddingKind, MemoryFormat, RetrievedMemory, SolvedExample, Tags, TraceSource


class BankInfo(BaseModel):
    """One reasoning bank as its owner sees it."""

    name: str = Field(description="The name to call it by.")
    user_id: str | None = Field(default=None, description="The owner's user_id.")
    agent_id: str | None = Field(default=None, description="The owner's agent_id (None: the user's own bank).")
    benchmark: str = Field(description="What it was built from: 'custom' for a bank grown through the API.")
    answer_kind: AnswerKind = Field(description="How solutions and answers are checked.")
    entries: int
    embedding_kind: EmbeddingKind = Field(description="What is embedded: the problem text, or its reasoning tags.")
    embedding_model: str
    formats: list[MemoryFormat]
    created_at: datetime
    updated_at: datetime


class BankExamples(BaseModel):
    """One page of a bank's examples, in the order they were added."""

    bank: BankInfo
    total: int = Field(description="How many examples the bank holds.")
    offset: int = Field(description="The position of the first example of this page (0-based).")
    examples: list[SolvedExample]


class NewExample(BaseModel):
    """A solved example to add. Its solution must reach its answer (checked under the bank's answer kind, the
    last ``\\boxed{}`` first), else nothing is added."""

    model_config = ConfigDict(extra="forbid")

    problem: str = Field(min_length=1, max_length=20_000, examples=["A pen costs $2. How much do 3 pens cost?"])
    answer: str = Field(min_length=1, max_length=2_000, examples=["6"])
    solution: str = Field(
        min_length=1, max_length=50_000, description="The worked solution (the reasoning trace).",
        examples=["Each pen costs $2, so 3 pens cost 3 * 2 = 6. \\boxed{6}"],
    )
    id: str | None = Field(
        default=None, min_length=1, max_length=200, description="Default: '<source>:' and a hash of the problem."
    )
    tags: Tags | None = Field(default=None, description="Reasoning tags: required by a tag-embedded bank.")
    group: str | None = Field(default=None, max_length=200, description="Task or subject.")
    source: str = Field(default="agent", min_length=1, max_length=100, description="Who solved it.")

    @field_validator("id")
    @classmethod
    def _addressable(cls, value: str | None) -> str | None:
        if value is not None and ("/" in value or value in (".", "..")):  # no route could name it
            raise ValueError("an example id has no '/' and is not '.' or '..'")
        return value


class AddedExamples(BaseModel):
    """What an add did: ids are the examples' ids (new or already there, in the order given)."""

    bank: str
    ids: list[str]
    added: int
    already_there: int = Field(description="Examples whose id the bank held already (left as they were).")
    entries: int = Field(description="The bank's size afterwards.")
    created: bool = Field(description="Whether this call created the bank.")


class RetrievedExample(BaseModel):
    """A solved example retrieved for a problem: what to show a model, and why it was chosen."""

    id: str
    rank: int = Field(description="0-based, best first.")
    score: float = Field(description="Cosine similarity of the problem (or tag) embeddings.")
    problem: str
    answer: str
    format: MemoryFormat
    content: str = Field(description="The example's memory content in the requested format.")
    tags: Tags | None = None
    source: str
    group: str | None = None
    trace_source: TraceSource
    verified: bool
    verification: str

    @classmethod
    def of(cls, memory: RetrievedMemory, fmt: MemoryFormat) -> "RetrievedExample":
        ex = memory.example
        absent = ex.provenance.trace_source is TraceSource.ABSENT
        return cls(
            id=ex.id, rank=memory.rank, score=round(memory.score, 6), problem=ex.problem, answer=ex.answer, format=fmt,
            content=f"Answer: {ex.answer}" if absent else ex.content(fmt), tags=ex.tags, source=ex.source,
            group=ex.group, trace_source=ex.provenance.trace_source, verified=ex.provenance.verified,
            verification=ex.provenance.verification,
        )  # fmt: skip


class ExampleRetrieval(BaseModel):
    """The ``k`` examples nearest a problem, best first, and the memory block MAC puts before the problem."""

    bank: str
    retriever: str
    query_text: str = Field(description="What was embedded for the problem (the problem, or its tags).")
    query_tags: Tags | None = None
    examples: list[RetrievedExample]
    memory_block: str = Field(description="The examples serialized as placed before the problem.")


class Solution(BaseModel):
    """A problem solved by the configured chat model under a method, with the bank's examples before it."""

    bank: str
    method: Method
    gamma: float | None = None
    answer: str | None = Field(description="The final answer read from the output (None: none found).")
    extraction: str = Field(description="How it was read: boxed, parser, or none.")
    correct: bool | None = Field(default=None, description="Against `gold`, when one was given.")
    output: str = Field(description="The model's whole reply.")
    model: str
    examples: list[RetrievedExample]
    usage: Usage
