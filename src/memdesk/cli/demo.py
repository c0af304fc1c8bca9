"""``memdesk demo``: ingest a conversation, show what was stored, answer questions from memory with evidence.

With no data it uses the sample conversation shipped inside the package (``memdesk/sample/chat.jsonl``,
written for memdesk: four sessions between March and June 2024 in which facts change, a recipe is given and
an instruction is set, with its questions in ``memdesk/sample/questions.json``), so it runs from a wheel in
any directory, offline. ``--data DIR`` uses a LoCoMo conversation from ``DIR/locomo/`` instead.

:func:`run_demo` does the work and returns a :class:`DemoReport`; it reports progress through a callback
and prints nothing itself (the CLI prints the report, as text or JSON).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, Field

from ..conversation.memory import Memory
from ..errors import DataNotFoundError, InvalidInputError
from ..eval.datasets import EvalConversation, EvalQuestion
from ..records import ALL_TYPES, Scope
from ..hits import Answer

SAMPLE_ID = "sample"
LOCOMO_FILES = ("locomo_dev5.json", "locomo10.json")
EXAMPLES_PER_TYPE = 2


class DemoData(BaseModel):
    """A conversation and the questions to ask about it."""

    source: str = Field(description="Where it came from: the packaged sample or a LoCoMo file.")
    conversation: EvalConversation
    questions: list[EvalQuestion]


class DemoAnswer(BaseModel):
    question: EvalQuestion
    answer: Answer
    latency_ms: float
    gold_retrieved: list[str] = Field(description="Gold evidence message ids found in the evidence block.")


class DemoReport(BaseModel):
    source: str
    scope: Scope
    messages: int
    sessions: int
    new_records: int = Field(description="Records written by this run.")
    replaced: int = Field(
        default=0, description="Records of an earlier demo run in the same scope, erased first (they may come from an "
        "older memdesk's extraction)."
    )
    ingest_s: float
    stored: dict[str, int] = Field(description="Records under the scope, by memory type.")
    examples: dict[str, list[str]] = Field(description="A few stored records of each type.")
    answers: list[DemoAnswer]


def sample_data() -> DemoData:
    """The sample conversation packaged with memdesk (one session per day it spans)."""
    from ..conversation.files import read_conversations

    folder = resources.files("memdesk") / "sample"
    with resources.as_file(folder / "chat.jsonl") as chat:
        (conv,) = read_conversations(chat)
    days = sorted({m.timestamp.date() for m in conv.messages if m.timestamp})
    session_of = {m.id: str(days.index(m.timestamp.date()) + 1) for m in conv.messages if m.id and m.timestamp}
    conversation = EvalConversation(id=SAMPLE_ID, messages=conv.messages, session_of=session_of, speakers=conv.speakers)
    items = json.loads((folder / "questions.json").read_text(encoding="utf-8"))
    questions = [
        EvalQuestion(
            id=f"{SAMPLE_ID}:{i}", conversation_id=SAMPLE_ID, question=q["question"], answer=q["answer"],
            category="sample", evidence_ids=q["evidence"],
        )
        for i, q in enumerate(items)
    ]
    return DemoData(source="the sample conversation packaged with memdesk", conversation=conversation, questions=questions)


def locomo_data(data: str | Path, conversation: str | None = None) -> DemoData:
    """A LoCoMo conversation (the first in the file unless named) from a LoCoMo file or a data folder
    holding ``locomo/locomo_dev5.json`` (or ``locomo10.json``)."""
    from ..eval.datasets import load_locomo

    path = Path(data)
    if path.is_dir():
        candidates = [path / "locomo" / name for name in LOCOMO_FILES] + [path / name for name in LOCOMO_FILES]
        found = next((c for c in candidates if c.is_file()), None)
        if found is None:
            raise DataNotFoundError(str(path), f"no LoCoMo file in it (looked for locomo/{' or locomo/'.join(LOCOMO_FILES)})")
        path = found
    elif not path.exists():
        raise DataNotFoundError(str(path))
    dataset = load_locomo(path)
    conv_id = conversation or next(iter(dataset.conversations), None)
    if conv_id not in dataset.conversations:
        raise InvalidInputError(f"no conversation {conv_id!r} in {path}; it has {sorted(dataset.conversations)}")
    questions = [
        q for q in dataset.questions
        if q.conversation_id == conv_id and q.retrieval_scored and not q.abstention and q.answer is not None
    ]
    return DemoData(source=str(path), conversation=dataset.conversations[conv_id], questions=questions)


def run_demo(
    memory: Memory,
    data: DemoData,
    *,
    user_id: str = "demo",
    n_questions: int = 7,
    batch: int = 64,
    progress: Callable[[str], None] = lambda line: None,
) -> DemoReport:
    """Ingest ``data``'s conversation session by session into ``user=<user_id>, run=<conversation id>``
    then answer up to ``n_questions`` of its questions from memory. The demo's own scope is rebuilt on every run
    (what an earlier run stored there is forgotten first), so what it shows is what the installed version stores."""
    if n_questions < 0 or batch < 1:
        raise InvalidInputError("n_questions must be >= 0 and batch >= 1")
    conv = data.conversation
    scope = Scope(user_id=user_id, run_id=conv.id)
    sessions = _sessions(conv)
    replaced = memory.forget(scope).records
    if replaced:
        progress(f"rebuilding {scope}: {replaced} records of an earlier demo run forgotten")
    progress(f"ingesting {len(conv.messages)} messages in {len(sessions)} sessions from {data.source} into {scope}")
    t0 = time.perf_counter()
    new_records = 0
    for n, (label, messages) in enumerate(sessions, 1):
        written = 0
        for i in range(0, len(messages), batch):
            written += len(memory.add(messages[i : i + batch], scope=scope).records)
        new_records += written
        progress(f"  session {n}/{len(sessions)} ({label}): {len(messages)} messages -> {written} new records")
    ingest_s = time.perf_counter() - t0
    stored: dict[str, int] = {}
    examples: dict[str, list[str]] = {}
    for t in ALL_TYPES:
        records = memory.get_all(scope=scope, types=[t])
        stored[t.value] = len(records)
        examples[t.value] = [r.text() for r in records[:EXAMPLES_PER_TYPE]]
    answers = []
    for q in data.questions[:n_questions]:
        t1 = time.perf_counter()
        ans = memory.answer(q.question, scope=scope)
        ms = (time.perf_counter() - t1) * 1000
        covered = {p for h in ans.evidence.hits for p in h.record.provenance}
        answers.append(
            DemoAnswer(question=q, answer=ans, latency_ms=ms, gold_retrieved=[e for e in q.evidence_ids if e in covered])
        )
    return DemoReport(
        source=data.source, scope=scope, messages=len(conv.messages), sessions=len(sessions), new_records=new_records,
        replaced=replaced,
        ingest_s=ingest_s, stored=stored, examples=examples, answers=answers,
    )


def _sessions(conv: EvalConversation) -> list[tuple[str, list]]:
    """The conversation's messages grouped by session, in order, labelled with the session's date."""
    groups: dict[str, list] = {}
    for m in conv.messages:
        groups.setdefault(conv.session_of.get(m.id or "", "1"), []).append(m)
    out = []
    for key, messages in groups.items():
        when = next((m.timestamp for m in messages if m.timestamp), None)
        out.append((when.strftime("%d %B %Y") if when else f"session {key}", messages))
    return out


def report_lines(report: DemoReport, *, evidence_lines: int = 3) -> list[str]:
    """The report as a person reads it."""
    out = [
        f"stored under {report.scope}: "
        + ", ".join(f"{n} {t}" for t, n in report.stored.items())
        + f" records ({report.new_records} new, ingest {report.ingest_s:.1f}s)",
    ]
    for t, texts in report.examples.items():
        for text in texts:
            out.append(f"  {t:10s} {_clip(text, 110)}")
    for i, a in enumerate(report.answers, 1):
        ans = a.answer
        found = ", ".join(a.gold_retrieved) or "none"
        out += [
            "",
            f"Q{i}: {a.question.question}",
            f"  expected: {a.question.answer}",
            f"  answer{'' if ans.extractive else f' ({ans.model})'}: {_clip(ans.answer, 400)}",
            f"  evidence: {len(ans.evidence.hits)} records, {ans.evidence.tokens} tokens, {a.latency_ms:.0f} ms; "
            f"gold message(s) {', '.join(a.question.evidence_ids)} retrieved: {found}; best hits:",
        ]
        for h in ans.evidence.hits[:evidence_lines]:
            anchor = f"[{h.record.temporal_anchor}] " if h.record.temporal_anchor else ""
            out.append(f"    {h.score:.3f} {h.memory_type.value:10s} {anchor}{_clip(h.record.text(), 120)}")
    return out


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
