"""``memdesk forget`` and ``delete --all``: the exact scope unless ``--wildcard``, counts, one-line errors."""

from __future__ import annotations

import json


def test_forget_the_exact_scope_then_with_wildcard(run, tmp_path):
    run("add", "I keep bees on the roof.", "--user", "ana")
    run("add", "My cello teacher is Ruth.", "--user", "ana", "--run", "r1")
    run("add", "I live in Porto.", "--user", "ben")
    r = run("forget", "--user", "ana")
    assert "forgot 1 memories, 1 messages and 1 history entries in the exact scope user=ana" in r.output
    assert "--wildcard forgets them too" in r.output  # ana's run r1 is still there, and the command says so
    left = json.loads(run("list", "--user", "ana", "--json").output)
    assert [m["scope"]["run_id"] for m in left] == ["r1"]
    got = json.loads(run("forget", "--user", "ana", "--wildcard", "--json").output)
    assert got["records"] == 1 and got["messages"] == 1 and got["wildcard"] is True
    assert json.loads(run("list", "--user", "ana", "--json").output) == []
    assert json.loads(run("list", "--user", "ben", "--json").output)  # ben untouched


def test_delete_all_forgets_and_wildcard_needs_all(run):
    run("add", "I keep bees.", "--user", "ana", "--agent", "bot")
    assert json.loads(run("delete", "--all", "--user", "ana", "--json").output)["deleted"] == 0  # not the exact scope
    assert json.loads(run("delete", "--all", "--user", "ana", "--wildcard", "--json").output)["deleted"] == 1
    r = run("delete", "some-id", "--wildcard", ok=False)
    assert r.exit_code == 2 and "--wildcard goes with --all" in r.output
