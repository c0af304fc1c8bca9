"""The LoCoMo conversation file format (``locomo10.json`` layout), parsed once for ``memdesk ingest``
and for the evaluation harness.

A file is a JSON list of samples (or one sample), each with ``sample_id``, a ``conversation`` object
holding ``speaker_a``/``speaker_b``, ``session_<n>`` turn lists (``speaker``, ``dia_id``, ``text``,
optional ``blip_caption``) and ``session_<n>_date_time`` strings such as ``"1:56 pm on 8 May, 2023"``,
and optionally ``qa`` items (kept as they are for the harness to read).

:func:`parse_locomo` is strict or lenient by argument:

- ``strict=True`` (ingest): any turn without a ``dia_id`` or ``speaker``, a non-text ``text``, a
  session with turns but no parseable date, or a conversation without turns raises
  :class:`~memdesk.errors.MalformedFileError` naming the sample and the turn;
- ``strict=False`` (evaluation): such turns are skipped, an unparseable date leaves the session
  undated, and every such problem is counted in :attr:`LoCoMoFile.problems` (what could not be
  resolved), so the harness reports it instead of failing on one bad item.

Both modes give the same messages for a well-formed file: id = the ``dia_id`` (``D<session>:<turn>``,
leading zeros dropped), the session's time as the timestamp (UTC), the caption of a shared image as
``image_caption``, and ``{"session", "session_date"}`` metadata.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from pydantic import ValidationError

from ..errors import InvalidInputError, MalformedFileError
from ..records import Message

_SESSION_KEY = re.compile(r"session_(\d+)")
_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*([ap]m)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)
_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_MONTHS = {m: i + 1 for i, m in enumerate(["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"])}


def parse_locomo_date(text: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` -> 2023-05-08 13:56 UTC; None when it is not such a date."""
    m = _DATE.match(text)
    if not m:
        return None
    hour, minute, ampm, day, month, year = m.groups()
    month_num = _MONTHS.get(month[:3].lower())
    if month_num is None or not (1 <= int(hour) <= 12 and int(minute) < 60):
        return None
    h = int(hour) % 12 + (12 if ampm.lower() == "pm" else 0)
    try:
        return datetime(int(year), month_num, int(day), h, int(minute), tzinfo=timezone.utc)
    except ValueError:  # 31 February and the like
        return None


def parse_evidence_ids(raw: object) -> list[str]:
    """Every ``D<session>:<turn>`` id in one evidence string, normalized (no leading zeros).

    ``"D8:6; D9:17"`` gives two ids, ``"D:11:26"`` gives ``D11:26``, ``"D30:05"`` gives ``D30:5``;
    a string with no id in it (``"D"``) gives none.
    """
    return [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE_ID.findall(str(raw))]


def normalize_dia_id(raw: str) -> str:
    """A turn id in its normal form when it holds exactly one ``D<s>:<t>`` id, else as given."""
    ids = parse_evidence_ids(raw)
    return ids[0] if len(ids) == 1 else raw


@dataclass
class LoCoMoConversation:
    """One sample: its messages in session order and what the harness needs beside them."""

    id: str
    messages: list[Message]
    session_of: dict[str, str]
    session_times: dict[str, datetime | None]
    speakers: list[str]
    qa: list[Any]


@dataclass
class LoCoMoFile:
    """The parsed samples and, in lenient mode, the count of each problem that was passed over."""

    conversations: list[LoCoMoConversation]
    problems: Counter[str] = field(default_factory=Counter)


