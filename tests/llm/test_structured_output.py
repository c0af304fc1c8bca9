"""JSON extraction from model text and the re-ask loop (driven by the scripted fake)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from memdesk.errors import InvalidInputError, LLMOutputError
from memdesk.llm import ChatMessage, ScriptedChatModel, ScriptedReply
from memdesk.llm.structured import (
    JSONNotFound,
    extract_json,
    parse_structured,
    response_format_for,
)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
objects = st.dictionaries(st.text(max_size=8), json_values, min_size=1, max_size=4)
prose = st.text(alphabet=st.characters(blacklist_characters="{}[]`\"\\", blacklist_categories=("Cs",)), max_size=40)


@given(obj=objects, before=prose, after=prose)
@settings(max_examples=150, deadline=None)
def test_an_object_is_found_bare_in_prose_or_in_a_fence(obj: dict, before: str, after: str) -> None:
    raw = json.dumps(obj)
    assert extract_json(raw) == obj
    assert extract_json(f"{before} {raw} {after}") == obj
    assert extract_json(f"{before}\n```json\n{raw}\n```\n{after}") == obj
    assert extract_json(f"```\n{json.dumps(obj, indent=2)}\n```") == obj


@given(obj=objects)
@settings(max_examples=100, deadline=None)
def test_a_cut_off_object_is_reported_as_cut_off(obj: dict) -> None:
    raw = json.dumps({"items": [obj, obj]})
    cut = raw[: len(raw) - 3]
    with pytest.raises(JSONNotFound, match="cut off"):
        extract_json("Result: " + cut)


def test_reasons_are_specific() -> None:
    with pytest.raises(JSONNotFound, match="empty"):
        extract_json("   ")
    with pytest.raises(JSONNotFound, match="no JSON"):
        extract_json("I think it is correct.")
    with pytest.raises(JSONNotFound, match="invalid"):
        extract_json("{'label': 'CORRECT'}")  # Python repr, not JSON


def test_think_blocks_are_skipped_and_objects_preferred() -> None:
    assert extract_json('<think>maybe {"a": 1}?</think>\n{"b": 2}') == {"b": 2}
    assert extract_json('<think>a</think> <think>b</think> {"b": 2}') == {"b": 2}
    # the tags inside a string are the answer's own text (found by the property test above)
    assert extract_json('{"note": "<think></think>"}') == {"note": "<think></think>"}
    assert extract_json('Here: {"note": "use <think>x</think> tags"} done') == {"note": "use <think>x</think> tags"}
    with pytest.raises(JSONNotFound, match="empty"):
        extract_json("<think>only thinking</think>")
    assert extract_json('Options [1, 2] then {"pick": 2}') == {"pick": 2}


class Pick(BaseModel):
    choice: int = Field(ge=1, le=3)
    why: str = Field(max_length=20)


def test_parse_structured_explains_schema_errors() -> None:
    with pytest.raises(InvalidInputError, match=r"choice: Input should be less than or equal to 3"):
        parse_structured('{"choice": 7, "why": "x"}', Pick)
    with pytest.raises(InvalidInputError, match="token limit"):
        parse_structured('{"choice": 1, "why": "becau', Pick, finish_reason="length")
    assert parse_structured('{"choice": 2, "why": "ok"}', Pick) == Pick(choice=2, why="ok")


def test_response_format_carries_the_pydantic_schema() -> None:
    rf = response_format_for(Pick)
    assert rf["type"] == "json_schema"
    assert rf["json_schema"]["schema"]["properties"]["why"]["maxLength"] == 20
    assert rf["json_schema"]["strict"] is False


MSGS = [ChatMessage(role="user", content="pick one")]


def test_reask_loop_recovers_and_sums_usage() -> None:
    model = ScriptedChatModel([
        ScriptedReply("nope", prompt_tokens=10, completion_tokens=1),
        ScriptedReply('{"choice": 3, "why": "best"}', prompt_tokens=20, completion_tokens=8),
    ])
    c = model.complete(MSGS, schema=Pick)
    assert c.parsed == Pick(choice=3, why="best")
    assert (c.usage.prompt_tokens, c.usage.completion_tokens, c.usage.calls) == (30, 9, 2)
    assert not c.usage.tokens_estimated
    assert [m.role for m in model.calls[1].messages] == ["user", "assistant", "user"]
    assert "no JSON object" in model.calls[1].messages[-1].content
    assert '"maximum":3' in model.calls[1].messages[-1].content  # the re-ask repeats the schema


def test_no_valid_output_raises_with_raw_text_after_max_reasks() -> None:
    model = ScriptedChatModel(['{"choice": 9, "why": "a"}'] * 2, max_reasks=1)
    with pytest.raises(LLMOutputError) as info:
        model.complete(MSGS, schema=Pick)
    assert info.value.raw == '{"choice": 9, "why": "a"}' and len(model.calls) == 2


def test_zero_reasks_means_one_attempt() -> None:
    model = ScriptedChatModel(["prose", '{"choice": 1, "why": "a"}'], max_reasks=0)
    with pytest.raises(LLMOutputError):
        model.complete(MSGS, schema=Pick)
    assert model.remaining == 1
