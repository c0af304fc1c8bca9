"""LoCoMo loader (``locomo10.json`` format).

Traps handled (see ``shared/data/README.md``):

- categories as the data defines them: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop,
  5 adversarial (reported apart; not in the headline);
- adversarial items carry ``adversarial_answer`` and usually no ``answer``;
- integer answers become strings;
- evidence ids are ``D<session>:<turn>``; malformed ones (``D8:6; D9:17``, ``D:11:26``, ``D30:05``)
  are parsed leniently, and ids that still match no turn are counted in ``unresolved_evidence``;
- session dates are strings like ``1:56 pm on 8 May, 2023``;
- shared images survive only as ``blip_caption``: it becomes the message's ``image_caption``.
"""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime
from pathlib import Path
from typing import Any

from ...errors import MalformedFileError
from ...records import Message
from .base import EvalConversation, EvalDataset, EvalQuestion, default_data_dir

logger = logging.getLogger(__name__)

CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE_CATEGORIES = ["multi-hop", "temporal", "open-domain", "single-hop"]

_SESSION_KEY = re.compile(r"session_(\d+)")
_EVIDENCE_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)", re.IGNORECASE)
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M%p on %d %B, %Y")


def default_path() -> Path:
    """``<data dir>/locomo/locomo_dev5.json``."""
    return default_data_dir() / "locomo" / "locomo_dev5.json"


def parse_session_date(text: str) -> datetime | None:
    """Parse LoCoMo's ``1:56 pm on 8 May, 2023``; None (with a log line) if it does not parse."""
    cleaned = " ".join(text.strip().split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt)
        except ValueError:
            continue
    logger.warning("unparsed LoCoMo session date %r", text)
    return None


def parse_evidence_ids(raw: str) -> list[str]:
    """Every ``D<session>:<turn>`` id found in one evidence string, normalized (no leading zeros).

    ``"D8:6; D9:17"`` gives two ids, ``"D:11:26"`` gives ``D11:26``, ``"D30:05"`` gives ``D30:5``;
    a string with no id in it (``"D"``) gives none.
    """
    return [f"D{int(s)}:{int(t)}" for s, t in _EVIDENCE_ID.findall(str(raw))]


def _normalize_dia_id(raw: str) -> str:
    ids = parse_evidence_ids(raw)
    return ids[0] if len(ids) == 1 else str(raw)


def _conversation(sample: dict[str, Any], path: str) -> EvalConversation:
    conv = sample.get("conversation")
    sample_id = sample.get("sample_id")
    if not isinstance(conv, dict) or not sample_id:
        raise MalformedFileError(path, "each sample needs 'sample_id' and a 'conversation' object")
    sessions = sorted(
        ((int(m.group(1)), key) for key in conv if (m := _SESSION_KEY.fullmatch(key)) and isinstance(conv[key], list)),
    )
    messages: list[Message] = []
    session_of: dict[str, str] = {}
    session_times: dict[str, datetime | None] = {}
    speakers: list[str] = [s for s in (conv.get("speaker_a"), conv.get("speaker_b")) if s]
    for number, key in sessions:
        date_text = conv.get(f"{key}_date_time")
        when = parse_session_date(date_text) if isinstance(date_text, str) else None
        session_times[str(number)] = when
        for turn in conv[key]:
            if not isinstance(turn, dict) or "dia_id" not in turn:
                raise MalformedFileError(path, f"{sample_id} {key}: a turn without 'dia_id'")
            dia_id = _normalize_dia_id(turn["dia_id"])
            text = str(turn.get("text") or "")
            caption = turn.get("blip_caption") or None
            speaker = turn.get("speaker")
            if speaker and speaker not in speakers:
                speakers.append(speaker)
            messages.append(
                Message(
                    id=dia_id,
                    speaker=speaker,
                    role="user",
                    content=text,
                    timestamp=when,
                    image_caption=caption,
                    metadata={"session": str(number), "session_date": date_text},
                )
            )
            session_of[dia_id] = str(number)
    return EvalConversation(
        id=str(sample_id), messages=messages, session_of=session_of, session_times=session_times, speakers=speakers
    )


