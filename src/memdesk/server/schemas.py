"""Request and response bodies of the HTTP API (pydantic, so the OpenAPI schema documents them).

Scopes travel as three flat fields (``user_id``, ``agent_id``, ``run_id``), the shape agent builders
know from other memory APIs; at least one must be set (a tenant key sets its own).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from ..reasoning.datasets import AnswerKind
from ..reasoning.methods import Method
from ..reasoning.service import MAX_EXAMPLES, MAX_K
from ..reasoning.service_models import NewExample
from ..reasoning.solved_examples import MemoryFormat, Tags
from ..records import MemoryType, Message
from ..retrieval.retrieve import Merge


class ScopeFields(BaseModel):
    """Who the memory belongs to. Writes use the scope exactly; reads treat unset ids as wildcards. A tenant
    key fills in its own ``user_id`` (and ``agent_id``) when they are left out."""

    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(default=None, examples=["ana"])
    agent_id: str | None = None
    run_id: str | None = None

    def scope_fields(self) -> dict[str, str | None]:
        """The three ids as given (the caller's key turns them into a scope)."""
        return {"user_id": self.user_id, "agent_id": self.agent_id, "run_id": self.run_id}


class AddRequest(ScopeFields):
    """Messages to remember. Each is routed into episodic/semantic/procedural records, embedded and stored
    in one transaction; messages whose ``id`` is already stored in the scope are skipped."""

    messages: list[Message | str] = Field(
        min_length=1,
        max_length=1000,
        examples=[[{"content": "I moved to Lisbon last month.", "speaker": "Ana", "timestamp": "2024-05-01T10:00:00Z"}]],
    )
    timestamp: datetime | None = Field(default=None, description="Fills messages that carry no timestamp.")
    speaker: str | None = Field(default=None, description="Fills messages that carry no speaker.")
    wait: bool = Field(
        default=True,
        description="false: log the messages pending and answer 202 at once; the server processes them in the "
        "background (each message's `pending` flag in GET /v1/messages says when it is processed).",
    )


class RetrievalOptions(ScopeFields):
    """How records are retrieved: top-k per memory type, merged, de-duplicated, truncated to K."""

    k: int | None = Field(default=None, title="k (per type)", ge=1, le=1000, description="Records per memory type (default: settings.top_k).")
    K: int | None = Field(default=None, title="K (records kept)", ge=1, le=1000, description="Records kept after merging (default: settings.max_records).")
    types: list[MemoryType] | None = Field(default=None, description="Only these memory types.")
    speaker: str | None = Field(default=None, description="Only this speaker's bank.")
    mode: Literal["typed", "untyped"] = "typed"
    merge: Merge | None = Field(default=None, description="score or round_robin (default: the server's setting).")
    hybrid: bool | None = Field(default=None, description="Fuse a BM25 ranking (default: the server's setting).")
    as_of: datetime | None = Field(
        default=None, description="Read the memory as it stood then: what had been said and not yet superseded."
    )
    asked_at: datetime | None = Field(
        default=None,
        description="When the question is asked (default now): dates its time expressions, so records from "
        "when 'two weeks ago' points rank higher.",
    )
    filters: dict[str, Any] | None = Field(
        default=None,
        description="A RecordFilter's fields: metadata (key -> value, list of values, or {gt,gte,lt,lte: bound}), "
        "roles, sources, since, until, include_superseded, now (the time a default read counts as now).",
        examples=[{"metadata": {"app": "web"}, "since": "2024-01-01T00:00:00Z"}],
    )


class SearchRequest(RetrievalOptions):
    """Top-k records per memory type, merged, de-duplicated and truncated to K (ENGRAM's read path)."""

    query: str = Field(max_length=10_000, examples=["Where does Ana live?"])  # empty: EmptyInputError, as in process


class AnswerRequest(RetrievalOptions):
    """A question answered from memory: ``question`` as in ``Memory.answer`` (``query`` is accepted too)."""

    question: str = Field(
        max_length=10_000, validation_alias=AliasChoices("question", "query"), examples=["Where does Ana live?"]
    )
    question_time: str | None = Field(default=None, description="When the question is asked, for relative dates.")


class UpdateRequest(BaseModel):
    """New text (the record's main field) and/or other fields; the old version stays in the history."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = Field(default=None, description="Empty text: EmptyInputError, as in process.")
    fields: dict[str, object] = Field(default_factory=dict, description="Other fields, e.g. title or temporal_anchor.")


class Deleted(BaseModel):
    deleted: int = Field(description="How many memories were deleted.")


class ScopeDeleted(Deleted):
    """What forgetting a scope erased."""

    messages: int = Field(description="Raw messages erased.")
    history: int = Field(description="History entries erased (every version of the memories, no tombstone).")
    scopes: int = Field(description="Exact scopes erased.")
    banks: int = Field(default=0, description="Reasoning banks of the scope erased with it.")
    keys: int = Field(default=0, description="Tenant API keys bound to the scope, revoked (their requests get 401).")


class ExamplesDeleted(BaseModel):
    deleted: int = Field(description="How many solved examples were deleted.")


class BankOwner(BaseModel):
    """Whose bank: a user and/or agent (a bank belongs to no run). A tenant key fills in its own ids."""

    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(default=None, examples=["ana"])
    agent_id: str | None = None


class AddExamplesRequest(BankOwner):
    """Verified solved examples for a bank (created when the owner has none of that name)."""

    examples: list[NewExample] = Field(min_length=1, max_length=MAX_EXAMPLES)
    answer_kind: AnswerKind | None = Field(default=None, description="A new bank's answer checker (default math).")


class RetrieveRequest(BankOwner):
    """A problem to find solved examples for."""

    problem: str = Field(max_length=20_000, examples=["A pencil costs $1. How much do 5 pencils cost?"])
    k: int = Field(default=5, ge=1, le=MAX_K)
    format: MemoryFormat = MemoryFormat.LONG
    tags: Tags | None = Field(default=None, description="The problem's reasoning tags (a tag-embedded bank needs them, or a chat model).")


class SolveRequest(RetrieveRequest):
    """A problem solved by the server's chat model under an inference method, the bank's examples before it."""

    k: int = Field(default=3, ge=1, le=MAX_K)
    format: MemoryFormat = MemoryFormat.SHORT
    method: Method = Method.COT
    gamma: float | None = Field(default=None, description="Kept-token ratio in (0, 1]: tokenskip and extracot only.")
    gold: str | None = Field(default=None, max_length=2_000, description="A known answer to check the reply against.")
    max_tokens: int = Field(default=1024, ge=16, le=32_768)


class Health(BaseModel):
    status: Literal["ok"] = "ok"
    version: str
    embedding_model: str
    store: str = Field(description="The store backend (sqlite or postgresql).")


class ErrorDetail(BaseModel):
    type: str = Field(description="The memdesk exception class, e.g. RecordNotFoundError.")
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail
