"""One client for every OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp, LM Studio).

Built on the ``openai`` SDK with its own retries turned off: memdesk retries 408/409/429/5xx and
connection failures itself, with exponential backoff that honours ``retry-after``, so the policy is
visible, testable (``sleep`` is injectable) and mapped onto memdesk's typed errors:

=====================================  ===============================================================
what happened                           what is raised (after retries where it applies)
=====================================  ===============================================================
server unreachable / timeout / 5xx      :class:`~memdesk.errors.LLMConnectionError`
401 / 403                               :class:`~memdesk.errors.LLMAuthError`
429 (or ``insufficient_quota``)         :class:`~memdesk.errors.LLMRateLimitError`
prompt longer than the context window   :class:`~memdesk.errors.LLMContextLengthError`
output failing its schema after re-asks :class:`~memdesk.errors.LLMOutputError` (``.raw`` keeps it)
anything else from the server           :class:`~memdesk.errors.LLMError`
=====================================  ===============================================================
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import threading
import time
from typing import Any, Callable, Literal
from urllib.parse import urlparse

import httpx2
import openai

from ..runtime import aio
from ..runtime.closing import ClosesOnExit
from ..runtime.tracing import traced_chat
from ..errors import (
    ConfigError,
    EmptyInputError,
    LLMConnectionError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
)
from .base import ChatMessage, Completion, Usage
from .batch import ChatRequest
from .chat_base import BaseChatModel
from .guard import check_model_requests_allowed
from .http_errors import error_detail, error_text, retry_after_s, status_error, terminal_status_error
from .server_timings import MetricsProbe, llamacpp_timings
from .streaming import StreamedReply, aread_stream, read_stream
from .structured import with_schema_instructions
from .usage import PriceTable, TokenEstimator, UsageLedger

log = logging.getLogger(__name__)

_RETRY_STATUS = {408, 409, 429}
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "0.0.0.0", "::1", "host.docker.internal"}
_NO_KEY = "no-key"


class _ResponseFormatRejected(Exception):
    """The server refused ``response_format`` json_schema (auto mode falls back to instructions)."""


def is_local_url(base_url: str | None) -> bool:
    """True when ``base_url`` points at this machine (a local server: its calls cost 0)."""
    if not base_url:
        return False
    host = (urlparse(base_url).hostname or "").lower()
    return host in _LOCAL_HOSTS or host.startswith("127.")


class OpenAICompatChatModel(ClosesOnExit, BaseChatModel):
    """A :class:`~memdesk.llm.base.ChatModel` for any OpenAI-compatible ``/v1/chat/completions``.

    Its requests go through :func:`memdesk.runtime.aio.io`: under ``AsyncMemory`` they are awaited on the event
    loop with ``openai.AsyncOpenAI`` (``async_http_client`` is the ``httpx2.AsyncClient`` to use, if any).

    Args:
        model: the model name sent to the server (and used for prices and token counting).
        base_url: e.g. ``http://localhost:8080/v1``; None means OpenAI's API.
        api_key: the key; when None, ``OPENAI_API_KEY`` is used for OpenAI's own API only (never sent
            to another host) and a placeholder otherwise (local servers ignore it).
        http_client: an ``httpx2.Client`` (tests pass one with ``httpx2.MockTransport``).
        timeout_s: per-request timeout.
        max_retries: retries after the first attempt on 408/409/429/5xx and connection failures.
        concurrency: how many requests may be in flight at once (a semaphore; also the thread count
            of :meth:`complete_many`).
        price_table: prices per model; default: free for a local ``base_url``, else OpenAI list prices.
        supports_json_schema: True sends ``response_format`` json_schema, False puts the schema in the
            instructions, None tries json_schema and falls back for good if the server rejects it.
        max_reasks: re-asks after an output that fails its schema.
        ledger: where usage is summed per operation (a new one if None; see :attr:`ledger`).
        token_counter: the model's tokenizer (text -> tokens) for servers that report no usage.
        sleep, clock, rng: injectable for tests (backoff sleeps, latency, jitter).
        extra_body: extra JSON fields sent with every request (server-specific options).
        stream: stream free-text replies (calls without a schema) to measure the time to the first
            token (``Usage.time_to_first_token_s``); a stream the server ends without a finish
            reason is asked again without streaming (timing then falls back to the total).
        metrics_probe: reads the server's own prefill/decode time around each call (e.g.
            :class:`~memdesk.llm.server_timings.VLLMMetricsProbe`) into ``Completion.server_timings``;
            llama.cpp's ``timings`` block is read from every reply without one.
    """

    async_ready = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        http_client: httpx2.Client | None = None,
        timeout_s: float = 60.0,
        max_retries: int = 4,
        concurrency: int = 4,
        price_table: PriceTable | None = None,
        supports_json_schema: bool | None = None,
        max_reasks: int = 2,
        ledger: UsageLedger | None = None,
        token_counter: Callable[[str], int] | None = None,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 30.0,
        max_retry_after_s: float = 120.0,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.perf_counter,
        rng: random.Random | None = None,
        extra_body: dict[str, Any] | None = None,
        async_http_client: httpx2.AsyncClient | None = None,
        stream: bool = False,
        metrics_probe: MetricsProbe | None = None,
    ) -> None:
        if not model:
            raise EmptyInputError("a model name is required")
        if concurrency < 1 or max_retries < 0 or max_reasks < 0:
            raise ConfigError("concurrency must be >= 1, max_retries and max_reasks >= 0")
        self.stream = stream
        self.metrics_probe = metrics_probe
        self.model_id = model
        self.base_url = base_url
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.max_reasks = max_reasks
        self.ledger = ledger if ledger is not None else UsageLedger()
        self.price_table = price_table or (PriceTable.free() if is_local_url(base_url) else PriceTable.openai_list_prices())
        self.tokens = TokenEstimator(model, token_counter)
        self.extra_body = dict(extra_body or {})
        self._supports_json_schema = supports_json_schema
        # auto mode degrades json_schema -> json_object+schema -> instructions as a server rejects each
        self._rf_style: Literal["json_schema", "json_object", "none"] = (
            "none" if supports_json_schema is False else "json_schema"
        )
        self._backoff_base_s = backoff_base_s
        self._backoff_max_s = backoff_max_s
        self._max_retry_after_s = max_retry_after_s
        self._sleep = sleep
        self._clock = clock
        self.timeout_s = timeout_s
        self._rng = rng or random.Random()
        self._semaphore = threading.BoundedSemaphore(concurrency)
        # request parameters the server refused once (reasoning models): adapted for every later call
        self._use_max_completion_tokens = False
        self._omit_temperature = False
        client_args = {"api_key": self._resolve_key(api_key, base_url), "base_url": base_url, "timeout": timeout_s, "max_retries": 0}
        self._client = openai.OpenAI(**client_args, http_client=http_client)
        # under memdesk.runtime.aio.run (AsyncMemory) requests go through AsyncOpenAI instead: one client and one
        # concurrency semaphore per event loop, unless an async HTTP client is passed in
        self._async_clients = aio.PerLoop(lambda: openai.AsyncOpenAI(**client_args, http_client=async_http_client))
        self._async_semaphores = aio.PerLoop(lambda: asyncio.Semaphore(concurrency))

    @staticmethod
    def _resolve_key(api_key: str | None, base_url: str | None) -> str:
        if api_key:
            return api_key
        host = (urlparse(base_url).hostname or "") if base_url else "api.openai.com"
        if host == "api.openai.com" and os.environ.get("OPENAI_API_KEY"):
            return os.environ["OPENAI_API_KEY"]
        return _NO_KEY

    # --- public ------------------------------------------------------------------------------
    @property
    def json_schema_mode(self) -> str:
        """How a schema travels: ``json_schema`` (OpenAI's response_format), ``json_object`` (the
        llama.cpp form ``{"type": "json_object", "schema": ...}``) or ``instructions`` (in the
        prompt); prefixed ``auto:`` when memdesk falls back as the server rejects a form."""
        mode = "instructions" if self._rf_style == "none" else self._rf_style
        return f"auto:{mode}" if self._supports_json_schema is None else mode

    def describe(self) -> dict[str, Any]:
        """What the CLI shows as the model in use."""
        return {
            "model": self.model_id,
            "base_url": self.base_url or "https://api.openai.com/v1",
            "structured_output": self.json_schema_mode,
            "concurrency": self.concurrency,
            "token_counting": self.tokens.method,
        }

    complete = traced_chat(BaseChatModel.complete)  # the base's complete, inside the ``chat {model}`` span

    def close(self) -> None:
        """Close the underlying HTTP client."""
        self._client.close()

    # --- internals ---------------------------------------------------------------------------
    @property
    def _label(self) -> str:
        return f"model {self.model_id!r} at {self.base_url or 'api.openai.com'}"

    def _delay(self, attempt: int, headers: httpx2.Headers | None) -> float:
        asked = retry_after_s(headers)
        if asked is not None:
            return min(asked, self._max_retry_after_s)
        base = min(self._backoff_max_s, self._backoff_base_s * (2**attempt))
        return base * (0.5 + 0.5 * self._rng.random())

    def _adapt_params(self, kwargs: dict[str, Any], text: str) -> bool:
        """Adapt ``kwargs`` to a 400 refusing ``max_tokens`` or ``temperature`` (OpenAI's reasoning
        models); True when something changed and the request should be sent again."""
        if "max_tokens" in kwargs and "max_completion_tokens" in text:
            log.info("%s wants max_completion_tokens instead of max_tokens; adapting", self._label)
            self._use_max_completion_tokens = True
            kwargs["max_completion_tokens"] = kwargs.pop("max_tokens")
            return True
        if "temperature" in kwargs and "temperature" in text and ("unsupported" in text or "not support" in text):
            log.info("%s does not accept temperature; omitting it", self._label)
            self._omit_temperature = True
            del kwargs["temperature"]
            return True
        return False

    def _attempt(self, request: ChatRequest, response_format: dict[str, Any] | None) -> Completion:
        check_model_requests_allowed(self.model_id)
        messages, schema = request.messages, request.schema
        max_tokens, temperature, operation = request.max_tokens, request.temperature, request.operation
        if response_format is None or schema is None:
            return self._send(messages, None, max_tokens, temperature, operation, stream=self.stream and schema is None)
        while (style := self._rf_style) != "none":
            schema_form = {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
            fmt = response_format if style == "json_schema" else schema_form
            try:
                return self._send(messages, fmt, max_tokens, temperature, operation)
            except _ResponseFormatRejected:
                nxt: Literal["json_object", "none"] = "json_object" if style == "json_schema" else "none"
                log.warning("%s rejected response_format %s; trying %s from now on", self._label, style, nxt)
                self._rf_style = nxt
        return self._send(with_schema_instructions(messages, schema), None, max_tokens, temperature, operation)

    def _uses_response_format(self) -> bool:
        return self._rf_style != "none"

    def _send(
        self,
        messages: list[ChatMessage],
        response_format: dict[str, Any] | None,
        max_tokens: int | None,
        temperature: float,
        operation: str,
        *,
        stream: bool = False,
    ) -> Completion:
        kwargs: dict[str, Any] = {
            "model": self.model_id,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
        }
        if not self._omit_temperature:
            kwargs["temperature"] = temperature
        if max_tokens is not None:
            kwargs["max_completion_tokens" if self._use_max_completion_tokens else "max_tokens"] = max_tokens
        if response_format is not None:
            kwargs["response_format"] = response_format
        if self.extra_body:
            kwargs["extra_body"] = self.extra_body
        if stream:
            kwargs.update(stream=True, stream_options={"include_usage": True})
        before = self.metrics_probe.snapshot() if self.metrics_probe is not None else None
        started = self._clock()
        attempt = 0
        while True:
            try:
                resp = aio.io(
                    lambda: self._create(kwargs, stream, started), lambda: self._acreate(kwargs, stream, started)
                )
                break
            except openai.APIStatusError as e:
                status = e.status_code
                text = error_text(e)
                terminal = terminal_status_error(e, self._label)
                if terminal is not None:
                    raise terminal from e
                if status == 400 and self._adapt_params(kwargs, text):
                    continue
                if (
                    # llama-cpp-python 0.3.x answers 500 with its pydantic error for a response_format
                    # type it does not know; OpenAI and vLLM answer 400, FastAPI servers 422
                    status in (400, 422, 500)
                    and response_format is not None
                    and self._supports_json_schema is None
                    and ("response_format" in text or "json_schema" in text or "json_object" in text)
                ):
                    raise _ResponseFormatRejected() from e
                retryable = status in _RETRY_STATUS or status >= 500
                if not retryable:
                    raise status_error(e, self._label) from e
                if attempt >= self.max_retries:
                    if status == 429:
                        raise LLMRateLimitError(
                            f"{self._label} still rate-limited after {attempt + 1} attempts; "
                            "lower MEMDESK_LLM_CONCURRENCY or retry later"
                        ) from e
                    raise LLMConnectionError(
                        f"{self._label} kept failing with HTTP {status} after {attempt + 1} attempts: {error_detail(e)}"
                    ) from e
                delay = self._delay(attempt, e.response.headers)
                log.info("%s: HTTP %d, retry %d/%d in %.2fs", self._label, status, attempt + 1, self.max_retries, delay)
            except openai.APIConnectionError as e:
                if attempt >= self.max_retries:
                    if isinstance(e, openai.APITimeoutError):
                        raise LLMConnectionError(
                            f"{self._label} timed out after {attempt + 1} attempts of {self.timeout_s:g} s each; "
                            "a model on CPU can need longer for one reply: raise MEMDESK_LLM_TIMEOUT_S"
                        ) from e
                    raise LLMConnectionError(
                        f"{self._label} could not be reached after {attempt + 1} attempts ({e}); is the server running "
                        "and MEMDESK_LLM_BASE_URL right?"
                    ) from e
                delay = self._delay(attempt, None)
                log.info("%s: %s, retry %d/%d in %.2fs", self._label, e, attempt + 1, self.max_retries, delay)
            except openai.OpenAIError as e:
                raise LLMError(f"{self._label} failed: {e}") from e
            aio.sleep(delay, self._sleep)
            attempt += 1
        latency = self._clock() - started
        if isinstance(resp, StreamedReply) and resp.finish_reason is None:
            # the stream ended without a finish reason: the server dropped it (llama-cpp-python's server
            # aborts a streaming request when another arrives unless started with --interrupt_requests
            # False). Ask once more without streaming; timing falls back to the total.
            log.warning("%s: stream ended without a finish reason; asking again without streaming", self._label)
            return self._send(messages, response_format, max_tokens, temperature, operation, stream=False)
        completion = self._to_completion(resp, messages, latency, operation)
        if self.metrics_probe is not None and before is not None:
            server = self.metrics_probe.timings(before, self.metrics_probe.snapshot())
            if server is not None:
                completion.server_timings = server
        return completion

    def _create(self, kwargs: dict[str, Any], stream: bool = False, started: float = 0.0) -> Any:
        with self._semaphore:
            resp = self._client.chat.completions.create(**kwargs)
            if stream:
                return read_stream(resp, model=self.model_id, started=started, clock=self._clock, label=self._label)
            return resp

    async def _acreate(self, kwargs: dict[str, Any], stream: bool = False, started: float = 0.0) -> Any:
        async with self._async_semaphores.get():
            resp = await self._async_clients.get().chat.completions.create(**kwargs)
            if stream:
                return await aread_stream(resp, model=self.model_id, started=started, clock=self._clock, label=self._label)
            return resp

    def _to_completion(self, resp: Any, messages: list[ChatMessage], latency: float, operation: str) -> Completion:
        if isinstance(resp, StreamedReply):
            text, finish, u, model, ttft = resp.text, resp.finish_reason, resp.usage, resp.model, resp.time_to_first_token_s
            server, streamed_chunks = resp.server_timings, resp.chunks
        else:
            if not getattr(resp, "choices", None):
                raise LLMOutputError(f"{self._label} returned no choices", raw=str(resp)[:2000])
            choice = resp.choices[0]
            msg = choice.message
            text = (msg.content if msg is not None else None) or ""
            refusal = getattr(msg, "refusal", None) if msg is not None else None
            if not text and refusal:
                text = str(refusal)
            finish, u, model, ttft = choice.finish_reason, getattr(resp, "usage", None), getattr(resp, "model", None), None
            server, streamed_chunks = llamacpp_timings(getattr(resp, "model_extra", None)), 0
        if u is not None and (u.prompt_tokens or u.completion_tokens):
            prompt_tokens, completion_tokens, estimated = int(u.prompt_tokens or 0), int(u.completion_tokens or 0), False
        else:
            # no usage block: local servers stream about one token per chunk, a better count of the
            # decode length than an estimate from the text; both are flagged as estimates
            prompt_tokens = self.tokens.count_messages(messages)
            completion_tokens = streamed_chunks or self.tokens.count_text(text)
            estimated = True
        usage = Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            latency_s=latency,
            cost_usd=self.price_table.cost(self.model_id, prompt_tokens, completion_tokens),
            calls=1,
            tokens_estimated=estimated,
            time_to_first_token_s=ttft,
        )
        self.ledger.record(operation, usage, self.model_id)
        return Completion(
            text=text, model=model or self.model_id, usage=usage, finish_reason=finish, server_timings=server
        )