def load_locomo(path: str | Path | None = None) -> EvalDataset:
    """Load a LoCoMo file (a JSON list of samples with ``conversation`` and ``qa``).

    Statistics in ``EvalDataset.stats``: ``questions``, ``conversations``, ``messages``,
    ``image_captions``, ``evidence_ids``, ``unresolved_evidence_ids``, ``malformed_evidence_strings``,
    ``questions_without_evidence``, ``integer_answers``, ``adversarial_without_answer``.
    """
    p = Path(path) if path is not None else default_path()
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise MalformedFileError(str(p), f"cannot read: {e}") from e
    except json.JSONDecodeError as e:
        raise MalformedFileError(str(p), f"not JSON: {e}") from e
    if not isinstance(data, list):
        raise MalformedFileError(str(p), "expected a JSON list of samples")

    conversations: dict[str, EvalConversation] = {}
    questions: list[EvalQuestion] = []
    stats = {
        "unresolved_evidence_ids": 0,
        "malformed_evidence_strings": 0,
        "questions_without_evidence": 0,
        "integer_answers": 0,
        "adversarial_without_answer": 0,
        "evidence_ids": 0,
    }
    for sample in data:
        conv = _conversation(sample, str(p))
        conversations[conv.id] = conv
        known = set(conv.session_of)
        last_time = max((t for t in conv.session_times.values() if t is not None), default=None)
        for n, qa in enumerate(sample.get("qa") or []):
            try:
                cat_id = int(qa["category"])
                category = CATEGORIES[cat_id]
                question = str(qa["question"])
            except (KeyError, TypeError, ValueError) as e:
                raise MalformedFileError(str(p), f"{conv.id} qa #{n}: bad question or category ({e})") from e
            answer = qa.get("answer")
            if isinstance(answer, (int, float)) and not isinstance(answer, bool):
                stats["integer_answers"] += 1
            if answer is None and cat_id == 5:
                stats["adversarial_without_answer"] += 1
            adversarial = qa.get("adversarial_answer")
            evidence: list[str] = []
            unresolved: list[str] = []
            for raw in qa.get("evidence") or []:
                parsed = parse_evidence_ids(raw)
                if len(parsed) != 1 or parsed[0] != str(raw):
                    stats["malformed_evidence_strings"] += 1
                if not parsed:
                    unresolved.append(str(raw))
                for ev in parsed:
                    if ev in known:
                        if ev not in evidence:
                            evidence.append(ev)
                    else:
                        unresolved.append(ev)
            stats["evidence_ids"] += len(evidence)
            stats["unresolved_evidence_ids"] += len(unresolved)
            if not evidence:
                stats["questions_without_evidence"] += 1
            questions.append(
                EvalQuestion(
                    id=f"{conv.id}:{n}",
                    conversation_id=conv.id,
                    question=question,
                    answer=None if answer is None else str(answer),
                    category=category,
                    category_id=cat_id,
                    evidence_ids=evidence,
                    evidence_sessions=sorted({conv.session_of[e] for e in evidence}, key=int),
                    unresolved_evidence=unresolved,
                    adversarial_answer=None if adversarial is None else str(adversarial),
                    abstention=cat_id == 5,
                    question_time=last_time,
                    question_time_text=last_time.strftime("%d %B %Y") if last_time else None,
                    retrieval_scored=bool(evidence),
                )
            )
    stats.update(
        questions=len(questions),
        conversations=len(conversations),
        messages=sum(len(c.messages) for c in conversations.values()),
        image_captions=sum(1 for c in conversations.values() for m in c.messages if m.image_caption),
    )
    logger.info("loaded LoCoMo %s: %s", p, stats)
    return EvalDataset(
        name="locomo",
        path=str(p),
        conversations=conversations,
        questions=questions,
        categories=list(CATEGORIES.values()),
        headline_categories=HEADLINE_CATEGORIES,
        stats=stats,
    )
