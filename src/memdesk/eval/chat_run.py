"""The ``memdesk eval chats`` loop: each chat into its own scope, message by message, then its questions.

For each chat (scope ``user_id`` = the chat id) of a :class:`~memdesk.eval.datasets.chats.ChatSet`:

1. every message is added on its own with its time (``Memory.add``); right after a message that a
   supersession label names, the ``closes`` / ``keeps`` items are checked against ``Memory.get_all``
   (current records: listed and without a ``valid_to`` end) and
   ``Memory.get_all(filters={"include_superseded": True})`` (every record);
2. the stored records are checked for small talk and wrong dates (:mod:`memdesk.eval.chat_checks`);
3. each question is asked at its ``asked_at`` through ``Memory.search`` (rank of the first gold hit),
   ``Memory.evidence`` (is a gold record inside the packed block) and ``Memory.answer`` (does the
   answer contain an accepted substring).

Only the public Memory API and records' provenance are used, so any configured Memory can be measured.
"""

from __future__ import annotations

import logging
import sys
import time

from pydantic import BaseModel, Field
from tqdm import tqdm

from ..conversation.memory import Memory
from ..errors import UsageError
from ..records import MemoryRecord, Scope
from . import metrics as M
from .chat_checks import DateProblem, SupersessionCheck, small_talk_records, supersession_checks, wrong_date_records
from .datasets.chats import Chat, ChatQuestion, ChatSet

logger = logging.getLogger(__name__)

#: MRR cut-off.
MRR_CUTOFF = 10


def records_bucket(n: int) -> str:
    """The scope-size bucket of a chat by records stored: ``1-15``, ``16-60`` or ``61+`` (none stored counts as ``1-15``)."""
    return "1-15" if n <= 15 else "16-60" if n <= 60 else "61+"


def messages_bucket(n: int) -> str:
    """The bucket of a chat by messages: ``1-15``, ``16-40`` or ``41+``."""
    return "1-15" if n <= 15 else "16-40" if n <= 40 else "41+"


class StoredRecord(BaseModel):
    record_id: str
    provenance: list[str]
    text: str


class ChatScopeResult(BaseModel):
    """What one chat stored: one line of ``scopes.jsonl``."""

    chat_id: str
    messages: int
    records: int = Field(description="Records stored in the scope, superseded ones included.")
    current_records: int
    records_bucket: str
    messages_bucket: str
    small_talk_records: list[StoredRecord] = Field(default_factory=list)
    dates_checked: int = 0
    wrong_dates: list[DateProblem] = Field(default_factory=list)
    supersession: list[SupersessionCheck] = Field(default_factory=list)
    ingest_ms: float = 0.0


class ChatQuestionResult(BaseModel):
    """One question's outcome: one line of ``results.jsonl``."""

    chat_id: str
    question_id: str
    kind: str
    question: str
    gold_message_ids: list[str]
    records_bucket: str
    messages_bucket: str
    first_gold_rank: int | None = Field(description="1-based rank of the first search hit from a gold message.")
    precision_at_1: float
    reciprocal_rank: float = Field(description=f"1/rank of the first gold hit within {MRR_CUTOFF}, else 0.")
    in_budget: bool = Field(description="A gold message's record is inside the packed evidence block.")
    evidence_hits: int
    evidence_tokens: int
    answer: str
    correct: bool
    accept: list[str]
    top_hit: str | None = None
    top_provenance: list[str] = Field(default_factory=list)
    search_ms: float


class ChatRunResult(BaseModel):
    scopes: list[ChatScopeResult]
    questions: list[ChatQuestionResult]


def _every_record(memory: Memory, scope: Scope) -> list[MemoryRecord]:
    return memory.get_all(scope=scope, filters={"include_superseded": True})


def _current_ids(memory: Memory, scope: Scope) -> set[str]:
    """The records that still hold: listed by ``get_all`` (not superseded) and given no end (``valid_to``)."""
    return {r.id for r in memory.get_all(scope=scope) if r.valid_to is None}


