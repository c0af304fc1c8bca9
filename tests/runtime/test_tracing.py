"""OpenTelemetry spans: recorded by the SDK's in-memory exporter when a host installs a provider, absent otherwise."""

from __future__ import annotations

import httpx2
import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402
from opentelemetry.trace import SpanKind, StatusCode  # noqa: E402
from opentelemetry.util._once import Once  # noqa: E402

from memdesk import Memory, Scope
from memdesk.runtime import tracing  # noqa: E402
from memdesk.conversation.answer import LLMAnswerer  # noqa: E402
from memdesk.conversation.raw import RawTurnProcessor  # noqa: E402
from memdesk.embed import HashingEmbedder  # noqa: E402
from memdesk.embed.openai import OpenAIEmbedder  # noqa: E402
from memdesk.errors import EmptyInputError  # noqa: E402
from memdesk.llm.openai_compat import OpenAICompatChatModel  # noqa: E402
from memdesk.store import open_store  # noqa: E402
from tests.openai_server import make_app  # noqa: E402

ANA = Scope(user_id="ana")


def _set_global_provider(provider) -> None:
    # what OpenTelemetry's own test utilities do: the global provider may otherwise be set only once
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = None
    if provider is not None:
        trace.set_tracer_provider(provider)


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    before = trace._TRACER_PROVIDER
    _set_global_provider(provider)
    yield exporter
    provider.shutdown()
    trace._TRACER_PROVIDER_SET_ONCE = Once()
    trace._TRACER_PROVIDER = before


@pytest.fixture
def mem(tmp_path):
    m = Memory(open_store(f"sqlite:///{tmp_path}/t.db"), HashingEmbedder(64), RawTurnProcessor())
    yield m
    m.close()


def by_name(exporter) -> dict[str, list]:
    out: dict[str, list] = {}
    for s in exporter.get_finished_spans():
        out.setdefault(s.name, []).append(s)
    return out


def test_without_a_provider_nothing_is_traced(mem):
    assert not tracing.enabled()
    mem.add("I keep bees.", scope=ANA)
    assert mem.search("bees", scope=ANA)


def test_memory_operations_make_genai_memory_spans(mem, spans):
    assert tracing.enabled()
    added = mem.add(["I keep bees.", "My hives are on the roof."], scope=ANA)
    hits = mem.search("bees", scope=ANA, k=5)
    mem.answer("Who keeps bees?", scope=ANA)
    mem.update(hits[0].id, "I keep wasps.", scope=ANA)
    mem.delete(hits[0].id, scope=ANA)
    s = by_name(spans)
    (create,) = s["create_memory"]
    assert create.attributes["gen_ai.operation.name"] == "create_memory"
    assert create.attributes["gen_ai.memory.store.id"] == "user=ana"
    assert create.attributes["gen_ai.memory.record.count"] == len(added.records)
    assert create.kind is SpanKind.INTERNAL and create.status.status_code is StatusCode.UNSET
    search = s["search_memory"][0]
    assert search.attributes["gen_ai.memory.record.count"] == len(hits) and search.attributes["memdesk.search.k"] == 5
    assert "gen_ai.memory.query.text" not in search.attributes  # content is opt-in
    # answer > retrieval > search_memory > embeddings: one trace, nested
    (answer,) = s["answer"]
    (retrieval,) = s["retrieval memdesk"]
    assert retrieval.parent.span_id == answer.context.span_id
    assert retrieval.attributes["gen_ai.operation.name"] == "retrieval"
    inner = [x for x in s["search_memory"] if x.parent is not None and x.parent.span_id == retrieval.context.span_id]
    assert len(inner) == 1
    embeds = [x for x in s["embeddings hashing-64"] if x.parent is not None and x.parent.span_id == inner[0].context.span_id]
    assert len(embeds) == 1 and embeds[0].attributes["gen_ai.operation.name"] == "embeddings"
    assert embeds[0].attributes["gen_ai.embeddings.dimension.count"] == 64
    assert s["update_memory"][0].attributes["gen_ai.memory.record.id"] == hits[0].id
    assert s["delete_memory"][0].attributes["gen_ai.memory.record.id"] == hits[0].id


