"""The typed row of the conversational harness: one :class:`QuestionResult` per (system, question),
one line of ``results.jsonl`` (fields left None are not written).

Field by field (see also ``bench/results/CONVERSATION_EVAL.md``):

- what was asked: ``system``, ``question_id``, ``conversation_id``, ``category``, ``abstention``
  (the right answer is that the conversation does not say), ``retrieval_scored`` (the question has
  gold evidence and counts in the retrieval metrics), ``sweep``, ``k``, ``K``;
- the evidence: ``n_hits``, ``hits`` (main systems: ``[type initial, cosine, provenance ids]`` in
  rank order), ``evidence_tokens``, ``containment`` (share of the gold answer's parts found in the
  evidence text), ``recall`` and ``session_recall`` (keys ``all`` = at K, and each cut-off),
  ``precision_at_1`` (1 when the first hit's provenance holds a gold turn) and ``reciprocal_rank``
  (1/rank of the first hit holding a gold turn within 10, else 0; both None for full context);
- with a chat model: ``answer``, ``abstained`` (the answer abstains, see
  :func:`memdesk.eval.metrics.is_abstention`), ``f1``, ``bleu1``, ``judge`` (the verdict; None when
  the judge never gave a valid one, then ``judge_error`` says why), ``judge_label``,
  ``judge_reason``, ``judge_shared`` (the system whose identical answer to this question was judged:
  its verdict is reused and ``judge_ms`` is left out, see :class:`memdesk.eval.judging.SharedVerdicts`),
  ``answer_skipped`` (why a system was not answered);
- timings in milliseconds: ``search_ms`` (``Memory.evidence``), ``answer_ms``, ``judge_ms``,
  ``total_ms`` (search + answer).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

#: One retrieved record: the initial of its memory type, its score, its provenance message ids.
HitRef = tuple[str, float, list[str]]


class QuestionResult(BaseModel):
    """One (system, question) evaluation; see the module docstring for each field."""

    model_config = ConfigDict(extra="ignore")

    system: str
    question_id: str
    conversation_id: str
    category: str
    abstention: bool = False
    retrieval_scored: bool = True
    sweep: bool = False
    k: int
    K: int

    n_hits: int = 0
    hits: list[HitRef] | None = None
    evidence_tokens: int = 0
    containment: float | None = None
    recall: dict[str, float | None] | None = None
    session_recall: dict[str, dict[str, float] | None] | None = None
    precision_at_1: float | None = None
    reciprocal_rank: float | None = None

    answer: str | None = None
    answer_skipped: str | None = None
    abstained: bool | None = None
    f1: float | None = None
    bleu1: float | None = None
    judge: bool | None = None
    judge_label: str | None = None
    judge_reason: str | None = None
    judge_error: str | None = None
    judge_shared: str | None = None

    search_ms: float | None = None
    answer_ms: float | None = None
    judge_ms: float | None = None
    total_ms: float | None = None

    @property
    def answered(self) -> bool:
        """Whether a chat model answered this question for this system."""
        return self.answer is not None

    @property
    def key(self) -> tuple[str, str]:
        """(system, question id): what a resumed run skips when it is already in the file."""
        return self.system, self.question_id
