"""The HTTP API through FastAPI's test client on a real SQLite store: every route, auth, errors, OpenAPI."""

from __future__ import annotations

import pytest

from memdesk.server import ApiKeys, create_app
from memdesk.errors import ConfigError

from .conftest import AUTH, KEY, OTHER_KEY

ANA = {"user_id": "ana"}


def add(client, *messages, **scope):
    r = client.post("/v1/memories", json={**(scope or ANA), "messages": list(messages)}, headers=AUTH)
    assert r.status_code == 201, r.text
    return r.json()


def test_add_search_get_update_history_delete_round_trip(client):
    added = add(
        client,
        {"id": "m1", "speaker": "Ana", "content": "I adopted a grey cat named Miso.", "timestamp": "2023-05-08T13:56:00Z"},
        "The train to Porto leaves at nine.",
    )
    assert added["message_ids"][0] == "m1" and len(added["message_ids"]) == 2
    assert len(added["records"]) == 2 and set(added["routes"]) == set(added["message_ids"])
    cat = next(r for r in added["records"] if "Miso" in r["fact"])
    assert cat["provenance"] == ["m1"] and cat["scope"]["user_id"] == "ana"

    hits = client.post("/v1/memories/search", json={**ANA, "query": "grey cat Miso"}, headers=AUTH).json()
    assert hits[0]["id"] == hits[0]["record"]["id"] == cat["id"] and hits[0]["type"] == "semantic"
    assert hits[0]["score"] >= hits[-1]["score"]

    got = client.get(f"/v1/memories/{cat['id']}", params=ANA, headers=AUTH).json()
    assert got["text"] == got["record"]["fact"] == cat["fact"] and got["type"] == "semantic"

    new = client.patch(
        f"/v1/memories/{cat['id']}", json={"text": "Ana's cat Miso is grey and two years old."}, params=ANA, headers=AUTH
    )
    assert new.status_code == 200 and new.json()["text"].startswith("Ana's cat")
    hist = client.get(f"/v1/memories/{cat['id']}/history", params=ANA, headers=AUTH).json()
    assert [h["event"] for h in hist] == ["ADD", "UPDATE"]
    assert hist[0]["record"]["fact"] == cat["fact"]

    assert client.delete(f"/v1/memories/{cat['id']}", params=ANA, headers=AUTH).json() == {"deleted": 1}
    assert client.get(f"/v1/memories/{cat['id']}", params=ANA, headers=AUTH).status_code == 404
    history = client.get(f"/v1/memories/{cat['id']}/history", params=ANA, headers=AUTH).json()
    assert [h["event"] for h in history][-1] == "DELETE"


def test_re_adding_known_message_ids_adds_nothing(client):
    add(client, {"id": "m1", "content": "I live in Lisbon."})
    again = add(client, {"id": "m1", "content": "I live in Lisbon."})
    assert again["records"] == [] and again["message_ids"] == ["m1"]
    assert len(client.get("/v1/memories", params=ANA, headers=AUTH).json()) == 1


def test_list_pages_and_filters_by_type_and_scope(client):
    add(client, *[f"fact number {i}" for i in range(5)])
    add(client, "someone else's fact", user_id="ben")
    everything = client.get("/v1/memories", params=ANA, headers=AUTH).json()
    assert len(everything) == 5 and all(r["scope"]["user_id"] == "ana" for r in everything)
    first = client.get("/v1/memories", params={**ANA, "limit": 2}, headers=AUTH)
    assert [r["id"] for r in first.json()] == [r["id"] for r in everything[:2]]
    second = client.get("/v1/memories", params={**ANA, "limit": 2, "cursor": first.headers["X-Next-Cursor"]}, headers=AUTH)
    assert [r["id"] for r in second.json()] == [r["id"] for r in everything[2:4]]
    last = client.get("/v1/memories", params={**ANA, "limit": 2, "cursor": second.headers["X-Next-Cursor"]}, headers=AUTH)
    assert [r["id"] for r in last.json()] == [everything[4]["id"]] and "X-Next-Cursor" not in last.headers
    bad = client.get("/v1/memories", params={**ANA, "cursor": "not-a-cursor"}, headers=AUTH)
    assert bad.status_code == 422 and bad.json()["error"]["type"] == "InvalidInputError"
    assert client.get("/v1/memories", params={**ANA, "types": "episodic"}, headers=AUTH).json() == []


