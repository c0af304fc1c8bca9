"""Conversation files the CLI ingests: LoCoMo JSON and a plain JSONL chat format.

JSONL chat format, one message per line::

    {"speaker": "Ana", "role": "user", "content": "I moved to Lisbon.", "timestamp": "2024-03-01T10:00:00Z", "id": "m1"}

``content`` is required; ``speaker``/``role``/``timestamp``/``id``/``image_caption`` are optional. An optional
``conversation`` field splits one file into several conversations.

LoCoMo JSON: the format :mod:`memdesk.conversation.locomo` parses (strictly here: a turn without an id or a
speaker, or a session without a date, is an error naming it).

Whatever the bytes, :func:`read_conversations` raises only memdesk errors: a missing file is
:class:`~memdesk.errors.DataNotFoundError`, anything else it cannot use is
:class:`~memdesk.errors.MalformedFileError` saying where.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import InvalidInputError, MalformedFileError
from ..runtime.jsonfiles import iter_jsonl, read_json
from ..records import Message
from .locomo import parse_locomo


class Conversation(BaseModel):
    id: str
    messages: list[Message]
    speakers: list[str] = []


def read_conversations(path: str | Path) -> list[Conversation]:
    """Parse a LoCoMo ``.json`` or chat ``.jsonl`` file."""
    p = Path(path)
    if p.suffix == ".jsonl":
        return _read_jsonl(p)
    parsed = parse_locomo(read_json(p), path=str(p), strict=True)
    return [Conversation(id=c.id, messages=c.messages, speakers=c.speakers) for c in parsed.conversations]


def _message(obj: Any, where: str, path: str) -> tuple[str, Message]:
    if not isinstance(obj, dict):
        raise MalformedFileError(path, f"{where}: each line must be a JSON object")
    obj = dict(obj)
    conv_id = obj.pop("conversation", None)
    if conv_id is not None and not isinstance(conv_id, (str, int)):
        raise MalformedFileError(path, f"{where}: 'conversation' must be a string")
    try:
        msg = Message(**obj)
    except (ValidationError, InvalidInputError, TypeError) as e:
        detail = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
        raise MalformedFileError(path, f"{where}: {detail}") from e
    if not msg.text().strip():
        raise MalformedFileError(path, f"{where}: empty content")
    return ("" if conv_id is None else str(conv_id)), msg


def _read_jsonl(p: Path) -> list[Conversation]:
    groups: dict[str, list[Message]] = {}
    for lineno, obj in iter_jsonl(p):
        conv_id, msg = _message(obj, f"line {lineno}", str(p))
        groups.setdefault(conv_id or p.stem, []).append(msg)
    if not groups:
        raise MalformedFileError(str(p), "no messages")
    return [
        Conversation(id=k, messages=v, speakers=sorted({m.speaker for m in v if m.speaker})) for k, v in groups.items()
    ]
