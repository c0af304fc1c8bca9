"""Tenant keys on the HTTP API: a key bound to a user (or one agent of a user) reaches only that scope."""

from __future__ import annotations

import pytest

from memdesk.errors import ForbiddenScopeError, InvalidScopeError, RecordNotFoundError, UnknownScopeError
from memdesk.records import Scope
from memdesk.server import ApiKeys, create_app
from memdesk.tenants import Caller, Tenant

from tests.trust.conftest import KeyTable

from .conftest import AUTH, KEY


@pytest.fixture
def tenants(mem):
    """A client whose server knows the admin key and a key table; returns (client, key table)."""
    from fastapi.testclient import TestClient

    table = KeyTable()
    with TestClient(create_app(mem, api_keys=ApiKeys([KEY], tenant_keys=table))) as c:
        yield c, table


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_a_tenant_key_fills_its_user_in_and_sees_only_its_own(tenants):
    client, table = tenants
    ana, ben = bearer(table.create(Tenant(user_id="ana"))), bearer(table.create(Tenant(user_id="ben")))
    r = client.post("/v1/memories", json={"messages": ["I keep bees."]}, headers=ana)  # no user_id: ana's
    assert r.status_code == 201 and r.json()["records"][0]["scope"] == {"user_id": "ana", "agent_id": None, "run_id": None}
    client.post("/v1/memories", json={"user_id": "ben", "messages": ["I play the cello."]}, headers=ben)
    mine = client.get("/v1/memories", headers=ana).json()
    assert [r["text"] for r in mine] == ["I keep bees."]
    hits = client.post("/v1/memories/search", json={"query": "cello"}, headers=ana).json()
    assert {h["record"]["scope"]["user_id"] for h in hits} == {"ana"}
    # the admin key still reaches every scope, and a partial scope is a wildcard for it
    assert len(client.get("/v1/memories", params={"run_id": "none"}, headers=AUTH).json()) == 0


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "error"),
    [
        ("POST", "/v1/memories", {"messages": ["x"]}, 403, "ForbiddenScopeError"),
        ("POST", "/v1/memories", {"messages": ["x"], "wait": False}, 403, "ForbiddenScopeError"),
        ("DELETE", "/v1/memories", None, 403, "ForbiddenScopeError"),
        ("POST", "/v1/memories/search", {"query": "cello"}, 404, "UnknownScopeError"),
        ("POST", "/v1/memories/evidence", {"query": "cello"}, 404, "UnknownScopeError"),
        ("POST", "/v1/memories/answer", {"query": "cello"}, 404, "UnknownScopeError"),
        ("GET", "/v1/memories", None, 404, "UnknownScopeError"),
        ("GET", "/v1/messages", None, 404, "UnknownScopeError"),
    ],
)
def test_naming_another_tenant_is_404_for_reads_and_403_for_writes(tenants, mem, method, path, body, status, error):
    client, table = tenants
    ana = bearer(table.create(Tenant(user_id="ana")))
    mem.add("I play the cello.", scope=Scope(user_id="ben"))
    before = mem.get_all(scope=Scope(user_id="ben"))
    if method == "POST":
        r = client.request(method, path, json={"user_id": "ben", **body}, headers=ana)
    else:
        r = client.request(method, path, params={"user_id": "ben"}, headers=ana)
    assert r.status_code == status and r.json()["error"]["type"] == error
    assert mem.get_all(scope=Scope(user_id="ben")) == before and len(mem.messages(scope=Scope(user_id="ben"))) == 1


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE", "GET history"])
def test_another_tenants_record_reads_exactly_as_a_missing_one(tenants, mem, method):
    client, table = tenants
    ana = bearer(table.create(Tenant(user_id="ana")))
    theirs = mem.add("I play the cello.", scope=Scope(user_id="ben")).records[0]
    replies = []
    for rid in (theirs.id, "0" * len(theirs.id)):
        path = f"/v1/memories/{rid}" + ("/history" if method == "GET history" else "")
        for params in ({}, {"user_id": "ben"}):  # leaving the scope out, and naming the owner
            r = client.request(method.split()[0], path, params=params, json={"text": "mine now"} if method == "PATCH" else None, headers=ana)
            assert r.status_code == 404 and r.json()["error"]["type"] == "RecordNotFoundError"
            replies.append(r.json()["error"]["message"].replace(rid, "ID"))
    assert replies[0] == replies[2] and replies[1] == replies[3]  # the same words for "theirs" and "nobody's"
    assert mem.get(theirs.id, scope=Scope(user_id="ben")).fact == "I play the cello."


