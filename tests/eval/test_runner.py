"""End-to-end runs on the small fixtures with the hashing embedder: outputs, resumability, LLM path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdesk.embed import HashingEmbedder
from memdesk.errors import InvalidInputError
from memdesk.eval import JudgeVerdict, QuestionResult, ResultsFile, run_eval
from memdesk.settings import Settings

SYSTEMS = ["memdesk-typed", "memdesk-untyped", "flat-rag", "full-context"]
SETTINGS = Settings()  # the defaults: what memdesk-default is built from in these tests


def rows(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]


def test_locomo_offline_run(locomo_file, tmp_path):
    out = tmp_path / "run"
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=SYSTEMS + ["sweep"],
                       embedder=HashingEmbedder(128), progress=False, k=5, K=4)
    lines = rows(out)
    assert len(lines) == 7 * (1 + 4 + 9)  # memdesk-default is always measured
    assert len({(r["system"], r["question_id"]) for r in lines}) == len(lines)
    for name in ("summary.json", "report.md", "recall_vs_tokens.png", "recall_by_category.png", "latency.png"):
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "summary.json").read_text()) == json.loads(summary.model_dump_json())

    flat = {r["question_id"]: r for r in lines if r["system"] == "flat-rag"}
    # a flat-rag hit is one raw turn: recall is the share of gold ids among the hits' provenance
    for r in flat.values():
        assert r["n_hits"] <= 4 and all(len(h[2]) == 1 for h in r["hits"])
        if r["retrieval_scored"]:
            q_gold = {"conv-x:0": {"D1:1"}, "conv-x:1": {"D1:1"}, "conv-x:2": {"D1:3", "D2:2"},
                      "conv-x:3": {"D2:1"}, "conv-x:4": {"D1:1"}}[r["question_id"]]
            got = {h[2][0] for h in r["hits"]}
            assert r["recall"]["all"] == pytest.approx(len(q_gold & got) / len(q_gold))
    # the questions without resolvable evidence are not scored
    assert not flat["conv-x:5"]["retrieval_scored"] and "recall" not in flat["conv-x:5"]

    full = [r for r in lines if r["system"] == "full-context"]
    assert all(r["recall"]["all"] == 1.0 for r in full if r["retrieval_scored"])
    assert all("search_ms" not in r for r in full)  # no search: the field is left out
    assert len({r["evidence_tokens"] for r in full}) == 1 and full[0]["evidence_tokens"] > 50

    s = summary.systems
    # overall = categories 1-4 only: 4 questions with evidence (adversarial and unscored left out)
    assert s["flat-rag"].overall.n_retrieval == 4
    assert set(s["flat-rag"].by_category) == {"multi-hop", "temporal", "open-domain", "single-hop", "adversarial"}
    assert s["full-context"].overall.recall == 1.0
    assert s["memdesk-typed"].overall.median_evidence_tokens > 0
    assert len(summary.sweep) == 9 and {x.k for x in summary.sweep} == {5, 10, 20}
    assert summary.dataset["unresolved_evidence_ids"] == 2
    assert summary.stages["ingest"]["raw"]["messages"] == 5
    assert "recall" in summary.targets["memdesk-typed"] and summary.targets["memdesk-typed"]["recall"]["target"] == 0.95
    default = summary.targets["memdesk-default"]["recall"]
    assert default["target"] == 0.90 and default["measured"] == s["memdesk-default"].overall.recall
    report = (out / "report.md").read_text()
    assert "memdesk-typed" in report and "k/K sweep" in report
    written = json.loads((out / "summary.json").read_text())
    assert written["systems"]["flat-rag"]["overall"]["recall@5"] == s["flat-rag"].overall.recall_at[5]
    assert "f1" not in written["systems"]["flat-rag"]["overall"]  # offline: no answer metrics at all


def test_resume_skips_done_pairs_and_ingest(locomo_file, tmp_path):
    out = tmp_path / "run"
    emb = HashingEmbedder(128)
    run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["memdesk-typed", "flat-rag"], limit=3,
             embedder=emb, progress=False, report=False)
    first = rows(out)
    assert len(first) == 9  # 3 questions x (default, typed, flat RAG)
    state = json.loads((out / "work" / "state.json").read_text())
    assert state["ingested"] == {"raw": ["conv-x"], "typed": ["conv-x"]}
    records_before = state["account"]["ingest.typed.records"]

    # a crash while writing leaves a truncated last line: it is dropped on restart
    with open(out / "results.jsonl", "a") as f:
        f.write('{"system": "memdesk-typed", "question_id": "conv-x:3", "trunc')
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["memdesk-typed", "flat-rag"],
                       embedder=emb, progress=False, report=False)
    second = rows(out)
    assert len(second) == 21
    assert len({(r["system"], r["question_id"]) for r in second}) == 21
    assert second[:9] == first
    state = json.loads((out / "work" / "state.json").read_text())
    assert state["account"]["ingest.typed.scopes"] == 1  # not ingested twice
    assert state["account"]["ingest.typed.records"] == records_before
    assert "default" not in state["ingested"]  # the default processor is the typed one: same store
    assert summary.n_questions == 7

    # a third run has nothing to do
    run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["memdesk-typed", "flat-rag"], embedder=emb,
             progress=False, report=False)
    assert len(rows(out)) == 21


def test_resume_refuses_another_configuration(locomo_file, tmp_path):
    from memdesk.errors import ConfigError

    out = tmp_path / "run"
    run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag"], limit=1, embedder=HashingEmbedder(128),
             progress=False, report=False)
    with pytest.raises(ConfigError):
        run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag"], embedder=HashingEmbedder(64),
                 progress=False, report=False)


def test_interrupted_ingest_continues(locomo_file, tmp_path):
    """An exception in the middle of an ingest leaves no state entry; the rerun completes the scope."""
    from memdesk.conversation.raw import RawTurnProcessor

    calls = {"n": 0}

    class Flaky(RawTurnProcessor):
        def process(self, utterances):
            calls["n"] += 1
            if calls["n"] == 2:
                raise KeyboardInterrupt
            return super().process(utterances)

    from memdesk.records import Scope
    from memdesk.store import open_store

    def logged() -> tuple[list[str | None], int]:
        store = open_store(f"sqlite:///{out / 'work' / 'typed.db'}")
        try:
            return sorted(m.id for m in store.messages(Scope(user_id="conv-x"))), store.count(Scope(user_id="conv-x"))
        finally:
            store.close()

    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["memdesk-typed"], processor_factory=Flaky,
                 embedder=HashingEmbedder(128), progress=False, report=False)
    state = json.loads((out / "work" / "state.json").read_text())
    assert "conv-x" not in state["ingested"].get("typed", [])
    assert not (out / "results.jsonl").exists()  # nothing is evaluated on a half-ingested scope
    assert logged() == (["D1:1", "D1:2", "D1:3"], 3)  # the first session was committed, the second not
    run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["memdesk-typed"], processor_factory=Flaky,
             embedder=HashingEmbedder(128), progress=False, report=False)
    assert logged() == (["D1:1", "D1:2", "D1:3", "D2:1", "D2:2"], 5)  # continued, nothing added twice
    assert calls["n"] == 3  # session 1, the interrupted session 2, session 2 again
    assert len(rows(out)) == 14  # memdesk-default reads a store of its own (the processor is not the settings')
    assert json.loads((out / "work" / "state.json").read_text())["ingested"] == {"typed": ["conv-x"], "default": ["conv-x"]}


def test_longmemeval_session_recall_and_abstention(lme_file, tmp_path):
    out = tmp_path / "lme"
    summary = run_eval("longmemeval", lme_file, out, settings=SETTINGS, systems=["memdesk-typed", "flat-rag", "full-context"],
                       sweep=False, embedder=HashingEmbedder(128), progress=False, k=3, K=3)
    lines = {(r["system"], r["question_id"]): r for r in rows(out)}
    abs_row = lines[("flat-rag", "q2_abs")]
    assert not abs_row["retrieval_scored"] and "session_recall" not in abs_row
    q1 = lines[("flat-rag", "q1")]
    hit_sessions = {h[2][0].split(":")[0].split("#")[0] for h in q1["hits"]}
    assert q1["session_recall"]["all"]["fraction"] == len(hit_sessions & {"sess_a", "sess_c"}) / 2
    ov = summary.systems["flat-rag"].overall
    assert ov.n == 3 and ov.n_retrieval == 2
    assert summary.systems["flat-rag"].abstention.n == 1
    assert ov.session_recall_at[10] is not None
    assert set(summary.targets) == {"memdesk-default", "memdesk-typed"}
    sr = summary.targets["memdesk-default"]["session_recall@10"]
    assert sr["measured_fraction"] == summary.systems["memdesk-default"].overall.session_recall_at[10].fraction
    assert summary.systems["full-context"].overall.session_recall.all == 1.0


def test_llm_path_answers_scores_and_judges(locomo_file, tmp_path):
    from memdesk.llm import ScriptedChatModel

    def reply(messages):
        return "Biscuit"

    chat = ScriptedChatModel(reply, model_id="fake-answerer")

    class CountingJudge:
        model_id = "fake-judge"

        def __init__(self):
            self.seen = []

        def __call__(self, question, prediction):
            self.seen.append((question.id, prediction))
            return JudgeVerdict(correct=prediction == (question.answer or ""), label="x", reason=f"saw {prediction}")

    judge = CountingJudge()
    out = tmp_path / "llm"
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag", "full-context"], sweep=False,
                       chat_model=chat, judge=judge, ledger=chat.ledger, embedder=HashingEmbedder(128), progress=False, K=3)
    lines = {(r["system"], r["question_id"]): r for r in rows(out)}
    r = lines[("flat-rag", "conv-x:0")]
    assert r["answer"] == "Biscuit" and r["f1"] == 1.0 and r["bleu1"] == 1.0 and r["judge"] is True
    assert r["judge_reason"] == "saw Biscuit" and r["abstained"] is False
    assert r["total_ms"] >= r["search_ms"] and r["answer_ms"] is not None and r["judge_shared"] == "memdesk-default"
    # adversarial: F1 is 1 only for an abstention; "Biscuit" is not one
    assert lines[("flat-rag", "conv-x:4")]["f1"] == 0.0 and "bleu1" not in lines[("flat-rag", "conv-x:4")]
    # full context is answered too (the whole conversation reaches the model)
    assert lines[("full-context", "conv-x:0")]["answer"] == "Biscuit"
    assert any("golden retriever" in c.prompt for c in chat.calls)
    # every system answers "Biscuit": one judge call per question, the other rows reuse its verdict
    assert sorted(judge.seen) == sorted({(q, "Biscuit") for _, q in lines})
    for (system, q), row in lines.items():
        first = lines[("memdesk-default", q)]
        assert (row["judge"], row["judge_reason"]) == (first["judge"], first["judge_reason"])
        assert ("judge_shared" in row) == (system != "memdesk-default") and ("judge_ms" in row) == (system == "memdesk-default")
    ov = summary.systems["flat-rag"].overall
    assert ov.n_answered == 6 and ov.judge == pytest.approx(1 / 6, abs=1e-4)
    assert ov.abstentions == 0 and ov.answer_latency_ms.p50 is not None and ov.judge_latency_ms.p95 is None
    assert summary.systems["memdesk-default"].overall.judge_latency_ms.p95 is not None
    assert summary.config["answer_model"] == "fake-answerer" and summary.config["judge_model"] == "fake-judge"
    # the chat model's usage ledger lands in the stage account
    assert summary.stages["llm"]["answer"]["calls"] == 21
    report = (out / "report.md").read_text()
    assert "F1 and judge side by side" in report and "How abstentions are scored" in report


def test_a_resumed_run_reuses_the_verdicts_in_its_file(locomo_file, tmp_path):
    """A verdict in results.jsonl serves a later run's identical answer; a different answer is judged."""
    from memdesk.llm import ScriptedChatModel

    answer = ["Biscuit"]
    chat = ScriptedChatModel(lambda messages: answer[0], model_id="fake-answerer")
    seen: list[tuple[str, str]] = []

    def judge(question, prediction):
        seen.append((question.id, prediction))
        return JudgeVerdict(correct=prediction == "Biscuit", label="x", reason=f"saw {prediction}")

    judge.model_id = "fake-judge"  # type: ignore[attr-defined]
    out = tmp_path / "resumed"
    kw = dict(settings=SETTINGS, sweep=False, chat_model=chat, judge=judge, embedder=HashingEmbedder(128),
              progress=False, K=3, report=False)
    run_eval("locomo", locomo_file, out, systems=["flat-rag"], **kw)
    questions = {r["question_id"] for r in rows(out)}
    assert len(seen) == len(questions) == 7
    seen.clear()
    run_eval("locomo", locomo_file, out, systems=["flat-rag", "full-context"], **kw)
    assert seen == []  # every full-context answer was given before: judged from the file
    answer[0] = "Rex"
    run_eval("locomo", locomo_file, out, systems=["memdesk-typed"], **kw)
    assert sorted(seen) == sorted((q, "Rex") for q in questions)
    by = {(r["system"], r["question_id"]): r for r in rows(out)}
    assert all(by[("full-context", q)]["judge_shared"] == "memdesk-default" for q in questions)
    assert all("judge_shared" not in by[("memdesk-typed", q)] and by[("memdesk-typed", q)]["judge"] is False for q in questions)


