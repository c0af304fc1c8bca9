"""OpenAICompatChatModel against an in-process httpx2.MockTransport: the real openai SDK code path
runs; the responses replay the shapes OpenAI and llama.cpp's server send."""

from __future__ import annotations

import json
import threading
import time
from typing import Any, Callable

import httpx2
import pytest
from pydantic import BaseModel, Field

from memdesk.errors import (
    EmptyInputError,
    LLMAuthError,
    LLMConnectionError,
    LLMContextLengthError,
    LLMError,
    LLMOutputError,
    LLMRateLimitError,
    ModelCallsForbiddenError,
)
from memdesk.llm import (
    ChatMessage,
    ChatRequest,
    PriceTable,
    UsageLedger,
    make_chat_model,
)
from memdesk.llm.openai_compat import OpenAICompatChatModel, is_local_url
from memdesk.settings import Settings


@pytest.fixture(autouse=True)
def _allow_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    # The transport is mocked, so these "real" calls are allowed even if a suite forbids them.
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")


def chat_completion(content: str | None, *, model: str = "gpt-4o-mini-2024-07-18", usage: dict | None = None,
                    finish_reason: str = "stop", refusal: str | None = None) -> dict[str, Any]:
    """The body of a real OpenAI chat.completion (trimmed ids)."""
    body: dict[str, Any] = {
        "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG",
        "object": "chat.completion",
        "created": 1741570283,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal, "annotations": []},
                "logprobs": None,
                "finish_reason": finish_reason,
            }
        ],
        "service_tier": "default",
        "system_fingerprint": "fp_06737a9306",
    }
    if usage is not False:
        body["usage"] = usage or {
            "prompt_tokens": 120,
            "completion_tokens": 12,
            "total_tokens": 132,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                          "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0},
        }
    return body


def llamacpp_completion(content: str, *, with_usage: bool = True) -> dict[str, Any]:
    """The body llama.cpp's server (llama-server) sends for /v1/chat/completions."""
    body: dict[str, Any] = {
        "choices": [{"finish_reason": "stop", "index": 0, "message": {"role": "assistant", "content": content}}],
        "created": 1741570283,
        "model": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "system_fingerprint": "b4867-1e2f78a0",
        "object": "chat.completion",
        "id": "chatcmpl-7kxbq0IgwQm0R0Xyyb9FvLnWvq3CkmxS",
        "timings": {"prompt_n": 40, "prompt_ms": 1100.2, "predicted_n": 9, "predicted_ms": 818.1},
    }
    if with_usage:
        body["usage"] = {"completion_tokens": 9, "prompt_tokens": 40, "total_tokens": 49}
    return body


