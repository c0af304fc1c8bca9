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

from pathlib import Path
from typing import Any

from ...conversation.locomo import LoCoMoConversation, parse_evidence_ids, parse_locomo
from ...errors import MalformedFileError
from ...runtime.jsonfiles import read_json
from .base import EvalConversation, EvalDataset, EvalQuestion, default_data_dir, loaded

CATEGORIES: dict[int, str] = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
HEADLINE_CATEGORIES = ["multi-hop", "temporal", "open-domain", "single-hop"]


def default_path() -> Path:
    """``<data dir>/locomo/locomo_dev5.json``."""
    return default_data_dir() / "locomo" / "locomo_dev5.json"


def _conversation(conv: LoCoMoConversation) -> EvalConversation:
    return EvalConversation(
        id=conv.id, messages=conv.messages, session_of=conv.session_of, session_times=conv.session_times,
        speakers=conv.speakers,
    )  # fmt: skip


def _text(value: Any) -> str | None:
    """A gold or adversarial answer as text (LoCoMo has integer answers); None when absent."""
    if value is None:
        return None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return str(value)
    return None


def load_locomo(path: str | Path | None = None) -> EvalDataset:
    """Load a LoCoMo file (a JSON list of samples with ``conversation`` and ``qa``).

    The file is parsed leniently (:func:`memdesk.conversation.locomo.parse_locomo`): what could not
    be used is counted, never fatal. Statistics in ``EvalDataset.stats``: ``questions``,
    ``conversations``, ``messages``, ``image_captions``, ``evidence_ids``, ``unresolved_evidence_ids``,
    ``malformed_evidence_strings``, ``questions_without_evidence``, ``integer_answers``,
    ``adversarial_without_answer``, ``qa_items_skipped`` (no question text or no known category), and
    ``skipped_<problem>`` for each kind of turn or session the parser passed over.
    A missing file raises :class:`~memdesk.errors.DataNotFoundError`, one that is not JSON or not a
    list of samples :class:`~memdesk.errors.MalformedFileError`.
    """
    p = Path(path) if path is not None else default_path()
    data = read_json(p)
    if not isinstance(data, list):
        raise MalformedFileError(str(p), "expected a JSON list of samples")
    parsed = parse_locomo(data, path=str(p), strict=False)
    conversations: dict[str, EvalConversation] = {}
    questions: list[EvalQuestion] = []
    stats = {
        "unresolved_evidence_ids": 0,
        "malformed_evidence_strings": 0,
        "questions_without_evidence": 0,
        "integer_answers": 0,
        "adversarial_without_answer": 0,
        "evidence_ids": 0,
        "qa_items_skipped": 0,
        **{f"skipped_{kind}": n for kind, n in sorted(parsed.problems.items())},
    }
    for lc in parsed.conversations:
        conv = _conversation(lc)
        conversations[conv.id] = conv
        known = set(conv.session_of)
        last_time = max((t for t in conv.session_times.values() if t is not None), default=None)
        for n, qa in enumerate(lc.qa):
            q = _question(qa, n, conv, known, last_time, stats)
            if q is not None:
                questions.append(q)
    stats.update(
        questions=len(questions),
        conversations=len(conversations),
        messages=sum(len(c.messages) for c in conversations.values()),
        image_captions=sum(1 for c in conversations.values() for m in c.messages if m.image_caption),
    )
    return loaded(
        "locomo", "LoCoMo", p, conversations, questions, stats,
        categories=list(CATEGORIES.values()), headline_categories=HEADLINE_CATEGORIES,
    )


def _question(
    qa: Any, n: int, conv: EvalConversation, known: set[str], last_time: Any, stats: dict[str, int]
) -> EvalQuestion | None:
    """One QA item as an :class:`EvalQuestion`; None (counted) when it has no question or category."""
    if not isinstance(qa, dict):
        stats["qa_items_skipped"] += 1
        return None
    raw_cat, question = qa.get("category"), qa.get("question")
    cat_id = raw_cat if isinstance(raw_cat, int) and not isinstance(raw_cat, bool) else None
    if isinstance(raw_cat, str) and raw_cat.strip().isdigit():
        cat_id = int(raw_cat)
    if cat_id not in CATEGORIES or not isinstance(question, str) or not question.strip():
        stats["qa_items_skipped"] += 1
        return None
    answer = qa.get("answer")
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        stats["integer_answers"] += 1
    if answer is None and cat_id == 5:
        stats["adversarial_without_answer"] += 1
    evidence: list[str] = []
    unresolved: list[str] = []
    raw_evidence = qa.get("evidence")
    for raw in raw_evidence if isinstance(raw_evidence, list) else []:
        parsed = parse_evidence_ids(raw)
        if len(parsed) != 1 or parsed[0] != str(raw):
            stats["malformed_evidence_strings"] += 1
        if not parsed:
            unresolved.append(str(raw)[:200])
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
    return EvalQuestion(
        id=f"{conv.id}:{n}",
        conversation_id=conv.id,
        question=question,
        answer=_text(answer),
        category=CATEGORIES[cat_id],
        category_id=cat_id,
        evidence_ids=evidence,
        evidence_sessions=sorted({conv.session_of[e] for e in evidence}, key=int),
        unresolved_evidence=unresolved,
        adversarial_answer=_text(qa.get("adversarial_answer")),
        abstention=cat_id == 5,
        question_time=last_time,
        question_time_text=last_time.strftime("%d %B %Y") if last_time else None,
        retrieval_scored=bool(evidence),
    )
