"""The ``eval`` command group on the small fixtures (hashing embedder)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from memdesk.eval.eval_commands import eval_group


def test_eval_locomo_command_and_report(locomo_file, tmp_path):
    out = tmp_path / "run"
    runner = CliRunner()
    result = runner.invoke(
        eval_group,
        ["locomo", "--data", str(locomo_file), "--out", str(out), "--embedder", "hashing", "--no-sweep",
         "--systems", "flat-rag,full-context", "--K", "3", "--quiet"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert "flat-rag" in result.output and "full-context" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["systems"]) == {"memdesk-default", "flat-rag", "full-context"}
    assert summary["config"]["K"] == 3 and summary["config"]["embedder"].startswith("hashing")
    assert summary["targets"]["memdesk-default"]["recall"]["target"] == 0.90
    summary["targets"] = {"recall": {"target": 0.95}}  # a summary written before the targets were kept by system
    (out / "summary.json").write_text(json.dumps(summary))
    (out / "report.md").unlink()
    result = runner.invoke(eval_group, ["report", str(out)], catch_exceptions=False)
    assert result.exit_code == 0 and "- memdesk-default: recall (categories 1-4) ≥ 0.9" in (out / "report.md").read_text()


def test_unknown_system_is_a_usage_error(locomo_file, tmp_path):
    result = CliRunner().invoke(
        eval_group,
        ["locomo", "--data", str(locomo_file), "--out", str(tmp_path / "r"), "--embedder", "hashing", "--systems", "nope", "--quiet"],
    )
    assert result.exit_code == 2 and result.output.startswith("error: UsageError: unknown system 'nope'")