def openai_error(message: str, type_: str, code: str | None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


RATE_LIMITED = openai_error(
    "Rate limit reached for gpt-4o-mini in organization org-abc on tokens per min (TPM): Limit 200000, "
    "Used 199500, Requested 1200. Please try again in 210ms.", "tokens", "rate_limit_exceeded")
SERVER_ERROR = openai_error("The server had an error while processing your request. Sorry about that!", "server_error", None)
BAD_KEY = openai_error("Incorrect API key provided: sk-abc***xyz. You can find your API key at "
                       "https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
CONTEXT = openai_error("This model's maximum context length is 128000 tokens. However, your messages resulted in "
                       "131072 tokens. Please reduce the length of the messages.", "invalid_request_error",
                       "context_length_exceeded", "messages")
LLAMACPP_CONTEXT = {"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it",
                              "type": "exceed_context_size_error", "n_prompt_tokens": 5000, "n_ctx": 4096}}
NO_QUOTA = openai_error("You exceeded your current quota, please check your plan and billing details.",
                        "insufficient_quota", "insufficient_quota")


class Server:
    """A scripted server: each request pops the next response (or exception), and is recorded."""

    def __init__(self, responses: list[httpx2.Response | Exception | Callable[[httpx2.Request], httpx2.Response]]):
        self.responses = list(responses)
        self.requests: list[httpx2.Request] = []
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        self.bodies.append(json.loads(request.content))
        r = self.responses.pop(0)
        if isinstance(r, Exception):
            raise r
        if callable(r) and not isinstance(r, httpx2.Response):
            return r(request)
        return r


def ok(body: dict[str, Any], **kw: Any) -> httpx2.Response:
    return httpx2.Response(200, json=body, **kw)


def make(server: Server, *, model: str = "gpt-4o-mini", base_url: str = "https://api.openai.com/v1",
         sleeps: list[float] | None = None, **kw: Any) -> OpenAICompatChatModel:
    sleeps = sleeps if sleeps is not None else []
    return OpenAICompatChatModel(
        model, base_url, kw.pop("api_key", "sk-test"),
        http_client=httpx2.Client(transport=httpx2.MockTransport(server)),
        sleep=sleeps.append, **kw,
    )


USER = [ChatMessage(role="system", content="be brief"), ChatMessage(role="user", content="What is 2+2?")]


class Verdict(BaseModel):
    label: str = Field(pattern="^(CORRECT|WRONG)$")
    reason: str = Field(max_length=80)


# --- plain completions -------------------------------------------------------------------------
def test_plain_completion_sends_the_request_and_reads_usage() -> None:
    server = Server([ok(chat_completion("4"))])
    model = make(server, max_reasks=0)
    c = model.complete(USER, max_tokens=10, temperature=0.2, operation="answer")
    assert c.text == "4" and c.finish_reason == "stop" and c.model == "gpt-4o-mini-2024-07-18"
    req, body = server.requests[0], server.bodies[0]
    assert req.url == "https://api.openai.com/v1/chat/completions"
    assert req.headers["authorization"] == "Bearer sk-test"
    assert body["model"] == "gpt-4o-mini" and body["max_tokens"] == 10 and body["temperature"] == 0.2
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "What is 2+2?"}]
    assert "response_format" not in body
    assert (c.usage.prompt_tokens, c.usage.completion_tokens, c.usage.calls) == (120, 12, 1)
    assert not c.usage.tokens_estimated
    # gpt-4o-mini list price: 0.15 / 0.60 USD per 1M tokens
    assert c.usage.cost_usd == pytest.approx((120 * 0.15 + 12 * 0.60) / 1e6)
    assert model.ledger.get("answer").calls == 1 and model.ledger.get("ingest").calls == 0


def test_local_server_costs_nothing_and_estimates_missing_usage() -> None:
    server = Server([ok(llamacpp_completion("four")), ok(llamacpp_completion("four", with_usage=False))])
    model = make(server, model="qwen2.5-coder-1.5b", base_url="http://127.0.0.1:8080/v1", api_key=None)
    assert server.requests == []
    first = model.complete(USER)
    assert first.usage.prompt_tokens == 40 and first.usage.cost_usd == 0.0 and not first.usage.tokens_estimated
    second = model.complete(USER)
    assert second.usage.tokens_estimated
    # chars/4 per message + 4 per message + 3 per reply
    assert second.usage.prompt_tokens == (2 + 4) + (3 + 4) + 3
    assert second.usage.completion_tokens == 1
    assert model.ledger.total().calls == 2 and model.ledger.total().tokens_estimated
    assert server.requests[0].headers["authorization"] == "Bearer no-key"