def test_the_summary_counts_exact_answers_the_judge_rejected(locomo_file, tmp_path):
    """A judge that calls everything WRONG is caught by the answers that are exactly the gold."""
    from memdesk.llm import ScriptedChatModel

    chat = ScriptedChatModel(lambda messages: "Biscuit", model_id="fake-answerer")

    def contrarian(question, prediction):
        return JudgeVerdict(correct=False, label="WRONG", reason="no")

    contrarian.model_id = "contrarian"  # type: ignore[attr-defined]
    out = tmp_path / "contrarian"
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag"], sweep=False, chat_model=chat,
                       judge=contrarian, embedder=HashingEmbedder(128), progress=False, K=3)
    flat = [r for r in rows(out) if r["system"] == "flat-rag" and r["category"] != "adversarial"]
    exact = sum(1 for r in flat if r["f1"] == 1.0)
    ov = summary.systems["flat-rag"].overall
    assert exact >= 1 and ov.exact_answers == ov.exact_judged_wrong == exact and ov.judge == 0.0
    assert f"| {exact} of {exact} |" in (out / "report.md").read_text()


def test_abstentions_earn_no_f1_on_answerable_questions(locomo_file, tmp_path):
    """"not mentioned in the conversation" shares no word with "Biscuit", but would share "mentioned"
    with a gold answer that has it; an abstention scores 0 on every answerable question and 1 on
    the adversarial one."""
    from memdesk.llm import ScriptedChatModel

    chat = ScriptedChatModel(lambda messages: "Not mentioned in the conversation.", model_id="abstainer")
    out = tmp_path / "abst"
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag"], sweep=False,
                       chat_model=chat, embedder=HashingEmbedder(128), progress=False, K=3, report=False)
    flat = {r["question_id"]: r for r in rows(out) if r["system"] == "flat-rag"}
    assert all(r["abstained"] for r in flat.values())
    assert flat["conv-x:4"]["f1"] == 1.0  # adversarial: the right answer is an abstention
    assert all(r["f1"] == 0.0 and r["bleu1"] == 0.0 for q, r in flat.items() if q != "conv-x:4")
    b = summary.systems["flat-rag"].by_category
    assert b["adversarial"].abstentions == 1 and b["adversarial"].abstentions_on_answerable == 0
    assert summary.systems["flat-rag"].overall.abstentions_on_answerable == 6


