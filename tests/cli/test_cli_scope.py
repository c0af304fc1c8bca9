"""The command line's one scope story and ``--json`` on every command that prints results."""

from __future__ import annotations

import json

import pytest

from memdesk.cli.app import main

CHAT = [
    {"id": "1", "speaker": "Ana", "content": "I started learning the cello in January.", "timestamp": "2024-02-01T09:00:00Z"},
    {"id": "2", "speaker": "Ana", "content": "My cello teacher is called Ruth.", "timestamp": "2024-02-01T09:01:00Z"},
]


@pytest.fixture
def chat(tmp_path):
    f = tmp_path / "chat.jsonl"
    f.write_text("\n".join(json.dumps(x) for x in CHAT) + "\n")
    return f


def test_ingest_then_search_with_no_options_finds_what_was_ingested(run, chat):
    out = run("ingest", str(chat)).output
    assert "into user=default,run=chat" in out  # the scope it wrote
    hits = json.loads(run("search", "cello teacher", "--json").output)
    assert hits and any("Ruth" in h["text"] for h in hits)
    assert json.loads(run("list", "--json").output)
    assert "Ruth" in run("ask", "Who is Ana's cello teacher?").output
    # the run narrows, the agent too; another user sees nothing
    assert json.loads(run("search", "cello", "--run", "chat", "--json").output)
    assert json.loads(run("search", "cello", "--run", "other", "--json").output) == []
    assert json.loads(run("search", "cello", "--user", "ben", "--json").output) == []


def test_add_writes_where_search_reads(run):
    out = run("add", "I keep bees on the roof.").output
    assert "-> user=default" in out
    assert json.loads(run("search", "bees", "--json").output)


def test_ingest_json_names_every_scope_written(run, tmp_path):
    f = tmp_path / "two.jsonl"
    f.write_text(
        json.dumps({"conversation": "a", "content": "I like tea.", "speaker": "Ana"}) + "\n"
        + json.dumps({"conversation": "b", "content": "I like coffee.", "speaker": "Ana"}) + "\n"
    )
    written = json.loads(run("ingest", str(f), "--user", "ana", "--json").output)
    assert [w["scope"] for w in written] == [{"user_id": "ana", "run_id": "a"}, {"user_id": "ana", "run_id": "b"}]
    assert all(w["messages"] == 1 and sum(w["records"].values()) >= 1 for w in written)
    one = json.loads(run("ingest", str(f), "--user", "ana", "--run", "r", "--json").output)
    assert {json.dumps(w["scope"]) for w in one} == {json.dumps({"user_id": "ana", "run_id": "r"})}


def test_an_empty_scope_reads_as_empty_everywhere(run):
    assert json.loads(run("search", "anything", "--user", "ghost", "--json").output) == []
    assert json.loads(run("list", "--user", "ghost", "--json").output) == []
    empty = run("search", "anything", "--user", "ghost")
    assert empty.stdout == "" and "no memories under user=ghost" in empty.stderr
    ans = json.loads(run("ask", "anything?", "--user", "ghost", "--json").output)
    assert ans["evidence"] == []


def test_delete_and_reembed_speak_json(run):
    rid = json.loads(run("add", "I keep bees.", "--user", "ana", "--json").output)["records"][0]["id"]
    assert json.loads(run("delete", rid, "--user", "ana", "--json").output) == {"deleted": 1, "id": rid}
    run("add", "I keep wasps.", "--user", "ana")
    assert json.loads(run("delete", "--all", "--user", "ana", "--json").output)["deleted"] >= 1
    run("add", "I keep ants.", "--user", "ana")
    out = json.loads(run("reembed", "--embedder", "hashing", "--json").output)
    assert out["reembedded"] == 0 and out["embedder"] == "hashing"  # the store's own model: nothing to redo


def test_a_missing_file_is_not_found(run, tmp_path):
    r = run("ingest", str(tmp_path / "nope.jsonl"), ok=False)
    assert r.exit_code == 2 and "does not exist" in r.output and "malformed" not in r.output.lower()


def test_every_command_that_prints_results_takes_json():
    quiet = {"serve", "mcp", "eval", "bank", "export", "backup"}  # servers, groups checked elsewhere, files written
    for name, cmd in main.commands.items():
        if name in quiet:
            continue
        for sub_name, sub in getattr(cmd, "commands", {name: cmd}).items():  # a group: each of its commands
            assert any("--json" in p.opts for p in sub.params), f"{name} {sub_name}"
