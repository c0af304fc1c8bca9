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

import gzip
import json
import logging
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import MalformedFileError
from ...records import Message
from .base import EvalConversation, EvalDataset, EvalQuestion, default_data_dir

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


def _read(p: Path) -> Any:
    try:
        if p.suffix == ".gz":
            with gzip.open(p, "rt", encoding="utf-8") as f:
                return json.load(f)
        return json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise MalformedFileError(str(p), f"cannot read: {e}") from e
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise MalformedFileError(str(p), f"not JSON: {e}") from e


def _item(item: dict[str, Any], path: str, stats: dict[str, int]) -> tuple[EvalConversation, EvalQuestion]:
    try:
        qid = str(item["question_id"])
        qtype = str(item["question_type"])
        sessions = item["haystack_sessions"]
        session_ids = [str(s) for s in item["haystack_session_ids"]]
        dates = list(item.get("haystack_dates") or [None] * len(sessions))
    except (KeyError, TypeError) as e:
        raise MalformedFileError(path, f"item without {e}") from e
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
            role = turn.get("role", "user")
            if role not in ("user", "assistant", "system"):
                role = "user"
            mid = f"{prefix}:{i}"
            content = str(turn.get("content") or "")
            if not content.strip():
                stats["empty_turns_skipped"] += 1
                continue
            messages.append(
                Message(
                    id=mid,
                    speaker=role,
                    role=role,
                    content=content,
                    timestamp=when,
                    metadata={"session": sid, "session_date": date_text},
                )
            )
            session_of[mid] = sid
            if turn.get("has_answer"):
                evidence.append(mid)
    answer_sessions = [str(s) for s in item.get("answer_session_ids") or []]
    abstention = qid.endswith("_abs")
    known_sessions = set(session_ids)
    unresolved = [s for s in answer_sessions if s not in known_sessions]
    answer = item.get("answer")
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        stats["integer_answers"] += 1
    qdate = item.get("question_date")
    conv = EvalConversation(id=qid, messages=messages, session_of=session_of, session_times=session_times, speakers=["user", "assistant"])
    question = EvalQuestion(
        id=qid,
        conversation_id=qid,
        question=str(item.get("question") or ""),
        answer=None if answer is None else str(answer),
        category=qtype,
        evidence_ids=evidence,
        evidence_sessions=[s for s in answer_sessions if s in known_sessions],
        unresolved_evidence=unresolved,
        abstention=abstention,
        question_time=parse_date(qdate) if qdate else None,
        question_time_text=str(qdate) if qdate else None,
        retrieval_scored=not abstention and bool(answer_sessions) and not unresolved,
    )
    return conv, question


def load_longmemeval(path: str | Path | None = None) -> EvalDataset:
    """Load a LongMemEval file (a JSON list of question items, optionally gzipped).

    Statistics: ``questions``, ``messages``, ``abstention``, ``evidence_turns``,
    ``questions_without_evidence_turns``, ``duplicate_sessions``, ``integer_answers``,
    ``unresolved_answer_sessions``, ``empty_turns_skipped`` (turns with no text are not ingested;
    the others keep their original turn index in their id).
    """
    p = Path(path) if path is not None else default_path()
    data = _read(p)
    if not isinstance(data, list):
        raise MalformedFileError(str(p), "expected a JSON list of question items")
    stats = {"duplicate_sessions": 0, "integer_answers": 0, "empty_turns_skipped": 0}
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
    logger.info("loaded LongMemEval %s: %s", p, stats)
    return EvalDataset(
        name="longmemeval",
        path=str(p),
        conversations=conversations,
        questions=questions,
        categories=QUESTION_TYPES,
        headline_categories=QUESTION_TYPES,
        stats=stats,
    )