def test_openai_key_from_env_is_never_sent_to_another_host(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    other = Server([ok(chat_completion("x"))])
    make(other, base_url="https://llm.example.com/v1", api_key=None).complete(USER)
    assert other.requests[0].headers["authorization"] == "Bearer no-key"
    openai_srv = Server([ok(chat_completion("x"))])
    make(openai_srv, base_url="https://api.openai.com/v1", api_key=None).complete(USER)
    assert openai_srv.requests[0].headers["authorization"] == "Bearer sk-secret"


def test_missing_usage_for_an_openai_model_is_counted_with_tiktoken() -> None:
    server = Server([ok(chat_completion("The answer is four.", usage=False))])
    c = make(server).complete(USER)
    assert c.usage.tokens_estimated
    assert c.usage.completion_tokens == 5  # o200k_base: "The| answer| is| four|."
    assert make(Server([]), model="gpt-4o-mini").tokens.method == "tiktoken:o200k_base"


def test_empty_messages_are_a_usage_error() -> None:
    with pytest.raises(EmptyInputError):
        make(Server([])).complete([])


# --- retries and errors ------------------------------------------------------------------------
def test_429_honours_retry_after_then_succeeds() -> None:
    server = Server([
        httpx2.Response(429, json=RATE_LIMITED, headers={"retry-after": "2", "x-ratelimit-remaining-tokens": "0"}),
        httpx2.Response(429, json=RATE_LIMITED, headers={"retry-after-ms": "250"}),
        ok(chat_completion("4")),
    ])
    sleeps: list[float] = []
    c = make(server, sleeps=sleeps).complete(USER)
    assert c.text == "4" and len(server.requests) == 3
    assert sleeps == [2.0, 0.25]


def test_500_then_success_backs_off_exponentially() -> None:
    server = Server([httpx2.Response(500, json=SERVER_ERROR), httpx2.Response(503, text="upstream unavailable"),
                     ok(chat_completion("4"))])
    sleeps: list[float] = []
    c = make(server, sleeps=sleeps, backoff_base_s=1.0).complete(USER)
    assert c.text == "4"
    assert len(sleeps) == 2
    assert 0.5 <= sleeps[0] <= 1.0 and 1.0 <= sleeps[1] <= 2.0  # base * 2**attempt with jitter in [0.5, 1]


def test_rate_limit_that_never_ends_raises_after_the_retries() -> None:
    server = Server([httpx2.Response(429, json=RATE_LIMITED, headers={"retry-after": "1"}) for _ in range(3)])
    sleeps: list[float] = []
    with pytest.raises(LLMRateLimitError, match="still rate-limited after 3 attempts"):
        make(server, sleeps=sleeps, max_retries=2).complete(USER)
    assert len(server.requests) == 3 and sleeps == [1.0, 1.0]


def test_retry_after_is_capped() -> None:
    server = Server([httpx2.Response(429, json=RATE_LIMITED, headers={"retry-after": "3600"}), ok(chat_completion("4"))])
    sleeps: list[float] = []
    make(server, sleeps=sleeps, max_retry_after_s=30).complete(USER)
    assert sleeps == [30]


def test_insufficient_quota_is_not_retried() -> None:
    server = Server([httpx2.Response(429, json=NO_QUOTA), ok(chat_completion("never"))])
    with pytest.raises(LLMRateLimitError, match="no quota"):
        make(server).complete(USER)
    assert len(server.requests) == 1


def test_401_is_an_auth_error_without_retry() -> None:
    server = Server([httpx2.Response(401, json=BAD_KEY), ok(chat_completion("never"))])
    with pytest.raises(LLMAuthError, match="MEMDESK_LLM_API_KEY"):
        make(server).complete(USER)
    assert len(server.requests) == 1


@pytest.mark.parametrize("body", [CONTEXT, LLAMACPP_CONTEXT], ids=["openai", "llama.cpp"])
def test_context_length_400_is_a_context_length_error(body: dict) -> None:
    server = Server([httpx2.Response(400, json=body)])
    with pytest.raises(LLMContextLengthError, match="context window"):
        make(server).complete(USER)
    assert len(server.requests) == 1


def test_404_names_the_settings_to_check() -> None:
    body = openai_error("The model `gpt-9` does not exist or you do not have access to it.", "invalid_request_error",
                        "model_not_found")
    with pytest.raises(LLMError, match="MEMDESK_LLM_MODEL") as info:
        make(Server([httpx2.Response(404, json=body)])).complete(USER)
    assert type(info.value) is LLMError


def test_reasoning_model_parameters_are_adapted_once_and_remembered() -> None:
    no_max = openai_error("Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                          "'max_completion_tokens' instead.", "invalid_request_error", "unsupported_parameter", "max_tokens")
    no_temp = openai_error("Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) "
                           "value is supported.", "invalid_request_error", "unsupported_value", "temperature")
    server = Server([httpx2.Response(400, json=no_max), httpx2.Response(400, json=no_temp),
                     ok(chat_completion("4", model="o4-mini")), ok(chat_completion("5", model="o4-mini"))])
    sleeps: list[float] = []
    model = make(server, model="o4-mini", sleeps=sleeps)
    assert model.complete(USER, max_tokens=50).text == "4"
    assert server.bodies[0]["max_tokens"] == 50 and server.bodies[0]["temperature"] == 0.0
    assert server.bodies[1]["max_completion_tokens"] == 50 and "max_tokens" not in server.bodies[1]
    assert "temperature" not in server.bodies[2] and sleeps == []
    assert model.complete(USER, max_tokens=20).text == "5"
    assert server.bodies[3]["max_completion_tokens"] == 20 and "temperature" not in server.bodies[3]


def test_unreachable_server_is_retried_then_a_connection_error() -> None:
    server = Server([httpx2.ConnectError("[Errno 111] Connection refused") for _ in range(3)])
    sleeps: list[float] = []
    with pytest.raises(LLMConnectionError, match="could not be reached after 3 attempts"):
        make(server, sleeps=sleeps, max_retries=2).complete(USER)
    assert len(sleeps) == 2


def test_repeated_timeouts_name_the_timeout_setting() -> None:
    server = Server([httpx2.ReadTimeout("timed out") for _ in range(2)])
    with pytest.raises(LLMConnectionError, match="timed out after 2 attempts .*MEMDESK_LLM_TIMEOUT_S"):
        make(server, sleeps=[], max_retries=1).complete(USER)


def test_timeout_then_success() -> None:
    server = Server([httpx2.ReadTimeout("timed out"), ok(chat_completion("4"))])
    assert make(server).complete(USER).text == "4"


def test_forbidden_switch_stops_before_any_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "0")
    server = Server([ok(chat_completion("4"))])
    with pytest.raises(ModelCallsForbiddenError):
        make(server).complete(USER)
    assert server.requests == []


# --- structured output -------------------------------------------------------------------------
def test_schema_is_sent_as_response_format_json_schema() -> None:
    server = Server([ok(chat_completion('{"label": "CORRECT", "reason": "same"}'))])
    c = make(server).complete(USER, schema=Verdict)
    assert isinstance(c.parsed, Verdict) and c.parsed.label == "CORRECT"
    rf = server.bodies[0]["response_format"]
    assert rf["type"] == "json_schema" and rf["json_schema"]["name"] == "Verdict"
    assert rf["json_schema"]["schema"]["properties"]["reason"]["maxLength"] == 80


def test_without_json_schema_support_the_schema_goes_in_the_prompt() -> None:
    server = Server([ok(chat_completion('{"label": "WRONG", "reason": "no"}'))])
    c = make(server, supports_json_schema=False).complete(USER, schema=Verdict)
    assert c.parsed is not None and c.parsed.label == "WRONG"
    body = server.bodies[0]
    assert "response_format" not in body
    last = body["messages"][-1]["content"]
    assert last.startswith("What is 2+2?") and '"maxLength":80' in last and "JSON object only" in last


def test_server_rejecting_json_schema_falls_back_to_json_object_then_instructions_for_good() -> None:
    reject = openai_error("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
                          "invalid_request_error", None, "response_format")
    # what a FastAPI server (llama-cpp-python) answers for a response_format type it does not know
    fastapi_422 = {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"],
                               "msg": "Input should be 'text' or 'json_object'", "input": "json_object"}]}
    good = '{"label": "CORRECT", "reason": "ok"}'
    server = Server([httpx2.Response(400, json=reject), ok(chat_completion(good)),
                     ok(chat_completion(good)),
                     httpx2.Response(422, json=fastapi_422), ok(chat_completion(good)), ok(chat_completion(good))])
    model = make(server)
    assert model.json_schema_mode == "auto:json_schema"
    assert model.complete(USER, schema=Verdict).parsed is not None
    assert server.bodies[0]["response_format"]["type"] == "json_schema"
    assert server.bodies[1]["response_format"] == {"type": "json_object", "schema": Verdict.model_json_schema()}
    assert model.json_schema_mode == "auto:json_object"
    assert model.complete(USER, schema=Verdict).parsed is not None  # json_object stays
    assert server.bodies[2]["response_format"]["type"] == "json_object"
    assert model.complete(USER, schema=Verdict).parsed is not None  # rejected: instructions
    assert "response_format" not in server.bodies[4]
    assert '"maxLength":80' in server.bodies[4]["messages"][-1]["content"]
    assert model.json_schema_mode == "auto:instructions"
    assert model.complete(USER, schema=Verdict).parsed is not None
    assert "response_format" not in server.bodies[5] and len(server.requests) == 6


