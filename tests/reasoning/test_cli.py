"""The reasoning commands end to end on real data with the hashing embedder (no chat model)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from memdesk.reasoning.eval_command import reasoning_command
from memdesk.reasoning.mac_commands import bank_group


def test_bank_build_refuses_overlap_then_drops_and_resumes(tmp_path: Path, data_root: Path) -> None:
    runner = CliRunner()
    store = f"sqlite:///{tmp_path / 'banks.db'}"
    args = ["build", "--bench", "mmlu-sci", "--store", store, "--embedder", "hashing", "--data-dir", str(data_root), "--quiet"]
    refused = runner.invoke(bank_group, args)
    assert refused.exit_code == 2 and "DataOverlapError" in refused.output and "college_physics" in refused.output
    built = runner.invoke(bank_group, [*args, "--drop-overlap", "--json"])
    assert built.exit_code == 0, built.output
    report = json.loads(built.output)
    assert report["name"] == "mac-mmlu-sci-problem" and report["added"] == report["bank_size"] > 150
    assert len(report["dropped_overlap"]) == 6 and report["absent_traces"] == report["added"]
    again = json.loads(runner.invoke(bank_group, [*args, "--drop-overlap", "--json"]).output)
    assert again["added"] == 0 and again["bank_size"] == report["bank_size"]
    info = runner.invoke(bank_group, ["info", "--store", store, "--name", "mac-mmlu-sci-problem"])
    assert info.exit_code == 0 and json.loads(info.output)["embedding_kind"] == "problem"


def test_bank_build_for_a_tenant_is_served_by_the_banks_api(tmp_path: Path, data_root: Path) -> None:
    from memdesk.embed import HashingEmbedder
    from memdesk.reasoning import ReasoningBanks
    from memdesk.records import Scope
    from memdesk.store import open_store

    store = f"sqlite:///{tmp_path / 'server.db'}"
    args = ["build", "--bench", "mmlu-sci", "--store", store, "--embedder", "hashing", "--data-dir", str(data_root),
            "--quiet", "--drop-overlap", "--limit", "20", "--user", "ana", "--json"]  # fmt: skip
    built = CliRunner().invoke(bank_group, args)
    assert built.exit_code == 0, built.output
    info = CliRunner().invoke(bank_group, ["info", "--store", store, "--name", "mac-mmlu-sci-problem", "--user", "ana"])
    assert info.exit_code == 0 and json.loads(info.output)["owner"] == {"user_id": "ana", "agent_id": None, "run_id": None}
    opened = open_store(store)
    try:
        banks = ReasoningBanks(opened, HashingEmbedder())
        (bank,) = banks.list_banks(scope=Scope(user_id="ana"))
        assert (bank.name, bank.benchmark, bank.answer_kind.value, bank.entries) == ("mac-mmlu-sci-problem", "mmlu-sci", "mc", 20)
        got = banks.retrieve_examples(bank.name, "Which planet is largest?", scope=Scope(user_id="ana"), k=3)
        assert len(got.examples) == 3 and got.examples[0].content.startswith("Answer: ")  # MMLU has no solutions
        assert banks.list_banks(scope=Scope(user_id="bob")) == []
    finally:
        opened.close()


def test_eval_reasoning_retrieval_only(tmp_path: Path, data_root: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(
        reasoning_command,
        [
            "--bench", "mmlu-sci", "--store", f"sqlite:///{tmp_path / 'b.db'}", "--embedder", "hashing",
            "--data-dir", str(data_root), "--drop-overlap", "--retrieval-only", "--k", "1,5", "--limit", "200",
            "--quiet", "--out", str(out),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runs"] == [] and [q["k"] for q in summary["retrieval"]] == [1, 5]
    q5 = summary["retrieval"][1]
    assert q5["n_queries"] == 200 and q5["n_groups"] == 8
    assert q5["same_group_at_k"] > q5["random_uniform"]  # even hashed words beat chance on subjects
    assert summary["bank"]["entries"] > 150
    assert (out / "report.md").exists()


def test_eval_reasoning_without_a_model_explains(tmp_path: Path, data_root: Path) -> None:
    result = CliRunner().invoke(
        reasoning_command,
        ["--bench", "gsm8k", "--memory", "off", "--data-dir", str(data_root), "--out", str(tmp_path / "x"),
         "--store", f"sqlite:///{tmp_path / 'b.db'}"],
    )  # fmt: skip
    assert result.exit_code == 2 and "no chat model" in result.output
