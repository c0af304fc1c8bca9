"""Running many chat requests at once (threads, bounded by the model's concurrency)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Literal, Sequence, overload

from pydantic import BaseModel

from ..runtime import aio
from ..errors import LLMError
from .base import ChatMessage, ChatModel, Completion


@dataclass(frozen=True)
class ChatRequest:
    """The arguments of one :meth:`ChatModel.complete` call."""

    messages: list[ChatMessage]
    schema: type[BaseModel] | None = None
    max_tokens: int | None = None
    temperature: float = 0.0
    operation: str = "default"


def _one(model: ChatModel, r: ChatRequest) -> Completion:
    return model.complete(
        r.messages, schema=r.schema, max_tokens=r.max_tokens, temperature=r.temperature, operation=r.operation
    )


def _one_or_error(model: ChatModel, r: ChatRequest) -> Completion | LLMError:
    try:
        return _one(model, r)
    except LLMError as e:
        return e


@overload
def run_many(
    model: ChatModel, requests: Sequence[ChatRequest], *, concurrency: int, return_exceptions: Literal[False] = False
) -> list[Completion]: ...
@overload
def run_many(
    model: ChatModel, requests: Sequence[ChatRequest], *, concurrency: int, return_exceptions: Literal[True]
) -> list[Completion | LLMError]: ...
def run_many(
    model: ChatModel, requests: Sequence[ChatRequest], *, concurrency: int, return_exceptions: bool = False
) -> list[Completion] | list[Completion | LLMError]:
    """Complete every request, ``concurrency`` at a time; results are in request order.

    Every request runs to its end. Then, unless ``return_exceptions``, the first
    :class:`~memdesk.errors.LLMError` (in request order) is raised; with it, failed requests hold
    their error in the result list. Errors that are not LLMErrors always propagate. Under
    :func:`memdesk.runtime.aio.run` the requests run as tasks on the event loop instead of threads (a loop-safe
    model bounds them by its own concurrency).
    """
    if not requests:
        return []
    workers = max(1, min(concurrency, len(requests)))
    if aio.active() and aio.loop_safe(model):
        results = list(aio.await_(asyncio.gather(*(aio.run(_one_or_error, model, r) for r in requests))))
    elif workers == 1:
        results: list[Completion | LLMError] = []
        for r in requests:
            try:
                results.append(_one(model, r))
            except LLMError as e:
                results.append(e)
    else:
        with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="memdesk-llm") as pool:
            futures = [pool.submit(_one, model, r) for r in requests]
            results = []
            for f in futures:
                try:
                    results.append(f.result())
                except LLMError as e:
                    results.append(e)
    if not return_exceptions:
        for item in results:
            if isinstance(item, LLMError):
                raise item
    return results