def test_llama_cpp_server_500_for_json_schema_falls_back_to_json_object() -> None:
    # the body llama-cpp-python 0.3.36's server really sends (seen against a live server)
    body = {"message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
                       "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', "
                       "'ctx': {'expected': \"'text' or 'json_object'\"}}",
            "type": "internal_server_error", "param": None, "code": None}
    server = Server([httpx2.Response(500, json={"error": body}), ok(chat_completion('{"label": "CORRECT", "reason": "ok"}'))])
    model = make(server)
    assert model.complete(USER, schema=Verdict).parsed is not None
    assert server.bodies[1]["response_format"]["type"] == "json_object"
    assert model.json_schema_mode == "auto:json_object" and len(server.requests) == 2


def test_explicit_json_schema_support_does_not_fall_back() -> None:
    reject = openai_error("'response_format' json_schema is not supported", "invalid_request_error", None)
    with pytest.raises(LLMError, match="HTTP 400"):
        make(Server([httpx2.Response(400, json=reject)]), supports_json_schema=True).complete(USER, schema=Verdict)


def test_prose_instead_of_json_is_reasked_with_the_error() -> None:
    prose = "Sure! The answer matches the gold answer, so I would call it correct."
    server = Server([ok(chat_completion(prose)), ok(chat_completion('{"label": "CORRECT", "reason": "matches"}'))])
    model = make(server)
    c = model.complete(USER, schema=Verdict, operation="judge")
    assert c.parsed is not None and c.parsed.reason == "matches"
    second = server.bodies[1]["messages"]
    assert second[:2] == server.bodies[0]["messages"]
    assert second[2] == {"role": "assistant", "content": prose}
    assert second[3]["role"] == "user" and "contains no JSON object" in second[3]["content"]
    assert c.usage.calls == 2 and c.usage.prompt_tokens == 240
    assert model.ledger.get("judge").calls == 2


