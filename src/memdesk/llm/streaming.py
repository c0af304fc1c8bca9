"""Reading a streamed chat completion: the text, the time to the first token, the finish reason,
the usage block and llama.cpp's timings, as :class:`StreamedReply`.

A body the server cuts off mid-way ends the stream with no finish reason (the client then asks
again without streaming); nothing is dropped silently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2
import openai

from .server_timings import ServerTimings, llamacpp_timings

logger = logging.getLogger(__name__)


@dataclass
class StreamedReply:
    model: str
    parts: list[str] = field(default_factory=list)
    chunks: int = 0
    finish_reason: str | None = None
    usage: Any = None
    time_to_first_token_s: float | None = None
    server_timings: ServerTimings | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)


def _chunks(stream: Any, label: str) -> Iterator[Any]:
    try:
        yield from stream
    except (httpx2.RemoteProtocolError, openai.APIConnectionError) as e:
        logger.warning("%s: the server cut the stream off: %s", label, e)


def _take(reply: StreamedReply, chunk: Any, started: float, clock: Callable[[], float]) -> None:
    reply.model = getattr(chunk, "model", None) or reply.model
    if getattr(chunk, "usage", None) is not None:
        reply.usage = chunk.usage
    reply.server_timings = llamacpp_timings(getattr(chunk, "model_extra", None)) or reply.server_timings
    for choice in chunk.choices or []:
        delta = getattr(choice.delta, "content", None)
        if delta:
            if reply.time_to_first_token_s is None:
                reply.time_to_first_token_s = clock() - started
            reply.parts.append(delta)
            reply.chunks += 1
        if choice.finish_reason:
            reply.finish_reason = choice.finish_reason


def read_stream(stream: Any, *, model: str, started: float, clock: Callable[[], float], label: str) -> StreamedReply:
    """Consume ``stream`` (the SDK's chunk iterator); TTFT is measured from ``started`` by ``clock``."""
    reply = StreamedReply(model=model)
    for chunk in _chunks(stream, label):
        _take(reply, chunk, started, clock)
    return reply


async def aread_stream(stream: Any, *, model: str, started: float, clock: Callable[[], float], label: str) -> StreamedReply:
    """:func:`read_stream` for the async SDK's chunk iterator (``AsyncMemory``)."""
    reply = StreamedReply(model=model)
    try:
        async for chunk in stream:
            _take(reply, chunk, started, clock)
    except (httpx2.RemoteProtocolError, openai.APIConnectionError) as e:
        logger.warning("%s: the server cut the stream off: %s", label, e)
    return reply