def test_delete_scope_forgets_the_exact_scope_unless_wildcard(client):
    one = add(client, "one", "two")["records"][0]["id"]
    add(client, "three", user_id="ben")
    add(client, "four", user_id="ana", agent_id="bot")
    got = client.request("DELETE", "/v1/memories", params=ANA, headers=AUTH).json()
    assert got == {"deleted": 2, "messages": 2, "history": 2, "scopes": 1, "banks": 0, "keys": 0}  # ana has no tenant key here
    left = client.get("/v1/memories", params=ANA, headers=AUTH).json()  # a read under user ana: any agent
    assert [r["scope"] for r in left] == [{"user_id": "ana", "agent_id": "bot", "run_id": None}]
    assert client.get(f"/v1/memories/{one}/history", params=ANA, headers=AUTH).status_code == 404  # no tombstone
    wild = client.request("DELETE", "/v1/memories", params={**ANA, "wildcard": "true"}, headers=AUTH).json()
    assert wild["deleted"] == 1
    assert client.get("/v1/memories", params=ANA, headers=AUTH).json() == []
    assert len(client.get("/v1/memories", params={"user_id": "ben"}, headers=AUTH).json()) == 1
    bad = client.request("DELETE", "/v1/memories", params={**ANA, "wildcard": "maybe"}, headers=AUTH)
    assert bad.status_code == 422


def test_evidence_answer_and_messages(client):
    add(client, {"content": "My sister's wedding is in June.", "speaker": "Ana", "timestamp": "2023-05-08T13:56:00Z"})
    ev = client.post("/v1/memories/evidence", json={**ANA, "query": "When is the wedding?"}, headers=AUTH).json()
    assert "wedding" in ev["text"] and ev["tokens"] > 0 and len(ev["hits"]) == 1
    ans = client.post("/v1/memories/answer", json={**ANA, "question": "When is the wedding?"}, headers=AUTH).json()
    same = client.post("/v1/memories/answer", json={**ANA, "query": "When is the wedding?"}, headers=AUTH).json()
    assert same["answer"] == ans["answer"]  # the old name still works
    assert ans["extractive"] is True and "June" in ans["answer"]
    log = client.get("/v1/messages", params=ANA, headers=AUTH).json()
    assert [m["content"] for m in log] == ["My sister's wedding is in June."]


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer wrong-key-0123456789"}, {"X-API-Key": KEY[:-1]}, {"Authorization": KEY}],
    ids=["none", "wrong-bearer", "wrong-header", "no-bearer-prefix"],
)
def test_v1_routes_need_a_key(client, headers):
    r = client.post("/v1/memories", json={**ANA, "messages": ["hello"]}, headers=headers)
    assert r.status_code == 401
    assert r.json()["error"]["type"] == "NotAuthenticated" and r.headers["www-authenticate"] == "Bearer"
    assert client.get("/v1/memories", params=ANA, headers=headers).status_code == 401
    assert client.get("/v1/memories", params=ANA, headers=AUTH).json() == []  # nothing was written


@pytest.mark.parametrize(
    "headers", [AUTH, {"X-API-Key": KEY}, {"X-API-Key": OTHER_KEY}, {"authorization": f"bearer {OTHER_KEY}"}]
)
def test_every_configured_key_works_in_either_header(client, headers):
    assert client.get("/v1/memories", params=ANA, headers=headers).status_code == 200


def test_health_and_openapi_need_no_key_and_document_the_auth(client):
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and health["embedding_model"] == "hashing-256" and health["store"] == "SQLiteStore"
    spec = client.get("/openapi.json").json()
    assert set(spec["components"]["securitySchemes"]) == {"HTTPBearer", "APIKeyHeader"}
    assert {"/v1/memories", "/v1/memories/search", "/v1/memories/{memory_id}/history"} <= set(spec["paths"])
    add_op = spec["paths"]["/v1/memories"]["post"]
    assert add_op["security"] and "401" in add_op["responses"] and "422" in add_op["responses"]


