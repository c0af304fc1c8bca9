"""Per-query latency: T_tag, T_emb, T_search, T_serialize, T_prefill, T_decode.

Model time is split into prefill and decode from the best source available, in this order:

1. the server's own numbers (:class:`ServerTimings`): llama.cpp's ``timings`` block on the response,
   or the difference of vLLM's ``/metrics`` counters around the call (:class:`VLLMMetricsProbe`;
   exact at batch size one, which is how the paper reports latency);
2. time to first token, when the completion was streamed (prefill ~ TTFT, decode = total - TTFT);
3. otherwise only the total is known and prefill/decode stay None.

:class:`StreamingChatModel` is an inference-only :class:`~memdesk.llm.base.ChatModel` for any
OpenAI-compatible server that streams the answer so TTFT can be measured, and picks up llama.cpp's
timings and a metrics probe's numbers. Structured calls (tags) go through the regular client.
"""

from __future__ import annotations

import logging
import re
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal, Protocol

from pydantic import BaseModel

from ..errors import (
    EmptyInputError,
    LLMConnectionError,
    LLMError,
    UsageError,
)
from ..llm.base import ChatMessage, Completion, Usage
from ..llm.guard import check_model_requests_allowed
from ..llm.http_errors import status_error
from ..llm.usage import PriceTable, TokenEstimator, UsageLedger

logger = logging.getLogger(__name__)

ModelTiming = Literal["server", "ttft", "total"]


class ServerTimings(BaseModel):
    """Prefill and decode seconds as the server measured them."""

    prefill_s: float
    decode_s: float
    source: str


class TimedCompletion(Completion):
    """A :class:`Completion` with the server's own prefill/decode timings when it reported them."""

    server_timings: ServerTimings | None = None


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
    server = getattr(completion, "server_timings", None)
    if isinstance(server, ServerTimings):
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


# --- server metrics -------------------------------------------------------------------------------
class MetricsProbe(Protocol):
    """Reads a server's cumulative counters; the difference around one call is that call's timing."""

    def snapshot(self) -> dict[str, float]: ...

    def timings(self, before: dict[str, float], after: dict[str, float]) -> ServerTimings | None: ...


_PROM_LINE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([-+0-9.eEinfNa]+)")


def parse_prometheus(text: str) -> dict[str, float]:
    """Prometheus text format -> {metric name: value summed over its label sets}."""
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _PROM_LINE.match(line)
        if m:
            try:
                out[m.group(1)] = out.get(m.group(1), 0.0) + float(m.group(3))
            except ValueError:
                continue
    return out


class VLLMMetricsProbe:
    """vLLM's ``/metrics``: per-request prefill and decode time sums (exact at batch size one).

    Uses ``vllm:request_prefill_time_seconds`` / ``vllm:request_decode_time_seconds`` when the server
    exports them, else TTFT (``vllm:time_to_first_token_seconds``) and end-to-end latency.
    """

    PREFILL = "vllm:request_prefill_time_seconds_sum"
    DECODE = "vllm:request_decode_time_seconds_sum"
    TTFT = "vllm:time_to_first_token_seconds_sum"
    E2E = "vllm:e2e_request_latency_seconds_sum"

    def __init__(self, base_url: str, *, fetch: Callable[[str], str] | None = None, timeout_s: float = 5.0) -> None:
        root = re.sub(r"/v1/?$", "", base_url.rstrip("/"))
        self.url = f"{root}/metrics"
        self._fetch = fetch or (lambda url: _http_get(url, timeout_s))

    def snapshot(self) -> dict[str, float]:
        try:
            return parse_prometheus(self._fetch(self.url))
        except (OSError, ValueError) as e:
            logger.warning("cannot read %s: %s", self.url, e)
            return {}

    def timings(self, before: dict[str, float], after: dict[str, float]) -> ServerTimings | None:
        def delta(name: str) -> float | None:
            if name in before and name in after:
                return after[name] - before[name]
            return None

        prefill, decode = delta(self.PREFILL), delta(self.DECODE)
        if prefill is not None and decode is not None:
            return ServerTimings(prefill_s=prefill, decode_s=decode, source="vllm /metrics prefill/decode")
        ttft, e2e = delta(self.TTFT), delta(self.E2E)
        if ttft is not None and e2e is not None:
            return ServerTimings(prefill_s=ttft, decode_s=max(0.0, e2e - ttft), source="vllm /metrics ttft/e2e")
        return None


def _http_get(url: str, timeout_s: float) -> str:
    with urllib.request.urlopen(url, timeout=timeout_s) as resp:
        return resp.read().decode("utf-8", "replace")


def llamacpp_timings(extra: dict[str, Any] | None) -> ServerTimings | None:
    """llama.cpp's ``timings`` block ({prompt_ms, predicted_ms, ...}) as :class:`ServerTimings`."""
    t = (extra or {}).get("timings")
    if isinstance(t, dict) and "prompt_ms" in t and "predicted_ms" in t:
        return ServerTimings(
            prefill_s=float(t["prompt_ms"]) / 1000, decode_s=float(t["predicted_ms"]) / 1000, source="llama.cpp timings"
        )
    return None


