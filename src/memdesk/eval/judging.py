"""Adapters from :mod:`memdesk.llm.judge` to the runner's :class:`~memdesk.eval.runner.Judge`.

LoCoMo uses the CORRECT/WRONG judge; an adversarial (category 5) item has no gold answer (its
``adversarial_answer`` is the trap), so it is judged against :data:`ADVERSARIAL_GOLD`: the answer
is right when it says the conversation does not tell. LongMemEval uses the per-type judges, with the
abstention judge for ``_abs`` items.
"""

from __future__ import annotations

from ..llm.base import ChatModel
from .datasets import EvalQuestion
from .runner import JudgeVerdict

ADVERSARIAL_GOLD = "Not mentioned in the conversation (no information available)."


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
            gold = question.answer if question.answer is not None else ADVERSARIAL_GOLD
            if question.category_id == 5:
                gold = ADVERSARIAL_GOLD
            v = self._locomo.judge(question.question, gold, prediction, category=question.category_id)
        else:
            assert self._lme is not None
            v = self._lme.judge(
                question.question, question.answer or "", prediction, question.category,
                question_id=question.id, abstention=question.abstention,
            )
        return JudgeVerdict(correct=v.correct, label=v.label, raw=v.reason)
