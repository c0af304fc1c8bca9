"""The command line, through click's runner, on a real SQLite file (hashing embedder for speed)."""

from __future__ import annotations

import json


def test_add_search_list_history_delete(run):
    out = run("add", "I moved to Lisbon last month.", "--user", "ana", "--speaker", "Ana", "--timestamp", "2024-03-10T10:00:00+00:00")
    assert "routed" in out.output
    hits = json.loads(run("search", "Lisbon", "--user", "ana", "--json").output)
    assert hits and "Lisbon" in hits[0]["text"] and hits[0]["provenance"]
    listed = json.loads(run("list", "--user", "ana", "--json").output)
    rid = listed[0]["id"]
    r = run("delete", rid, "--user", "ben", ok=False)  # another user's scope: as if the id did not exist
    assert r.exit_code == 2 and "RecordNotFoundError" in r.output
    run("delete", rid, "--user", "ana")
    hist = json.loads(run("history", rid, "--user", "ana", "--json").output)
    assert [h["event"] for h in hist][-1] == "DELETE"
    assert "RecordNotFoundError" in run("history", rid, ok=False).output  # the default scope is not ana's


def test_ingest_jsonl_and_ask(run, tmp_path):
    f = tmp_path / "chat.jsonl"
    lines = [
        {"id": "1", "speaker": "Ana", "content": "I started learning the cello in January.", "timestamp": "2024-02-01T09:00:00Z"},
        {"id": "2", "speaker": "Ben", "content": "Nice! I prefer the guitar.", "timestamp": "2024-02-01T09:01:00Z"},
    ]
    f.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = run("ingest", str(f), "--user", "ana")
    assert "ingested 2 messages" in out.output
    again = run("ingest", str(f), "--user", "ana")  # resumable: nothing stored twice
    assert "0 episodic, 0 semantic, 0 procedural" in again.output
    ans = json.loads(run("ask", "What instrument is Ana learning cello?", "--user", "ana", "--json").output)
    assert ans["extractive"] is True and ans["evidence"]


