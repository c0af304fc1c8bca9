"""Answerers: evidence block + question -> :class:`~memdesk.hits.Answer`.

* :class:`ExtractiveAnswerer` (offline, no model): the answer is the text of the evidence record that
  answers the question (:mod:`memdesk.conversation.answer_choice`: the first hit when its calibrated relevance is
  at least 0.2 (:data:`~memdesk.conversation.answer_choice.TRUST`), else of the best few current hits the one holding most of the question's content
  words) with its temporal anchor, labelled ``extractive: best evidence`` and flagged ``extractive=True``; when no
  current record holds any of them, it says so and
  names the closest record (and a since-replaced one that holds them) instead of presenting one as the answer.
* :class:`LLMAnswerer`: a chat model answers in a short phrase from the evidence block (which carries
  each record's temporal anchor), or abstains with :data:`ABSTAIN` when the evidence does not
  support an answer. With no evidence at all it abstains without calling the model.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import datetime

from ..llm.base import ChatModel
from ..llm.templates import OnePrompt
from ..hits import Answer, Evidence, SearchHit
from ..records import MemoryRecord
from ..retrieval.question_time import parse_asked_at
from .answer_choice import choose

#: What an answerer says when the evidence does not support an answer.
ABSTAIN = "not mentioned in the conversation"
EXTRACTIVE_LABEL = "extractive: best evidence"
#: What the extractive answerer says before the closest record when no record holds the question's words.
NOT_DIRECT = "Nothing in memory says this directly."

_PREFIX = re.compile(r"^\s*(?:final\s+)?answer\s*[:\-]\s*", re.IGNORECASE)
_ABSTAIN_NORM = re.compile(r"[^a-z ]+")


def is_abstention(text: str, *, slack: int = 24) -> bool:
    """True when ``text`` is :data:`ABSTAIN` give or take a few words ("It is not mentioned in the
    conversation."); a longer reply that merely contains the phrase is not an abstention."""
    norm = " ".join(_ABSTAIN_NORM.sub(" ", text.lower()).split())
    return ABSTAIN in norm and len(norm) <= len(ABSTAIN) + slack


class ExtractiveAnswerer:
    """The offline answerer: the evidence record that answers, as said, with its anchor.

    The answer reads ``"[extractive: best evidence] <record text> (<anchor>)"``; when no current record in
    the evidence holds the question's content words, ``"[extractive: best evidence] Nothing in memory says
    this directly. Closest: <first hit> (<anchor>)"``, plus ``" Earlier (since replaced): <record>"`` when a
    superseded record holds them; when the record that replaced that one is in the evidence, it is the
    answer, followed by ``" Before (since replaced): <record>"``; an answer that does not state the kind of value
    the question asks for ("Where ...?": a place) is followed by a statement of its own message that does, when one is
    in the evidence; an answer to a question asking for a set of items ("Which commissions has Tomas mentioned?") is
    followed by ``" Also: <record>"`` for each other record of the best few naming items of it
    (:attr:`~memdesk.conversation.answer_choice.Choice.more`). ``label=""`` drops the prefix (``Answer.extractive``
    still says what it is).
    """

    def __init__(self, *, label: str = EXTRACTIVE_LABEL) -> None:
        self.label = label

    def answer(
        self,
        question: str,
        evidence: Evidence,
        *,
        question_time: str | None = None,
        mates: Callable[[MemoryRecord], Sequence[MemoryRecord]] | None = None,
        asked_at: datetime | None = None,
    ) -> Answer:
        """The answer from ``evidence``; ``mates(record)``, when given, reads the other current records of a record's
        message, so an answer lacking the asked value can be followed by a statement of its message that says it.
        ``asked_at`` (else ``question_time`` when it is a date or an ISO time) is when the question is asked: a record
        closed only after it still held then, and a time the question names ("in March") is read against it."""
        if asked_at is None and question_time:
            asked_at = parse_asked_at(question_time)
        choice = choose(question, evidence.hits, mates=mates, asked_at=asked_at)
        if choice.closest is None:
            return Answer(question=question, answer=ABSTAIN, extractive=True, evidence=evidence, model=None)
        if choice.answer is not None:
            text = _said(choice.answer) if choice.direct else f"{NOT_DIRECT} Closest: {_said(choice.answer)}"
            if choice.beside is not None:  # the answer's own message says the value asked for in another statement
                text = f"{text} {_said(choice.beside)}"
            for part in choice.more:  # the other records naming items of an asked set
                text = f"{text} Also: {_said(part)}"
            if choice.earlier is not None:  # the memory holding the question's words, and what replaced it
                text = f"{text} Before (since replaced): {_said(choice.earlier)}"
        else:
            text = f"{NOT_DIRECT} Closest: {_said(choice.closest)}"
            if choice.earlier is not None:
                text = f"{text} Earlier (since replaced): {_said(choice.earlier)}"
        if self.label:
            text = f"[{self.label}] {text}"
        return Answer(question=question, answer=text, extractive=True, evidence=evidence, model=None)


def _said(said: SearchHit | MemoryRecord) -> str:
    """A record's (or a hit's record's) words with its anchor, and who said them when that is not the user."""
    r = said.record if isinstance(said, SearchHit) else said
    anchor = r.temporal_anchor or (r.event_time.date().isoformat() if r.event_time else None)
    text = r.body().strip()
    if r.provenance_label():  # never present a tool's or an assistant's words as the user's
        text = f"({r.provenance_label()}) {text}"
    return f"{text} ({anchor})" if anchor else text


class LLMAnswerer(OnePrompt):
    """Answers from the evidence block with a chat model, in a short phrase, or abstains.

    Args:
        chat_model: any :class:`~memdesk.llm.base.ChatModel`.
        max_tokens: the answer's budget (short answers; small models ramble otherwise).

    A reply that is just an abstention in other words ("It is not mentioned in the conversation.")
    becomes exactly :data:`ABSTAIN`; any longer reply is kept as the model wrote it.
    """

    @property
    def async_ready(self) -> bool:
        """Loop-safe when its chat model is (see :mod:`memdesk.runtime.aio`): its own work is a prompt and a parse."""
        from ..runtime import aio

        return aio.loop_safe(self.chat_model)

    def __init__(self, chat_model: ChatModel, *, max_tokens: int = 96) -> None:
        super().__init__(chat_model, "answer", max_tokens)

    def answer(self, question: str, evidence: Evidence, *, question_time: str | None = None) -> Answer:
        if not evidence.hits or not evidence.text.strip():
            return Answer(question=question, answer=ABSTAIN, extractive=False, evidence=evidence, model=None)
        messages = self.template.render(
            evidence=evidence.text, question=question.strip(), question_time=question_time or "not given"
        )
        completion = self.chat_model.complete(messages, max_tokens=self.max_tokens, temperature=0.0, operation="answer")
        text = _PREFIX.sub("", completion.text.strip()).strip()
        if is_abstention(text) or not text:
            text = ABSTAIN
        return Answer(question=question, answer=text, extractive=False, evidence=evidence, model=completion.model)
