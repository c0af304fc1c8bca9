"""``memdesk messages``: the raw log of a scope (role, speaker, time, status, content), paginated, with the
command line's scope rule."""

from __future__ import annotations

import json
import os

import pytest

from memdesk.conversation.memory import Memory
from memdesk.errors import LLMError
from memdesk.records import Scope

LOG = [
    {"id": "a1", "speaker": "Ana", "content": "I keep bees on the roof.", "timestamp": "2024-03-01T09:00:00+00:00"},
    {"id": "a2", "role": "assistant", "content": "Noted: bees on the roof.", "timestamp": "2024-03-01T09:00:05+00:00"},
    {"id": "a3", "speaker": "Ana", "content": "The hives face south.", "timestamp": "2024-03-01T09:01:00+00:00"},
    {"id": "a4", "role": "tool", "source": "tool:weather", "content": "Sunny, 21 C.", "timestamp": "2024-03-01T09:02:00+00:00"},
    {"id": "a5", "speaker": "Ana", "content": "I sold my old bike.", "timestamp": "2024-03-01T09:03:00+00:00"},
]


class Failing:
    """A processor whose model is down: the messages are kept pending."""

    def process(self, utterances):
        raise LLMError("the model is down")


@pytest.fixture
def db(run):
    url = os.environ["MEMDESK_DATABASE_URL"]
    mem = Memory.open()  # the command line's own settings: hashing embedder, rule processor
    mem.add(LOG, scope=Scope(user_id="ana"))
    mem.add("Someone else's words.", scope=Scope(user_id="ben"))
    mem.add("A bot's own note.", scope=Scope(user_id="ana", agent_id="bot"))
    mem.close()
    return url


def _json(run, *args):
    return json.loads(run("messages", *args, "--json").output)


def test_it_lists_the_scopes_log_with_role_speaker_time_status_and_content(run, db):
    got = _json(run, "--user", "ana")
    assert [m["id"] for m in got["messages"]][:5] == ["a1", "a2", "a3", "a4", "a5"] and got["next_cursor"] is None
    assert len(got["messages"]) == 6  # and the bot's, under any agent
    first = got["messages"][0]
    assert (first["role"], first["speaker"], first["status"], first["content"]) == ("user", "Ana", "processed", "I keep bees on the roof.")
    assert first["timestamp"].startswith("2024-03-01T09:00:00")
    tool = got["messages"][3]
    assert tool["role"] == "tool" and tool["source"] == "tool:weather" and tool["status"] in ("processed", "logged")
    lines = run("messages", "--user", "ana").output.splitlines()
    assert lines[0].startswith("2024-03-01T09:00:00+00:00  processed user Ana: I keep bees on the roof.  [a1]")
    assert "tool via tool:weather: Sunny, 21 C." in lines[3]


def test_the_scope_rule_is_every_commands(run, db):
    assert [m["id"] for m in _json(run, "--user", "ana", "--agent", "bot")["messages"]] != []
    assert all(m["scope"]["agent_id"] == "bot" for m in _json(run, "--user", "ana", "--agent", "bot")["messages"])
    assert [m["content"] for m in _json(run, "--user", "ben")["messages"]] == ["Someone else's words."]
    assert _json(run)["messages"] == []  # --user defaults to "default", which has said nothing
    empty = run("messages", "--user", "nobody")
    assert empty.stdout == "" and "no messages under user=nobody" in empty.output


def test_pages_chain_through_the_log_once(run, db):
    seen, cursor = [], None
    while True:
        args = ["--user", "ana", "--limit", "2"] + (["--cursor", cursor] if cursor else [])
        page = _json(run, *args)
        assert len(page["messages"]) <= 2
        seen += [m["id"] for m in page["messages"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == [m["id"] for m in _json(run, "--user", "ana")["messages"]]
    human = run("messages", "--user", "ana", "--limit", "2")
    assert len(human.stdout.splitlines()) == 2 and "more: memdesk messages --user ana --cursor" in human.output


def test_pending_lists_only_what_is_not_processed_yet(run, db):
    mem = Memory.open()
    mem.processor = Failing()
    for text in ("I moved to Porto.", "My sister lives in Braga.", "I start a new job on Monday."):
        with pytest.raises(LLMError):
            mem.add(text, scope=Scope(user_id="ana"))
    mem.close()
    pending = _json(run, "--user", "ana", "--pending")["messages"]
    assert [m["content"] for m in pending] == ["I moved to Porto.", "My sister lives in Braga.", "I start a new job on Monday."]
    assert {m["status"] for m in pending} == {"pending"}
    first = _json(run, "--user", "ana", "--pending", "--limit", "2")
    rest = _json(run, "--user", "ana", "--pending", "--limit", "2", "--cursor", first["next_cursor"])
    assert [m["id"] for m in first["messages"] + rest["messages"]] == [m["id"] for m in pending] and rest["next_cursor"] is None
    assert _json(run, "--user", "ben", "--pending")["messages"] == []
    assert "pending" in run("messages", "--user", "ana").output


@pytest.mark.parametrize("args", [["--limit", "0"], ["--limit", "-3"], ["--cursor", "not-a-cursor"],
                                  ["--pending", "--cursor", "nope"]])  # fmt: skip
def test_bad_options_are_refused_with_exit_2(run, db, args):
    got = run("messages", *args, ok=False)
    assert got.exit_code == 2, got.output
