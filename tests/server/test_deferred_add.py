"""``wait: false`` over HTTP, MCP and RemoteMemory: logged pending at once (202), processed by the server's worker."""

from __future__ import annotations

import asyncio

from mcp.client import Client

from memdesk.client.remote import RemoteMemory
from memdesk.server import create_mcp_server

from .conftest import AUTH, KEY

ANA = {"user_id": "ana"}
SAID = [{"id": "m1", "speaker": "Ana", "content": "I adopted a grey cat named Miso.", "timestamp": "2023-05-08T13:56:00Z"},
        {"id": "m2", "speaker": "Ana", "content": "My sister's wedding is in June.", "timestamp": "2023-05-09T10:00:00Z"}]  # fmt: skip


def test_http_add_without_waiting_answers_202_and_the_messages_get_processed(client, mem):
    r = client.post("/v1/memories", json={**ANA, "messages": SAID, "wait": False}, headers=AUTH)
    assert r.status_code == 202, r.text
    body = r.json()
    assert (body["message_ids"], body["pending"], body["records"], body["routes"]) == (["m1", "m2"], ["m1", "m2"], [], {})
    mem.wait_pending()  # the server's Memory: its worker thread processed them
    log = client.get("/v1/messages", params=ANA, headers=AUTH).json()
    assert [(m["id"], m["pending"], m["route_mask"] is not None) for m in log] == [("m1", False, True), ("m2", False, True)]
    found = client.post("/v1/memories/search", json={**ANA, "query": "grey cat"}, headers=AUTH).json()
    assert "Miso" in found[0]["record"]["fact"]
    again = client.post("/v1/memories", json={**ANA, "messages": SAID}, headers=AUTH)
    assert again.status_code == 201 and again.json()["records"] == [] and again.json()["pending"] == []  # known ids
    mem.wait_pending()
    assert len(client.get("/v1/memories", params=ANA, headers=AUTH).json()) == 2  # processed once
    bad = client.post("/v1/memories", json={**ANA, "messages": SAID, "wait": "later"}, headers=AUTH)
    assert bad.status_code == 422


def test_remote_memory_add_without_waiting(client, mem):
    remote = RemoteMemory("http://testserver", api_key=KEY, http_client=client)
    got = remote.add(SAID, scope=ANA, wait=False)
    assert got.pending == ["m1", "m2"] and got.records == []
    mem.wait_pending()
    facts = sorted(r.fact for r in remote.get_all(scope=ANA))
    assert len(facts) == 2 and "Miso" in facts[0] and "wedding" in facts[1]
    assert remote.add("I keep bees.", scope=ANA).pending == []


def test_mcp_add_memory_without_waiting(mem):
    async def go():
        async with Client(create_mcp_server(mem)) as c:
            return await c.call_tool("add_memory", {"text": "I keep bees.", "user_id": "ana", "wait": False})

    added = asyncio.run(go())
    assert not added.is_error
    assert added.structured_content["memories"] == [] and len(added.structured_content["pending"]) == 1
    mem.wait_pending()
    assert ["bees" in r.fact for r in mem.get_all(scope=ANA)] == [True]