class ChatEval:
    """Runs chats through one Memory (see the module docstring)."""

    def __init__(self, memory: Memory, *, progress: bool = False) -> None:
        self.memory = memory
        self.progress = progress

    @staticmethod
    def scope_of(chat: Chat) -> Scope:
        return Scope(user_id=chat.id)

    def run(self, chats: ChatSet) -> ChatRunResult:
        scopes, questions = [], []
        for chat in tqdm(chats.chats, desc="chats", unit="chat", file=sys.stderr, disable=not self.progress):
            scope_result, rows = self.run_chat(chat)
            scopes.append(scope_result)
            questions += rows
        return ChatRunResult(scopes=scopes, questions=questions)

    def run_chat(self, chat: Chat) -> tuple[ChatScopeResult, list[ChatQuestionResult]]:
        result = self.write_chat(chat)
        return result, [self.ask(chat, q, result) for q in chat.questions]

    def write_chat(self, chat: Chat) -> ChatScopeResult:
        """Steps 1 and 2 of the module docstring: the chat's messages added, what was stored checked."""
        scope = self.scope_of(chat)
        if self.memory.messages(scope=scope):
            raise UsageError(f"scope {scope} already holds messages: evaluate chat {chat.id!r} in a fresh database")
        checks: list[SupersessionCheck] = []
        start = time.perf_counter()
        for message in chat.messages:
            self.memory.add(message.message(), scope=scope)
            if any(label.message_id == message.id for label in chat.labels.supersession):
                current = _current_ids(self.memory, scope)
                checks += supersession_checks(chat, message, _every_record(self.memory, scope), current)
        ingest_ms = round((time.perf_counter() - start) * 1000, 1)
        records = _every_record(self.memory, scope)
        n_current = len(_current_ids(self.memory, scope))
        checked, wrong = wrong_date_records(records, chat)
        result = ChatScopeResult(
            chat_id=chat.id, messages=len(chat.messages), records=len(records), current_records=n_current,
            records_bucket=records_bucket(len(records)), messages_bucket=messages_bucket(len(chat.messages)),
            small_talk_records=[StoredRecord(record_id=r.id, provenance=list(r.provenance), text=r.text())
                                for r in small_talk_records(records, chat)],
            dates_checked=checked, wrong_dates=wrong, supersession=checks, ingest_ms=ingest_ms,
        )  # fmt: skip
        logger.info("chat %s: %d messages, %d records", chat.id, len(chat.messages), len(records))
        return result

    def ask(self, chat: Chat, q: ChatQuestion, scope_result: ChatScopeResult) -> ChatQuestionResult:
        scope = self.scope_of(chat)
        start = time.perf_counter()
        hits = self.memory.search(q.question, scope=scope, asked_at=q.asked_at)
        search_ms = round((time.perf_counter() - start) * 1000, 2)
        ranked = [list(h.record.provenance) for h in hits]
        evidence = self.memory.evidence(q.question, scope=scope, asked_at=q.asked_at)
        packed = [list(h.record.provenance) for h in evidence.hits]
        answer = self.memory.answer(q.question, scope=scope, question_time=q.asked_at.isoformat(), asked_at=q.asked_at)
        return ChatQuestionResult(
            chat_id=chat.id, question_id=q.id, kind=q.kind, question=q.question, gold_message_ids=q.gold_message_ids,
            records_bucket=scope_result.records_bucket, messages_bucket=scope_result.messages_bucket,
            first_gold_rank=M.first_gold_rank(q.gold_message_ids, ranked),
            precision_at_1=M.precision_at_1(q.gold_message_ids, ranked) or 0.0,
            reciprocal_rank=M.reciprocal_rank(q.gold_message_ids, ranked, MRR_CUTOFF) or 0.0,
            in_budget=M.first_gold_rank(q.gold_message_ids, packed) is not None,
            evidence_hits=len(evidence.hits), evidence_tokens=evidence.tokens, answer=answer.answer,
            correct=M.accepted(answer.answer, q.accept), accept=q.accept,
            top_hit=hits[0].record.text() if hits else None, top_provenance=ranked[0] if ranked else [],
            search_ms=search_ms,
        )  # fmt: skip


def run_chats(memory: Memory, chats: ChatSet, *, progress: bool = False) -> ChatRunResult:
    """Evaluate every chat of ``chats`` with ``memory`` (each in its own scope)."""
    return ChatEval(memory, progress=progress).run(chats)
