"""The harness with a scripted chat model: paired runs, resume, summaries, report files, retrieval quality."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.embed import HashingEmbedder
from memdesk.llm.fake import ScriptedChatModel, ScriptedReply
from memdesk.reasoning.bank import MemoryBank
from memdesk.reasoning.bank_builder import BankBuilder
from memdesk.reasoning.datasets import AnswerKind, Benchmark, Problem
from memdesk.reasoning.harness import (
    EvalConfig,
    ReasoningHarness,
    load_results,
    sweep_configs,
)
from memdesk.reasoning.methods import MEMORY_HEADER, Method
from memdesk.reasoning.solved_examples import MemoryFormat
from memdesk.reasoning.run_report import write_outputs
from memdesk.reasoning.example_retrieval import VectorRetriever
from memdesk.reasoning.tags import ProblemRepresentation
from tests.reasoning.mac_fakes import user_text

BENCH = Benchmark("toy", AnswerKind.NUMBER, "Box the number.", lambda d: [], lambda d: [], "toy")


def bank_items() -> list[Problem]:
    rows = [
        ("apples", "Tom has 3 apples and buys 4 more apples. How many apples?", "7"),
        ("apples", "Ann has 10 apples and eats 2 apples. How many apples remain?", "8"),
        ("trains", "A train goes 60 km in 2 hours. What is the train speed?", "30"),
        ("trains", "A train goes 90 km in 3 hours. How fast is the train?", "30"),
    ]
    return [
        Problem(id=f"b:{i}", benchmark="toy", question=q, answer=a, solution=f"Compute it: {a}.", group=g, split="bank")
        for i, (g, q, a) in enumerate(rows)
    ]


EVAL = [
    Problem(id="e:0", benchmark="toy", question="Bob has 5 apples and buys 5 more apples. How many apples?", answer="10", group="apples", split="test"),
    Problem(id="e:1", benchmark="toy", question="A train goes 100 km in 4 hours. What is the train speed?", answer="25", group="trains", split="test"),
]


@pytest.fixture
def harness_parts(store):
    emb = HashingEmbedder(128)
    BankBuilder(store, emb).build("toy", "toy", bank_items(), EVAL)
    retriever = VectorRetriever(MemoryBank(store, "toy"), emb, ProblemRepresentation())

    def reply(messages):
        text = user_text(messages)
        # answers right only when it sees memories, and writes fewer tokens then
        if MEMORY_HEADER in text:
            return ScriptedReply("\\boxed{10}" if "Bob" in text else "\\boxed{25}", completion_tokens=5, prompt_tokens=200)
        return ScriptedReply("long reasoning ... \\boxed{9}", completion_tokens=40, prompt_tokens=50)

    chat = ScriptedChatModel(reply, model_id="toy-model")
    return chat, retriever


def test_paired_runs_resume_and_summaries(tmp_path: Path, harness_parts) -> None:
    chat, retriever = harness_parts
    harness = ReasoningHarness(BENCH, chat, retriever)
    configs = sweep_configs("toy", [Method.COD], ks=[1, 2])
    assert [c.run_id for c in configs] == ["toy_cod_nomem_t0", "toy_cod_mem-k1-long_t0", "toy_cod_mem-k2-long_t0"]
    assert len({c.max_tokens for c in configs}) == 1  # paired runs share the budget
    results_path = tmp_path / "results.jsonl"
    summaries = [harness.run(c, EVAL, results_path)[1] for c in configs]
    off, on1, on2 = summaries
    assert (off.accuracy, on1.accuracy, on2.accuracy) == (0.0, 1.0, 1.0)
    assert off.mean_decode_tokens == 40 and on1.mean_decode_tokens == 5
    assert on2.mean_memory_tokens > on1.mean_memory_tokens > 0 == off.mean_memory_tokens
    assert on1.same_group_at_k == 1.0 and off.same_group_at_k is None
    assert on1.retriever == "vector:problem" and off.retriever is None
    assert all(c.max_tokens == configs[0].max_tokens for c in chat.calls)
    assert all(c.temperature == 0.0 for c in chat.calls)
    # memory prompt: block before the question
    mem_prompt = next(c.user for c in chat.calls if MEMORY_HEADER in c.user)
    assert mem_prompt.index(MEMORY_HEADER) < mem_prompt.index("Question:")
    rows = load_results(results_path)
    assert len(rows) == 6 and rows[2].retrieved and rows[2].latency.t_emb_s > 0 and rows[2].latency.t_search_s > 0
    assert rows[0].latency.model_timing == "total" and rows[0].latency.t_prefill_s is None
    # resume: nothing is asked again
    calls = len(chat.calls)
    again = harness.run(configs[1], EVAL, results_path)[1]
    assert len(chat.calls) == calls and again.accuracy == 1.0
    paths = write_outputs(tmp_path, summaries)
    assert paths["accuracy_plot"].stat().st_size > 1000 and paths["latency_plot"].stat().st_size > 1000
    summary = json.loads(paths["summary"].read_text())
    assert [r["run_id"] for r in summary["runs"]] == [c.run_id for c in configs]
    report = paths["report"].read_text()
    assert "toy_cod_mem-k1-long_t0" in report and "100.0%" in report


def test_model_errors_are_recorded_not_fatal(harness_parts) -> None:
    from memdesk.errors import LLMConnectionError

    _, retriever = harness_parts
    chat = ScriptedChatModel([LLMConnectionError("down"), "\\boxed{25}"])
    harness = ReasoningHarness(BENCH, chat, retriever)
    results, summary = harness.run(EvalConfig(bench="toy", method=Method.COT, memory=False), EVAL)
    assert results[0].error and "down" in results[0].error
    assert summary.n_errors == 1 and summary.accuracy == 0.5


def test_retrieval_quality_without_a_chat_model(tmp_path: Path, harness_parts) -> None:
    from memdesk.errors import UsageError

    _, retriever = harness_parts
    harness = ReasoningHarness(BENCH, None, retriever)
    q = harness.retrieval_quality(EVAL, 2, [p.group for p in bank_items()])
    assert q.n_queries == 2 and q.n_groups == 2
    assert q.same_group_at_k == 1.0 and q.top1_same_group == 1.0
    assert q.random_uniform == 0.5 and q.random_bank_prior == pytest.approx(0.5)
    assert set(q.per_group) == {"apples", "trains"}
    paths = write_outputs(tmp_path, [], [q])
    assert set(paths) == {"summary", "report"} and "same-group@k" in paths["report"].read_text()
    with pytest.raises(UsageError):
        harness.run_item(EvalConfig(bench="toy", method=Method.COD, memory=False), EVAL[0])


def test_sweep_covers_gammas_formats_and_temperatures() -> None:
    configs = sweep_configs(
        "gsm8k",
        [Method.TOKENSKIP, Method.COT],
        ks=[3, 5],
        formats=[MemoryFormat.LONG, MemoryFormat.SHORT],
        gammas=[0.3, 0.6],
        temperatures=[0.0, 0.7],
    )
    ts = [c for c in configs if c.method is Method.TOKENSKIP]
    # per gamma and temperature: 1 memory-off + 2 k x 2 formats memory-on
    assert len(ts) == 2 * 2 * (1 + 4)
    assert all(c.gamma is None for c in configs if c.method is Method.COT)
    assert {c.max_tokens for c in ts} == {512} and {c.max_tokens for c in configs if c.method is Method.COT} == {1024}


def test_resume_runs_errored_items_again(tmp_path: Path, harness_parts) -> None:
    from memdesk.errors import LLMConnectionError

    _, retriever = harness_parts
    results_path = tmp_path / "results.jsonl"
    config = EvalConfig(bench="toy", method=Method.COT, memory=False)
    first = ScriptedChatModel([LLMConnectionError("server restarted"), "\\boxed{25}"])
    _, summary = ReasoningHarness(BENCH, first, retriever).run(config, EVAL, results_path)
    assert summary.n_errors == 1
    second = ScriptedChatModel(["\\boxed{10}"])  # only the failed item is asked again
    results, summary = ReasoningHarness(BENCH, second, retriever).run(config, EVAL, results_path)
    assert len(second.calls) == 1 and summary.n_errors == 0 and summary.accuracy == 1.0
    assert [r.id for r in results] == ["e:0", "e:1"] and results[0].prediction == "10"
