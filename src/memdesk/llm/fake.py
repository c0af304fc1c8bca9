"""A scripted chat model for tests: part of memdesk's public test helpers.

:class:`ScriptedChatModel` follows the :class:`~memdesk.llm.base.ChatModel` protocol. It replies
from a list (in order) or from a function of the messages, runs the same structured-output loop as
the real client (so a scripted invalid reply triggers a re-ask, and running out of valid replies
raises :class:`~memdesk.errors.LLMOutputError`), sums usage in a ledger, and records every call so a
test can assert what the prompt carried::

    model = ScriptedChatModel(['{"label": "CORRECT", "reason": "same date"}'])
    verdict = LoCoMoJudge(model).judge("When?", "7 May 2023", "May 7th")
    assert "7 May 2023" in model.calls[0].prompt

A reply may be a string, a dict or list (sent as JSON), a pydantic model (sent as its JSON), a
:class:`ScriptedReply` (text plus finish_reason/usage), or an exception instance, which is raised
(to script failures such as :class:`~memdesk.errors.LLMRateLimitError`).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence, Union

from pydantic import BaseModel

from ..errors import UsageError
from .base import ChatMessage, Completion, Usage
from .batch import ChatRequest
from .chat_base import BaseChatModel
from .usage import TokenEstimator, UsageLedger


@dataclass(frozen=True)
class ScriptedReply:
    """A scripted reply with control over finish_reason and reported usage."""

    text: str
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


Reply = Union[str, dict, list, BaseModel, ScriptedReply, BaseException]
ReplyFn = Callable[[list[ChatMessage]], Reply]


@dataclass
class ScriptedCall:
    """One raw call as the fake received it (a re-ask is a call of its own)."""

    messages: list[ChatMessage]
    schema: type[BaseModel] | None
    response_format: dict[str, Any] | None
    max_tokens: int | None
    temperature: float
    operation: str
    reply: str | None = field(default=None)

    @property
    def prompt(self) -> str:
        """Every message's content joined, for ``assert "..." in call.prompt``."""
        return "\n".join(m.content for m in self.messages)

    @property
    def system(self) -> str:
        return "\n".join(m.content for m in self.messages if m.role == "system")

    @property
    def user(self) -> str:
        return "\n".join(m.content for m in self.messages if m.role == "user")


def _to_text(reply: Reply) -> ScriptedReply:
    if isinstance(reply, ScriptedReply):
        return reply
    if isinstance(reply, str):
        return ScriptedReply(reply)
    if isinstance(reply, BaseModel):
        return ScriptedReply(reply.model_dump_json())
    if isinstance(reply, (dict, list)):
        return ScriptedReply(json.dumps(reply))
    raise UsageError(f"ScriptedChatModel cannot reply with a {type(reply).__name__}")


class ScriptedChatModel(BaseChatModel):
    """A fake :class:`~memdesk.llm.base.ChatModel` replying from a script; records every call.

    Args:
        replies: a sequence of replies consumed in order, or a function ``messages -> reply``.
        model_id: the model name it reports.
        ledger: usage is recorded here (a new ledger if None). Token counts are the chars/4
            estimate unless a :class:`ScriptedReply` gives them.
        max_reasks: as in the real client.
        supports_json_schema: whether calls with a schema get ``response_format`` (recorded in
            :attr:`ScriptedCall.response_format`) or the schema as instructions.
    """

    def __init__(
        self,
        replies: Sequence[Reply] | ReplyFn,
        *,
        model_id: str = "scripted",
        ledger: UsageLedger | None = None,
        max_reasks: int = 2,
        supports_json_schema: bool = True,
        concurrency: int = 1,
    ) -> None:
        self.model_id = model_id
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.max_reasks = max_reasks
        self.supports_json_schema = supports_json_schema
        self.concurrency = concurrency
        self.calls: list[ScriptedCall] = []
        self._fn: ReplyFn | None = replies if callable(replies) else None
        self._queue: list[Reply] = [] if callable(replies) else list(replies)
        self._lock = threading.Lock()
        self._tokens = TokenEstimator(model_id)

    @property
    def remaining(self) -> int:
        """Scripted replies not used yet (0 for a reply function)."""
        return len(self._queue)

    @property
    def last_call(self) -> ScriptedCall:
        if not self.calls:
            raise UsageError("ScriptedChatModel has not been called")
        return self.calls[-1]

    def _uses_response_format(self) -> bool:
        return self.supports_json_schema

    def _attempt(self, request: ChatRequest, response_format: dict[str, Any] | None) -> Completion:
        messages, operation = request.messages, request.operation
        call = ScriptedCall(
            list(messages), request.schema, response_format, request.max_tokens, request.temperature, operation
        )
        with self._lock:
            self.calls.append(call)
            if self._fn is None:
                if not self._queue:
                    raise UsageError(f"ScriptedChatModel ran out of replies at call {len(self.calls)}")
                reply: Reply = self._queue.pop(0)
        if self._fn is not None:
            reply = self._fn(list(messages))
        if isinstance(reply, BaseException):
            raise reply
        r = _to_text(reply)
        call.reply = r.text
        estimated = r.prompt_tokens is None or r.completion_tokens is None
        usage = Usage(
            prompt_tokens=r.prompt_tokens if r.prompt_tokens is not None else self._tokens.count_messages(messages),
            completion_tokens=r.completion_tokens if r.completion_tokens is not None else self._tokens.count_text(r.text),
            calls=1,
            tokens_estimated=estimated,
        )
        self.ledger.record(operation, usage, self.model_id)
        return Completion(text=r.text, model=self.model_id, usage=usage, finish_reason=r.finish_reason)
