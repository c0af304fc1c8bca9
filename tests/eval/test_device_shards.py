"""bench/device/shards.py: shard runs merged give the summary of one run over the same questions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from memdesk.embed import HashingEmbedder
from memdesk.eval import run_eval
from memdesk.settings import Settings

from .conftest import locomo_sample, write_lme

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("device_shards", ROOT / "bench" / "device" / "shards.py")
shards = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(shards)  # type: ignore[union-attr]

SYSTEMS = ["memdesk-typed", "flat-rag"]
#: What a merge must reproduce exactly (latencies differ between any two runs).
METRICS = ("n", "n_retrieval", "recall", "recall_at", "precision_at_1", "mrr_at_10", "session_recall",
           "session_recall_at", "containment", "median_evidence_tokens", "mean_evidence_tokens")  # fmt: skip


def _two_conversation_locomo(tmp: Path) -> Path:
    first = locomo_sample()[0]
    second = json.loads(json.dumps(first).replace("Biscuit", "Pepper").replace("Paris", "Lisbon"))
    second["sample_id"] = "conv-y"
    path = tmp / "locomo_two.json"
    path.write_text(json.dumps([first, second]), encoding="utf-8")
    return path


def _run(benchmark: str, data: Path, out: Path, categories=None):
    return run_eval(benchmark, data, out, settings=Settings(), systems=SYSTEMS, embedder=HashingEmbedder(128),
                    progress=False, sweep=False, report=False, categories=categories)  # fmt: skip


def _metrics(summary) -> dict:
    return {
        name: {part: {m: getattr(block, m) for m in METRICS} for part, block in
               [("overall", e.overall), *e.by_category.items()]}
        for name, e in summary.systems.items()
    }  # fmt: skip


def _split(benchmark: str, data: Path, out: Path, n: int, categories: str | None = None, limit: int | None = None):
    argv = ["split", benchmark, str(data), str(out), "--shards", str(n)]
    argv += ["--categories", categories] if categories else []
    argv += ["--limit", str(limit)] if limit else []
    shards.main(argv)
    return json.loads((out / "manifest.json").read_text())


def test_assign_puts_the_largest_conversations_on_the_lightest_shards():
    assert shards.assign({"a": 5, "b": 3, "c": 3, "d": 1}, 2) == [["a", "d"], ["b", "c"]]
    assert shards.assign({"a": 1, "b": 2}, 5) == [["b"], ["a"]]  # no empty shards
    with pytest.raises(SystemExit):
        shards.assign({"a": 1}, 0)


@pytest.mark.parametrize("benchmark", ["locomo", "longmemeval"])
def test_merged_shard_runs_equal_one_run(benchmark, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    data = _two_conversation_locomo(tmp_path) if benchmark == "locomo" else write_lme(tmp_path)
    categories = "headline" if benchmark == "locomo" else None
    whole = _run(benchmark, data, tmp_path / "whole", categories=[categories] if categories else None)

    manifest = _split(benchmark, data, tmp_path / "split", 2, categories)
    assert len(manifest["shards"]) == 2
    assert sorted(manifest["question_ids"]) == sorted(whole.question_ids)
    runs = []
    for i, entry in enumerate(manifest["shards"]):
        runs.append(tmp_path / "runs" / str(i))
        _run(benchmark, tmp_path / "split" / entry["file"], runs[-1], categories=[categories] if categories else None)
    merged = shards.merge_runs(tmp_path / "split" / "manifest.json", runs, tmp_path / "merged", wall_seconds=3.0, cores=2)

    assert sorted(merged.question_ids) == sorted(whole.question_ids)
    assert _metrics(merged) == _metrics(whole)
    assert merged.config["sharding"]["dropped_questions"] == 0
    n_conversations = sum(len(s["conversations"]) for s in manifest["shards"])
    assert merged.stages["ingest"]["raw"]["scopes"] == n_conversations  # the shards' accounts summed
    for name in ("summary.json", "results.jsonl", "report.md", "table.md"):
        assert (tmp_path / "merged" / name).exists()
    table = (tmp_path / "merged" / "table.md").read_text()
    assert "| memdesk-typed |" in table and "Wall time 3 s on 2 cores" in table


def test_a_shard_that_did_not_finish_drops_its_questions(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    data = write_lme(tmp_path)
    manifest = _split("longmemeval", data, tmp_path / "split", 3)
    runs = []
    for i, entry in enumerate(manifest["shards"]):
        runs.append(tmp_path / "runs" / str(i))
        _run("longmemeval", tmp_path / "split" / entry["file"], runs[-1])
    # the last shard was stopped after its first system: one row of its question is missing
    results = runs[-1] / "results.jsonl"
    results.write_text(results.read_text().splitlines()[0] + "\n")
    (runs[-1] / "summary.json").unlink()
    merged = shards.merge_runs(tmp_path / "split" / "manifest.json", runs, tmp_path / "merged")
    assert merged.n_questions == 2
    assert merged.config["sharding"]["dropped_questions"] == 1
    assert manifest["shards"][-1]["conversations"][0] not in merged.question_ids


def test_limit_selects_the_harness_sample(tmp_path):
    data = write_lme(tmp_path)
    manifest = _split("longmemeval", data, tmp_path / "split", 5, limit=2)
    from memdesk.eval import load_dataset
    from memdesk.eval.sampling import stratified_sample

    expected = [q.id for q in stratified_sample(load_dataset("longmemeval", data).questions, 2, 0)]
    assert manifest["question_ids"] == expected
    assert sorted(c for s in manifest["shards"] for c in s["conversations"]) == sorted(expected)


def test_ids_select_exactly_the_named_questions(tmp_path):
    data = write_lme(tmp_path)
    ids = tmp_path / "ids.txt"
    ids.write_text("q3\nq1\n")
    shards.main(["split", "longmemeval", str(data), str(tmp_path / "split"), "--shards", "4", "--ids", str(ids)])
    manifest = json.loads((tmp_path / "split" / "manifest.json").read_text())
    assert manifest["question_ids"] == ["q1", "q3"]  # file order
    ids.write_text("q1 nope\n")
    with pytest.raises(SystemExit, match="not questions of the selection"):
        shards.main(["split", "longmemeval", str(data), str(tmp_path / "s2"), "--shards", "2", "--ids", str(ids)])
    with pytest.raises(SystemExit, match="exclude each other"):
        shards.main(["split", "longmemeval", str(data), str(tmp_path / "s3"), "--shards", "2", "--ids", str(ids),
                     "--limit", "1"])  # fmt: skip
