"""Server timings (Prometheus parsing, the vLLM probe, llama.cpp's block) and streaming through the
one OpenAI-compatible client (mock transport): time to first token, usage, a cut-off stream."""

from __future__ import annotations

import json

import httpx2
import pytest

from memdesk.errors import LLMAuthError, ModelCallsForbiddenError
from memdesk.llm.base import ChatMessage
from memdesk.llm.openai_compat import OpenAICompatChatModel
from memdesk.llm.server_timings import ServerTimings, VLLMMetricsProbe, parse_prometheus
from memdesk.reasoning.latency import split_model_time
from pydantic import BaseModel


@pytest.fixture(autouse=True)
def _allow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")


def streaming_client(model: str, base_url: str, **kw) -> OpenAICompatChatModel:
    """The client as the latency probe builds it: streaming, no retries."""
    return OpenAICompatChatModel(model, base_url, stream=True, max_retries=0, **kw)


METRICS_1 = """# HELP vllm:request_prefill_time_seconds Histogram
vllm:request_prefill_time_seconds_sum{model_name="q"} 1.5
vllm:request_decode_time_seconds_sum{model_name="q"} 10.0
vllm:time_to_first_token_seconds_sum{model_name="q"} 1.6
vllm:e2e_request_latency_seconds_sum{model_name="q"} 12.0
"""
METRICS_2 = METRICS_1.replace("1.5", "1.75").replace("10.0", "12.5")


def test_parse_prometheus_sums_label_sets() -> None:
    text = 'a_sum{x="1"} 1\na_sum{x="2"} 2.5\n# comment\nb 3e-1\n'
    assert parse_prometheus(text) == {"a_sum": 3.5, "b": 0.3}


def test_vllm_probe_differences() -> None:
    pages = iter([METRICS_1, METRICS_2])
    probe = VLLMMetricsProbe("http://localhost:8000/v1", fetch=lambda url: next(pages))
    assert probe.url == "http://localhost:8000/metrics"
    t = probe.timings(probe.snapshot(), probe.snapshot())
    assert t is not None and t.prefill_s == pytest.approx(0.25) and t.decode_s == pytest.approx(2.5)


def test_vllm_probe_without_the_server_returns_nothing() -> None:
    def fail(url: str) -> str:
        raise OSError("refused")

    probe = VLLMMetricsProbe("http://localhost:1/v1", fetch=fail)
    assert probe.timings(probe.snapshot(), probe.snapshot()) is None


def sse(chunks: list[dict]) -> bytes:
    return b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in chunks) + b"data: [DONE]\n\n"


def chunk(content: str | None, finish: str | None = None, **extra) -> dict:
    body = {
        "id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "qwen",
        "choices": [{"index": 0, "delta": {"content": content} if content is not None else {}, "finish_reason": finish}],
    }  # fmt: skip
    body.update(extra)
    return body


def test_streaming_model_measures_ttft_and_reads_llamacpp_timings() -> None:
    seen: list[dict] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        body = sse(
            [
                chunk("Draft: 2+2"),
                chunk(" = 4. \\boxed{4}"),
                chunk(None, "stop", timings={"prompt_n": 40, "prompt_ms": 120.0, "predicted_n": 9, "predicted_ms": 450.0}),
                {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "qwen", "choices": [],
                 "usage": {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}},
            ]
        )  # fmt: skip
        return httpx2.Response(200, content=body, headers={"content-type": "text/event-stream"})

    ticks = iter([0.0, 0.3, 1.0])
    model = streaming_client(
        "qwen", "http://localhost:8080/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        clock=lambda: next(ticks),
    )  # fmt: skip
    c = model.complete([ChatMessage(role="user", content="2+2?")], max_tokens=64, operation="answer")
    assert c.text == "Draft: 2+2 = 4. \\boxed{4}" and c.finish_reason == "stop"
    assert c.usage.time_to_first_token_s == pytest.approx(0.3) and c.usage.latency_s == pytest.approx(1.0)
    assert (c.usage.prompt_tokens, c.usage.completion_tokens, c.usage.tokens_estimated) == (40, 9, False)
    assert c.server_timings == ServerTimings(prefill_s=0.12, decode_s=0.45, source="llama.cpp timings")
    assert split_model_time(c)[2] == "server"
    assert seen[0]["stream"] is True and seen[0]["max_tokens"] == 64 and seen[0]["temperature"] == 0.0
    assert model.ledger.get("answer").calls == 1


