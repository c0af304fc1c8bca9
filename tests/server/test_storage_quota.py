"""Optional storage quotas per tenant, through a real server on each backend (memdesk.conversation.quota).

A tenant at or past its quota of records or bytes gets 413 ``QuotaExceededError`` on add (with nothing stored);
its reads, deletes and forget still work and free room; another tenant adds as before; without a quota setting
nothing is refused.
"""

from __future__ import annotations

import httpx
import pytest

from memdesk.errors import QuotaExceededError
from memdesk.conversation.memory import build_memory
from memdesk.server import ApiKeys, create_app
from memdesk.settings import Settings

from .conftest import AUTH, KEY, LiveServer

ANA = {"user_id": "ana", "agent_id": "bot"}
BEN = {"user_id": "ben"}


@pytest.fixture
def serve(backend_url):
    """A live server on the test's backend, with the quota settings given."""
    opened = []

    def start(**quota):
        memory = build_memory(Settings(database_url=backend_url, embedder="hashing", processor="raw", **quota))
        server = LiveServer(create_app(memory, api_keys=ApiKeys([KEY]))).__enter__()
        opened.append((server, memory))
        return httpx.Client(base_url=server.url, headers=AUTH, timeout=30)

    yield start
    for server, memory in opened:
        server.__exit__(None, None, None)
        memory.close()


def _add(c: httpx.Client, scope: dict, *texts: str) -> httpx.Response:
    return c.post("/v1/memories", json={**scope, "messages": list(texts)})


def test_a_tenant_past_its_record_quota_is_refused_and_keeps_everything(serve):
    c = serve(quota_records=3)
    assert _add(c, ANA, "Ana keeps bees on the roof.", "Ana's hives face south.").status_code == 201
    assert _add(c, {**ANA, "run_id": "r1"}, "Ana harvested honey in July.").status_code == 201  # 3: at the quota
    r = _add(c, ANA, "Ana bought a new smoker.")
    assert r.status_code == 413 and r.json()["error"]["type"] == "QuotaExceededError"
    assert "quota is 3" in r.json()["error"]["message"]
    listed = c.get("/v1/memories", params=ANA).json()
    assert len(listed) == 3  # nothing stored was lost
    assert len(c.post("/v1/memories/search", json={**ANA, "query": "bees"}).json()) >= 1  # reads work
    assert _add(c, BEN, "Ben plays the cello.").status_code == 201  # another tenant is not affected
    first = listed[0]
    assert c.delete(f"/v1/memories/{first['id']}", params=ANA).status_code == 200  # deletes work and free room
    assert _add(c, ANA, "Ana bought a new smoker.").status_code == 201
    assert _add(c, ANA, "Ana sells honey at the market.").status_code == 413
    assert c.request("DELETE", "/v1/memories", params={"user_id": "ana", "wildcard": "true"}).status_code == 200
    assert _add(c, ANA, "Ana starts again.").status_code == 201  # forget works and frees the quota


def test_a_tenant_past_its_byte_quota_is_refused(serve):
    c = serve(quota_bytes=4_000)
    long = {"content": "Ana's notebook is full.", "metadata": {"scan": "x" * 3_000}}
    assert c.post("/v1/memories", json={**ANA, "messages": [long]}).status_code == 201  # message + record + version
    r = _add(c, ANA, "One more line.")
    assert r.status_code == 413 and r.json()["error"]["type"] == "QuotaExceededError"
    assert _add(c, BEN, "Ben is fine.").status_code == 201


def test_without_a_quota_nothing_is_refused(serve):
    c = serve()
    for i in range(5):
        assert _add(c, ANA, f"Ana note {i}.").status_code == 201


def test_the_remote_client_raises_the_typed_error(serve):
    from memdesk.client.remote import RemoteMemory
    from memdesk.records import Scope

    c = serve(quota_records=1)
    assert _add(c, ANA, "Ana keeps bees.").status_code == 201
    with RemoteMemory(str(c.base_url), api_key=KEY) as remote, pytest.raises(QuotaExceededError):
        remote.add("Ana adds more.", scope=Scope(**ANA))
