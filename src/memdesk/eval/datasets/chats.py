"""The bring-your-own chat format of ``memdesk eval chats``: one chat per JSONL line (see ``docs/eval-chats.md``).

A line is a :class:`Chat`: its messages (user and assistant turns with their times), questions with
the gold message ids that answer them and the substrings an extractive answer must hold, and labels
(small talk that must make no record, the dates a person resolves each date expression to, and what
a later message must close or keep). :func:`load_chats` validates every line with these models and
the references between them, and raises :class:`~memdesk.errors.MalformedFileError` naming the line.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from ...errors import DataNotFoundError, InvalidInputError, MalformedFileError
from ...records import Message

QuestionKind = Literal[
    "current-fact", "changed-fact", "unchanged-fact", "date", "instruction", "preference", "third-person", "list",
    "procedure", "other",
]  # fmt: skip
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def _aware(value: datetime) -> datetime:
    if value.tzinfo is None:
        raise ValueError("needs a time zone (e.g. 2025-03-18T09:12:00Z)")
    return value


class ChatMessage(_Strict):
    """One turn: ``role`` user or assistant (system and tool turns are never a user's fact)."""

    id: str = Field(min_length=1)
    role: Literal["user", "assistant", "system", "tool"]
    speaker: str | None = None
    time: datetime
    content: str = Field(min_length=1)

    _zone = field_validator("time")(_aware)

    def message(self) -> Message:
        """The :class:`~memdesk.records.Message` that ``Memory.add`` takes."""
        return Message(id=self.id, role=self.role, speaker=self.speaker, content=self.content, timestamp=self.time)


class ChatQuestion(_Strict):
    """A question asked at ``asked_at``; a hit is gold when its record's provenance holds a ``gold_message_ids`` id;
    an answer is right when it contains one of ``accept`` (case-insensitive)."""

    id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    asked_at: datetime
    gold_message_ids: list[str] = Field(min_length=1)
    answer: str
    accept: list[str] = Field(min_length=1)
    kind: QuestionKind = "other"

    _zone = field_validator("asked_at")(_aware)

    @field_validator("accept")
    @classmethod
    def _lower(cls, v: list[str]) -> list[str]:
        out = [a.strip().lower() for a in v]
        if not all(out):
            raise ValueError("an accepted answer is empty")
        return out


class DateLabel(_Strict):
    """A date expression of message ``message_id`` and the day (``YYYY-MM-DD``) or range (``start/end``)
    a person resolves it to from the message's time."""

    message_id: str
    text: str = Field(min_length=1)
    date: str

    @field_validator("date")
    @classmethod
    def _range(cls, v: str) -> str:
        parts = v.split("/")
        if len(parts) > 2 or not all(_DATE.match(p) for p in parts):
            raise ValueError("must be YYYY-MM-DD or YYYY-MM-DD/YYYY-MM-DD")
        start, end = (date.fromisoformat(p) for p in (parts[0], parts[-1]))
        if end < start:
            raise ValueError("range ends before it starts")
        return v

    def span(self) -> tuple[date, date]:
        """The first and last day the expression may mean."""
        parts = self.date.split("/")
        return date.fromisoformat(parts[0]), date.fromisoformat(parts[-1])


class RecordRef(_Strict):
    """The records of message ``from`` whose text contains ``contains`` (case-insensitive)."""

    from_: str = Field(alias="from")
    contains: str = Field(min_length=1)


class SupersessionLabel(_Strict):
    """After message ``message_id`` is added, ``closes`` must be superseded and ``keeps`` current."""

    message_id: str
    closes: list[RecordRef] = Field(default_factory=list)
    keeps: list[RecordRef] = Field(default_factory=list)


class ChatLabels(_Strict):
    small_talk: list[str] = Field(default_factory=list)
    dates: list[DateLabel] = Field(default_factory=list)
    supersession: list[SupersessionLabel] = Field(default_factory=list)


class Chat(_Strict):
    """One line of the file: one chat, evaluated in its own scope (``user_id`` = ``id``)."""

    id: str = Field(min_length=1)
    user: str | None = None
    assistant: str | None = None
    messages: list[ChatMessage] = Field(min_length=1)
    questions: list[ChatQuestion] = Field(default_factory=list)
    labels: ChatLabels = Field(default_factory=ChatLabels)

    @model_validator(mode="after")
    def _references(self) -> Chat:
        order = {m.id: i for i, m in enumerate(self.messages)}
        if len(order) != len(self.messages):
            raise ValueError(f"duplicate message ids in chat {self.id}")
        if len({q.id for q in self.questions}) != len(self.questions):
            raise ValueError(f"duplicate question ids in chat {self.id}")

        def known(mid: str, where: str) -> int:
            if mid not in order:
                raise ValueError(f"{where} names message {mid!r}, which chat {self.id} does not have")
            return order[mid]

        for q in self.questions:
            for mid in q.gold_message_ids:
                known(mid, f"question {q.id}")
        for mid in self.labels.small_talk:
            known(mid, "labels.small_talk")
        for d in self.labels.dates:
            known(d.message_id, "labels.dates")
        for s in self.labels.supersession:
            at = known(s.message_id, "labels.supersession")
            for ref in [*s.closes, *s.keeps]:
                if known(ref.from_, f"labels.supersession of {s.message_id}") >= at:
                    raise ValueError(f"labels.supersession of {s.message_id}: message {ref.from_!r} is not earlier")
        return self

    def message_ids(self) -> set[str]:
        return {m.id for m in self.messages}


class ChatSet(BaseModel):
    """A loaded file: its chats in file order and the path they came from."""

    path: str
    chats: list[Chat]

    @property
    def n_questions(self) -> int:
        return sum(len(c.questions) for c in self.chats)

    def only(self, ids: list[str]) -> ChatSet:
        """The chats named by ``ids``, in file order; an id the file lacks is an :class:`InvalidInputError`."""
        missing = sorted(set(ids) - {c.id for c in self.chats})
        if missing:
            raise InvalidInputError(f"{self.path} has no chat {', '.join(map(repr, missing))}")
        return ChatSet(path=self.path, chats=[c for c in self.chats if c.id in set(ids)])


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    return f"{loc}: {err['msg']}" if loc else str(err["msg"])


def load_chats(path: str | Path) -> ChatSet:
    """Read and validate a chats JSONL file (blank lines are skipped).

    Raises :class:`DataNotFoundError` for a missing file and :class:`MalformedFileError` (``line N: ...``) for
    a line that is not JSON, does not fit the format, names a message its chat lacks, or repeats a chat id."""
    p = Path(path)
    if not p.is_file():
        raise DataNotFoundError(str(p))
    chats: list[Chat] = []
    seen: dict[str, int] = {}
    with p.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as e:
                raise MalformedFileError(str(p), f"line {n}: not JSON ({e.msg} at column {e.colno})") from e
            try:
                chat = Chat.model_validate(data)
            except ValidationError as e:
                raise MalformedFileError(str(p), f"line {n}: {_first_error(e)}") from e
            if chat.id in seen:
                raise MalformedFileError(str(p), f"line {n}: chat id {chat.id!r} repeats line {seen[chat.id]}")
            seen[chat.id] = n
            chats.append(chat)
    if not chats:
        raise MalformedFileError(str(p), "no chats in the file")
    return ChatSet(path=str(p), chats=chats)
