"""The ChatModel seam: one required method, typed messages, usage on every call."""

from __future__ import annotations

from typing import Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, Field

from .server_timings import ServerTimings

T = TypeVar("T", bound=BaseModel)


class ChatMessage(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class Usage(BaseModel):
    """Token, latency and cost account of one call (or a sum of calls)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    calls: int = 0
    tokens_estimated: bool = Field(default=False, description="True if the server reported no counts.")
    time_to_first_token_s: float | None = None

    def __add__(self, other: "Usage") -> "Usage":
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            latency_s=self.latency_s + other.latency_s,
            cost_usd=self.cost_usd + other.cost_usd,
            calls=self.calls + other.calls,
            tokens_estimated=self.tokens_estimated or other.tokens_estimated,
        )


class Completion(BaseModel):
    """A chat completion: the raw text, the parsed object when a schema was given, the usage, and
    the server's own prefill/decode timings when it reported them."""

    text: str
    parsed: BaseModel | None = None
    model: str
    usage: Usage
    finish_reason: str | None = None
    server_timings: ServerTimings | None = None


@runtime_checkable
class ChatModel(Protocol):
    model_id: str

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        schema: type[BaseModel] | None = None,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        operation: str = "default",
    ) -> Completion:
        """One chat completion. With ``schema`` the result is validated (re-asked on failure) into
        ``Completion.parsed``; after the re-asks it raises LLMOutputError carrying the raw text.
        ``operation`` names the account the usage is summed under (ingest, search, answer, judge, tag)."""
        ...