def test_streaming_model_without_usage_estimates_tokens_and_uses_ttft() -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=sse([chunk("\\boxed{7}", "stop")]), headers={"content-type": "text/event-stream"})

    ticks = iter([0.0, 0.1, 0.4])
    model = streaming_client(
        "local", "http://localhost:8080/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        clock=lambda: next(ticks),
    )  # fmt: skip
    c = model.complete([ChatMessage(role="user", content="x")])
    assert c.usage.tokens_estimated and c.usage.completion_tokens == 1  # one streamed chunk
    assert split_model_time(c) == (pytest.approx(0.1), pytest.approx(0.3), "ttft")


def test_streaming_model_errors_and_guards(monkeypatch: pytest.MonkeyPatch) -> None:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(401, json={"error": {"message": "bad key"}})

    model = streaming_client("m", "http://localhost:8080/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    with pytest.raises(LLMAuthError):
        model.complete([ChatMessage(role="user", content="x")])
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "0")
    with pytest.raises(ModelCallsForbiddenError):
        model.complete([ChatMessage(role="user", content="x")])


def test_a_stream_cut_off_by_the_server_is_asked_again_without_streaming() -> None:
    # llama-cpp-python 0.3.x drops the stream of a long prompt: no content, no finish reason
    seen: list[dict] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        seen.append(body)
        if body.get("stream"):
            return httpx2.Response(200, content=b"", headers={"content-type": "text/event-stream"})
        return httpx2.Response(200, json={
            "id": "c2", "object": "chat.completion", "created": 1, "model": "local",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "so \\boxed{7}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 800, "completion_tokens": 5, "total_tokens": 805}})  # fmt: skip

    model = streaming_client("local", "http://localhost:8080/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    c = model.complete([ChatMessage(role="user", content="long prompt")], max_tokens=32)
    assert c.text == "so \\boxed{7}" and c.finish_reason == "stop"
    assert [b.get("stream", False) for b in seen] == [True, False] and seen[1]["max_tokens"] == 32
    assert c.usage.time_to_first_token_s is None and split_model_time(c)[2] == "total"
    assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (800, 5)


class Tag(BaseModel):
    name: str


def test_a_structured_call_of_a_streaming_client_is_not_streamed() -> None:
    seen: list[dict] = []

    def handler(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content))
        return httpx2.Response(200, json={
            "id": "c", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": '{"name": "x"}'}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
            "timings": {"prompt_ms": 50.0, "predicted_ms": 20.0}})  # fmt: skip

    model = streaming_client("m", "http://localhost:8080/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    c = model.complete([ChatMessage(role="user", content="x")], schema=Tag)
    assert c.parsed == Tag(name="x") and "stream" not in seen[0]
    assert c.server_timings == ServerTimings(prefill_s=0.05, decode_s=0.02, source="llama.cpp timings")


def test_a_metrics_probe_times_each_call() -> None:
    pages = iter([METRICS_1, METRICS_2])
    probe = VLLMMetricsProbe("http://localhost:8000/v1", fetch=lambda url: next(pages))

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=sse([chunk("hi", "stop")]), headers={"content-type": "text/event-stream"})

    model = streaming_client("m", "http://localhost:8000/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
                               metrics_probe=probe)
    c = model.complete([ChatMessage(role="user", content="x")])
    assert c.server_timings is not None and c.server_timings.decode_s == pytest.approx(2.5)
    assert split_model_time(c)[2] == "server"