class _Parser:
    def __init__(self, path: str, strict: bool) -> None:
        self.path = path
        self.strict = strict
        self.problems: Counter[str] = Counter()

    def problem(self, kind: str, where: str) -> None:
        """Raise in strict mode; count ``kind`` in lenient mode."""
        if self.strict:
            raise MalformedFileError(self.path, f"{where}: {kind.replace('_', ' ')}")
        self.problems[kind] += 1

    def sample(self, i: int, sample: Any) -> LoCoMoConversation | None:
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise MalformedFileError(self.path, f"item {i}: expected a LoCoMo sample with a 'conversation' object")
        raw_id = sample.get("sample_id")
        if raw_id is not None and not isinstance(raw_id, (str, int)):
            raise MalformedFileError(self.path, f"item {i}: 'sample_id' must be a string")
        sample_id = str(raw_id) if raw_id not in (None, "") else f"conv-{i}"
        conv = sample["conversation"]
        speakers = [s for s in (conv.get("speaker_a"), conv.get("speaker_b")) if isinstance(s, str) and s]
        sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION_KEY.fullmatch(str(key))))
        messages: list[Message] = []
        session_of: dict[str, str] = {}
        session_times: dict[str, datetime | None] = {}
        for number, key in sessions:
            turns = conv[key]
            if not isinstance(turns, list):
                self.problem("session_that_is_not_a_list", f"{sample_id} {key}")
                continue
            date_text = conv.get(f"{key}_date_time")
            when = parse_locomo_date(date_text) if isinstance(date_text, str) else None
            if when is None and turns:
                self.problem("session_without_a_parseable_date", f"{sample_id} {key}_date_time {date_text!r}")
            session_times[str(number)] = when
            for j, turn in enumerate(turns):
                msg = self.turn(turn, f"{sample_id} {key} turn {j}", number, when, date_text)
                if msg is not None and msg.id is not None:
                    messages.append(msg)
                    session_of[msg.id] = str(number)
                    if msg.speaker and msg.speaker not in speakers:
                        speakers.append(msg.speaker)
        if not messages:
            self.problem("conversation_without_turns", f"item {i} ({sample_id})")
        qa = sample.get("qa")
        return LoCoMoConversation(
            id=sample_id, messages=messages, session_of=session_of, session_times=session_times, speakers=speakers,
            qa=qa if isinstance(qa, list) else [],
        )  # fmt: skip

    def turn(self, turn: Any, where: str, session: int, when: datetime | None, date_text: Any) -> Message | None:
        if not isinstance(turn, dict):
            self.problem("turn_that_is_not_an_object", where)
            return None
        dia_id, speaker, text = turn.get("dia_id"), turn.get("speaker"), turn.get("text")
        caption = turn.get("blip_caption")
        if not isinstance(dia_id, str) or not dia_id.strip():
            self.problem("turn_without_a_dia_id", where)
            return None
        if not isinstance(speaker, str) or not speaker.strip():
            self.problem("turn_without_a_speaker", where)
            speaker = None
        if text is not None and not isinstance(text, str):
            self.problem("turn_whose_text_is_not_a_string", where)
            text = None
        if caption is not None and not isinstance(caption, str):
            self.problem("turn_whose_caption_is_not_a_string", where)
            caption = None
        try:
            return Message(
                id=normalize_dia_id(dia_id.strip()),
                speaker=speaker,
                role="user",
                content=text or "",
                timestamp=when,
                image_caption=caption or None,
                metadata={"session": str(session), "session_date": date_text if isinstance(date_text, str) else None},
            )
        except (ValidationError, InvalidInputError) as e:  # text memdesk refuses (e.g. unencodable)
            if self.strict:
                raise MalformedFileError(self.path, f"{where}: {_first_error(e)}") from e
            self.problems["turn_that_is_not_a_valid_message"] += 1
            return None


def _first_error(e: Exception) -> str:
    return e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)


def parse_locomo(data: Any, *, path: str, strict: bool) -> LoCoMoFile:
    """The samples of a loaded LoCoMo JSON document (see the module docstring for the two modes).

    A document that is not a sample or a list of samples raises
    :class:`~memdesk.errors.MalformedFileError` in both modes.
    """
    parser = _Parser(path, strict)
    samples = data if isinstance(data, list) else [data]
    conversations = []
    seen: set[str] = set()
    for i, sample in enumerate(samples):
        conv = parser.sample(i, sample)
        if conv is None:
            continue
        if conv.id in seen:
            raise MalformedFileError(path, f"item {i}: sample_id {conv.id!r} appears twice")
        seen.add(conv.id)
        if conv.messages or strict:
            conversations.append(conv)
    return LoCoMoFile(conversations=conversations, problems=parser.problems)
