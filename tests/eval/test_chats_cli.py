"""``memdesk eval chats`` end to end on a tiny chat file of our own: the real embedder, SQLite."""

from __future__ import annotations

import json

from click.testing import CliRunner

from memdesk.eval.eval_commands import eval_group

from .chat_fixtures import one_fact_chat, tiny_chat, write_chats


def _lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_eval_chats_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "minilm")  # the real, packaged embedder
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    data = write_chats(tmp_path / "mine.jsonl", [tiny_chat(), one_fact_chat()])
    out = tmp_path / "run"
    result = CliRunner().invoke(eval_group, ["chats", "--data", str(data), "--out", str(out), "--json", "--quiet"],
                                catch_exceptions=False)  # fmt: skip
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["n_chats"] == 2 and summary["n_questions"] == 3
    assert summary["config"]["database"] == "temporary sqlite" and "MiniLM" in summary["config"]["embedder"]
    assert json.loads(result.stdout[result.stdout.index("{"):]) == summary  # --json prints summary.json

    rows = {r["question_id"]: r for r in _lines(out / "results.jsonl")}
    scopes = {s["chat_id"]: s for s in _lines(out / "scopes.jsonl")}
    assert set(rows) == {"k1-q1", "k1-q2", "k2-q1"} and set(scopes) == {"k1", "k2"}
    # five messages, one fact: the only record that can answer is in the 900-token block
    assert rows["k2-q1"]["in_budget"] and rows["k2-q1"]["first_gold_rank"] is not None
    for r in rows.values():  # each row's numbers agree with one another
        rank = r["first_gold_rank"]
        assert r["precision_at_1"] == (1.0 if rank == 1 else 0.0)
        assert r["reciprocal_rank"] == (1 / rank if rank and rank <= 10 else 0.0)
        assert r["correct"] == any(a in r["answer"].lower() for a in r["accept"])
        assert r["records_bucket"] == "1-15" and r["evidence_tokens"] > 0
    ov = summary["overall"]
    assert ov["precision_at_1"] == round(sum(r["precision_at_1"] for r in rows.values()) / 3, 4)
    assert ov["answer_accuracy"] == round(sum(r["correct"] for r in rows.values()) / 3, 4)
    assert ov["records"] == sum(s["records"] for s in scopes.values()) > 0
    assert ov["records_per_message"] == round(ov["records"] / 10, 4)

    k1 = scopes["k1"]
    small_talk = {"k1-m1", "k1-m4"}
    assert all(r["provenance"][0] in small_talk for r in k1["small_talk_records"])
    assert ov["small_talk_records"] == len(k1["small_talk_records"]) + len(scopes["k2"]["small_talk_records"])
    assert [(c["expect"], c["from_message"]) for c in k1["supersession"]] == [("closed", "k1-m2"), ("current", "k1-m2")]
    assert k1["dates_checked"] >= 1 and ov["supersession"]["items"] == 2
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "## By scope size (records stored)" in report and "| **1-15** |" in report
    assert "| k2 | 5 | " in report  # the by-chat table


def test_eval_chats_into_a_given_database_refuses_a_used_scope(tmp_path):
    data = write_chats(tmp_path / "mine.jsonl", [tiny_chat(), one_fact_chat()])
    db = f"sqlite:///{tmp_path / 'mine.db'}"
    runner = CliRunner()
    args = ["chats", "--data", str(data), "--db", db, "--chats", "k2", "--quiet"]
    first = runner.invoke(eval_group, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    assert "chats: 1 chats, 1 questions" in first.stdout and (tmp_path / "mine.db").exists()
    again = runner.invoke(eval_group, args)
    assert again.exit_code == 2 and "already holds messages" in again.output
    unknown = runner.invoke(eval_group, ["chats", "--data", str(data), "--chats", "k2,k9", "--quiet"])
    assert unknown.exit_code == 2 and "has no chat 'k9'" in unknown.output


def test_eval_chats_bad_file_is_a_usage_error(tmp_path):
    chat = one_fact_chat()
    chat["questions"][0]["gold_message_ids"] = ["k2-m9"]
    data = write_chats(tmp_path / "bad.jsonl", [chat])
    result = CliRunner().invoke(eval_group, ["chats", "--data", str(data), "--quiet"])
    assert result.exit_code == 2
    assert result.output.startswith("error: MalformedFileError:") and "line 1:" in result.output and "k2-m9" in result.output
