"""Structured output: a pydantic schema per call, JSON found in whatever the model wrote, re-asks.

:func:`complete_structured` is the one loop every :class:`~memdesk.llm.base.ChatModel` in memdesk
uses (the real client and the scripted fake alike): send, find the JSON (bare, in a code fence or in
surrounding prose), validate against the schema, and on failure re-ask with the error and the schema
up to ``max_reasks`` times; after that it raises :class:`~memdesk.errors.LLMOutputError` carrying
the raw text. An output is never dropped silently.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Callable

from pydantic import BaseModel, ValidationError

from ..errors import InvalidInputError, LLMOutputError
from .base import ChatMessage, Completion, Usage
from .templates import load_prompt

log = logging.getLogger(__name__)

#: ``send(messages, response_format)`` performs one raw chat call (response_format None: none sent).
SendFn = Callable[[list[ChatMessage], "dict[str, Any] | None"], Completion]

_FENCE = re.compile(r"```[ \t]*(?:json|JSON|json5)?[ \t]*\n?(.*?)```", re.DOTALL)
_LEADING_THINK = re.compile(r"^(?:\s*<think>.*?</think>)+", re.DOTALL)
_MAX_SCAN = 64


class JSONNotFound(ValueError):
    """No JSON value could be read from a model's text; the message says why."""


def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema pydantic generates for ``schema``."""
    return schema.model_json_schema()


def response_format_for(schema: type[BaseModel]) -> dict[str, Any]:
    """An OpenAI ``response_format`` of type ``json_schema`` (non-strict: pydantic schemas are not
    always valid strict-mode schemas; llama.cpp, vLLM and Ollama enforce them with a grammar)."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__[:64], "schema": json_schema_of(schema), "strict": False},
    }


def _compact_schema(schema: type[BaseModel]) -> str:
    return json.dumps(json_schema_of(schema), separators=(",", ":"), ensure_ascii=False)


def with_schema_instructions(messages: list[ChatMessage], schema: type[BaseModel]) -> list[ChatMessage]:
    """``messages`` with the schema appended as instructions (for servers without json_schema)."""
    text = load_prompt("structured_instructions").render(schema=_compact_schema(schema))[-1].content
    last = messages[-1]
    if last.role == "user":
        return [*messages[:-1], ChatMessage(role="user", content=f"{last.content}\n\n{text}")]
    return [*messages, ChatMessage(role="user", content=text)]


def extract_json(text: str) -> Any:
    """The first JSON object or array in ``text``: bare, inside a ```json fence, or in prose.

    The ``<think>...</think>`` blocks a reasoning model writes before its answer are skipped (only
    there: the same tags inside a JSON string are the answer's own text). Raises
    :class:`JSONNotFound` with a reason (empty reply, no JSON, JSON cut off) when nothing parses.
    """
    s = text.strip()
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    s = _LEADING_THINK.sub("", s).strip()
    if not s:
        raise JSONNotFound("the reply was empty")
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    for m in _FENCE.finditer(s):
        try:
            return json.loads(m.group(1).strip())
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    starts = [i for i, c in enumerate(s) if c in "{["][:_MAX_SCAN]
    found: list[Any] = []
    for i in starts:
        try:
            value, _ = decoder.raw_decode(s, i)
        except json.JSONDecodeError:
            if not found and _is_cut_off(s[i:]):
                # an object that never closes: the reply was truncated (nested values are fragments)
                raise JSONNotFound("the JSON is cut off (a string, object or array is never closed)") from None
            continue
        if isinstance(value, dict):
            return value
        found.append(value)
    if found:
        return found[0]
    if not starts:
        raise JSONNotFound("the reply contains no JSON object")
    tail = s[starts[0]:]
    if _is_cut_off(tail):
        raise JSONNotFound("the JSON is cut off (a string, object or array is never closed)")
    try:
        json.loads(tail)
    except json.JSONDecodeError as e:
        raise JSONNotFound(f"the JSON is invalid: {e.msg} at char {e.pos}") from None
    raise JSONNotFound("the reply contains no JSON object")  # pragma: no cover - loads above always fails


def _is_cut_off(text: str) -> bool:
    """True when ``text`` (starting at a bracket) ends inside a string or an unclosed bracket."""
    depth, in_str, esc = 0, False, False
    for c in text:
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return False
    return in_str or depth > 0


def _validation_message(e: ValidationError, limit: int = 8) -> str:
    parts = []
    for err in e.errors(include_url=False)[:limit]:
        loc = ".".join(str(p) for p in err["loc"]) or "(root)"
        parts.append(f"{loc}: {err['msg']}")
    more = f" (+{e.error_count() - limit} more)" if e.error_count() > limit else ""
    return "the JSON does not match the schema: " + "; ".join(parts) + more


def parse_structured(text: str, schema: type[BaseModel], finish_reason: str | None = None) -> BaseModel:
    """Validate the JSON found in ``text`` into ``schema``; raises
    :class:`~memdesk.errors.InvalidInputError` (a ValueError) with the reason a re-ask gives."""
    try:
        data = extract_json(text)
    except JSONNotFound as e:
        reason = str(e)
        if finish_reason == "length":
            reason += "; the reply hit the token limit, so answer more briefly"
        raise InvalidInputError(reason) from None
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        raise InvalidInputError(_validation_message(e)) from None


def complete_structured(
    send: SendFn,
    messages: list[ChatMessage],
    schema: type[BaseModel],
    *,
    max_reasks: int,
    use_response_format: bool | Callable[[], bool],
    model_label: str = "model",
) -> Completion:
    """Run ``send`` until its text validates into ``schema`` (at most ``1 + max_reasks`` calls).

    ``use_response_format`` (or a callable asked before each call, so a client can switch mode when a
    server rejects json_schema) decides between sending ``response_format`` and putting the schema in
    the instructions. The returned completion's usage sums every attempt.
    """
    rf = response_format_for(schema)
    use = use_response_format if callable(use_response_format) else (lambda: bool(use_response_format))
    convo = list(messages)
    total = Usage()
    last: Completion | None = None
    reason = ""
    for attempt in range(max_reasks + 1):
        structured = use()
        sent = convo if structured else with_schema_instructions(convo, schema)
        last = send(sent, rf if structured else None)
        total = total + last.usage
        try:
            parsed = parse_structured(last.text, schema, last.finish_reason)
        except InvalidInputError as e:
            reason = str(e)
            log.warning(
                "%s reply %d/%d for %s unusable: %s; raw=%r",
                model_label, attempt + 1, max_reasks + 1, schema.__name__, reason, last.text[:500],
            )
            reask = load_prompt("reask").render(error=reason, schema=_compact_schema(schema))[-1].content
            convo = [*convo, ChatMessage(role="assistant", content=last.text), ChatMessage(role="user", content=reask)]
            continue
        return last.model_copy(update={"parsed": parsed, "usage": total})
    assert last is not None
    raise LLMOutputError(
        f"{model_label} gave no valid {schema.__name__} after {max_reasks + 1} attempts: {reason}. "
        "Try a larger model, a higher max_tokens, or a server that supports json_schema output.",
        raw=last.text,
    )
