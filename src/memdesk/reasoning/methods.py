"""Prompt templates for the inference methods, with and without the retrieved-memory block.

Methods: standard chain-of-thought (``cot``), direct answer (``nocot``), Chain-of-Draft (``cod``,
Xu et al. 2025: at most ~5 words per step), TokenSkip (``tokenskip``, Xia et al. 2025) and
Extra-CoT (``extracot``, Jia et al. 2026). TokenSkip and Extra-CoT are *trained* compressors: the
compression ratio gamma is appended to the question in the format their fine-tuned models expect
(``{question}<|eot_id|>{gamma}<|eot_id|>``, configurable), so they only make sense with such a
model; with an ordinary instruct model gamma is just text.

Assembly (the paper's order): the system instruction, then one user message holding the memory
block (memories in descending retrieval score) *before* the query. The query text is unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from ..errors import InvalidInputError
from ..llm.base import ChatMessage
from .solved_examples import MemoryFormat, RetrievedMemory, TraceSource


class Method(str, Enum):
    COT = "cot"
    NOCOT = "nocot"
    COD = "cod"
    TOKENSKIP = "tokenskip"
    EXTRACOT = "extracot"


_BOX = "Give the final answer at the end in the form \\boxed{ANSWER}."

SYSTEM_PROMPTS: dict[Method, str] = {
    Method.COT: "Solve the problem. Think step by step, showing your reasoning. " + _BOX,
    Method.NOCOT: "Answer the problem directly, without any reasoning or explanation. Reply only with \\boxed{ANSWER}.",
    Method.COD: (
        "Think step by step, but only keep a minimum draft for each thinking step, with 5 words at most. "
        + _BOX
    ),
    Method.TOKENSKIP: "Please reason step by step, and put your final answer within \\boxed{}.",
    Method.EXTRACOT: "Please reason step by step, and put your final answer within \\boxed{}.",
}

#: The ratio suffix of TokenSkip's fine-tuning data (LLaMA-3 eos as delimiter); Extra-CoT uses the
#: same ratio-conditioned input by default. Override with ``PromptSpec.ratio_template``.
DEFAULT_RATIO_TEMPLATE = "{question}<|eot_id|>{gamma}<|eot_id|>"

MEMORY_HEADER = (
    "Here are solved examples retrieved from memory, most relevant first. They are references "
    "for the reasoning pattern only; solve the new question yourself."
)

_FORMAT_LABEL = {MemoryFormat.LONG: "Solution", MemoryFormat.SHORT: "Key steps", MemoryFormat.SUMMARY: "Strategy"}


@dataclass(frozen=True)
class PromptSpec:
    """How to prompt: the method, its kept-token ratio gamma (TokenSkip/Extra-CoT only, in (0, 1]),
    the benchmark's answer-format instruction and the ratio suffix template."""

    method: Method
    gamma: float | None = None
    answer_instruction: str = ""
    ratio_template: str = DEFAULT_RATIO_TEMPLATE

    def __post_init__(self) -> None:
        object.__setattr__(self, "method", Method(self.method))
        ratio = self.method in (Method.TOKENSKIP, Method.EXTRACOT)
        if ratio and self.gamma is None:
            raise InvalidInputError(f"method {self.method.value} needs a compression ratio gamma in (0, 1]")
        if not ratio and self.gamma is not None:
            raise InvalidInputError(f"method {self.method.value} takes no gamma")
        if self.gamma is not None and not 0.0 < self.gamma <= 1.0:
            raise InvalidInputError(f"gamma must be in (0, 1], got {self.gamma}")
        if ratio and ("{question}" not in self.ratio_template or "{gamma}" not in self.ratio_template):
            raise InvalidInputError("ratio_template needs {question} and {gamma}")


def serialize_memory(memory: RetrievedMemory, fmt: MemoryFormat, number: int) -> str:
    """One memory as text: its problem, its content in ``fmt`` (only the content c_i, never tags) and
    its verified answer written the way the instruction asks for the query's (``\\boxed{}``): dataset
    solutions often end without it (GSM8K's ``#### N`` line is stripped), and small models given
    examples without a final answer line answered with a bare number."""
    ex = memory.example
    label = _FORMAT_LABEL[MemoryFormat(fmt)]
    if ex.provenance.trace_source is TraceSource.ABSENT:
        body = f"Answer: {ex.answer}"
    else:
        body = f"{label}: {ex.content(fmt).strip()}\nFinal answer: \\boxed{{{ex.answer}}}"
    return f"Example {number}:\nProblem: {ex.problem.strip()}\n{body.strip()}"


def serialize_memories(memories: Sequence[RetrievedMemory], fmt: MemoryFormat) -> str:
    """The memory block: a header, then the memories sorted by descending score."""
    ordered = sorted(memories, key=lambda m: (-m.score, m.rank))
    parts = [MEMORY_HEADER] + [serialize_memory(m, fmt, i + 1) for i, m in enumerate(ordered)]
    return "\n\n".join(parts)


def query_text(spec: PromptSpec, question: str) -> str:
    """The query as sent: the question, with the ratio suffix for TokenSkip/Extra-CoT."""
    if spec.gamma is not None:
        return spec.ratio_template.format(question=question, gamma=f"{spec.gamma:g}")
    return question


def build_messages(spec: PromptSpec, question: str, memory_block: str | None = None) -> list[ChatMessage]:
    """System instruction, then one user message: the memory block (if any) before the query."""
    if not question.strip():
        raise InvalidInputError("the question is empty")
    system = SYSTEM_PROMPTS[spec.method]
    if spec.answer_instruction:
        system = f"{system} {spec.answer_instruction}"
    q = query_text(spec, question)
    user = f"{memory_block}\n\nNow solve this question.\nQuestion: {q}" if memory_block else f"Question: {q}"
    return [ChatMessage(role="system", content=system), ChatMessage(role="user", content=user)]


def trace_messages(question: str, answer_instruction: str = "") -> list[ChatMessage]:
    """The standard-CoT prompt used to generate bank traces where a dataset has no solution."""
    return build_messages(PromptSpec(method=Method.COT, answer_instruction=answer_instruction), question)
