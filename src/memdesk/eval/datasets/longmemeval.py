"""LongMemEval loader (``longmemeval_s`` / ``longmemeval_oracle`` format, plain or gzipped JSON).

Each question comes with its own haystack of sessions, so each question is its own conversation
(scope). Message ids are ``<session_id>:<turn_index>``, so a record's provenance maps back to its
session; a session id repeated inside one haystack (the data has a few, with identical content and
different dates) gets ``<session_id>#<n>:<turn_index>`` for its n-th occurrence, and
:func:`session_of_id` strips the suffix again.

Traps handled: ``question_type`` is the category; ids ending in ``_abs`` are abstention questions
(left out of retrieval metrics); gold evidence is the turns with ``has_answer: true`` and the
``answer_session_ids``; ``question_date`` and ``haystack_dates`` (``2023/05/20 (Sat) 00:48``) give
the times; a few answers are integers.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ...errors import InvalidInputError, MalformedFileError
from ...runtime.jsonfiles import read_json
from ...records import Message
from .base import EvalConversation, EvalDataset, EvalQuestion, default_data_dir, loaded

logger = logging.getLogger(__name__)

QUESTION_TYPES = [
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "temporal-reasoning",
    "knowledge-update",
]


def default_path() -> Path:
    """``<data dir>/longmemeval/longmemeval_s_dev.json.gz``."""
    return default_data_dir() / "longmemeval" / "longmemeval_s_dev.json.gz"


def parse_date(text: str) -> datetime | None:
    """Parse LongMemEval's ``2023/05/20 (Sat) 00:48`` (the weekday is ignored); None if it does not parse."""
    cleaned = " ".join(str(text).split())
    parts = cleaned.split(" ")
    try:
        if len(parts) == 3:
            return datetime.strptime(f"{parts[0]} {parts[2]}", "%Y/%m/%d %H:%M")
        return datetime.strptime(parts[0], "%Y/%m/%d")
    except ValueError:
        logger.warning("unparsed LongMemEval date %r", text)
        return None


def session_of_id(message_id: str) -> str:
    """The haystack session id of a message id ``<session_id>[#n]:<turn_index>``."""
    session = message_id.rsplit(":", 1)[0]
    return session.split("#", 1)[0]


