"""Aggregates of a run's :class:`~memdesk.eval.rows.QuestionResult` rows: the models of ``summary.json``.

``summary.json`` (an :class:`EvalSummary`) keys:

- ``benchmark``, ``data``, ``config`` (embedder, processor, k, K, cutoffs, answer/judge model,
  ``limit``, ``seed`` and ``sample``: how the questions were drawn, ``order``, and ``default``: the
  store, k, K, hybrid flag and behaviour settings of ``memdesk-default``), ``dataset`` (loader
  statistics: unresolved evidence ids, abstention items ...), ``n_questions``, ``question_ids``
  (the questions evaluated);
- ``headline_categories``: the categories in ``overall`` (LoCoMo 1-4; LongMemEval all six types);
- ``systems.<name>``: ``spec`` (store, mode, k, K, sweep, kind, hybrid) and

  - ``overall``: a *block* over the headline categories,
  - ``by_category.<category>``: a block per category (LoCoMo ``adversarial`` included there and
    never in ``overall``),
  - ``abstention`` (LongMemEval): a block over the ``_abs`` items (answer metrics only);

- a *block* (:class:`MetricBlock`) has ``n`` (questions), ``n_retrieval`` (questions with gold
  evidence, abstention left out), ``recall`` (mean fraction of gold evidence turns covered by the
  provenance of all retrieved records, i.e. at the system's K), ``recall@5/@10/@25`` (first N
  hits), ``precision_at_1`` (share of questions whose first hit's provenance holds a gold turn) and
  ``mrr_at_10`` (mean reciprocal rank of the first hit holding a gold turn, 0 beyond 10; both null for
  full context), ``session_recall`` and ``session_recall@N`` each as ``{"any", "all", "fraction"}``,
  ``containment`` (mean share of the normalized gold answer found in the evidence text),
  ``median_evidence_tokens``, ``mean_evidence_tokens`` (cl100k_base), ``search_latency_ms`` and
  ``total_latency_ms`` as ``{"p50", "p95", "mean"}``, and with an LLM ``n_answered``, ``f1``,
  ``bleu1``, ``judge`` (means; items whose judge never gave a valid verdict are left out and counted
  in ``judge_failures``), ``abstentions`` (answers that abstain), ``abstentions_on_answerable``
  (of those, on questions that have an answer), ``exact_answers`` (judged answers with F1 1: the
  gold answer's words exactly, or an abstention on an abstention item) and ``exact_judged_wrong``
  (of those, the judge said WRONG: a check on the judge itself), ``answer_latency_ms`` and
  ``judge_latency_ms`` (``{"p50", "p95", "mean"}``); a metric with no data is null; full context has no cut-off recall
  and no search latency. How abstentions are scored: :mod:`memdesk.eval.metrics`;
- ``sweep``: one row per typed k/K configuration (``k``, ``K``, ``recall``, ``recall@N``,
  ``median_evidence_tokens``, ``mean_evidence_tokens``);
- ``targets``: by system (``memdesk-default``, ``memdesk-typed``), the project's targets for it, the measured
  value and the gap;
- ``stages``: the cumulative time and token account (ingest per store with embedding seconds and
  cache hits, search and answer seconds per system, evidence tokens, wall seconds, and with an LLM
  ``llm.<operation>`` calls, prompt/completion tokens, latency and cost from the chat model's ledger).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_serializer, model_validator

from . import metrics as M
from .datasets import EvalDataset, EvalQuestion
from .rows import QuestionResult
from .systems import SystemSpec

#: Targets of the typed system (issue #4).
LOCOMO_RECALL_TARGET = 0.95
LOCOMO_TOKENS_TARGET = 900
LME_SESSION_RECALL10_TARGET = 0.97
TYPED_TARGETS = {"locomo_recall": LOCOMO_RECALL_TARGET, "locomo_tokens": LOCOMO_TOKENS_TARGET,
                 "lme_session_recall10": LME_SESSION_RECALL10_TARGET}  # fmt: skip
#: Targets of the default read path, what a user gets without flags (issue #13).
DEFAULT_TARGETS = {"locomo_recall": 0.90, "locomo_tokens": 900, "lme_session_recall10": 0.97}


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


class Latency(BaseModel):
    """Milliseconds: median, 95th percentile and mean (None without data)."""

    p50: float | None = None
    p95: float | None = None
    mean: float | None = None

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Latency:
        vals = [v for v in values if v is not None]
        return cls(p50=_r(M.percentile(vals, 50), 2), p95=_r(M.percentile(vals, 95), 2), mean=_r(M.mean(vals), 2))


class SessionRecall(BaseModel):
    any: float | None = None
    all: float | None = None
    fraction: float | None = None


class MetricBlock(BaseModel):
    """The metrics of one group of rows (see the module docstring). Cut-off metrics are written as
    ``recall@N`` / ``session_recall@N`` keys."""

    model_config = ConfigDict(extra="ignore")

    n: int
    n_retrieval: int = 0
    recall: float | None = None
    recall_at: dict[int, float | None] = Field(default_factory=dict)
    precision_at_1: float | None = None
    mrr_at_10: float | None = None
    session_recall: SessionRecall | None = None
    session_recall_at: dict[int, SessionRecall | None] = Field(default_factory=dict)
    containment: float | None = None
    median_evidence_tokens: float | None = None
    mean_evidence_tokens: float | None = None
    search_latency_ms: Latency = Field(default_factory=Latency)
    total_latency_ms: Latency = Field(default_factory=Latency)
    n_answered: int | None = None
    f1: float | None = None
    bleu1: float | None = None
    judge: float | None = None
    judge_failures: int | None = None
    abstentions: int | None = None
    abstentions_on_answerable: int | None = None
    exact_answers: int | None = None
    exact_judged_wrong: int | None = None
    answer_latency_ms: Latency | None = None
    judge_latency_ms: Latency | None = None

    @model_validator(mode="before")
    @classmethod
    def _gather_cutoffs(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for prefix, field in (("recall@", "recall_at"), ("session_recall@", "session_recall_at")):
                found = {int(k[len(prefix) :]): data.pop(k) for k in list(data) if k.startswith(prefix)}
                if found:
                    data[field] = {**found, **data.get(field, {})}
        return data

    @model_serializer(mode="wrap")
    def _spread_cutoffs(self, handler: Any) -> dict[str, Any]:
        out = handler(self)
        recall_at, session_at = out.pop("recall_at", {}), out.pop("session_recall_at", {})
        ordered: dict[str, Any] = {}
        for key, value in out.items():
            ordered[key] = value
            if key == "recall":
                ordered.update({f"recall@{c}": v for c, v in recall_at.items()})
            if key == "session_recall":
                ordered.update({f"session_recall@{c}": v for c, v in session_at.items()})
        if self.n_answered is None:  # an offline run has no answer metrics at all
            for key in ("n_answered", "f1", "bleu1", "judge", "judge_failures", "abstentions",
                        "abstentions_on_answerable", "exact_answers", "exact_judged_wrong", "answer_latency_ms",
                        "judge_latency_ms"):
                ordered.pop(key, None)
        return ordered

    @classmethod
    def of(cls, rows: Sequence[QuestionResult], cutoffs: Sequence[int]) -> MetricBlock:
        scored = [r for r in rows if r.retrieval_scored and r.recall]
        block = cls(n=len(rows), n_retrieval=len(scored))
        block.recall = _r(M.mean(r.recall.get("all") for r in scored if r.recall))
        block.recall_at = {c: _r(M.mean(r.recall.get(str(c)) for r in scored if r.recall)) for c in cutoffs}
        block.precision_at_1 = _r(M.mean(r.precision_at_1 for r in scored))
        block.mrr_at_10 = _r(M.mean(r.reciprocal_rank for r in scored))
        for key in [None, *cutoffs]:
            vals = [v for r in scored if r.session_recall and (v := r.session_recall.get("all" if key is None else str(key)))]
            sr = SessionRecall(**{m: _r(M.mean(v[m] for v in vals)) for m in ("any", "all", "fraction")}) if vals else None
            if key is None:
                block.session_recall = sr
            else:
                block.session_recall_at[key] = sr
        block.containment = _r(M.mean(r.containment for r in rows))
        tokens = [r.evidence_tokens for r in rows]
        block.median_evidence_tokens = _r(M.median(tokens), 1)
        block.mean_evidence_tokens = _r(M.mean(tokens), 1)
        block.search_latency_ms = Latency.of(r.search_ms for r in rows)
        block.total_latency_ms = Latency.of(r.total_ms for r in rows)
        answered = [r for r in rows if r.answered]
        if answered:
            block.n_answered = len(answered)
            block.f1 = _r(M.mean(r.f1 for r in answered))
            block.bleu1 = _r(M.mean(r.bleu1 for r in answered))
            block.judge = _r(M.mean(None if r.judge is None else float(r.judge) for r in answered))
            block.judge_failures = sum(1 for r in answered if r.judge_error)
            block.abstentions = sum(1 for r in answered if r.abstained)
            block.abstentions_on_answerable = sum(1 for r in answered if r.abstained and not r.abstention)
            exact = [r for r in answered if r.f1 == 1.0 and r.judge is not None]
            block.exact_answers, block.exact_judged_wrong = len(exact), sum(1 for r in exact if not r.judge)
            block.answer_latency_ms = Latency.of(r.answer_ms for r in answered)
            block.judge_latency_ms = Latency.of(r.judge_ms for r in answered)
        return block

    def recall_cut(self, c: int) -> float | None:
        return self.recall_at.get(c)

    def session_cut(self, c: int, metric: str = "fraction") -> float | None:
        sr = self.session_recall_at.get(c)
        return None if sr is None else getattr(sr, metric)


class SpecSummary(BaseModel):
    model_config = ConfigDict(extra="ignore")

    store: str | None
    mode: str
    k: int
    K: int
    sweep: bool
    kind: str
    hybrid: bool = False


class SystemSummary(BaseModel):
    model_config = ConfigDict(extra="ignore")

    spec: SpecSummary
    overall: MetricBlock
    by_category: dict[str, MetricBlock]
    abstention: MetricBlock | None = None

    @model_serializer(mode="wrap")
    def _drop_empty_abstention(self, handler: Any) -> dict[str, Any]:
        out = handler(self)
        if out.get("abstention") is None:
            out.pop("abstention", None)
        return out


class SweepRow(BaseModel):
    """One typed k/K configuration of the sweep (retrieval only)."""

    model_config = ConfigDict(extra="ignore")

    name: str
    k: int
    K: int
    block: MetricBlock

    @model_validator(mode="before")
    @classmethod
    def _flat(cls, data: Any) -> Any:
        if isinstance(data, dict) and "block" not in data:
            rest = {k: v for k, v in data.items() if k not in ("name", "k", "K")}
            return {"name": data.get("name"), "k": data.get("k"), "K": data.get("K"), "block": {"n": 0, **rest}}
        return data

    @model_serializer(mode="plain")
    def _write(self) -> dict[str, Any]:
        b = self.block
        return {
            "name": self.name, "k": self.k, "K": self.K, "recall": b.recall,
            **{f"recall@{c}": v for c, v in b.recall_at.items()},
            "session_recall@10": None if b.session_recall_at.get(10) is None else b.session_recall_at[10].model_dump(),
            "median_evidence_tokens": b.median_evidence_tokens, "mean_evidence_tokens": b.mean_evidence_tokens,
        }  # fmt: skip


class EvalSummary(BaseModel):
    """What ``summary.json`` holds (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    benchmark: str
    data: str
    config: dict[str, Any]
    dataset: dict[str, int] = Field(default_factory=dict)
    n_questions: int
    question_ids: list[str] = Field(default_factory=list)
    headline_categories: list[str]
    systems: dict[str, SystemSummary]
    sweep: list[SweepRow] = Field(default_factory=list)
    targets: dict[str, Any] = Field(default_factory=dict)
    stages: dict[str, Any] = Field(default_factory=dict)

    @property
    def cutoffs(self) -> list[int]:
        return list(self.config.get("cutoffs") or [5, 10, 25])


def summarize(
    rows: Sequence[QuestionResult],
    dataset: EvalDataset,
    *,
    systems: Sequence[SystemSpec],
    questions: Sequence[EvalQuestion],
    config: dict[str, Any],
    account: dict[str, float] | None = None,
) -> EvalSummary:
    """The summary of a run (the rows of its questions and systems)."""
    cutoffs = config.get("cutoffs") or [5, 10, 25]
    by_system: dict[str, list[QuestionResult]] = defaultdict(list)
    for r in rows:
        by_system[r.system].append(r)
    headline = set(dataset.headline_categories)
    out = EvalSummary(
        benchmark=dataset.name, data=dataset.path, config=config, dataset=dataset.stats, n_questions=len(questions),
        question_ids=[q.id for q in questions], headline_categories=dataset.headline_categories, systems={},
    )  # fmt: skip
    for spec in systems:
        srows = by_system.get(spec.name, [])
        entry = SystemSummary(
            spec=SpecSummary(**spec.model_dump(include={"store", "mode", "k", "K", "sweep", "kind", "hybrid"})),
            overall=MetricBlock.of([r for r in srows if r.category in headline], cutoffs),
            by_category={
                c: MetricBlock.of([r for r in srows if r.category == c], cutoffs)
                for c in dataset.categories
                if any(r.category == c for r in srows)
            },
            abstention=MetricBlock.of([r for r in srows if r.abstention], cutoffs) if dataset.name == "longmemeval" else None,
        )
        if spec.sweep:
            out.sweep.append(SweepRow(name=spec.name, k=spec.k, K=spec.K, block=entry.overall))
        out.systems[spec.name] = entry
    out.targets = targets(out)
    out.stages = stages(account or {})
    return out


def targets(summary: EvalSummary) -> dict[str, Any]:
    """Each targeted system's targets, measured values and gaps (positive gap = short of the target), by system:
    ``memdesk-default`` against :data:`DEFAULT_TARGETS`, ``memdesk-typed`` against :data:`TYPED_TARGETS`."""
    out = {}
    for name, goals in (("memdesk-default", DEFAULT_TARGETS), ("memdesk-typed", TYPED_TARGETS)):
        system = summary.systems.get(name)
        if system is not None:
            out[name] = _system_targets(summary.benchmark, system.overall, goals)
    return out


def _system_targets(benchmark: str, ov: MetricBlock, goals: dict[str, float]) -> dict[str, Any]:
    if benchmark == "locomo":
        recall, tokens = ov.recall, ov.median_evidence_tokens
        target_recall, target_tokens = goals["locomo_recall"], goals["locomo_tokens"]
        return {
            "recall": {"target": target_recall, "measured": recall,
                       "gap": None if recall is None else _r(target_recall - recall)},
            "median_evidence_tokens": {"target": target_tokens, "measured": tokens,
                                       "gap": None if tokens is None else _r(tokens - target_tokens, 1)},
            "met": recall is not None and tokens is not None and recall >= target_recall and tokens <= target_tokens,
        }  # fmt: skip
    sr = ov.session_recall_at.get(10) or SessionRecall()
    target = goals["lme_session_recall10"]
    return {
        "session_recall@10": {
            "target": target,
            "measured_fraction": sr.fraction,
            "measured_any": sr.any,
            "measured_all": sr.all,
            "gap_fraction": None if sr.fraction is None else _r(target - sr.fraction),
        },
        "met": sr.fraction is not None and sr.fraction >= target,
    }


def stages(account: dict[str, float]) -> dict[str, Any]:
    """The flat ``a.b.c`` account turned into nested dicts."""
    out: dict[str, Any] = {}
    for key in sorted(account):
        node = out
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = account[key]
    return out