def test_results_file_rejects_corruption_in_the_middle(tmp_path):
    from memdesk.errors import MalformedFileError

    p = tmp_path / "results.jsonl"
    row = QuestionResult(system="s", question_id="q", conversation_id="c", category="x", k=1, K=1)
    p.write_text(row.model_dump_json() + "\nnot json\n" + row.model_dump_json() + "\n")
    with pytest.raises(MalformedFileError):
        ResultsFile(p, QuestionResult).read()
    p.write_text(row.model_dump_json() + '\n{"system": "s", "quest')
    assert ResultsFile(p, QuestionResult).read() == [row]  # a cut-off last line is dropped ...
    assert p.read_text() == row.model_dump_json() + "\n"  # ... from the file too


def test_round_robin_order_covers_every_category_in_any_prefix(lme_file):
    from memdesk.eval.datasets import load_longmemeval
    from memdesk.eval.runner import round_robin

    qs = load_longmemeval(lme_file).questions
    ordered = round_robin(qs)
    assert sorted(q.id for q in ordered) == sorted(q.id for q in qs)
    assert [q.category for q in ordered[:3]] == ["multi-session", "single-session-user", "single-session-assistant"]


def test_benchmark_judge_and_judge_failures_are_recorded(locomo_file, tmp_path):
    """The LoCoMo judge through a scripted model: a valid verdict is used with its reason, an invalid
    one is recorded."""
    from memdesk.eval.judging import ADVERSARIAL_GOLD, BenchmarkJudge
    from memdesk.llm import ScriptedChatModel

    def reply(messages):
        prompt = "\n".join(m.content for m in messages)
        if "Gold answer" not in prompt:
            return "Biscuit"
        if "Gold answer: Biscuit" in prompt:
            return '{"reason": "same name", "label": "CORRECT"}'
        return "I cannot decide"  # never valid: the judge raises LLMOutputError after its re-asks

    chat = ScriptedChatModel(reply, model_id="fake")
    out = tmp_path / "judged"
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag"], sweep=False, chat_model=chat,
                       judge=BenchmarkJudge(chat, "locomo"), embedder=HashingEmbedder(128), progress=False,
                       K=3, report=False)
    lines = {r["question_id"]: r for r in rows(out) if r["system"] == "flat-rag"}
    assert lines["conv-x:0"]["judge"] is True and lines["conv-x:0"]["judge_label"] == "CORRECT"
    assert lines["conv-x:0"]["judge_reason"] == "same name"
    assert "judge" not in lines["conv-x:1"] and "I cannot decide" in lines["conv-x:1"]["judge_error"]
    # the adversarial item is judged against the abstention gold, not its adversarial answer
    assert any(ADVERSARIAL_GOLD in c.prompt for c in chat.calls)
    ov = summary.systems["flat-rag"].overall
    assert ov.judge_failures == ov.n_answered - 1 and ov.judge == 1.0


