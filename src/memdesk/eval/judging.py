"""Judging answers in the conversational harness: the :class:`Judge` seam and the benchmarks' judges.

LoCoMo uses the CORRECT/WRONG judge; an adversarial (category 5) item has no gold answer (its
``adversarial_answer`` is the trap), so it is judged against :data:`ADVERSARIAL_GOLD`: the answer
is right when it says the conversation does not tell. LongMemEval uses the per-type judges, with the
abstention judge for ``_abs`` items. Every verdict keeps the judge's reason.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel

from ..llm.base import ChatModel
from .datasets import EvalQuestion

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