def test_code_fenced_json_with_prose_parses_in_one_call() -> None:
    text = 'Here is my verdict:\n```json\n{"label": "CORRECT", "reason": "same day"}\n```\nHope that helps!'
    server = Server([ok(chat_completion(text))])
    c = make(server).complete(USER, schema=Verdict)
    assert c.parsed is not None and c.parsed.reason == "same day" and len(server.requests) == 1
    assert c.text == text


def test_truncated_json_is_reasked_and_says_it_was_cut_off() -> None:
    cut = '{"label": "CORRECT", "reason": "the generated answer names the same'
    server = Server([ok(chat_completion(cut, finish_reason="length")),
                     ok(chat_completion('{"label": "CORRECT", "reason": "same"}'))])
    c = make(server).complete(USER, schema=Verdict, max_tokens=16)
    assert c.parsed is not None
    reask = server.bodies[1]["messages"][-1]["content"]
    assert "cut off" in reask and "token limit" in reask


def test_schema_violation_exhausting_reasks_raises_with_the_raw_text() -> None:
    bad = ['{"label": "MAYBE", "reason": "unsure"}', '{"label": "PERHAPS"}', '{"verdict": "yes"}']
    server = Server([ok(chat_completion(b)) for b in bad])
    model = make(server, max_reasks=2)
    with pytest.raises(LLMOutputError) as info:
        model.complete(USER, schema=Verdict)
    assert info.value.raw == bad[-1]
    assert "after 3 attempts" in str(info.value) and "label" in str(info.value)
    assert len(server.requests) == 3
    assert "label: String should match pattern" in server.bodies[1]["messages"][-1]["content"]
    assert model.ledger.total().calls == 3  # failed attempts are still accounted


def test_refusal_is_kept_as_the_raw_text() -> None:
    server = Server([ok(chat_completion(None, refusal="I can't help with that.")) for _ in range(2)])
    with pytest.raises(LLMOutputError) as info:
        make(server, max_reasks=1).complete(USER, schema=Verdict)
    assert info.value.raw == "I can't help with that."


# --- concurrency and batches -------------------------------------------------------------------
def test_complete_many_respects_the_concurrency_limit_and_keeps_order() -> None:
    lock = threading.Lock()
    state = {"now": 0, "max": 0}

    two_in_flight = threading.Event()

    def slow(request: httpx2.Request) -> httpx2.Response:
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
            if state["now"] == 2:
                two_in_flight.set()
        two_in_flight.wait(timeout=10)  # serial calls would never get here together
        time.sleep(0.01)
        with lock:
            state["now"] -= 1
        n = json.loads(request.content)["messages"][0]["content"]
        return ok(chat_completion(f"echo {n}"))

    server = Server([slow] * 8)
    model = make(server, concurrency=2)
    reqs = [ChatRequest([ChatMessage(role="user", content=str(i))], operation="ingest") for i in range(8)]
    out = model.complete_many(reqs)
    assert [c.text for c in out] == [f"echo {i}" for i in range(8)]
    assert state["max"] == 2  # two requests in flight at once (not serial), never three
    assert model.ledger.get("ingest").calls == 8


