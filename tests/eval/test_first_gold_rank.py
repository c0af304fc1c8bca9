"""LoCoMo and LongMemEval rows and summaries carry precision@1 and MRR@10 of the first gold turn."""

from __future__ import annotations

import json

import pytest

from memdesk.embed import HashingEmbedder
from memdesk.eval import run_eval
from memdesk.settings import Settings


@pytest.mark.parametrize("benchmark", ["locomo", "longmemeval"])
def test_rows_and_summary_carry_precision_at_1_and_mrr(benchmark, locomo_file, lme_file, tmp_path):
    data = locomo_file if benchmark == "locomo" else lme_file
    out = tmp_path / "run"
    summary = run_eval(benchmark, data, out, settings=Settings(), systems=["flat-rag", "full-context"],
                       embedder=HashingEmbedder(128), progress=False, k=5, K=4, sweep=False)  # fmt: skip
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines() if x.strip()]
    flat = [r for r in rows if r["system"] == "flat-rag" and r["retrieval_scored"]]
    assert flat
    gold = {q.id: set(q.evidence_ids) for q in _questions(benchmark, data)}
    for r in flat:  # flat RAG: one raw turn per hit, so the first gold hit is visible in the row's hits
        ranks = [i for i, h in enumerate(r["hits"], 1) if gold[r["question_id"]] & set(h[2])]
        assert r["precision_at_1"] == (1.0 if ranks[:1] == [1] else 0.0)
        assert r["reciprocal_rank"] == (1 / ranks[0] if ranks else 0.0)
    assert all("precision_at_1" not in r for r in rows if r["system"] == "full-context")
    o = summary.systems["flat-rag"].overall
    headline = set(summary.headline_categories)
    scored = [r for r in flat if r["category"] in headline]
    assert o.precision_at_1 == round(sum(r["precision_at_1"] for r in scored) / len(scored), 4)
    assert o.mrr_at_10 == round(sum(r["reciprocal_rank"] for r in scored) / len(scored), 4)
    assert summary.systems["full-context"].overall.precision_at_1 is None
    report = (out / "report.md").read_text()
    assert "| P@1 | MRR@10 |" in report and "## Precision@1 / MRR@10 of the first gold turn by category" in report


def _questions(benchmark, data):
    from memdesk.eval import load_dataset

    return load_dataset(benchmark, data).questions