def test_errors_end_the_span_with_error_type(mem, spans):
    with pytest.raises(EmptyInputError):
        mem.search("   ", scope=ANA)
    (search,) = by_name(spans)["search_memory"]
    assert search.status.status_code is StatusCode.ERROR and search.attributes["error.type"] == "EmptyInputError"


def test_query_text_is_recorded_only_when_the_host_opts_in(mem, spans, monkeypatch):
    mem.add("I keep bees.", scope=ANA)
    monkeypatch.setenv(tracing.CAPTURE_CONTENT_ENV, "true")
    mem.search("who keeps bees", scope=ANA)
    (search,) = by_name(spans)["search_memory"]
    assert search.attributes["gen_ai.memory.query.text"] == "who keeps bees"


@pytest.fixture
def llm_server(monkeypatch):
    pytest.importorskip("fastapi")
    from tests.server.conftest import LiveServer

    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")
    with LiveServer(make_app(lambda messages: "Ana keeps bees.")) as server:
        yield server


def test_chat_and_embedding_calls_over_http_make_client_spans(tmp_path, spans, llm_server):
    base = f"{llm_server.url}/v1"
    chat = OpenAICompatChatModel("tiny", base_url=base, api_key="k")
    embedder = OpenAIEmbedder("emb", base_url=base, api_key="k")
    mem = Memory(open_store(f"sqlite:///{tmp_path}/llm.db"), embedder, RawTurnProcessor(), answerer=LLMAnswerer(chat))
    try:
        mem.add("I keep bees.", scope=ANA)
        assert mem.answer("Who keeps bees?", scope=ANA).answer == "Ana keeps bees."
    finally:
        mem.close()
        chat.close()
    s = by_name(spans)
    (call,) = s["chat tiny"]
    a = call.attributes
    assert call.kind is SpanKind.CLIENT and a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == "openai"
    assert a["gen_ai.request.model"] == "tiny" and a["gen_ai.response.model"] == "tiny-served"
    assert (a["gen_ai.usage.input_tokens"], a["gen_ai.usage.output_tokens"]) == (11, 3)
    assert tuple(a["gen_ai.response.finish_reasons"]) == ("stop",)
    assert a["server.address"] == "127.0.0.1" and a["server.port"] == llm_server.port
    assert call.parent.span_id == s["answer"][0].context.span_id
    # one span per embed call even though OpenAIEmbedder.embed calls the base class's embed
    embeds = s["embeddings openai:emb"]
    assert len(embeds) == 2 and all(e.kind is SpanKind.CLIENT for e in embeds)
    assert embeds[0].attributes["gen_ai.embeddings.dimension.count"] == 16


def test_a_model_failure_is_an_error_span(spans, monkeypatch):
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")
    refuse = httpx2.MockTransport(lambda request: httpx2.Response(401, json={"error": {"message": "bad key"}}))
    chat = OpenAICompatChatModel("tiny", base_url="http://127.0.0.1:9/v1", api_key="k", http_client=httpx2.Client(transport=refuse))
    from memdesk.errors import LLMError
    from memdesk.llm.base import ChatMessage

    with pytest.raises(LLMError):
        chat.complete([ChatMessage(role="user", content="hi")])
    (call,) = by_name(spans)["chat tiny"]
    assert call.status.status_code is StatusCode.ERROR and call.attributes["error.type"].startswith("LLM")


def test_async_memory_spans_nest_under_the_callers_span(mem, spans):
    import asyncio

    from memdesk import AsyncMemory

    async def main():
        amem = AsyncMemory(mem)
        with trace.get_tracer("agent").start_as_current_span("agent turn"):
            await amem.add("I keep bees.", scope=ANA)
            await amem.search("bees", scope=ANA)

    asyncio.run(main())
    s = by_name(spans)
    (turn,) = s["agent turn"]
    assert s["create_memory"][0].parent.span_id == turn.context.span_id
    assert s["search_memory"][0].parent.span_id == turn.context.span_id
    # the embedding ran in a worker thread, and still nests under its operation
    (search,) = s["search_memory"]
    assert any(e.parent is not None and e.parent.span_id == search.context.span_id for e in s["embeddings hashing-64"])