@pytest.mark.parametrize(
    ("method", "path", "body", "params", "status", "error"),
    [
        ("post", "/v1/memories", {"messages": ["hi"]}, None, 422, "InvalidScopeError"),
        ("post", "/v1/memories", {"user_id": " ", "messages": ["hi"]}, None, 422, "InvalidScopeError"),
        ("post", "/v1/memories", {**ANA, "messages": []}, None, 422, "InvalidInputError"),
        ("post", "/v1/memories", {**ANA, "messages": ["   "]}, None, 422, "EmptyInputError"),
        ("post", "/v1/memories", {**ANA, "messages": [{"content": "x", "role": "robot"}]}, None, 422, "InvalidInputError"),
        ("post", "/v1/memories", {**ANA, "messages": ["x"], "tenant": "y"}, None, 422, "InvalidInputError"),
        ("post", "/v1/memories/search", {**ANA, "query": ""}, None, 422, "EmptyInputError"),
        ("post", "/v1/memories/search", {**ANA, "query": "x", "k": 0}, None, 422, "InvalidInputError"),
        ("post", "/v1/memories/search", {**ANA, "query": "x", "types": ["emotional"]}, None, 422, "InvalidInputError"),
        ("get", "/v1/memories", None, {}, 422, "InvalidScopeError"),
        ("get", "/v1/memories/nope", None, ANA, 404, "RecordNotFoundError"),
        ("get", "/v1/memories/nope/history", None, ANA, 404, "RecordNotFoundError"),
        ("delete", "/v1/memories/nope", None, ANA, 404, "RecordNotFoundError"),
        ("patch", "/v1/memories/nope", {"text": "x"}, ANA, 404, "RecordNotFoundError"),
        ("get", "/v1/memories/keep", None, None, 422, "InvalidScopeError"),  # by-id calls name a scope too
        ("delete", "/v1/memories/keep", None, None, 422, "InvalidScopeError"),
    ],
)
def test_bad_input_gets_a_typed_error_and_loses_nothing(client, method, path, body, params, status, error):
    add(client, {"id": "keep", "content": "I keep bees."})
    before = client.get("/v1/memories", params=ANA, headers=AUTH).json()
    r = client.request(method.upper(), path, json=body, params=params, headers=AUTH)
    assert r.status_code == status, r.text
    assert r.json()["error"]["type"] == error and r.json()["error"]["message"]
    assert client.get("/v1/memories", params=ANA, headers=AUTH).json() == before


def test_update_rejects_protected_fields_and_keeps_the_record(client):
    rec = add(client, "I keep bees.")["records"][0]
    r = client.patch(f"/v1/memories/{rec['id']}", json={"fields": {"scope": {"user_id": "eve"}}}, params=ANA, headers=AUTH)
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    assert client.get(f"/v1/memories/{rec['id']}", params=ANA, headers=AUTH).json()["scope"]["user_id"] == "ana"


@pytest.mark.parametrize("field", ["text", "record_id", "scope"])
def test_update_fields_that_clash_with_arguments_are_422_not_500(client, field):
    rec = add(client, "I keep bees.")["records"][0]
    r = client.patch(f"/v1/memories/{rec['id']}", json={"fields": {field: "x"}}, params=ANA, headers=AUTH)
    assert r.status_code == 422 and r.json()["error"]["type"] == "InvalidInputError"
    assert client.get(f"/v1/memories/{rec['id']}", params=ANA, headers=AUTH).json()["text"] == "I keep bees."


def test_every_route_needs_a_key(client):
    """Walk every documented operation (and /mcp), so a route added later without the key check fails here."""
    spec = client.get("/openapi.json").json()
    operations = [(m.upper(), p) for p, ops in spec["paths"].items() for m in ops if p != "/healthz"]
    operations += [("POST", "/mcp"), ("GET", "/mcp"), ("DELETE", "/mcp")]
    assert len(operations) >= 14
    for method, path in operations:
        for headers in ({}, {"X-API-Key": "wrong-key-0123456789abcdef"}):
            r = client.request(method, path.replace("{memory_id}", "some-id"), params=ANA, json={}, headers=headers)
            assert r.status_code == 401, (method, path, r.status_code)


def test_a_scope_never_written_reads_as_empty(client):
    r = client.post("/v1/memories/search", json={"user_id": "nobody", "query": "x"}, headers=AUTH)
    assert r.status_code == 200 and r.json() == []
    r = client.get("/v1/memories", params={"user_id": "nobody"}, headers=AUTH)
    assert r.status_code == 200 and r.json() == []


def test_a_locked_database_is_503_with_retry_after(mem):
    from fastapi.testclient import TestClient

    from memdesk.errors import StoreLockedError

    def locked(*a, **k):
        raise StoreLockedError("database is locked")

    mem.store.write = locked  # the store's own locking is tested in the conformance suite
    with TestClient(create_app(mem, mcp=False), base_url="http://127.0.0.1") as c:
        r = c.post("/v1/memories", json={**ANA, "messages": ["x"]})
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert r.json()["error"]["type"] == "StoreLockedError"


