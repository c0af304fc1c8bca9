"""Per-query latency of the reasoning harness: T_tag, T_emb, T_search, T_serialize, T_prefill, T_decode.

Model time is split into prefill and decode from the best source available, in this order:

1. the server's own numbers (``Completion.server_timings``: llama.cpp's ``timings`` block, or the
   difference of vLLM's ``/metrics`` counters around the call, see :mod:`memdesk.llm.server_timings`);
2. time to first token, when the completion was streamed (prefill ~ TTFT, decode = total - TTFT);
3. otherwise only the total is known and prefill/decode stay None.

The streaming client is the one OpenAI-compatible client,
:class:`~memdesk.llm.openai_compat.OpenAICompatChatModel`, built with ``stream=True``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from pydantic import BaseModel

from ..llm.base import Completion

ModelTiming = Literal["server", "ttft", "total"]


class LatencyBreakdown(BaseModel):
    """Seconds per stage of one query (the paper's T_tag ... T_decode)."""

    t_tag_s: float = 0.0
    t_emb_s: float = 0.0
    t_search_s: float = 0.0
    t_serialize_s: float = 0.0
    t_prefill_s: float | None = None
    t_decode_s: float | None = None
    t_model_s: float = 0.0
    model_timing: ModelTiming = "total"

    @property
    def t_retrieval_s(self) -> float:
        """T_tag + T_emb + T_search."""
        return self.t_tag_s + self.t_emb_s + self.t_search_s

    @property
    def t_end_to_end_s(self) -> float:
        """Retrieval + serialization + model time."""
        return self.t_retrieval_s + self.t_serialize_s + self.t_model_s


def split_model_time(completion: Completion) -> tuple[float | None, float | None, ModelTiming]:
    """(prefill, decode, source) of a completion; see the module docstring for the order."""
    server = completion.server_timings
    if server is not None:
        return server.prefill_s, server.decode_s, "server"
    ttft = completion.usage.time_to_first_token_s
    if ttft is not None:
        return ttft, max(0.0, completion.usage.latency_s - ttft), "ttft"
    return None, None, "total"


class Stopwatch:
    """Elapsed seconds of a ``with`` block (``perf_counter``)."""

    def __init__(self) -> None:
        self.s = 0.0

    @contextmanager
    def run(self) -> Iterator[Stopwatch]:
        start = time.perf_counter()
        try:
            yield self
        finally:
            self.s = time.perf_counter() - start
