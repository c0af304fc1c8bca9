"""Judging answers in the conversational harness: the :class:`Judge` seam and the benchmarks' judges.

LoCoMo uses the CORRECT/WRONG judge; an adversarial (category 5) item has no gold answer (its
``adversarial_answer`` is the trap), so it is judged against :data:`ADVERSARIAL_GOLD`: the answer
is right when it says the conversation does not tell. LongMemEval uses the per-type judges, with the
abstention judge for ``_abs`` items. Every verdict keeps the judge's reason.

:class:`SharedVerdicts` makes one judge call per distinct (question, answer) in a run: two systems
that give the same answer to a question get the same verdict (the judge sees neither the system nor
its evidence, and decodes at temperature 0), so the second row reuses the first's and says whose.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

from ..llm.base import ChatModel
from .datasets import EvalQuestion

if TYPE_CHECKING:
    from .rows import QuestionResult

ADVERSARIAL_GOLD = "Not mentioned in the conversation (no information available)."


class JudgeVerdict(BaseModel):
    """A judge's verdict on one answer, with its label and the judge's short reason."""

    correct: bool
    label: str | None = None
    reason: str | None = None


class Judge(Protocol):
    """Scores a predicted answer against a question's gold answer (an LLM judge, usually)."""

    model_id: str

    def __call__(self, question: EvalQuestion, prediction: str) -> JudgeVerdict: ...


class BenchmarkJudge:
    """Judges answers with the benchmark's own judge prompt through one chat model."""

    def __init__(self, chat_model: ChatModel, benchmark: str) -> None:
        from ..llm.judge import LoCoMoJudge, LongMemEvalJudge

        self.benchmark = benchmark
        self.chat_model = chat_model
        self.model_id = chat_model.model_id
        self._locomo = LoCoMoJudge(chat_model) if benchmark == "locomo" else None
        self._lme = LongMemEvalJudge(chat_model) if benchmark == "longmemeval" else None

    def __call__(self, question: EvalQuestion, prediction: str) -> JudgeVerdict:
        if self._locomo is not None:
            gold = question.answer if question.answer is not None and question.category_id != 5 else ADVERSARIAL_GOLD
            v = self._locomo.judge(question.question, gold, prediction, category=question.category_id)
        else:
            assert self._lme is not None
            v = self._lme.judge(
                question.question, question.answer or "", prediction, question.category,
                question_id=question.id, abstention=question.abstention,
            )  # fmt: skip
        return JudgeVerdict(correct=v.correct, label=v.label, reason=v.reason)


class SharedVerdicts:
    """The valid verdicts of a run by (question id, answer), with the system whose row got each."""

    def __init__(self, rows: Iterable[QuestionResult] = ()) -> None:
        self._seen: dict[tuple[str, str], tuple[JudgeVerdict, str]] = {}
        for row in rows:
            self.add(row)

    def add(self, row: QuestionResult) -> None:
        """Remember a row's verdict (rows without an answer or a valid verdict are skipped)."""
        if row.answer is not None and row.judge is not None and row.judge_shared is None:
            verdict = JudgeVerdict(correct=row.judge, label=row.judge_label, reason=row.judge_reason)
            self._seen.setdefault((row.question_id, row.answer), (verdict, row.system))

    def get(self, question_id: str, answer: str) -> tuple[JudgeVerdict, str] | None:
        """The verdict already given to this answer of this question and the system it came from."""
        return self._seen.get((question_id, answer))
