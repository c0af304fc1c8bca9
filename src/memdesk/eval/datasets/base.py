"""What every benchmark loader produces: plain conversations and questions, no benchmark in the core.

A loader translates one benchmark file into :class:`EvalDataset`: conversations of
:class:`memdesk.records.Message` (one scope each, ingested as they are) and questions that carry
their gold answer, their category and their gold evidence as message ids. The runner and the metrics
only ever see these types.
"""

from __future__ import annotations

import logging
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ...runtime.datapaths import default_data_dir as _data_dir
from ...records import Message

logger = logging.getLogger(__name__)


class EvalConversation(BaseModel):
    """One conversation to ingest into its own scope.

    ``session_of`` maps each message id to its session id (LoCoMo ``"3"``, LongMemEval the haystack
    session id), so session-level metrics can be computed from message-level provenance.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    messages: list[Message]
    session_of: dict[str, str] = Field(default_factory=dict)
    session_times: dict[str, datetime | None] = Field(default_factory=dict)
    speakers: list[str] = Field(default_factory=list)


class EvalQuestion(BaseModel):
    """One question with its gold answer and gold evidence.

    ``evidence_ids`` are message ids of ``conversation_id`` that exist in the conversation (ids that
    could not be resolved are kept apart in ``unresolved_evidence``). ``answer`` is always a string
    (integer answers are converted); it is None when the item has no answer (LoCoMo adversarial items
    that only carry ``adversarial_answer``).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    conversation_id: str
    question: str
    answer: str | None
    category: str
    category_id: int | None = None
    evidence_ids: list[str] = Field(default_factory=list)
    evidence_sessions: list[str] = Field(default_factory=list)
    unresolved_evidence: list[str] = Field(default_factory=list)
    adversarial_answer: str | None = None
    abstention: bool = Field(default=False, description="The right answer is that the history does not say.")
    question_time: datetime | None = None
    question_time_text: str | None = None
    #: Whether the item counts in the retrieval metrics (abstention items and items without gold
    #: evidence do not).
    retrieval_scored: bool = True


class EvalDataset(BaseModel):
    """A loaded benchmark: conversations by id, questions in file order, and loader statistics."""

    model_config = ConfigDict(extra="forbid")

    name: str
    path: str
    conversations: dict[str, EvalConversation]
    questions: list[EvalQuestion]
    #: Category names in report order; ``headline`` names those in the headline score.
    categories: list[str]
    headline_categories: list[str]
    stats: dict[str, int] = Field(default_factory=dict)


def loaded(
    name: str, label: str, path: Path, conversations: dict[str, EvalConversation], questions: list[EvalQuestion],
    stats: dict[str, int], *, categories: list[str], headline_categories: list[str],
) -> EvalDataset:
    """What a loader read from ``path`` as an :class:`EvalDataset`, logged with its ``stats`` (``label``: the
    benchmark as the log names it)."""
    logger.info("loaded %s %s: %s", label, path, stats)
    return EvalDataset(
        name=name, path=str(path), conversations=conversations, questions=questions, categories=categories,
        headline_categories=headline_categories, stats=stats,
    )


def default_data_dir() -> Path:
    """Where benchmark data lives (see :func:`memdesk.runtime.datapaths.default_data_dir`)."""
    return _data_dir()
