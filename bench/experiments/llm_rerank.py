"""The LLM re-ranker ``rerank_lab.py`` screens (issue 28, session 12). It stays with the lab and is not part of
memdesk: with the packaged local models it did not gain on the check sets (``bench/results/chats/28rx/README.md``);
the feature built on it (settings ``MEMDESK_RERANK``/``_TOP``/``_GAP``, wiring in the Retriever, tests, docs) is on
branch ``wip/28rx-feature``, kept for a measurement with a stronger endpoint.

One chat-model call per search shows the question and the fused first ``top`` hits numbered (text, who said it, when,
the time it is about, whether a later record replaced it; the prompt is ``rerank_prompts/choice.txt``) and asks for
``{"best": N}`` (``N`` bounded, checked by memdesk's structured-output loop); the chosen hit goes first, the others keep
their fused order, the places keep their scores; a failure keeps the fused order and says so in ``why``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, Field, create_model

from memdesk.errors import InvalidInputError, LLMError
from memdesk.hits import SearchHit
from memdesk.llm.templates import PromptTemplate

if TYPE_CHECKING:
    from memdesk.llm.base import ChatModel

log = logging.getLogger(__name__)

RERANK_GAP = 0.05
"""The re-ranker is asked only when the fused first two hits' scores are at most this far apart (a close call). With the
packaged Qwen2.5-Coder-1.5B, asked for every question it lost (precision@1 0.750 -> 0.600 on 60 studied questions);
asked on close calls it gained on those (+5 -3) but not on 400 unseen ones (0.738 -> 0.733, +12 -14;
``bench/results/chats/28rx/README.md``). None asks for every search (a stronger model)."""
RERANK_TOP = 5
"""Hits shown to the re-ranker by default: the gold record is among the fused first five for 92-95% of the chat
questions (bench/results/chats/session11-misses/README.md)."""
MAX_RECORD_CHARS = 400
"""A record's text is cut to this many characters in the prompt (a small model's context and speed)."""


@runtime_checkable
class Reranker(Protocol):
    """Re-orders the hits of one search for its question; returns the same hits (none added, none dropped)."""

    def rerank(self, question: str, hits: list[SearchHit], *, asked_at: datetime | None = None) -> list[SearchHit]: ...


def rerank_hits(reranker: Reranker | None, question: str | None, hits: list[SearchHit], asked_at: datetime | None) -> list[SearchHit]:
    """``hits`` re-ordered by ``reranker`` for ``question``; unchanged without a re-ranker or a question."""
    if reranker is None or not question or not question.strip():
        return hits
    return reranker.rerank(question, hits, asked_at=asked_at)


@lru_cache(maxsize=32)
def choice_schema(n: int) -> type[BaseModel]:
    """The reply's schema for ``n`` records shown: ``{"best": N}`` with ``1 <= N <= n``."""
    return create_model("RerankChoice", best=(int, Field(ge=1, le=n, description="The number of the record that answers.")))


def _day(when: datetime | None) -> str | None:
    return when.date().isoformat() if when is not None else None


def describe(number: int, hit: SearchHit, asked_at: datetime | None) -> str:
    """One numbered record as the prompt shows it: ``[2] said 2024-05-07; about May 2024; replaced | Ana (user): ...``."""
    record = hit.record
    notes = []
    if said := _day(record.said_time()):
        notes.append(f"said {said}")
    if record.temporal_anchor and record.temporal_anchor != said:
        notes.append(f"about {record.temporal_anchor}")
    if record.closed_at(asked_at) if asked_at is not None else record.superseded_by is not None:
        notes.append("replaced by a later record")
    who = f"{record.speaker} ({record.role})" if record.speaker else record.role
    text = " ".join(record.text().split())
    if len(text) > MAX_RECORD_CHARS:
        text = text[: MAX_RECORD_CHARS - 3] + "..."
    head = f"[{number}] " + ("; ".join(notes) + " | " if notes else "")
    return f"{head}{who}: {text}"


