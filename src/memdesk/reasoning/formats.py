"""The three memory formats: Long-CoT (the full verified trace), Short-CoT (its key steps) and
Summary (the solving strategy in a sentence or two).

With a chat model, Short-CoT and Summary are written by the model from the verified trace; a
Short-CoT that no longer reaches the gold answer is replaced by the offline condensation. Without
one they are built deterministically offline:

- Short-CoT keeps the sentences that carry the computation (equations, numbers, formulas) and the
  last sentence (the one that states the answer), at most ``max_sentences``;
- Summary is the trace's first sentence (which in worked solutions usually names the approach),
  cut to ``max_words``, followed by the final answer. It is a heuristic, not an abstraction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import LLMError
from ..llm.base import ChatModel, Usage
from ..llm.batch import ChatRequest, run_many
from ..llm.templates import PromptTemplate
from .datasets import AnswerKind
from .solved_examples import MemoryFormat
from .scoring import score_answer

_ASY = re.compile(r"\[asy\].*?\[/asy\]", re.DOTALL)
_MATH_SIGNAL = re.compile(r"[=<>+\-*/^×÷]|\d|\\frac|\\sqrt|\\boxed|\$")

SHORT_PROMPT = PromptTemplate.parse(
    "mac_format_short",
    """#! version: 1
### system
You condense verified solutions into short chains of thought for a memory of solved examples.
Keep only the key steps and equations, one short line each, at most 6 lines. Keep every number the
steps need. End with the final answer as \\boxed{ANSWER}. Write nothing else.
### user
Problem:
$problem

Verified solution:
$trace""",
)

SUMMARY_PROMPT = PromptTemplate.parse(
    "mac_format_summary",
    """#! version: 1
### system
You summarize how a problem is solved for a memory of solved examples. In at most two sentences,
state the strategy (what to compute and how), without the detailed arithmetic. Then write
"Answer: " and the final answer. Write nothing else.
### user
Problem:
$problem

Verified solution:
$trace""",
)


def strip_figures(text: str) -> str:
    """The trace without Asymptote figure code (``[asy]...[/asy]``)."""
    return _ASY.sub("", text)


def split_sentences(text: str) -> list[str]:
    """Sentences of a worked solution: split at line breaks and at '.', '!' or '?' followed by space,
    but never inside ``$...$`` math."""
    out: list[str] = []
    for line in strip_figures(text).splitlines():
        cur: list[str] = []
        in_math = False
        i = 0
        while i < len(line):
            ch = line[i]
            cur.append(ch)
            if ch == "$" and (i == 0 or line[i - 1] != "\\"):
                in_math = not in_math
            elif ch in ".!?" and not in_math and (i + 1 == len(line) or line[i + 1] == " "):
                sentence = "".join(cur).strip()
                if sentence:
                    out.append(sentence)
                cur = []
            i += 1
        rest = "".join(cur).strip()
        if rest:
            out.append(rest)
    return out


def condense_offline(trace: str, max_sentences: int = 6) -> str:
    """Short-CoT without a model: the computational sentences plus the last one, at most ``max_sentences``."""
    sentences = split_sentences(trace)
    if len(sentences) <= 2:
        return " ".join(sentences)
    last = sentences[-1]
    body = [s for s in sentences[:-1] if _MATH_SIGNAL.search(s)]
    body = body[: max(0, max_sentences - 1)]
    kept = body + [last]
    return " ".join(kept)


def summarize_offline(trace: str, answer: str, max_words: int = 40) -> str:
    """Summary without a model: the first sentence (the approach), cut to ``max_words``, and the answer."""
    sentences = split_sentences(trace)
    first = sentences[0] if sentences else ""
    words = first.split()
    if len(words) > max_words:
        first = " ".join(words[:max_words]) + " ..."
    return f"{first} Answer: {answer}".strip()


@dataclass
class FormattedContent:
    """The contents of one entry per format and where each came from."""

    contents: dict[MemoryFormat, str] = field(default_factory=dict)
    sources: dict[MemoryFormat, str] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)


class FormatBuilder:
    """Builds the requested memory formats for verified traces.

    Args:
        chat: writes Short-CoT and Summary when given; None builds them offline.
        answer_kind: how to check that a model-written Short-CoT still reaches the gold answer.
        max_tokens: output budget per format call.
    """

    def __init__(
        self,
        chat: ChatModel | None = None,
        *,
        answer_kind: AnswerKind = AnswerKind.MATH,
        max_tokens: int = 400,
        concurrency: int | None = None,
    ) -> None:
        self.chat = chat
        self.answer_kind = answer_kind
        self.max_tokens = max_tokens
        self.concurrency = concurrency or int(getattr(chat, "concurrency", 1) or 1)

    def build(
        self, items: Sequence[tuple[str, str, str]], formats: Sequence[MemoryFormat]
    ) -> list[FormattedContent]:
        """Contents for (problem, verified trace, gold answer) triples in each of ``formats``."""
        out = [FormattedContent() for _ in items]
        for fmt in formats:
            fmt = MemoryFormat(fmt)
            if fmt is MemoryFormat.LONG:
                for fc, (_p, trace, _a) in zip(out, items):
                    fc.contents[fmt], fc.sources[fmt] = strip_figures(trace).strip(), "verbatim"
            elif self.chat is None:
                for fc, (_p, trace, answer) in zip(out, items):
                    fc.contents[fmt] = condense_offline(trace) if fmt is MemoryFormat.SHORT else summarize_offline(trace, answer)
                    fc.sources[fmt] = "offline-condense"
            else:
                self._with_model(items, fmt, out)
        return out

    def _with_model(self, items: Sequence[tuple[str, str, str]], fmt: MemoryFormat, out: list[FormattedContent]) -> None:
        assert self.chat is not None
        template = SHORT_PROMPT if fmt is MemoryFormat.SHORT else SUMMARY_PROMPT
        reqs = [
            ChatRequest(
                messages=template.render(problem=p, trace=strip_figures(t)),
                max_tokens=self.max_tokens,
                temperature=0.0,
                operation="format",
            )
            for p, t, _a in items
        ]
        results = run_many(self.chat, reqs, concurrency=self.concurrency, return_exceptions=True)
        for fc, (_p, trace, answer), res in zip(out, items, results):
            fallback = condense_offline(trace) if fmt is MemoryFormat.SHORT else summarize_offline(trace, answer)
            if isinstance(res, LLMError) or not res.text.strip():
                fc.contents[fmt], fc.sources[fmt] = fallback, "offline-condense (model failed)"
                continue
            fc.usage = fc.usage + res.usage
            text = res.text.strip()
            if fmt is MemoryFormat.SHORT and not score_answer(self.answer_kind, text, answer).correct:
                fc.contents[fmt], fc.sources[fmt] = fallback, "offline-condense (model's version lost the answer)"
                continue
            fc.contents[fmt], fc.sources[fmt] = text, f"llm:{self.chat.model_id}"
