"""The public test helper ScriptedChatModel, and the switch that forbids real calls."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from memdesk.errors import LLMRateLimitError, ModelCallsForbiddenError, UsageError
from memdesk.llm import (
    ChatMessage,
    ChatModel,
    ChatRequest,
    ScriptedChatModel,
    model_requests_allowed,
)
from memdesk.llm.guard import check_model_requests_allowed


class Item(BaseModel):
    name: str


HELLO = [ChatMessage(role="system", content="sys"), ChatMessage(role="user", content="hello")]


def test_follows_the_protocol_and_records_calls() -> None:
    model = ScriptedChatModel(["plain", {"name": "a"}, Item(name="b")], model_id="fake-1")
    assert isinstance(model, ChatModel)
    assert model.complete(HELLO, max_tokens=5, operation="answer").text == "plain"
    assert model.complete(HELLO, schema=Item).parsed == Item(name="a")
    assert model.complete(HELLO, schema=Item, temperature=0.3).parsed == Item(name="b")
    assert len(model.calls) == 3 and model.remaining == 0
    first = model.calls[0]
    assert first.prompt == "sys\nhello" and first.system == "sys" and first.user == "hello"
    assert first.max_tokens == 5 and first.operation == "answer" and first.reply == "plain"
    assert model.calls[1].schema is Item and model.calls[1].response_format["type"] == "json_schema"
    assert model.ledger.get("answer").calls == 1 and model.ledger.get("default").calls == 2
    assert model.ledger.total().tokens_estimated


def test_reply_function_sees_the_messages() -> None:
    model = ScriptedChatModel(lambda msgs: msgs[-1].content.upper())
    assert model.complete(HELLO).text == "HELLO"
    assert model.remaining == 0 and len(model.calls) == 1


def test_without_json_schema_the_schema_goes_in_the_prompt() -> None:
    model = ScriptedChatModel([{"name": "x"}], supports_json_schema=False)
    model.complete(HELLO, schema=Item)
    assert model.calls[0].response_format is None
    assert '"name"' in model.calls[0].user and "JSON object only" in model.calls[0].user


def test_scripted_exceptions_are_raised_and_running_out_is_an_error() -> None:
    model = ScriptedChatModel([LLMRateLimitError("slow down")])
    with pytest.raises(LLMRateLimitError):
        model.complete(HELLO)
    with pytest.raises(UsageError, match="ran out of replies"):
        model.complete(HELLO)


def test_complete_many_in_order() -> None:
    model = ScriptedChatModel(lambda msgs: "re:" + msgs[-1].content, concurrency=3)
    out = model.complete_many([ChatRequest([ChatMessage(role="user", content=str(i))]) for i in range(6)])
    assert [c.text for c in out] == [f"re:{i}" for i in range(6)]


def test_forbid_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMDESK_ALLOW_MODEL_REQUESTS", raising=False)
    assert model_requests_allowed()
    for off in ("0", "false", "No", "off"):
        assert not model_requests_allowed({"MEMDESK_ALLOW_MODEL_REQUESTS": off})
        with pytest.raises(ModelCallsForbiddenError, match="ScriptedChatModel"):
            check_model_requests_allowed("m", {"MEMDESK_ALLOW_MODEL_REQUESTS": off})
    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "0")
    assert ScriptedChatModel(["ok"]).complete(HELLO).text == "ok"  # the fake is never forbidden