def test_an_agent_bound_key_reaches_only_that_agent(tenants, mem):
    client, table = tenants
    bot = bearer(table.create(Tenant(user_id="ana", agent_id="bot")))
    assert client.post("/v1/memories", json={"messages": ["I keep bees."]}, headers=bot).status_code == 201
    other_agent = mem.add("I play the cello.", scope=Scope(user_id="ana", agent_id="helper")).records[0]
    assert [r["scope"]["agent_id"] for r in client.get("/v1/memories", headers=bot).json()] == ["bot"]
    r = client.post("/v1/memories", json={"agent_id": "helper", "messages": ["x"]}, headers=bot)
    assert r.status_code == 403
    assert client.get(f"/v1/memories/{other_agent.id}", params={"user_id": "ana"}, headers=bot).status_code == 404


def test_an_unknown_key_is_401_even_where_no_key_is_required(mem):
    from fastapi.testclient import TestClient

    with TestClient(create_app(mem, mcp=False, api_keys=ApiKeys(tenant_keys=KeyTable())), base_url="http://127.0.0.1") as c:
        assert c.get("/v1/memories", params={"user_id": "ana"}).status_code == 200  # no key anywhere: open on loopback
        assert c.get("/v1/memories", params={"user_id": "ana"}, headers=bearer("mdk_guess_0123456789")).status_code == 401


def test_once_a_tenant_key_exists_every_request_needs_a_key(mem):
    from fastapi.testclient import TestClient

    table = KeyTable()
    with TestClient(create_app(mem, mcp=False, api_keys=ApiKeys(tenant_keys=table)), base_url="http://127.0.0.1") as c:
        table.create(Tenant(user_id="ana"))
        assert c.get("/v1/memories", params={"user_id": "ben"}).status_code == 401


def test_callers_scopes():
    ana = Caller(tenant=Tenant(user_id="ana"))
    assert ana.scope(run_id="r1", access="read") == Scope(user_id="ana", run_id="r1")
    assert Caller().scope(agent_id="bot", access="read") == Scope(agent_id="bot")
    for access, error in (("read", UnknownScopeError), ("write", ForbiddenScopeError), ("record", RecordNotFoundError)):
        with pytest.raises(error):
            ana.scope(user_id="ben", access=access, record_id="x")
    with pytest.raises(InvalidScopeError):
        Caller().scope(access="read")  # an admin names a scope
    with pytest.raises(InvalidScopeError):
        ana.scope(run_id=" ", access="write")  # a bad id is a 422 before any comparison


def test_a_tenant_follows_the_scope_rules():
    for bad in ({"user_id": " "}, {"user_id": "ana", "agent_id": "\ud800"}, {"user_id": 3}):
        with pytest.raises(InvalidScopeError):
            Tenant(**bad)


def test_the_memory_browser_shows_a_tenant_its_own_scopes_only(mem):
    from fastapi.testclient import TestClient

    form = {"content-type": "application/x-www-form-urlencoded"}
    table = KeyTable()
    ana_key = table.create(Tenant(user_id="ana"))
    mine = mem.add("I keep bees.", scope=Scope(user_id="ana", run_id="r1")).records[0]
    theirs = mem.add("I play the cello.", scope=Scope(user_id="ben")).records[0]
    app = create_app(mem, api_keys=ApiKeys([KEY], tenant_keys=table), mcp=False)
    with TestClient(app, follow_redirects=False) as ui:
        assert ui.post("/ui/login", content=f"key={ana_key}", headers=form).status_code == 303
        listing = ui.get("/ui").text
        assert "user=ana,run=r1" in listing and "user=ben" not in listing
        assert "bees" in ui.get("/ui/scope").text  # no scope named: the tenant's own
        assert ui.get("/ui/scope", params={"user_id": "ben"}).status_code == 404
        assert ui.get(f"/ui/memory/{mine.id}").status_code == 200
        for params in ({}, {"user_id": "ben"}):
            page = ui.get(f"/ui/memory/{theirs.id}", params=params)
            assert page.status_code == 404 and "cello" not in page.text
    assert mem.get(theirs.id, scope=Scope(user_id="ben")).fact == "I play the cello."
