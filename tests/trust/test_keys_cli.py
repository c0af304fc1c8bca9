"""``memdesk keys create/list/revoke`` on the database ``memdesk serve`` reads its tenant keys from."""

from __future__ import annotations

import json

from memdesk.server import ApiKeys
from memdesk.store import open_store
from memdesk.tenants import Tenant


def test_keys_create_list_revoke_and_what_the_server_makes_of_them(run, tmp_path):
    made = json.loads(run("keys", "create", "--user", "ana", "--name", "laptop", "--json").output)
    key, key_id = made["key"], made["key_id"]
    assert key.startswith("mdk_") and made["user_id"] == "ana" and made["agent_id"] is None
    plain = run("keys", "create", "--user", "ana", "--agent", "bot").output.strip().splitlines()[0]
    assert plain.startswith("mdk_") and plain != key
    listed = json.loads(run("keys", "list", "--json").output)
    assert [k["key_id"] for k in listed][0] == key_id and len(listed) == 2
    assert all("key" not in k for k in listed) and key not in run("keys", "list").output
    assert "laptop" in run("keys", "list", "--user", "ana").output

    store = open_store(f"sqlite:///{tmp_path}/cli.db")  # what `memdesk serve` passes as tenant_keys
    try:
        keys = ApiKeys(["admin-key-0123456789"], tenant_keys=store)
        assert keys.caller(f"Bearer {key}", None).tenant == Tenant(user_id="ana")
        assert keys.caller(None, plain).tenant == Tenant(user_id="ana", agent_id="bot")
        assert run("keys", "revoke", key_id).output.strip() == f"revoked {key_id}"
        assert keys.caller(f"Bearer {key}", None) is None  # revoked: 401
        assert ApiKeys(tenant_keys=store).required  # a tenant key exists: keys are required
    finally:
        store.close()
    r = run("keys", "revoke", key_id, ok=False)
    assert r.exit_code == 2 and "no tenant key" in r.output
    r = run("keys", "create", "--user", "", ok=False)
    assert r.exit_code == 2


def test_forget_revokes_the_keys_bound_to_the_scope(run):
    run("keys", "create", "--user", "ana")
    bot = json.loads(run("keys", "create", "--user", "ana", "--agent", "bot", "--json").output)["key_id"]
    ben = json.loads(run("keys", "create", "--user", "ben", "--json").output)["key_id"]
    run("add", "--user", "ana", "I keep bees.")
    assert "revoked 1 API keys bound to it" in run("forget", "--user", "ana").output  # the exact scope: ana's key
    assert [k["key_id"] for k in json.loads(run("keys", "list", "--json").output)] == [bot, ben]
    got = json.loads(run("forget", "--user", "ana", "--wildcard", "--json").output)
    assert got["keys"] == 1  # every agent of ana's: the bot key too
    assert [k["key_id"] for k in json.loads(run("keys", "list", "--json").output)] == [ben]