def _texts(value: Any, path: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        raise MalformedFileError(path, f"{what} must be a list of strings")
    return [str(v) for v in value]


def _item(item: dict[str, Any], path: str, stats: dict[str, int]) -> tuple[EvalConversation, EvalQuestion]:
    qid, qtype, sessions = item.get("question_id"), item.get("question_type"), item.get("haystack_sessions")
    if not isinstance(qid, (str, int)) or isinstance(qid, bool) or not isinstance(qtype, str):
        raise MalformedFileError(path, "each item needs a 'question_id' and a 'question_type' string")
    qid = str(qid)
    if not isinstance(sessions, list) or not all(isinstance(t, list) for t in sessions):
        raise MalformedFileError(path, f"{qid}: 'haystack_sessions' must be a list of turn lists")
    session_ids = _texts(item.get("haystack_session_ids"), path, f"{qid}: 'haystack_session_ids'")
    raw_dates = item.get("haystack_dates")
    dates = [None] * len(sessions) if raw_dates is None else _texts(raw_dates, path, f"{qid}: 'haystack_dates'")
    if not (len(sessions) == len(session_ids) == len(dates)):
        raise MalformedFileError(path, f"{qid}: haystack sessions, ids and dates differ in length")
    if qtype not in QUESTION_TYPES:
        logger.warning("%s: unknown question_type %r", qid, qtype)
    messages: list[Message] = []
    session_of: dict[str, str] = {}
    session_times: dict[str, datetime | None] = {}
    seen: dict[str, int] = {}
    evidence: list[str] = []
    for sid, date_text, turns in zip(session_ids, dates, sessions):
        seen[sid] = seen.get(sid, 0) + 1
        prefix = sid if seen[sid] == 1 else f"{sid}#{seen[sid]}"
        if seen[sid] > 1:
            stats["duplicate_sessions"] += 1
        when = parse_date(date_text) if date_text else None
        session_times.setdefault(sid, when)
        for i, turn in enumerate(turns):
            content = turn.get("content") if isinstance(turn, dict) else None
            if not isinstance(turn, dict) or not isinstance(content, (str, type(None))):
                stats["unusable_turns_skipped"] += 1
                continue
            if not content or not content.strip():
                stats["empty_turns_skipped"] += 1
                continue
            role = turn.get("role", "user")
            if role not in ("user", "assistant", "system"):
                role = "user"
            mid = f"{prefix}:{i}"
            try:
                msg = Message(id=mid, speaker=role, role=role, content=content, timestamp=when,
                              metadata={"session": sid, "session_date": date_text})
            except (ValidationError, InvalidInputError):  # text memdesk refuses (e.g. unencodable)
                stats["unusable_turns_skipped"] += 1
                continue
            messages.append(msg)
            session_of[mid] = sid
            if turn.get("has_answer") is True:
                evidence.append(mid)
    raw_answer_sessions = item.get("answer_session_ids")
    answer_sessions = [] if raw_answer_sessions is None else _texts(raw_answer_sessions, path, f"{qid}: 'answer_session_ids'")
    abstention = qid.endswith("_abs")
    known_sessions = set(session_ids)
    unresolved = [s for s in answer_sessions if s not in known_sessions]
    answer = item.get("answer")
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        stats["integer_answers"] += 1
    qdate = item.get("question_date")
    qdate = qdate if isinstance(qdate, str) else None
    question = item.get("question")
    conv = EvalConversation(id=qid, messages=messages, session_of=session_of, session_times=session_times, speakers=["user", "assistant"])
    q = EvalQuestion(
        id=qid,
        conversation_id=qid,
        question=question if isinstance(question, str) else "",
        answer=None if answer is None or isinstance(answer, (dict, list)) else str(answer),
        category=qtype,
        evidence_ids=evidence,
        evidence_sessions=[s for s in answer_sessions if s in known_sessions],
        unresolved_evidence=unresolved,
        abstention=abstention,
        question_time=parse_date(qdate) if qdate else None,
        question_time_text=qdate,
        retrieval_scored=not abstention and bool(answer_sessions) and not unresolved,
    )
    return conv, q


def load_longmemeval(path: str | Path | None = None) -> EvalDataset:
    """Load a LongMemEval file (a JSON list of question items, optionally gzipped).

    Statistics: ``questions``, ``messages``, ``abstention``, ``evidence_turns``,
    ``questions_without_evidence_turns``, ``duplicate_sessions``, ``integer_answers``,
    ``unresolved_answer_sessions``, ``empty_turns_skipped`` (turns with no text are not ingested;
    the others keep their original turn index in their id), ``unusable_turns_skipped`` (turns that
    are not objects or whose content is not text). A missing file raises
    :class:`~memdesk.errors.DataNotFoundError`, a malformed one :class:`~memdesk.errors.MalformedFileError`.
    """
    p = Path(path) if path is not None else default_path()
    data = read_json(p)
    if not isinstance(data, list):
        raise MalformedFileError(str(p), "expected a JSON list of question items")
    stats = {"duplicate_sessions": 0, "integer_answers": 0, "empty_turns_skipped": 0, "unusable_turns_skipped": 0}
    conversations: dict[str, EvalConversation] = {}
    questions: list[EvalQuestion] = []
    for item in data:
        if not isinstance(item, dict):
            raise MalformedFileError(str(p), "each item must be an object")
        conv, q = _item(item, str(p), stats)
        if conv.id in conversations:
            raise MalformedFileError(str(p), f"duplicate question_id {conv.id}")
        conversations[conv.id] = conv
        questions.append(q)
    stats.update(
        questions=len(questions),
        messages=sum(len(c.messages) for c in conversations.values()),
        abstention=sum(q.abstention for q in questions),
        evidence_turns=sum(len(q.evidence_ids) for q in questions),
        questions_without_evidence_turns=sum(1 for q in questions if not q.evidence_ids),
        unresolved_answer_sessions=sum(len(q.unresolved_evidence) for q in questions),
    )
    return loaded(
        "longmemeval", "LongMemEval", p, conversations, questions, stats,
        categories=QUESTION_TYPES, headline_categories=QUESTION_TYPES,
    )