# --- streaming client -------------------------------------------------------------------------------
class StreamingChatModel:
    """An inference-only ChatModel that streams from an OpenAI-compatible server to time the answer.

    Fills ``usage.time_to_first_token_s`` and returns :class:`TimedCompletion` with the server's own
    timings when available (llama.cpp ``timings``, or a :class:`MetricsProbe`). No retries: an
    evaluation call that fails is reported, not hidden. ``schema`` is not supported (use the regular
    :class:`~memdesk.llm.openai_compat.OpenAICompatChatModel` for structured calls).
    """

    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str | None = None,
        *,
        http_client: Any = None,
        timeout_s: float = 600.0,
        price_table: PriceTable | None = None,
        ledger: UsageLedger | None = None,
        metrics_probe: MetricsProbe | None = None,
        extra_body: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        import openai

        if not model:
            raise EmptyInputError("a model name is required")
        self.model_id = model
        self.base_url = base_url
        self.price_table = price_table or PriceTable.free()
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.metrics_probe = metrics_probe
        self.extra_body = dict(extra_body or {})
        self.concurrency = 1
        self._clock = clock
        self._tokens = TokenEstimator(model)
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=api_key or "no-key", base_url=base_url, timeout=timeout_s, max_retries=0, http_client=http_client
        )

    def _chunks(self, stream: Any) -> Iterator[Any]:
        """The stream's chunks; a body the server cut off mid-way ends the stream (finish stays None)."""
        import httpx2

        try:
            yield from stream
        except (httpx2.RemoteProtocolError, self._openai.APIConnectionError) as e:
            logger.warning("%s: the server cut the stream off: %s", self.model_id, e)

    def close(self) -> None:
        self._client.close()

    def complete(
        self,
        messages: list[ChatMessage],
        *,
        schema: type[BaseModel] | None = None,
        max_tokens: int | None = None,
        temperature: float = 0.0,
        operation: str = "answer",
    ) -> TimedCompletion:
        if schema is not None:
            raise UsageError("StreamingChatModel is for free-text inference; use OpenAICompatChatModel with a schema")
        if not messages:
            raise EmptyInputError("complete() needs at least one message")
        check_model_requests_allowed(self.model_id)
        kwargs: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": temperature,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if max_tokens is not None:
            kwargs["max_tokens"] = max_tokens
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        before = self.metrics_probe.snapshot() if self.metrics_probe else None
        started = self._clock()
        ttft: float | None = None
        parts: list[str] = []
        n_chunks = 0
        finish: str | None = None
        usage_block: Any = None
        server: ServerTimings | None = None
        model_name = self.model_id
        try:
            stream = self._client.chat.completions.create(**kwargs)
            for chunk in self._chunks(stream):
                model_name = getattr(chunk, "model", None) or model_name
                if getattr(chunk, "usage", None) is not None:
                    usage_block = chunk.usage
                server = llamacpp_timings(getattr(chunk, "model_extra", None)) or server
                for choice in chunk.choices or []:
                    delta = getattr(choice.delta, "content", None)
                    if delta:
                        if ttft is None:
                            ttft = self._clock() - started
                        parts.append(delta)
                        n_chunks += 1
                    if choice.finish_reason:
                        finish = choice.finish_reason
            if finish is None:
                # the stream ended without a finish reason: the server dropped it (llama-cpp-python's
                # server aborts the streaming request when another request arrives, unless started with
                # --interrupt_requests False). Nothing is dropped silently: ask once more without
                # streaming (timing then falls back to the total).
                logger.warning("%s: stream ended without a finish reason; asking again without streaming", self.model_id)
                kwargs = {k: v for k, v in kwargs.items() if k not in ("stream", "stream_options")}
                started = self._clock()
                ttft, n_chunks = None, 0
                reply = self._client.chat.completions.create(**kwargs)
                choice = reply.choices[0]
                parts = [choice.message.content or ""]
                finish = choice.finish_reason or "unknown"
                usage_block = reply.usage
                model_name = reply.model or model_name
                server = llamacpp_timings(getattr(reply, "model_extra", None)) or server
        except self._openai.APIStatusError as e:
            raise status_error(e, f"model {self.model_id!r} at {self.base_url}") from e
        except self._openai.APIConnectionError as e:
            raise LLMConnectionError(f"model {self.model_id!r} at {self.base_url} could not be reached: {e}") from e
        except self._openai.OpenAIError as e:
            raise LLMError(f"model {self.model_id!r} failed: {e}") from e
        total = self._clock() - started
        if self.metrics_probe is not None and before is not None:
            server = self.metrics_probe.timings(before, self.metrics_probe.snapshot()) or server
        text = "".join(parts)
        if usage_block is not None and (usage_block.prompt_tokens or usage_block.completion_tokens):
            pt, ct, estimated = int(usage_block.prompt_tokens or 0), int(usage_block.completion_tokens or 0), False
        else:
            # no usage block: local servers stream about one token per chunk, a better count of the
            # decode length than chars/4; the prompt is estimated (both flagged as estimates)
            pt, ct, estimated = self._tokens.count_messages(messages), n_chunks or self._tokens.count_text(text), True
        usage = Usage(
            prompt_tokens=pt,
            completion_tokens=ct,
            latency_s=total,
            cost_usd=self.price_table.cost(self.model_id, pt, ct),
            calls=1,
            tokens_estimated=estimated,
            time_to_first_token_s=ttft,
        )
        self.ledger.record(operation, usage, self.model_id)
        return TimedCompletion(text=text, model=model_name, usage=usage, finish_reason=finish, server_timings=server)
