"""What a caller hands :class:`~memdesk.conversation.memory.Memory` (and ``RemoteMemory``), made typed and checked.

Messages as strings, dicts or :class:`~memdesk.records.Message`, a scope as a :class:`~memdesk.records.Scope` or
its fields, memory types as names: each turned into the typed value or refused with an
:class:`~memdesk.errors.InvalidInputError` (an empty one with :class:`~memdesk.errors.EmptyInputError`) before
anything is written.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

from pydantic import ValidationError

from ..errors import EmptyInputError, InvalidInputError
from ..records import MemoryType, Message, Scope
from ..text.textcheck import check_strings, check_text

MessageInput = Message | Mapping[str, Any] | str

DEFAULT_MAX_MESSAGE_CHARS = 50_000
"""The longest message ``add`` accepts (content plus image caption), about 12k tokens: a long pasted
document fits, a runaway one is refused instead of becoming thousands of records."""


def normalize_messages(
    messages: MessageInput | Sequence[MessageInput], *, timestamp: datetime | None, speaker: str | None
) -> list[Message]:
    """``messages`` (one or a list) as validated :class:`Message`\\ s; ``timestamp`` fills those that carry
    none, ``speaker`` the user-role ones that carry none."""
    if timestamp is not None and not isinstance(timestamp, datetime):
        raise InvalidInputError("timestamp must be a datetime")
    check_text(speaker, "speaker")
    if isinstance(messages, (str, Message, Mapping)):
        messages = [messages]
    if not isinstance(messages, Iterable):
        raise InvalidInputError(f"messages must be a string, dict, Message or a list of them, not {type(messages).__name__}")
    out = []
    for i, m in enumerate(messages):
        try:
            if isinstance(m, str):
                msg = Message(content=m)
            elif isinstance(m, Message):
                msg = m
            elif isinstance(m, Mapping):
                msg = Message(**m)
            else:
                raise InvalidInputError(f"message {i}: expected str, dict or Message, got {type(m).__name__}")
        except ValidationError as e:
            raise InvalidInputError(f"message {i}: {e.errors()[0]['loc']}: {e.errors()[0]['msg']}") from e
        except TypeError as e:
            raise InvalidInputError(f"message {i}: {e}") from e
        check_strings(msg.model_dump(), f"message {i}")
        if not msg.text().strip():
            raise EmptyInputError(f"message {i} is empty")
        updates: dict[str, Any] = {}
        if msg.timestamp is None and timestamp is not None:
            updates["timestamp"] = timestamp
        if msg.speaker is None and speaker is not None and msg.role == "user":
            updates["speaker"] = speaker
        # re-validate only what was filled in (a naive timestamp becomes UTC like any other)
        out.append(Message.model_validate({**msg.model_dump(), **updates}) if updates else msg)
    if not out:
        raise EmptyInputError("no messages to add")
    return out


def as_scope(scope: Any) -> Scope:
    """``scope`` as a :class:`Scope` (a dict of its fields is accepted)."""
    if isinstance(scope, Scope):
        return scope
    if isinstance(scope, Mapping):
        return Scope(**scope)
    raise InvalidInputError(f"scope must be a Scope, not {type(scope).__name__}")


def as_flag(name: str, value: Any) -> bool:
    """``value`` if it is a bool; anything else (``1``, ``"false"``) is refused rather than read as true or false."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{name} must be true or false, got {value!r}")
    return value


def as_types(types: Sequence[MemoryType | str] | None) -> list[MemoryType] | None:
    """``types`` (one or a list, by name or value) as :class:`MemoryType`\\ s; None stays None (every type)."""
    if types is None:
        return None
    if isinstance(types, (str, MemoryType)):
        types = [types]
    try:
        return [MemoryType(t) for t in types]
    except ValueError as e:
        raise InvalidInputError(f"unknown memory type in {list(types)!r}; use episodic, semantic, procedural") from e
