"""LLM judges for the benchmarks: LoCoMo's CORRECT/WRONG judge and LongMemEval's per-type judges.

Every :class:`Verdict` records the judge model and the prompt version (``<template>/v<N>-<sha8>``),
so a score can always be traced to the exact judge that produced it. The judges ask for JSON
``{"reason": ..., "label": "CORRECT"|"WRONG"}`` through the structured-output loop; a judge that
never produces a valid verdict raises :class:`~memdesk.errors.LLMOutputError` (never a silent WRONG).

LongMemEval templates by question type (wording ours, criteria as in the benchmark's own judge):

* ``temporal-reasoning``: off-by-one errors in a number of days are tolerated;
* ``knowledge-update``: a response mentioning old information is correct if it gives the updated answer;
* ``single-session-preference``: the gold answer is a rubric; the response must use the user's
  personal information, not cover every rubric point;
* abstention questions (``question_id`` ending in ``_abs``, or ``abstention=True``): correct when the
  response recognizes the question as unanswerable;
* every other type (``single-session-user``, ``single-session-assistant``, ``multi-session``): the
  response must contain the correct answer.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from ..errors import InvalidInputError
from .base import ChatModel, Usage
from .templates import OnePrompt, PromptTemplate, load_prompt

_LABELS = {
    "CORRECT": "CORRECT", "YES": "CORRECT", "TRUE": "CORRECT",
    "WRONG": "WRONG", "NO": "WRONG", "FALSE": "WRONG", "INCORRECT": "WRONG",
}  # fmt: skip
REASON_MAX_CHARS = 400


class JudgeReply(BaseModel):
    """The JSON a judge model must return: a short reason first (so the label follows from it), then
    the label.

    Parsing is lenient where a small model drifts without changing the verdict: the label may come
    as ``verdict``/``judgement``/``grade``, in any case, with a trailing period, as yes/no or a
    boolean; the reason may come as ``explanation``/``rationale`` and is cut to 400 characters
    rather than rejected."""

    model_config = ConfigDict(populate_by_name=True)

    reason: str = Field(
        default="", max_length=REASON_MAX_CHARS, validation_alias=AliasChoices("reason", "explanation", "rationale")
    )
    label: Literal["CORRECT", "WRONG"] = Field(validation_alias=AliasChoices("label", "verdict", "judgement", "grade"))

    @field_validator("label", mode="before")
    @classmethod
    def _normalize(cls, v: Any) -> Any:
        if isinstance(v, bool):
            return "CORRECT" if v else "WRONG"
        if isinstance(v, str):
            return _LABELS.get(v.strip().strip(".").upper(), v)
        return v

    @field_validator("reason", mode="before")
    @classmethod
    def _cut(cls, v: Any) -> Any:
        if v is None:
            return ""
        return " ".join(v.split())[:REASON_MAX_CHARS].rstrip() if isinstance(v, str) else v


class Verdict(BaseModel):
    """One judged answer, with the judge that produced it."""

    label: Literal["CORRECT", "WRONG"]
    reason: str
    judge_model: str
    prompt_version: str
    question_type: str | None = None
    abstention: bool = False
    usage: Usage = Field(default_factory=Usage)

    @property
    def correct(self) -> bool:
        return self.label == "CORRECT"

    @property
    def score(self) -> float:
        """1.0 for CORRECT, 0.0 for WRONG."""
        return 1.0 if self.correct else 0.0


def _judge(
    model: ChatModel,
    template: PromptTemplate,
    question_type: str | None,
    max_tokens: int,
    *,
    abstention: bool = False,
    **values: str,
) -> Verdict:
    completion = model.complete(
        template.render(**values), schema=JudgeReply, max_tokens=max_tokens, temperature=0.0, operation="judge"
    )
    reply = completion.parsed
    assert isinstance(reply, JudgeReply)
    return Verdict(
        label=reply.label,
        reason=reply.reason,
        judge_model=model.model_id,
        prompt_version=template.version,
        question_type=question_type,
        abstention=abstention,
        usage=completion.usage,
    )


class LoCoMoJudge(OnePrompt):
    """LoCoMo's LLM-as-judge: is the generated answer the gold answer (generously)?"""

    def __init__(self, chat_model: ChatModel, *, max_tokens: int = 200) -> None:
        super().__init__(chat_model, "judge_locomo", max_tokens)

    def judge(self, question: str, gold: str, answer: str, *, category: str | int | None = None) -> Verdict:
        """Judge ``answer`` against ``gold``; ``category`` (LoCoMo's) is recorded as question_type."""
        return _judge(
            self.chat_model,
            self.template,
            None if category is None else str(category),
            self.max_tokens,
            question=question,
            gold=str(gold),
            answer=answer,
        )


LME_TEMPLATES: dict[str, str] = {
    "temporal-reasoning": "judge_lme_temporal",
    "knowledge-update": "judge_lme_knowledge_update",
    "single-session-preference": "judge_lme_preference",
    "abstention": "judge_lme_abstention",
}
LME_DEFAULT_TYPES = ("single-session-user", "single-session-assistant", "multi-session")


class LongMemEvalJudge:
    """LongMemEval's judges, one template per question type (see the module docstring)."""

    def __init__(self, chat_model: ChatModel, *, max_tokens: int = 200, strict_types: bool = True) -> None:
        self.chat_model = chat_model
        self.max_tokens = max_tokens
        self.strict_types = strict_types
        self.templates = {name: load_prompt(name) for name in {*LME_TEMPLATES.values(), "judge_lme_default"}}

    def template_for(self, question_type: str, *, abstention: bool = False) -> PromptTemplate:
        """The template for a question type (abstention wins over the type)."""
        if abstention:
            return self.templates[LME_TEMPLATES["abstention"]]
        if question_type in LME_TEMPLATES:
            return self.templates[LME_TEMPLATES[question_type]]
        if self.strict_types and question_type not in LME_DEFAULT_TYPES:
            known = sorted([*LME_TEMPLATES, *LME_DEFAULT_TYPES])
            raise InvalidInputError(f"unknown LongMemEval question_type {question_type!r}; one of {known}")
        return self.templates["judge_lme_default"]

    def judge(
        self,
        question: str,
        gold: str,
        answer: str,
        question_type: str,
        *,
        question_id: str | None = None,
        abstention: bool | None = None,
    ) -> Verdict:
        """Judge ``answer``; abstention is ``abstention`` if given, else ``question_id`` ends in ``_abs``."""
        abst = abstention if abstention is not None else bool(question_id and question_id.endswith("_abs"))
        template = self.template_for(question_type, abstention=abst)
        return _judge(
            self.chat_model,
            template,
            question_type,
            self.max_tokens,
            abstention=abst,
            question=question,
            gold=str(gold),
            answer=answer,
        )
