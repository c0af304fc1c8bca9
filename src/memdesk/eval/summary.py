"""Aggregates of ``results.jsonl`` rows: what ``summary.json`` holds.

``summary.json`` keys:

- ``benchmark``, ``data``, ``config`` (embedder, processor, k, K, cutoffs, answer/judge model,
  ``limit``, ``seed`` and ``sample``: how the questions were drawn), ``dataset`` (loader statistics:
  unresolved evidence ids, abstention items ...), ``n_questions``, ``question_ids`` (the questions
  evaluated, in file order unless ``config.order`` says otherwise);
- ``headline_categories``: the categories in ``overall`` (LoCoMo 1-4; LongMemEval all six types);
- ``systems.<name>``: ``spec`` (store, mode, k, K, sweep) and

  - ``overall``: a *block* over the headline categories,
  - ``by_category.<category>``: a block per category (LoCoMo ``adversarial`` included there and
    never in ``overall``),
  - ``abstention`` (LongMemEval): a block over the ``_abs`` items (answer metrics only);

- a *block* has ``n`` (questions), ``n_retrieval`` (questions with gold evidence, abstention left
  out), ``recall`` (mean fraction of gold evidence turns covered by the provenance of all retrieved
  records, i.e. at the system's K), ``recall@5/@10/@25`` (first N hits), ``session_recall`` and
  ``session_recall@N`` each as ``{"any", "all", "fraction"}``, ``containment`` (mean share of the
  normalized gold answer found in the evidence text), ``median_evidence_tokens``,
  ``mean_evidence_tokens`` (cl100k_base), ``search_latency_ms`` and ``total_latency_ms`` as
  ``{"p50", "p95", "mean"}``, and with an LLM ``f1``, ``bleu1``, ``judge`` (means; items whose judge never gave a valid verdict are
  left out and counted in ``judge_failures``), ``n_answered``;
  a metric with no data is null; full context has no cut-off recall and no search latency;
- ``sweep``: one row per typed k/K configuration (``k``, ``K``, ``recall``, ``recall@N``,
  ``median_evidence_tokens``, ``mean_evidence_tokens``);
- ``targets``: the project's targets for the typed system, the measured value and the gap;
- ``stages``: the cumulative time and token account (ingest per store with embedding seconds and
  cache hits, search and answer seconds per system, evidence tokens, wall seconds, and with an LLM
  ``llm.<operation>`` calls, prompt/completion tokens, latency and cost from the chat model's ledger).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

from . import metrics as M
from .datasets import EvalDataset, EvalQuestion
from .systems import SystemSpec

#: Targets of the typed system (issue #4).
LOCOMO_RECALL_TARGET = 0.95
LOCOMO_TOKENS_TARGET = 900
LME_SESSION_RECALL10_TARGET = 0.97


def _r(x: float | None, nd: int = 4) -> float | None:
    return None if x is None else round(float(x), nd)


def _lat(values: Iterable[float | None]) -> dict[str, float | None]:
    vals = [v for v in values if v is not None]
    return {"p50": _r(M.percentile(vals, 50), 2), "p95": _r(M.percentile(vals, 95), 2), "mean": _r(M.mean(vals), 2)}


def block(rows: Sequence[dict[str, Any]], cutoffs: Sequence[int]) -> dict[str, Any]:
    """The metrics of one group of result rows (see the module docstring)."""
    scored = [r for r in rows if r.get("retrieval_scored") and r.get("recall")]
    out: dict[str, Any] = {"n": len(rows), "n_retrieval": len(scored)}
    out["recall"] = _r(M.mean(r["recall"].get("all") for r in scored))
    for c in cutoffs:
        out[f"recall@{c}"] = _r(M.mean(r["recall"].get(str(c)) for r in scored))
    for key in ["all", *map(str, cutoffs)]:
        vals = [r["session_recall"].get(key) for r in scored if r.get("session_recall")]
        vals = [v for v in vals if v is not None]
        name = "session_recall" if key == "all" else f"session_recall@{key}"
        out[name] = (
            {m: _r(M.mean(v[m] for v in vals)) for m in ("any", "all", "fraction")} if vals else None
        )
    out["containment"] = _r(M.mean(r.get("containment") for r in rows))
    tokens = [r["evidence_tokens"] for r in rows if r.get("evidence_tokens") is not None]
    out["median_evidence_tokens"] = _r(M.median(tokens), 1)
    out["mean_evidence_tokens"] = _r(M.mean(tokens), 1)
    out["search_latency_ms"] = _lat(r.get("search_ms") for r in rows)
    out["total_latency_ms"] = _lat(r.get("total_ms") for r in rows)
    answered = [r for r in rows if "answer" in r]
    if answered:
        out["n_answered"] = len(answered)
        out["f1"] = _r(M.mean(r.get("f1") for r in answered))
        out["bleu1"] = _r(M.mean(r.get("bleu1") for r in answered))
        out["judge"] = _r(M.mean(None if r.get("judge") is None else float(r["judge"]) for r in answered))
        out["judge_failures"] = sum(1 for r in answered if r.get("judge_error"))
    return out


def summarize(
    rows: Sequence[dict[str, Any]],
    dataset: EvalDataset,
    *,
    systems: Sequence[SystemSpec],
    questions: Sequence[EvalQuestion],
    config: dict[str, Any],
    account: dict[str, float] | None = None,
) -> dict[str, Any]:
    """The summary of a run (the rows of its questions and systems)."""
    cutoffs = config.get("cutoffs") or [5, 10, 25]
    by_system: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_system[r["system"]].append(r)
    headline = set(dataset.headline_categories)
    out: dict[str, Any] = {
        "benchmark": dataset.name,
        "data": dataset.path,
        "config": config,
        "dataset": dataset.stats,
        "n_questions": len(questions),
        "question_ids": [q.id for q in questions],
        "headline_categories": dataset.headline_categories,
        "systems": {},
        "sweep": [],
    }
    for spec in systems:
        srows = by_system.get(spec.name, [])
        entry: dict[str, Any] = {
            "spec": {"store": spec.store, "mode": spec.mode, "k": spec.k, "K": spec.K, "sweep": spec.sweep, "kind": spec.kind},
            "overall": block([r for r in srows if r["category"] in headline], cutoffs),
            "by_category": {
                c: block([r for r in srows if r["category"] == c], cutoffs)
                for c in dataset.categories
                if any(r["category"] == c for r in srows)
            },
        }
        if dataset.name == "longmemeval":
            entry["abstention"] = block([r for r in srows if r.get("abstention")], cutoffs)
        if spec.sweep:
            ov = entry["overall"]
            out["sweep"].append(
                {
                    "name": spec.name,
                    "k": spec.k,
                    "K": spec.K,
                    "recall": ov["recall"],
                    **{f"recall@{c}": ov[f"recall@{c}"] for c in cutoffs},
                    "session_recall@10": ov.get("session_recall@10"),
                    "median_evidence_tokens": ov["median_evidence_tokens"],
                    "mean_evidence_tokens": ov["mean_evidence_tokens"],
                }
            )
        out["systems"][spec.name] = entry
    out["targets"] = targets(out)
    out["stages"] = stages(account or {})
    return out


def targets(summary: dict[str, Any]) -> dict[str, Any]:
    """The typed system's targets, measured values and gaps (positive gap = short of the target)."""
    typed = summary["systems"].get("memdesk-typed")
    if typed is None:
        return {}
    ov = typed["overall"]
    if summary["benchmark"] == "locomo":
        recall, tokens = ov["recall"], ov["median_evidence_tokens"]
        return {
            "recall": {"target": LOCOMO_RECALL_TARGET, "measured": recall,
                       "gap": None if recall is None else _r(LOCOMO_RECALL_TARGET - recall)},
            "median_evidence_tokens": {"target": LOCOMO_TOKENS_TARGET, "measured": tokens,
                                       "gap": None if tokens is None else _r(tokens - LOCOMO_TOKENS_TARGET, 1)},
            "met": recall is not None and tokens is not None and recall >= LOCOMO_RECALL_TARGET and tokens <= LOCOMO_TOKENS_TARGET,
        }
    sr = ov.get("session_recall@10") or {}
    frac, anyv = sr.get("fraction"), sr.get("any")
    return {
        "session_recall@10": {
            "target": LME_SESSION_RECALL10_TARGET,
            "measured_fraction": frac,
            "measured_any": anyv,
            "measured_all": sr.get("all"),
            "gap_fraction": None if frac is None else _r(LME_SESSION_RECALL10_TARGET - frac),
        },
        "met": frac is not None and frac >= LME_SESSION_RECALL10_TARGET,
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
