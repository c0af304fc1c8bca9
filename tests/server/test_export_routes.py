"""Export and import over HTTP: a tenant exports its own scope only; the admin routes refuse tenant keys."""

from __future__ import annotations

import json

import pytest

from memdesk.server import ApiKeys, create_app
from memdesk.tenants import Tenant

from tests.trust.conftest import KeyTable

from .conftest import AUTH, KEY, sqlite_memory


@pytest.fixture
def tenants(mem):
    from fastapi.testclient import TestClient

    table = KeyTable()
    with TestClient(create_app(mem, api_keys=ApiKeys([KEY], tenant_keys=table))) as c:
        yield c, table


def _lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_a_tenant_exports_its_own_scope_and_nothing_of_another(tenants):
    client, table = tenants
    ana = {"Authorization": f"Bearer {table.create(Tenant(user_id='ana'))}"}
    client.post("/v1/memories", json={"messages": ["I keep bees on the roof."]}, headers=ana)
    client.post("/v1/memories", json={"messages": ["My run notes."], "run_id": "r1"}, headers=ana)
    client.post("/v1/memories", json={"user_id": "ben", "messages": ["I play the cello."]}, headers=AUTH)
    r = client.get("/v1/export", headers=ana)
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
    lines = _lines(r.text)
    assert lines[0]["kind"] == "header" and lines[0]["scope"]["user_id"] == "ana" and lines[-1]["kind"] == "end"
    texts = [x["record"]["fact"] for x in lines if x["kind"] == "record"]
    assert sorted(texts) == ["I keep bees on the roof.", "My run notes."] and "cello" not in r.text
    assert client.get("/v1/export", params={"user_id": "ben"}, headers=ana).status_code == 404
    for path in ("/v1/admin/export?user_id=ana",):
        assert client.get(path, headers=ana).status_code == 403
    assert client.post("/v1/admin/import", content=r.text, headers=ana).status_code == 403


def test_the_admin_exports_and_imports_with_conflict_rules(tenants, tmp_path):
    from fastapi.testclient import TestClient

    client, _ = tenants
    client.post("/v1/memories", json={"user_id": "ana", "messages": ["I keep bees."]}, headers=AUTH)
    body = client.get("/v1/admin/export", params={"user_id": "ana", "vectors": True}, headers=AUTH).text
    assert _lines(body)[0]["vectors"] is True
    assert client.post("/v1/admin/import", content=body, headers=AUTH).status_code == 409
    other = sqlite_memory(tmp_path / "other.db")
    try:
        with TestClient(create_app(other, api_keys=ApiKeys([KEY]))) as c2:
            got = c2.post("/v1/admin/import", content=body, headers=AUTH)
            assert got.status_code == 200 and got.json()["records"] == 1 and got.json()["reembedded"] is False
            assert [m["text"] for m in c2.get("/v1/memories", params={"user_id": "ana"}, headers=AUTH).json()] == ["I keep bees."]
            assert c2.post("/v1/admin/import", params={"on_conflict": "skip"}, content=body, headers=AUTH).json()["skipped"] == 2
            bad = c2.post("/v1/admin/import", content="not json\n", headers=AUTH)
            assert bad.status_code == 422 and bad.json()["error"]["type"] == "MalformedFileError"
    finally:
        other.close()
