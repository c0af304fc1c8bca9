"""Optional extras are checked before a command does any work; missing plots never fail a finished run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.runtime import extras
from memdesk.errors import ConfigError


def test_missing_names_only_what_is_not_installed():
    assert extras.missing("json", "memdesk_no_such_module_xyz") == ["memdesk_no_such_module_xyz"]
    with pytest.raises(ConfigError, match=r"needs the eval extra: pip install 'memdesk\[eval\]' \(missing: memdesk_nope\)"):
        extras.require("eval", "this", ("memdesk_nope",))


@pytest.fixture
def without(monkeypatch):
    """Pretend some modules are not installed."""

    def hide(*names: str) -> None:
        real = extras.missing
        monkeypatch.setattr(extras, "missing", lambda *ms: [m for m in ms if m in names] + real(*[m for m in ms if m not in names]))

    return hide


@pytest.mark.parametrize("command", [["serve"], ["mcp"]])
def test_server_commands_say_which_extra_before_any_work(run, tmp_path, without, command):
    without("fastapi", "uvicorn", "mcp")
    r = run(*command, ok=False)
    assert r.exit_code == 2 and len(r.output.strip().splitlines()) == 1
    assert "pip install 'memdesk[server]'" in r.output
    assert not (tmp_path / "cli.db").exists()  # nothing opened, nothing created


def test_reasoning_eval_says_which_extra_before_any_work(run, tmp_path, without):
    without("sympy")
    r = run("eval", "reasoning", "--bench", "math500", "--out", str(tmp_path / "out"), "--llm-model", "m",
            "--llm-base-url", "http://127.0.0.1:9/v1", ok=False)
    assert r.exit_code == 2 and "pip install 'memdesk[eval]' (missing: sympy)" in r.output
    assert not (tmp_path / "out").exists()


def _tiny_locomo(path: Path) -> Path:
    """A LoCoMo-shaped file written for this test (two sessions, two questions)."""
    turns1 = [
        {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a grey cat called Mochi."},
        {"speaker": "Ben", "dia_id": "D1:2", "text": "Lovely! I have a parrot named Kiwi."},
    ]
    turns2 = [{"speaker": "Ana", "dia_id": "D2:1", "text": "Mochi now sleeps on the bookshelf."}]
    sample = {
        "sample_id": "tiny-1",
        "conversation": {
            "speaker_a": "Ana", "speaker_b": "Ben",
            "session_1_date_time": "10:00 am on 2 May, 2024", "session_1": turns1,
            "session_2_date_time": "9:30 am on 9 May, 2024", "session_2": turns2,
        },
        "qa": [
            {"question": "What is the name of Ana's cat?", "answer": "Mochi", "evidence": ["D1:1"], "category": 4},
            {"question": "What pet does Ben have?", "answer": "a parrot", "evidence": ["D1:2"], "category": 4},
        ],
    }
    path.write_text(json.dumps([sample]))
    return path


def test_an_eval_without_matplotlib_finishes_and_skips_plots_with_a_note(run, tmp_path, monkeypatch):
    monkeypatch.setattr(extras, "can_plot", lambda: False)
    data = _tiny_locomo(tmp_path / "tiny.json")
    out = tmp_path / "run"
    r = run("eval", "locomo", "--data", str(data), "--out", str(out), "--systems", "memdesk-typed", "--no-sweep",
            "--embedder", "hashing", "--quiet")
    assert r.stderr.splitlines()[0] == extras.PLOTS_SKIPPED  # said up front
    assert (out / "summary.json").exists() and extras.PLOTS_SKIPPED in (out / "report.md").read_text()
    assert not list(out.glob("*.png"))


def test_reasoning_report_without_matplotlib_notes_the_skipped_plots(tmp_path, monkeypatch):
    from memdesk.reasoning.harness import EvalConfig, RunSummary
    from memdesk.reasoning.methods import Method
    from memdesk.reasoning.run_report import write_outputs

    config = EvalConfig(bench="gsm8k", method=Method("cod"), memory=True)
    run = RunSummary(
        run_id=config.run_id, config=config, model="m", retriever="problem", n=2, n_errors=0, accuracy=0.5,
        mean_decode_tokens=40.0, mean_prompt_tokens=300.0, mean_memory_tokens=200.0, truncated=0, extraction={"boxed": 2},
        latency_ms=dict.fromkeys(("tag", "emb", "search", "serialize", "prefill", "decode", "model", "end_to_end"), 1.0),
        model_timing={"total": 2}, cost_usd=0.0,
    )
    monkeypatch.setattr(extras, "can_plot", lambda: False)
    paths = write_outputs(tmp_path, [run])
    assert set(paths) == {"summary", "report"} and extras.PLOTS_SKIPPED in paths["report"].read_text()


def test_the_core_imports_no_optional_extra():
    import subprocess
    import sys

    code = (
        "import sys, memdesk, memdesk.cli.app, memdesk.client.async_api\n"
        "bad = sorted({m.split('.')[0] for m in sys.modules} & {'langgraph', 'langchain_core', 'fastapi', 'mcp',"
        " 'uvicorn', 'psycopg', 'matplotlib', 'sympy', 'opentelemetry_sdk', 'xllamacpp', 'gguf'})\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