def test_without_keys_everything_is_open_on_loopback_names(mem):
    from fastapi.testclient import TestClient

    with TestClient(create_app(mem, mcp=False), base_url="http://127.0.0.1:8000") as c:
        assert c.post("/v1/memories", json={**ANA, "messages": ["x"]}).status_code == 201
        assert c.get("/v1/memories", params=ANA, headers={"Host": "localhost:8000"}).status_code == 200
        assert c.get("/v1/memories", params=ANA, headers={"Host": "[::1]:8000"}).status_code == 200
        r = c.post("/mcp", json={})  # MCP not mounted
        assert r.status_code == 404 and r.json()["error"]["type"] == "NotFound"


@pytest.mark.parametrize("path", ["/v1/memories?user_id=ana", "/mcp", "/healthz"])
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""])
def test_without_keys_other_host_names_are_refused(mem, path, host):
    """DNS rebinding: a web page whose domain resolves to 127.0.0.1 must not reach a keyless server."""
    from fastapi.testclient import TestClient

    with TestClient(create_app(mem), base_url="http://127.0.0.1:8000") as c:
        r = c.get(path, headers={"Host": host})
        assert r.status_code == 400 and r.json()["error"]["type"] == "UntrustedHost"
        w = c.post("/v1/memories", json={**ANA, "messages": ["x"]}, headers={"Host": host})
        assert w.status_code == 400
    assert mem.get_all(scope=ANA) == []


def test_allowed_hosts_can_be_widened_explicitly(mem):
    from fastapi.testclient import TestClient

    with TestClient(create_app(mem, mcp=False, allowed_hosts=["*"])) as c:
        assert c.get("/v1/memories", params=ANA, headers={"Host": "memory.internal"}).status_code == 200
    with TestClient(create_app(mem, mcp=False, allowed_hosts=["memory.internal"])) as c:
        assert c.get("/v1/memories", params=ANA, headers={"Host": "memory.internal:80"}).status_code == 200
        assert c.get("/v1/memories", params=ANA, headers={"Host": "127.0.0.1"}).status_code == 400


def test_host_names_parse_with_ports_and_ipv6():
    from memdesk.server.auth import host_of

    assert host_of("LOCALHOST:8000") == "localhost" and host_of("[::1]:80") == "::1" and host_of("[::1]") == "::1"
    assert host_of("127.0.0.1") == "127.0.0.1" and host_of(" memory.internal ") == "memory.internal"


@pytest.mark.parametrize(
    "header",
    [
        "localhost:80@evil.example", "localhost@evil.example", "evil.example#localhost", "localhost/evil", "[::1",
        "::1", "localhost:", "localhost:8o", "localhost:123456", "local host", "localhost:80:80", "[::1]x", "",
        "user:pw@localhost", "localhost\\evil", "localhost.:80@x", "-localhost",
    ],
)
def test_malformed_host_headers_are_refused_not_split(mem, header):
    """The Host header is parsed whole: anything but one host and an optional port is refused."""
    from fastapi.testclient import TestClient

    from memdesk.server.auth import host_of

    assert host_of(header) is None
    with TestClient(create_app(mem, mcp=False), base_url="http://127.0.0.1:8000") as c:
        r = c.post("/v1/memories", json={**ANA, "messages": ["x"]}, headers={"Host": header})
        assert r.status_code == 400 and r.json()["error"]["type"] == "UntrustedHost"
    assert mem.get_all(scope=ANA) == []


@pytest.mark.parametrize("value", ["short", " padded-key-0123456789 "])
def test_weak_or_padded_keys_are_refused(value):
    with pytest.raises(ConfigError):
        ApiKeys([value])


def test_keys_parse_from_a_comma_separated_setting():
    keys = ApiKeys.parse(f" {KEY} ,, {OTHER_KEY}")
    assert keys.required and keys.caller(None, OTHER_KEY).is_admin and keys.caller(None, "x" * 20) is None
    assert not ApiKeys.parse("").required and ApiKeys.parse(None).caller(None, None).is_admin
    assert ApiKeys.parse(None).caller(None, "offered-but-unknown-key") is None  # an offered key is always checked