def reorder(hits: Sequence[SearchHit], order: Sequence[int], note: str) -> list[SearchHit]:
    """``hits`` with its first ``len(order)`` put in ``order`` (indexes into ``hits``), the rest after them as they were;
    the scores stay with their places (the first place's score goes to the new first hit), and each hit of the
    re-ordered head gets ``note`` and its fused place and score in ``why``."""
    if sorted(order) != list(range(len(order))) or len(order) > len(hits):
        raise InvalidInputError(f"an order must be a permutation of the first hits' places, got {list(order)}")
    scores = [h.score for h in hits]
    out = [hits[i] for i in order] + list(hits[len(order):])
    for place, (i, hit) in enumerate(zip(order, out)):
        if i != place:
            hit.why = f"{hit.why}; {note}: fused #{i + 1} (score {scores[i]:.3f}) now #{place + 1}"
        hit.score = scores[place]
    return out


class LLMReranker:
    """A :class:`Reranker` asking ``chat_model`` which of the first ``top`` hits answers the question (one call per
    search; see the module docstring), only when the first two hits' scores are at most ``gap`` apart (None: always;
    :data:`RERANK_GAP`). ``max_tokens`` bounds the reply (``{"best": N}`` is a few tokens)."""

    def __init__(
        self, chat_model: ChatModel, top: int = RERANK_TOP, *, gap: float | None = RERANK_GAP, max_tokens: int = 16
    ) -> None:
        if isinstance(top, bool) or not isinstance(top, int) or top < 2:
            raise InvalidInputError(f"top must be an integer of at least 2, got {top!r}")
        if gap is not None and not 0 <= gap <= 1:
            raise InvalidInputError(f"gap must be between 0 and 1 (a difference of scores), or None; got {gap!r}")
        self.gap = gap
        self.chat_model = chat_model
        self.top = top
        self.max_tokens = max_tokens
        self.template = PromptTemplate.parse("rerank", (Path(__file__).parent / "rerank_prompts" / "choice.txt").read_text())

    @property
    def prompt_version(self) -> str:
        return self.template.version

    def schema(self, n: int) -> type[BaseModel]:
        """The reply's schema for ``n`` records shown (a model with a bounded integer ``best``)."""
        return choice_schema(n)

    def rerank(self, question: str, hits: list[SearchHit], *, asked_at: datetime | None = None) -> list[SearchHit]:
        shown = hits[: self.top]
        if len(shown) < 2:
            return hits
        if self.gap is not None and shown[0].score - shown[1].score > self.gap:
            shown[0].why = f"{shown[0].why}; llm re-rank not asked: the first two scores are over {self.gap} apart"
            return hits
        records = "\n".join(describe(n, h, asked_at) for n, h in enumerate(shown, start=1))
        asked = f" (asked {_day(asked_at)})" if asked_at is not None else ""
        messages = self.template.render(question=" ".join(question.split()), asked=asked, records=records)
        try:
            reply = self.chat_model.complete(
                messages, schema=self.schema(len(shown)), max_tokens=self.max_tokens, operation="search"
            )
            best = int(reply.parsed.best) - 1  # type: ignore[union-attr]
            if not 0 <= best < len(shown):  # a chat model whose parser let it through
                raise InvalidInputError(f"record {best + 1} is not one of the {len(shown)} shown")
        except (LLMError, InvalidInputError) as e:
            log.warning("re-ranking failed, fused order kept: %s", e)
            for h in shown:
                h.why = f"{h.why}; llm re-rank failed ({type(e).__name__}): fused order kept"
            return hits
        if best == 0:
            shown[0].why = f"{shown[0].why}; llm re-rank chose #1 of {len(shown)}: fused order kept"
            return hits
        order = [best] + [i for i in range(len(shown)) if i != best]
        return reorder(hits, order, f"llm re-rank chose #{best + 1} of {len(shown)}")
