"""The aggregates of ``memdesk eval chats`` (``summary.json``) and its ``report.md``.

A :class:`ChatBlock` summarizes a group of chats and their questions: ``precision_at_1`` (the first
search hit comes from a gold message), ``mrr_at_10``, ``recall_in_budget`` (a gold message's record is
inside the packed evidence block), ``answer_accuracy`` (the answer holds an accepted substring),
``records_per_message``, ``small_talk_records``, ``wrong_dates`` (records with a date that overlaps
none of their message's labelled dates, out of ``dates_checked``), and ``supersession`` (closes and
keeps items satisfied). :class:`ChatSummary` holds the block of every chat (``overall``), one per
scope size by records stored (``by_records``: 1-15, 16-60, 61+), by messages (``by_messages``) and,
for the question metrics, by question kind (``by_kind``), and the targets of issue #28 checked.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from . import metrics as M
from .chat_run import ChatQuestionResult, ChatRunResult, ChatScopeResult
from .mdtable import fmt, table

RECORD_BUCKETS = ["1-15", "16-60", "61+"]
MESSAGE_BUCKETS = ["1-15", "16-40", "41+"]
#: Issue #28's targets on the held-out half.
TARGETS = {"precision_at_1": 0.90, "answer_accuracy": 0.90, "small_talk_records": 0, "wrong_dates": 0,
           "supersession": 0.95}  # fmt: skip


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


class SupersessionBlock(BaseModel):
    items: int = 0
    satisfied: int = 0
    fraction: float | None = None
    closes: int = 0
    closes_satisfied: int = 0
    closes_vacuous: int = Field(0, description="closes items satisfied because no matching record was ever stored")
    keeps: int = 0
    keeps_satisfied: int = 0


class ChatBlock(BaseModel):
    """The metrics of a group of chats and their questions (see the module docstring)."""

    chats: int
    questions: int
    messages: int
    records: int
    precision_at_1: float | None = None
    mrr_at_10: float | None = None
    recall_in_budget: float | None = None
    answer_accuracy: float | None = None
    median_evidence_tokens: float | None = None
    records_per_message: float | None = None
    small_talk_records: int = 0
    dates_checked: int = 0
    wrong_dates: int = 0
    supersession: SupersessionBlock = Field(default_factory=SupersessionBlock)

    @classmethod
    def of(cls, scopes: Sequence[ChatScopeResult], questions: Sequence[ChatQuestionResult]) -> ChatBlock:
        messages, records = sum(s.messages for s in scopes), sum(s.records for s in scopes)
        checks = [c for s in scopes for c in s.supersession]
        closes = [c for c in checks if c.expect == "closed"]
        keeps = [c for c in checks if c.expect == "current"]
        sup = SupersessionBlock(
            items=len(checks), satisfied=sum(c.ok for c in checks),
            fraction=_r(sum(c.ok for c in checks) / len(checks)) if checks else None,
            closes=len(closes), closes_satisfied=sum(c.ok for c in closes),
            closes_vacuous=sum(c.ok and c.matching == 0 for c in closes),
            keeps=len(keeps), keeps_satisfied=sum(c.ok for c in keeps),
        )  # fmt: skip
        return cls(
            chats=len(scopes), questions=len(questions), messages=messages, records=records,
            precision_at_1=_r(M.mean(q.precision_at_1 for q in questions)),
            mrr_at_10=_r(M.mean(q.reciprocal_rank for q in questions)),
            recall_in_budget=_r(M.mean(float(q.in_budget) for q in questions)),
            answer_accuracy=_r(M.mean(float(q.correct) for q in questions)),
            median_evidence_tokens=M.median(q.evidence_tokens for q in questions),
            records_per_message=_r(records / messages) if messages else None,
            small_talk_records=sum(len(s.small_talk_records) for s in scopes),
            dates_checked=sum(s.dates_checked for s in scopes), wrong_dates=sum(len(s.wrong_dates) for s in scopes),
            supersession=sup,
        )  # fmt: skip


class ChatSummary(BaseModel):
    """What ``summary.json`` holds (see the module docstring)."""

    benchmark: str = "chats"
    data: str
    config: dict[str, Any] = Field(default_factory=dict)
    n_chats: int
    n_questions: int
    overall: ChatBlock
    by_records: dict[str, ChatBlock]
    by_messages: dict[str, ChatBlock]
    by_kind: dict[str, ChatBlock]
    targets: dict[str, Any] = Field(default_factory=dict)


def _grouped(
    result: ChatRunResult, key: Callable[[ChatScopeResult], str], order: Sequence[str]
) -> dict[str, ChatBlock]:
    out = {}
    for bucket in order:
        scopes = [s for s in result.scopes if key(s) == bucket]
        if scopes:
            ids = {s.chat_id for s in scopes}
            out[bucket] = ChatBlock.of(scopes, [q for q in result.questions if q.chat_id in ids])
    return out


def summarize_chats(result: ChatRunResult, *, data: str, config: dict[str, Any]) -> ChatSummary:
    kinds = sorted({q.kind for q in result.questions})
    summary = ChatSummary(
        data=data, config=config, n_chats=len(result.scopes), n_questions=len(result.questions),
        overall=ChatBlock.of(result.scopes, result.questions),
        by_records=_grouped(result, lambda s: s.records_bucket, RECORD_BUCKETS),
        by_messages=_grouped(result, lambda s: s.messages_bucket, MESSAGE_BUCKETS),
        by_kind={k: ChatBlock.of([], [q for q in result.questions if q.kind == k]) for k in kinds},
    )  # fmt: skip
    summary.targets = chat_targets(summary)
    return summary


def chat_targets(summary: ChatSummary) -> dict[str, Any]:
    """Each target, the measured value (precision@1 at every records bucket) and whether it is met."""
    o = summary.overall
    p1 = {b: blk.precision_at_1 for b, blk in summary.by_records.items()}
    rows = {
        "precision_at_1_every_bucket": {"target": TARGETS["precision_at_1"], "measured": p1,
                                        "met": all(v is not None and v >= TARGETS["precision_at_1"] for v in p1.values())},
        "answer_accuracy": {"target": TARGETS["answer_accuracy"], "measured": o.answer_accuracy,
                            "met": o.answer_accuracy is not None and o.answer_accuracy >= TARGETS["answer_accuracy"]},
        "small_talk_records": {"target": 0, "measured": o.small_talk_records, "met": o.small_talk_records == 0},
        "wrong_dates": {"target": 0, "measured": o.wrong_dates, "met": o.wrong_dates == 0},
        "supersession": {"target": TARGETS["supersession"], "measured": o.supersession.fraction,
                         "met": o.supersession.fraction is not None and o.supersession.fraction >= TARGETS["supersession"]},
    }  # fmt: skip
    return rows


def _block_rows(blocks: dict[str, ChatBlock]) -> list[str]:
    head = ["", "chats", "questions", "records", "P@1", "MRR@10", "recall in budget", "answers", "records/msg",
            "small-talk records", "wrong dates", "supersession", "median tokens"]  # fmt: skip
    rows = []
    for name, b in blocks.items():
        sup = f"{b.supersession.satisfied}/{b.supersession.items}" if b.supersession.items else "–"
        rows.append([
            f"**{name}**", str(b.chats), str(b.questions), str(b.records), fmt(b.precision_at_1), fmt(b.mrr_at_10),
            fmt(b.recall_in_budget), fmt(b.answer_accuracy), fmt(b.records_per_message), str(b.small_talk_records),
            f"{b.wrong_dates}/{b.dates_checked}", sup, fmt(b.median_evidence_tokens, 0),
        ])  # fmt: skip
    return table(head, rows)


def _kind_rows(blocks: dict[str, ChatBlock]) -> list[str]:
    head = ["kind", "questions", "P@1", "MRR@10", "recall in budget", "answers", "median tokens"]
    return table(head, [[name, str(b.questions), fmt(b.precision_at_1), fmt(b.mrr_at_10), fmt(b.recall_in_budget),
                         fmt(b.answer_accuracy), fmt(b.median_evidence_tokens, 0)] for name, b in blocks.items()])  # fmt: skip


def render_report(summary: ChatSummary, result: ChatRunResult) -> str:
    """``report.md``: the tables by scope size and kind, the targets, and every miss listed."""
    o = summary.overall
    lines = [f"# memdesk eval chats: {summary.data}", "",
             f"{summary.n_chats} chats, {summary.n_questions} questions, {o.messages} messages, {o.records} records stored.",
             "Configuration: " + ", ".join(f"{k}={v}" for k, v in summary.config.items()), "",
             "## By scope size (records stored)", "", *_block_rows({"all": o, **summary.by_records}),
             "## By scope size (messages)", "", *_block_rows(summary.by_messages),
             "## By question kind", "", *_kind_rows(summary.by_kind),
             "Supersession: closes satisfied "
             f"{o.supersession.closes_satisfied}/{o.supersession.closes} ({o.supersession.closes_vacuous} of them because no "
             f"matching record was stored), keeps satisfied {o.supersession.keeps_satisfied}/{o.supersession.keeps}.", "",
             "## Targets (issue #28, for the held-out half)", ""]  # fmt: skip
    for name, t in summary.targets.items():
        lines.append(f"- {name}: target {t['target']}, measured {t['measured']}: {'met' if t['met'] else 'not met'}")
    by_chat = []
    for s in result.scopes:
        qs = [q for q in result.questions if q.chat_id == s.chat_id]
        p1 = M.mean(q.precision_at_1 for q in qs)
        acc = M.mean(float(q.correct) for q in qs)
        sup = f"{sum(c.ok for c in s.supersession)}/{len(s.supersession)}" if s.supersession else "–"
        by_chat.append([s.chat_id, str(s.messages), str(s.records), str(s.current_records), fmt(p1), fmt(acc),
                        str(len(s.small_talk_records)), f"{len(s.wrong_dates)}/{s.dates_checked}", sup])  # fmt: skip
    lines += ["", "## By chat", "", *table(["chat", "messages", "records", "current", "P@1", "answers", "small-talk records",
                                             "wrong dates", "supersession"], by_chat)]  # fmt: skip
    lines += ["## Questions whose first hit is not from a gold message", ""]
    for q in result.questions:
        if q.precision_at_1 < 1:
            lines.append(f"- {q.question_id} ({q.kind}) {q.question} gold rank {fmt(q.first_gold_rank)}; "
                         f"first hit {q.top_provenance}: {(q.top_hit or '')[:140]!r}")  # fmt: skip
    lines += ["", "## Wrong answers", ""]
    lines += [f"- {q.question_id} {q.question} accept {q.accept}; answer {q.answer[:160]!r}"
              for q in result.questions if not q.correct]  # fmt: skip
    lines += ["", "## Small-talk records", ""]
    lines += [f"- {s.chat_id} {r.provenance}: {r.text[:140]!r}" for s in result.scopes for r in s.small_talk_records]
    lines += ["", "## Wrong dates", ""]
    lines += [f"- {w.message_id} found {w.found} ({w.where}), expected {w.expected}: {w.text[:140]!r}"
              for s in result.scopes for w in s.wrong_dates]  # fmt: skip
    lines += ["", "## Supersession items not satisfied", ""]
    lines += [f"- after {c.message_id}: records of {c.from_message} containing {c.contains!r} should be {c.expect}; "
              f"{c.matching} match, {c.current} current" for s in result.scopes for c in s.supersession if not c.ok]  # fmt: skip
    return "\n".join(lines) + "\n"


def write_chat_run(summary: ChatSummary, result: ChatRunResult, out_dir: str | Path) -> list[Path]:
    """Write ``summary.json``, ``report.md``, ``results.jsonl`` (questions) and ``scopes.jsonl`` (chats)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "summary.json", out / "report.md", out / "results.jsonl", out / "scopes.jsonl"]
    paths[0].write_text(summary.model_dump_json(indent=2) + "\n", encoding="utf-8")
    paths[1].write_text(render_report(summary, result), encoding="utf-8")
    paths[2].write_text("".join(q.model_dump_json() + "\n" for q in result.questions), encoding="utf-8")
    paths[3].write_text("".join(s.model_dump_json() + "\n" for s in result.scopes), encoding="utf-8")
    return paths


def chat_headline(summary: ChatSummary) -> str:
    """A few lines with the main numbers."""
    o = summary.overall
    lines = [f"chats: {summary.n_chats} chats, {summary.n_questions} questions, {o.records} records from {o.messages} messages"]
    for name, b in {"all": o, **{f"records {k}": v for k, v in summary.by_records.items()}}.items():
        lines.append(f"  {name:14s} P@1 {fmt(b.precision_at_1)}  MRR@10 {fmt(b.mrr_at_10)}  recall in budget "
                     f"{fmt(b.recall_in_budget)}  answers {fmt(b.answer_accuracy)}  ({b.chats} chats, {b.questions} q)")  # fmt: skip
    sup = o.supersession
    lines.append(f"  records/message {fmt(o.records_per_message)}, small-talk records {o.small_talk_records}, wrong dates "
                 f"{o.wrong_dates}/{o.dates_checked}, supersession {sup.satisfied}/{sup.items} ({fmt(sup.fraction)})")  # fmt: skip
    return "\n".join(lines)
