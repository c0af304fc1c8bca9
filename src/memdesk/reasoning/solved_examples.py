"""Typed records of MAC's reasoning memory: tags, provenance and the solved example.

A :class:`SolvedExample` is one entry ``e_i = (x_i, y_i, r_i, c_i, t_i, v_i)`` of the bank: problem,
answer, verified reasoning trace, memory content per format, tags and (beside the record, as in the
rest of memdesk) the embedding vector of its retrieval text. Only the selected content ``c_i`` is ever
shown to a model; the full record is kept for verification, retrieval and analysis.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ..errors import InvalidInputError
from ..records import utcnow


class MemoryFormat(str, Enum):
    """How a memory is shown to the model: the full solution, a condensed one, or a strategy summary."""

    LONG = "long"
    SHORT = "short"
    SUMMARY = "summary"


class TraceSource(str, Enum):
    """Where a bank entry's reasoning trace came from."""

    DATASET = "dataset"  # the benchmark's own worked solution
    GENERATED = "generated"  # a chat model's solution whose final answer matched the gold answer
    SUBMITTED = "submitted"  # a caller's worked solution (an agent's), checked against its answer when added
    ABSENT = "absent"  # no trace (offline build of a benchmark without solutions): problem + answer only


class EmbeddingKind(str, Enum):
    """What text a bank vector embeds: the tags (MAC proper) or the problem (offline fallback)."""

    TAGS = "tags"
    PROBLEM = "problem"


class Complexity(BaseModel):
    """The estimated reasoning depth of a problem."""

    model_config = ConfigDict(extra="forbid")

    difficulty: Literal["easy", "medium", "hard"] = Field(description="Overall difficulty of solving the problem.")
    steps: int = Field(ge=1, le=50, description="Approximate number of reasoning steps required.")
    computation: Literal["light", "moderate", "heavy"] = Field(
        description="Degree of intermediate computation required."
    )


class Tags(BaseModel):
    """MAC's structured reasoning tags (the same schema for bank entries and queries)."""

    model_config = ConfigDict(extra="forbid")

    knowledge_domains: list[str] = Field(
        min_length=1, max_length=4, description="Primary mathematical, scientific or logical domains involved."
    )
    solution_strategies: list[str] = Field(
        min_length=1,
        max_length=4,
        description="Main reasoning procedures, e.g. equation solving, case analysis, proportional reasoning.",
    )
    problem_type: str = Field(
        max_length=80, description="Problem form, e.g. arithmetic word problem, geometric calculation."
    )
    problem_context: str = Field(max_length=80, description="Application context, e.g. shopping, physics, dates.")
    complexity: Complexity

    def to_text(self) -> str:
        """The canonical text embedded for retrieval (stable field order, one line per field)."""
        c = self.complexity
        return "\n".join(
            [
                f"Knowledge domains: {', '.join(self.knowledge_domains)}",
                f"Solution strategies: {', '.join(self.solution_strategies)}",
                f"Problem type: {self.problem_type}",
                f"Problem context: {self.problem_context}",
                f"Complexity: {c.difficulty}, about {c.steps} steps, {c.computation} computation",
            ]
        )


class Provenance(BaseModel):
    """Where an entry's trace, formats and tags came from, and how the trace was verified."""

    model_config = ConfigDict(extra="forbid")

    trace_source: TraceSource
    trace_model: str | None = Field(default=None, description="The chat model that generated the trace, if any.")
    verified: bool = Field(description="True when the trace is known to reach the gold answer.")
    verification: str = Field(description="How the trace was verified, in words.")
    format_sources: dict[MemoryFormat, str] = Field(
        default_factory=dict, description="Per format: 'verbatim', 'offline-condense' or 'llm:<model id>'."
    )
    tag_model: str | None = Field(default=None, description="The chat model that produced the tags, if any.")
    created_at: datetime = Field(default_factory=utcnow)


class SolvedExample(BaseModel):
    """One entry of the reasoning bank."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable id '<source>:<source id>'.")
    problem: str
    answer: str
    trace: str | None = Field(default=None, description="The verified reasoning trace (None when ABSENT).")
    contents: dict[MemoryFormat, str] = Field(
        default_factory=dict, description="The memory content in each format built for this bank."
    )
    tags: Tags | None = Field(default=None, description="None in an offline bank (no chat model).")
    source: str = Field(description="Benchmark the example comes from, e.g. 'gsm8k'.")
    split: str = Field(description="The source split, e.g. 'train', 'dev+val', 'bank'.")
    group: str | None = Field(default=None, description="Task or subject (BBH task, MATH type, MMLU subject).")
    embedding_kind: EmbeddingKind
    embedding_text: str = Field(description="The exact text whose embedding is stored beside the record.")
    embedding_model: str
    provenance: Provenance

    def content(self, fmt: MemoryFormat) -> str:
        """The content in ``fmt``; :class:`InvalidInputError` if the bank was built without that format."""
        try:
            return self.contents[MemoryFormat(fmt)]
        except KeyError:
            built = ", ".join(f.value for f in self.contents) or "none"
            raise InvalidInputError(
                f"bank entry {self.id} has no {MemoryFormat(fmt).value!r} content (built: {built}); "
                "rebuild the bank with that format"
            ) from None


class RetrievedMemory(BaseModel):
    """One bank entry returned for a query, with its retrieval score and 0-based rank."""

    example: SolvedExample
    score: float
    rank: int
