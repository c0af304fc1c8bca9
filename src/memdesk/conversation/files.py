"""Conversation files the CLI ingests: LoCoMo JSON and a plain JSONL chat format.

JSONL chat format, one message per line::

    {"speaker": "Ana", "role": "user", "content": "I moved to Lisbon.", "timestamp": "2024-03-01T10:00:00Z", "id": "m1"}

``content`` is required; ``speaker``/``role``/``timestamp``/``id``/``image_caption`` are optional. An optional
``conversation`` field splits one file into several conversations.

LoCoMo JSON (``locomo10.json`` layout): a list of samples with ``sample_id`` and ``conversation`` holding
``session_<n>`` turn lists (``speaker``, ``dia_id``, ``text``, optional ``blip_caption``) and
``session_<n>_date_time`` strings such as ``"1:56 pm on 8 May, 2023"``.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ..errors import MalformedFileError
from ..records import Message


class Conversation(BaseModel):
    id: str
    messages: list[Message]
    speakers: list[str] = []


_LOCOMO_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)


def parse_locomo_date(text: str) -> datetime:
    """``"1:56 pm on 8 May, 2023"`` -> 2023-05-08 13:56 UTC."""
    m = _LOCOMO_DATE.match(text)
    if not m:
        raise ValueError(f"unrecognized LoCoMo date {text!r}")
    hour, minute, ampm, day, month, year = m.groups()
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    month_num = datetime.strptime(month[:3].title(), "%b").month
    return datetime(int(year), month_num, int(day), h, int(minute), tzinfo=timezone.utc)


def locomo_sessions(conversation: dict) -> list[tuple[int, datetime, list[dict]]]:
    """(session number, session datetime, turns) in session order."""
    nums = sorted(
        int(k.split("_")[1]) for k in conversation if re.fullmatch(r"session_\d+", k) and conversation[k]
    )
    out = []
    for n in nums:
        when = conversation.get(f"session_{n}_date_time")
        if not when:
            raise ValueError(f"session_{n} has no session_{n}_date_time")
        out.append((n, parse_locomo_date(when), conversation[f"session_{n}"]))
    return out


def locomo_messages(conversation: dict) -> list[Message]:
    """Every turn of a LoCoMo conversation as a Message (id = dia_id, time = session time)."""
    out = []
    for _, when, turns in locomo_sessions(conversation):
        for t in turns:
            out.append(
                Message(
                    id=t["dia_id"],
                    speaker=t["speaker"],
                    content=t.get("text") or "",
                    timestamp=when,
                    image_caption=t.get("blip_caption") or None,
                )
            )
    return out


def read_conversations(path: str | Path) -> list[Conversation]:
    """Parse a LoCoMo ``.json`` or chat ``.jsonl`` file; MalformedFileError says where it broke."""
    p = Path(path)
    if not p.exists():
        raise MalformedFileError(str(p), "no such file")
    if p.suffix == ".jsonl":
        return _read_jsonl(p)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise MalformedFileError(str(p), f"not valid JSON: {e}") from e
    samples = data if isinstance(data, list) else [data]
    out = []
    for i, sample in enumerate(samples):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise MalformedFileError(str(p), f"item {i}: expected a LoCoMo sample with a 'conversation' object")
        conv = sample["conversation"]
        try:
            messages = locomo_messages(conv)
        except (KeyError, ValueError, TypeError, ValidationError) as e:
            raise MalformedFileError(str(p), f"item {i}: {e}") from e
        if not messages:
            raise MalformedFileError(str(p), f"item {i}: conversation has no turns")
        speakers = [conv[k] for k in ("speaker_a", "speaker_b") if conv.get(k)]
        out.append(Conversation(id=str(sample.get("sample_id", f"conv-{i}")), messages=messages, speakers=speakers))
    return out


def _read_jsonl(p: Path) -> list[Conversation]:
    groups: dict[str, list[Message]] = {}
    with open(p, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError("each line must be a JSON object")
                conv_id = str(obj.pop("conversation", p.stem))
                msg = Message(**obj)
            except (json.JSONDecodeError, ValueError, TypeError) as e:
                detail = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
                raise MalformedFileError(str(p), f"line {lineno}: {detail}") from e
            if not msg.text().strip():
                raise MalformedFileError(str(p), f"line {lineno}: empty content")
            groups.setdefault(conv_id, []).append(msg)
    if not groups:
        raise MalformedFileError(str(p), "no messages")
    return [
        Conversation(id=k, messages=v, speakers=sorted({m.speaker for m in v if m.speaker})) for k, v in groups.items()
    ]
