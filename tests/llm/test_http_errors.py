"""The shared HTTP-error mapping, through the streaming client (which does not retry) and directly."""

from __future__ import annotations

import httpx2
import openai
import pytest

from memdesk.errors import LLMAuthError, LLMContextLengthError, LLMError, LLMRateLimitError
from memdesk.llm.base import ChatMessage
from memdesk.llm.http_errors import status_error, terminal_status_error
from memdesk.llm.openai_compat import OpenAICompatChatModel


def api_error(status: int, message: str, code: str | None = None) -> openai.APIStatusError:
    request = httpx2.Request("POST", "http://localhost:8080/v1/chat/completions")
    body = {"error": {"message": message, "code": code}}
    response = httpx2.Response(status, json=body, request=request)
    return openai.APIStatusError(message, response=response, body=body["error"])


@pytest.mark.parametrize(
    ("status", "message", "code", "expected"),
    [
        (401, "bad key", None, LLMAuthError),
        (403, "forbidden", None, LLMAuthError),
        (400, "This model's maximum context length is 4096 tokens", None, LLMContextLengthError),
        (413, "prompt is too long", None, LLMContextLengthError),
        (429, "You exceeded your current quota", "insufficient_quota", LLMRateLimitError),
    ],
)
def test_terminal_errors_are_typed(status: int, message: str, code: str | None, expected: type) -> None:
    err = terminal_status_error(api_error(status, message, code), "model 'm'")
    assert type(err) is expected and "model 'm'" in str(err)
    assert type(status_error(api_error(status, message, code), "model 'm'")) is expected


@pytest.mark.parametrize(("status", "message"), [(429, "slow down"), (500, "boom"), (400, "bad temperature"), (404, "no such model")])
def test_other_errors_are_not_terminal(status: int, message: str) -> None:
    e = api_error(status, message)
    assert terminal_status_error(e, "m") is None
    err = status_error(e, "m")
    assert type(err) is LLMError and str(status) in str(err)
    assert ("MEMDESK_LLM_MODEL" in str(err)) == (status == 404)


def test_the_streaming_client_maps_a_context_overflow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")  # a mock transport, not a real server
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(400, json={"error": {"message": "the request exceeds the available context size"}})

    model = OpenAICompatChatModel("m", "http://localhost:8080/v1", stream=True, max_retries=0,
                                  http_client=httpx2.Client(transport=httpx2.MockTransport(handler)))
    with pytest.raises(LLMContextLengthError):
        model.complete([ChatMessage(role="user", content="x" * 100)])