def test_complete_many_reports_or_raises_failures() -> None:
    server = Server([ok(chat_completion("a")), httpx2.Response(401, json=BAD_KEY), ok(chat_completion("c"))])
    model = make(server, concurrency=1)
    reqs = [ChatRequest([ChatMessage(role="user", content=str(i))]) for i in range(3)]
    out = model.complete_many(reqs, return_exceptions=True)
    assert out[0].text == "a" and isinstance(out[1], LLMAuthError) and out[2].text == "c"
    server2 = Server([ok(chat_completion("a")), httpx2.Response(401, json=BAD_KEY), ok(chat_completion("c"))])
    with pytest.raises(LLMAuthError):
        make(server2, concurrency=1).complete_many(reqs)
    assert len(server2.requests) == 3  # every request ran before the error was raised


# --- settings ----------------------------------------------------------------------------------
def test_make_chat_model_from_settings() -> None:
    assert make_chat_model(Settings(llm_base_url=None, llm_model="m")) is None
    assert make_chat_model(Settings(llm_base_url="http://localhost:8080/v1", llm_model=None)) is None
    server = Server([ok(llamacpp_completion("hi"))])
    ledger = UsageLedger()
    settings = Settings(llm_base_url="http://localhost:8080/v1", llm_model="qwen-local", llm_api_key="k-123",
                        llm_timeout_s=5, llm_max_retries=1, llm_concurrency=3)
    model = make_chat_model(settings, ledger=ledger, http_client=httpx2.Client(transport=httpx2.MockTransport(server)))
    assert model is not None and model.model_id == "qwen-local" and model.concurrency == 3 and model.max_retries == 1
    model.complete(USER, operation="tag")
    assert str(server.requests[0].url) == "http://localhost:8080/v1/chat/completions"
    assert server.requests[0].headers["authorization"] == "Bearer k-123"
    assert server.bodies[0]["model"] == "qwen-local"
    assert ledger.get("tag").calls == 1 and ledger.get("tag").cost_usd == 0.0
    assert model.describe()["base_url"] == "http://localhost:8080/v1"


def test_is_local_url() -> None:
    assert is_local_url("http://localhost:11434/v1") and is_local_url("http://127.0.0.1:8080/v1")
    assert not is_local_url("https://api.openai.com/v1") and not is_local_url(None)


def test_custom_price_table() -> None:
    server = Server([ok(chat_completion("x"))])
    c = make(server, model="my-hosted", price_table=PriceTable({"my-hosted": (1.0, 2.0)})).complete(USER)
    assert c.usage.cost_usd == pytest.approx((120 * 1.0 + 12 * 2.0) / 1e6)


# --- over a real socket (no mock transport) ----------------------------------------------------
def test_real_http_round_trip_and_refused_connection() -> None:
    import socket
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            seen.append({"path": self.path, "body": body})
            payload = json.dumps(llamacpp_completion('{"label": "CORRECT", "reason": "ok"}')).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        with OpenAICompatChatModel("local", url, timeout_s=5, max_retries=0) as model:
            c = model.complete(USER, schema=Verdict, operation="judge")
        assert c.parsed is not None and c.parsed.label == "CORRECT" and c.usage.cost_usd == 0.0
        assert seen[0]["path"] == "/v1/chat/completions" and seen[0]["body"]["response_format"]["type"] == "json_schema"
    finally:
        server.shutdown()
        server.server_close()
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    sleeps: list[float] = []
    dead = OpenAICompatChatModel("local", f"http://127.0.0.1:{port}/v1", timeout_s=2, max_retries=1, sleep=sleeps.append)
    with pytest.raises(LLMConnectionError, match="could not be reached after 2 attempts"):
        dead.complete(USER)
    assert len(sleeps) == 1
