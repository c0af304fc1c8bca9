"""OpenTelemetry spans for memdesk's operations, through ``opentelemetry-api`` only.

Nothing is recorded unless the host application installs a tracer provider (the OpenTelemetry SDK and an
exporter): without one the API hands out non-recording spans and memdesk computes no attributes. Spans follow
the GenAI semantic conventions (development status, the ``gen_ai.*`` registry):

| span name | ``gen_ai.operation.name`` | kind | made by |
|---|---|---|---|
| ``create_memory`` | ``create_memory`` | INTERNAL | ``Memory.add`` (``gen_ai.memory.record.count``: records written) |
| ``search_memory`` | ``search_memory`` | INTERNAL | ``Memory.search`` (``gen_ai.memory.record.count``: hits returned) |
| ``retrieval memdesk`` | ``retrieval`` | INTERNAL | ``Memory.evidence``: the evidence block for a question |
| ``answer`` | ``answer`` (memdesk's own) | INTERNAL | ``Memory.answer``: evidence, then the answerer |
| ``update_memory`` / ``delete_memory`` | same | INTERNAL | ``Memory.update`` / ``delete`` / ``delete_all`` |
| ``chat {model}`` | ``chat`` | CLIENT | every call of the OpenAI-compatible chat model (usage, finish reason) |
| ``embeddings {model}`` | ``embeddings`` | INTERNAL (packaged ONNX) or CLIENT (HTTP) | every ``embed`` of a memdesk embedder |

``gen_ai.memory.store.id`` is the scope the operation ran under (``user=ana,run=r1``) and
``gen_ai.memory.record.id`` the record id of a by-id call. The query text (``gen_ai.memory.query.text``) is
recorded only when ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``, as the conventions ask: it may
hold personal data. Errors set the span status and ``error.type`` (the exception class name).
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

F = TypeVar("F", bound=Callable[..., Any])
Attributes = Mapping[str, Any]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
# (operation, id(self)) of the non-reentrant spans open in this context: an override that calls its
# base class's traced method does not open a second span for the same call
_OPEN: ContextVar[frozenset[tuple[str, int]]] = ContextVar("memdesk_open_spans", default=frozenset())


def tracer() -> trace.Tracer:
    """memdesk's tracer from the host's global provider (a no-op one until the host sets a provider)."""
    from .. import __version__

    return trace.get_tracer("memdesk", __version__)


def enabled() -> bool:
    """Whether the host installed a tracer provider (else memdesk skips its spans altogether)."""
    return not isinstance(trace.get_tracer_provider(), (trace.ProxyTracerProvider, trace.NoOpTracerProvider))


def capture_content() -> bool:
    """Whether spans may carry query texts (off by default)."""
    return os.environ.get(CAPTURE_CONTENT_ENV, "").strip().lower() in ("1", "true", "yes")


@contextmanager
def span(name: str, operation: str, *, kind: SpanKind = SpanKind.INTERNAL, attributes: Attributes | None = None) -> Iterator[Span]:
    """A span named ``name`` with ``gen_ai.operation.name = operation``; errors end it with ``error.type``."""
    attrs = {"gen_ai.operation.name": operation, **{k: v for k, v in (attributes or {}).items() if v is not None}}
    with tracer().start_as_current_span(name, kind=kind, attributes=attrs, record_exception=True, set_status_on_exception=False) as s:
        try:
            yield s
        except BaseException as e:
            if s.is_recording():
                s.set_attribute("error.type", type(e).__name__)
                s.set_status(Status(StatusCode.ERROR, str(e)[:200]))
            raise


def set_attributes(s: Span, attributes: Attributes) -> None:
    if s.is_recording():
        s.set_attributes({k: v for k, v in attributes.items() if v is not None})


def traced(
    name: str | Callable[[dict[str, Any]], str],
    operation: str,
    *,
    kind: SpanKind | Callable[[dict[str, Any]], SpanKind] = SpanKind.INTERNAL,
    before: Callable[[dict[str, Any]], Attributes] | None = None,
    after: Callable[[Any, dict[str, Any]], Attributes] | None = None,
    reentrant: bool = True,
) -> Callable[[F], F]:
    """Decorate a method so each call runs in a span.

    ``before(args)`` gives attributes from the call's bound arguments (``self`` included), ``after(result,
    args)`` from its result; neither runs when nothing records the span. Coroutine functions get an async
    wrapper, so the span covers the awaited work. ``reentrant=False``: a call made while a span of the same
    operation on the same object is open (an override calling ``super()``) opens no second span.
    """

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn)

        def arguments(args: tuple, kwargs: dict) -> dict[str, Any]:
            bound = signature.bind_partial(*args, **kwargs)
            return dict(bound.arguments)

        def start(args: tuple, kwargs: dict):
            call = arguments(args, kwargs) if (before or after or callable(name) or callable(kind)) else {}
            span_name = name(call) if callable(name) else name
            span_kind = kind(call) if callable(kind) else kind
            return call, span(span_name, operation, kind=span_kind)

        def finish(s: Span, call: dict[str, Any], result: Any) -> None:
            if after is not None and s.is_recording():
                set_attributes(s, after(result, call))

        def open_(s: Span, call: dict[str, Any]) -> None:
            if before is not None and s.is_recording():
                set_attributes(s, before(call))

        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                if not enabled():
                    return await fn(*args, **kwargs)
                call, cm = start(args, kwargs)
                with cm as s:
                    open_(s, call)
                    result = await fn(*args, **kwargs)
                    finish(s, call, result)
                    return result

            return async_wrapper  # type: ignore[return-value]

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if not enabled():
                return fn(*args, **kwargs)
            key = (operation, id(args[0]) if args else 0)
            open_now = _OPEN.get()
            if not reentrant and key in open_now:
                return fn(*args, **kwargs)
            token = _OPEN.set(open_now | {key}) if not reentrant else None
            try:
                call, cm = start(args, kwargs)
                with cm as s:
                    open_(s, call)
                    result = fn(*args, **kwargs)
                    finish(s, call, result)
                    return result
            finally:
                if token is not None:
                    _OPEN.reset(token)

        return wrapper  # type: ignore[return-value]

    return decorate


# -- attribute helpers for memdesk's spans --------------------------------------------------------------
def scope_attributes(call: dict[str, Any]) -> dict[str, Any]:
    scope = call.get("scope")
    return {"gen_ai.memory.store.id": str(scope) if scope is not None else None}


def query_attributes(call: dict[str, Any]) -> dict[str, Any]:
    out = scope_attributes(call)
    kwargs = call.get("search_args") or {}
    for key in ("k", "K", "mode", "hybrid"):
        value = call.get(key, kwargs.get(key))
        if value is not None:
            out[f"memdesk.search.{key}"] = value
    if capture_content():
        out["gen_ai.memory.query.text"] = call.get("query") or call.get("question")
    return out


def record_id_attributes(call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.memory.record.id": call.get("record_id"), **scope_attributes(call)}


def count(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.memory.record.count": len(result)}


def added(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.memory.record.count": len(result.records), "memdesk.messages.count": len(result.message_ids)}


def retrieval_attributes(call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.data_source.id": "memdesk", **query_attributes(call)}


def evidence_attributes(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.memory.record.count": len(result.hits), "memdesk.evidence.tokens": result.tokens}


def answer_attributes(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    return {
        "gen_ai.memory.record.count": len(result.evidence.hits),
        "memdesk.answer.extractive": result.extractive,
        "gen_ai.response.model": result.model,
    }


def one(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.memory.record.count": 1}


def deleted(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    return {"gen_ai.memory.record.count": int(result)}


def memory_span(
    operation: str,
    *,
    name: str | None = None,
    before: Callable[[dict[str, Any]], Attributes] = scope_attributes,
    after: Callable[[Any, dict[str, Any]], Attributes] | None = None,
) -> Callable[[F], F]:
    """The span of one ``Memory`` operation (see the table in the module docstring)."""
    return traced(name or operation, operation, before=before, after=after)


# -- model calls ---------------------------------------------------------------------------------------
def _server(base_url: str | None) -> dict[str, Any]:
    from urllib.parse import urlparse

    u = urlparse(base_url or "https://api.openai.com/v1")
    return {"server.address": u.hostname, "server.port": u.port or (443 if u.scheme == "https" else 80)}


def embedding_span_name(call: dict[str, Any]) -> str:
    return f"embeddings {call['self'].model_id}"


def _remote(embedder: Any) -> bool:
    """An embedder that calls a server (it says so with ``remote = True``)."""
    return bool(getattr(embedder, "remote", False))


def embedding_kind(call: dict[str, Any]) -> SpanKind:
    return SpanKind.CLIENT if _remote(call["self"]) else SpanKind.INTERNAL


def embedding_attributes(call: dict[str, Any]) -> dict[str, Any]:
    e = call["self"]
    texts = call.get("texts")
    out: dict[str, Any] = {
        "gen_ai.request.model": e.model_id,
        "gen_ai.provider.name": "openai" if _remote(e) else "memdesk",
        "memdesk.embeddings.input_count": len(texts) if hasattr(texts, "__len__") else None,
    }
    if _remote(e):
        out.update(_server(getattr(e, "base_url", None)))
    return out


def embedding_result(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    shape = getattr(result, "shape", None)
    return {"gen_ai.embeddings.dimension.count": int(shape[1])} if shape is not None and len(shape) == 2 else {}


def traced_embed(fn: F) -> F:
    """The ``embeddings {model}`` span around an embedder's ``embed``."""
    return traced(
        embedding_span_name, "embeddings", kind=embedding_kind, before=embedding_attributes, after=embedding_result,
        reentrant=False,
    )(fn)