def test_errors_are_one_line_and_nonzero(run, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok"}\n{not json\n')
    r = run("ingest", str(bad), ok=False)
    assert r.exit_code == 2 and "line 2" in r.output and len(r.output.strip().splitlines()) == 1
    r = run("delete", "no-such-id", ok=False)
    assert r.exit_code == 2 and "RecordNotFoundError" in r.output


def test_config_shows_effective_settings(run, monkeypatch):
    monkeypatch.setenv("MEMDESK_TOP_K", "7")
    eff = json.loads(run("config", "--json").output)
    assert eff["top_k"] == 7 and eff["embedder"] == "hashing"


def test_ingest_locomo_file(run, locomo_path):
    out = run("ingest", str(locomo_path), "--conversation", "conv-26", "--user", "lc")
    assert "ingested 419 messages" in out.output
    hits = json.loads(run("search", "Caroline LGBTQ support group", "--user", "lc", "--run", "conv-26", "--json").output)
    assert hits and all(h["provenance"][0].startswith("D") for h in hits)


def test_reembed_command(run, monkeypatch):
    run("add", "Ana keeps bees on the roof", "--user", "ana")
    out = run("reembed", "--embedder", "minilm")
    assert "re-embedded 1 vectors with minilm" in out.output
    r = run("search", "bees", "--user", "ana", ok=False)  # the settings still say hashing: refused
    assert r.exit_code == 2 and "EmbeddingMismatchError" in r.output
    monkeypatch.setenv("MEMDESK_EMBEDDER", "minilm")
    assert "bees" in run("search", "bees", "--user", "ana").output


def test_compact_extractor_views_write_fewer_records(run, monkeypatch, tmp_path):
    # every sentence says something (a sentence that only judges, "The trail was steep.", makes no record of its own
    # beside a turn view, so it would even the counts)
    text = "I went hiking yesterday. The trail ran 12 km along the ridge. My sister came along."
    full = json.loads(run("add", text, "--user", "f", "--json").output)
    monkeypatch.setenv("MEMDESK_EXTRACTOR_VIEWS", "compact")
    compact = json.loads(run("add", text, "--user", "c", "--json").output)
    assert 0 < len(compact["records"]) < len(full["records"])


def test_ask_with_a_chat_model_reports_its_usage(tmp_path, monkeypatch):
    from memdesk.cli.app import Ctx
    from memdesk.conversation.answer import LLMAnswerer
    from memdesk.conversation.memory import Memory
    from memdesk.conversation.raw import RawTurnProcessor
    from memdesk.embed import HashingEmbedder
    from memdesk.llm.fake import ScriptedChatModel
    from memdesk.records import Scope
    from memdesk.store import open_store

    chat = ScriptedChatModel(["Lisbon"])
    mem = Memory(open_store(f"sqlite:///{tmp_path}/u.db"), HashingEmbedder(64), RawTurnProcessor(), answerer=LLMAnswerer(chat))
    mem.add("I moved to Lisbon.", scope=Scope(user_id="ana"))
    ctx = Ctx(None, None)
    ctx._memory = mem
    assert ctx.usage_line() is None
    assert mem.answer("Where does Ana live?", scope=Scope(user_id="ana")).answer == "Lisbon"
    line = ctx.usage_line()
    assert line is not None and line.startswith("llm usage: answer 1 calls")
    ctx.close()


def test_config_masks_database_passwords(run, monkeypatch):
    monkeypatch.setenv("MEMDESK_DATABASE_URL", "postgresql://ana:s3cret@db.invalid/memdesk")
    out = run("config").output
    assert "s3cret" not in out and "postgresql://ana:***@db.invalid/memdesk" in out


def test_reembed_moves_a_store_to_the_multilingual_embedder(run, monkeypatch):
    run("add", "我昨天搬到了上海。", "--user", "li", "--speaker", "李")
    run("add", "Я работаю врачом в Казани.", "--user", "li", "--speaker", "Иван")
    assert "re-embedded 2 vectors with multilingual" in run("reembed", "--embedder", "multilingual").output
    monkeypatch.setenv("MEMDESK_EMBEDDER", "multilingual")
    hits = json.loads(run("search", "李搬到哪里了？", "--user", "li", "--json").output)
    assert hits[0]["text"] == "我昨天搬到了上海。"  # one speaker's words, no "Name:" label (the speaker is a field)
    assert hits[0]["speaker"] == "李"


def test_add_warns_about_a_script_the_embedder_cannot_embed(run, monkeypatch):
    monkeypatch.setenv("MEMDESK_EMBEDDER", "minilm")
    r = run("add", "我昨天搬到了上海。", "--user", "zh")
    assert "warning:" in r.stderr and "Han" in r.stderr and "routed 010" in r.stdout


def test_search_and_ask_read_two_weeks_ago_against_asked_at(run):
    run("add", "I baked rye bread with honey.", "--user", "ana", "--speaker", "Ana", "--timestamp", "2024-03-25T10:00:00+00:00")
    run("add", "I baked rye bread with seeds.", "--user", "ana", "--speaker", "Ana", "--timestamp", "2024-03-11T10:00:00+00:00")
    q = "What bread did I bake two weeks ago?"
    hits = json.loads(run("search", q, "--user", "ana", "--asked-at", "2024-03-26T09:00:00+00:00", "--json").output)
    assert "seeds" in hits[0]["text"] and "dated in the question's week of 2024-03-11" in hits[0]["why"]
    ans = json.loads(run("ask", q, "--user", "ana", "--asked-at", "2024-03-26T09:00:00", "--json").output)
    assert "seeds" in ans["evidence"][0]["text"] and "dated in" in ans["evidence"][0]["why"]
    r = run("search", q, "--user", "ana", "--asked-at", "last tuesday", ok=False)
    assert r.exit_code == 2 and "bad time" in r.output