def test_memdesk_default_is_what_the_settings_build(locomo_file, tmp_path):
    """The default system reads with the retriever the settings make (here K=2, k=3, hybrid on) and
    no per-call overrides, whatever k/K the named systems use."""
    from memdesk.conversation.memory import build_memory

    settings = Settings(top_k=3, max_records=2, hybrid=True)
    out = tmp_path / "default"
    summary = run_eval("locomo", locomo_file, out, settings=settings, systems=["memdesk-typed"], sweep=False,
                       embedder=HashingEmbedder(128), progress=False, k=5, K=4, report=False)
    spec = summary.systems["memdesk-default"].spec
    assert (spec.k, spec.K, spec.hybrid, spec.kind, spec.store) == (3, 2, True, "default", "typed")
    assert summary.config["default"]["settings"]["hybrid"] is True and "database_url" not in summary.config["default"]["settings"]
    by = {(r["system"], r["question_id"]): r for r in rows(out)}
    assert all(by[("memdesk-default", q)]["n_hits"] <= 2 < by[("memdesk-typed", q)]["n_hits"] for q in ("conv-x:0", "conv-x:1"))

    # the same evidence as a Memory built by the factory over the same store
    from memdesk.records import Scope
    from memdesk.store import open_store

    store = open_store(f"sqlite:///{out / 'work' / 'typed.db'}")
    try:
        memory = build_memory(settings, store=store, embedder=HashingEmbedder(128))
        ev = memory.evidence("What is the name of Ana's puppy?", scope=Scope(user_id="conv-x"))
        assert [h[2] for h in by[("memdesk-default", "conv-x:0")]["hits"]] == [list(h.record.provenance) for h in ev.hits]
    finally:
        store.close()


def test_categories_limit_the_run_and_are_recorded(locomo_file, tmp_path):
    out = tmp_path / "run"
    summary = run_eval("locomo", locomo_file, out, settings=SETTINGS, systems=["flat-rag"], categories=["headline"],
                       embedder=HashingEmbedder(128), progress=False, report=False)
    got = rows(out)
    assert got and all(r["category"] != "adversarial" for r in got)
    assert summary.config["categories"] == sorted({r["category"] for r in got})
    with pytest.raises(InvalidInputError):
        run_eval("locomo", locomo_file, tmp_path / "bad", settings=SETTINGS, systems=["flat-rag"],
                 categories=["sports"], embedder=HashingEmbedder(128), progress=False, report=False)
    assert not (tmp_path / "bad").exists()  # refused before the run directory is made