def chat_span_name(call: dict[str, Any]) -> str:
    return f"chat {call['self'].model_id}"


def chat_attributes(call: dict[str, Any]) -> dict[str, Any]:
    m = call["self"]
    return {
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": m.model_id,
        "gen_ai.request.max_tokens": call.get("max_tokens"),
        "gen_ai.request.temperature": call.get("temperature", 0.0),
        "gen_ai.output.type": "json" if call.get("schema") is not None else "text",
        "memdesk.llm.operation": call.get("operation", "default"),
        **_server(getattr(m, "base_url", None)),
    }


def completion_attributes(result: Any, call: dict[str, Any]) -> dict[str, Any]:
    u = result.usage
    return {
        "gen_ai.response.model": result.model,
        "gen_ai.usage.input_tokens": u.prompt_tokens,
        "gen_ai.usage.output_tokens": u.completion_tokens,
        "gen_ai.response.finish_reasons": [result.finish_reason] if result.finish_reason else None,
        "memdesk.llm.tokens_estimated": u.tokens_estimated,
    }


def traced_chat(fn: F) -> F:
    """The ``chat {model}`` span around a chat model's ``complete`` (all retries and re-asks inside it)."""
    return traced(chat_span_name, "chat", kind=SpanKind.CLIENT, before=chat_attributes, after=completion_attributes)(fn)
