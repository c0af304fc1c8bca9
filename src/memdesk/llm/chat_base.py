"""``BaseChatModel``: what every memdesk chat model shares, built on its one raw call.

A chat model (the real client, the scripted fake) implements :meth:`BaseChatModel._attempt`, one request
as it goes to the model; the base gives it :class:`~memdesk.llm.base.ChatModel`'s ``complete`` (the
empty-input check and the structured-output loop: schema as ``response_format`` or in the instructions,
re-asks, :class:`~memdesk.errors.LLMOutputError` with the raw text) and ``complete_many``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import replace
from typing import Any, Literal, Sequence, overload

from ..errors import EmptyInputError, LLMError
from .base import ChatMessage, Completion
from .batch import ChatRequest, run_many
from .structured import complete_structured


class BaseChatModel(ABC):
    """The conveniences of a chat model; a subclass sets ``model_id``, ``max_reasks`` and ``concurrency``
    and implements :meth:`_attempt` (and :meth:`_uses_response_format` if a schema may travel as
    ``response_format``)."""

    model_id: str
    max_reasks: int
    concurrency: int

    def complete(self, messages: list[ChatMessage], **options: Any) -> Completion:
        """One chat completion (see :class:`~memdesk.llm.base.ChatModel`); ``options`` are the other fields of a
        :class:`~memdesk.llm.batch.ChatRequest` (``schema``, ``max_tokens``, ``temperature``, ``operation``)."""
        if not messages:
            raise EmptyInputError("complete() needs at least one message")
        request = ChatRequest(messages, **options)
        schema = request.schema

        def send(msgs: list[ChatMessage], rf: dict[str, Any] | None) -> Completion:
            return self._attempt(replace(request, messages=msgs), rf)

        if schema is None:
            return send(messages, None)
        return complete_structured(
            send,
            messages,
            schema,
            max_reasks=self.max_reasks,
            use_response_format=self._uses_response_format,
            model_label=self._label,
        )

    @overload
    def complete_many(
        self, requests: Sequence[ChatRequest], *, return_exceptions: Literal[False] = False
    ) -> list[Completion]: ...
    @overload
    def complete_many(
        self, requests: Sequence[ChatRequest], *, return_exceptions: Literal[True]
    ) -> list[Completion | LLMError]: ...
    def complete_many(
        self, requests: Sequence[ChatRequest], *, return_exceptions: bool = False
    ) -> list[Completion] | list[Completion | LLMError]:
        """Run many requests on ``concurrency`` threads; results in request order (see
        :func:`memdesk.llm.batch.run_many`)."""
        return run_many(self, requests, concurrency=self.concurrency, return_exceptions=return_exceptions)  # type: ignore[call-overload]

    # --- what a chat model provides -----------------------------------------------------------
    @abstractmethod
    def _attempt(self, request: ChatRequest, response_format: dict[str, Any] | None) -> Completion:
        """One request as it goes to the model (a re-ask is an attempt of its own: ``request.messages``
        then holds the conversation so far); ``response_format`` is the schema's json_schema form when
        it travels that way, else None (free text, or the schema already in the instructions)."""

    def _uses_response_format(self) -> bool:
        """Whether the next attempt sends the schema as ``response_format`` (asked before each one)."""
        return False

    @property
    def _label(self) -> str:
        return f"model {self.model_id!r}"
