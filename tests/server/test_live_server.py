"""A real uvicorn server over real sockets, built from settings with the packaged MiniLM embedder and the
rule processor, on SQLite and on PostgreSQL: HTTP clients, concurrent writers, MCP over streamable HTTP, and
`memdesk mcp` over stdio."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import httpx2
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from memdesk.errors import RemoteAuthError
from memdesk.conversation.memory import build_memory
from memdesk.records import Scope
from memdesk.hits import SearchHit
from memdesk.client.remote import RemoteMemory
from memdesk.server import ApiKeys, create_app
from memdesk.settings import Settings


from .conftest import AUTH, KEY, LiveServer, mcp_stdio_round_trip


@pytest.fixture
def live(backend_url):
    """The server on each store backend: SQLite in a file, and a real PostgreSQL + pgvector database."""
    memory = build_memory(Settings(database_url=backend_url))
    try:
        with LiveServer(create_app(memory, api_keys=ApiKeys([KEY]))) as server:
            yield server, memory
    finally:
        memory.close()


def http(method: str, url: str, body=None, headers=None):
    req = urllib.request.Request(url, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_real_server_routes_extracts_and_finds_with_minilm(live):
    server, memory = live
    status, added = http(
        "POST", f"{server.url}/v1/memories",
        {"user_id": "ana", "messages": [
            {"speaker": "Ana", "content": "I moved to Lisbon last month for a new job.", "timestamp": "2024-05-01T10:00:00Z"},
            {"speaker": "Ana", "content": "First, preheat the oven. Then add the flour and mix it in.", "timestamp": "2024-05-01T10:01:00Z"},
        ]},
        AUTH,
    )
    assert status == 201
    assert {r["type"] for r in added["records"]} >= {"episodic", "procedural"}  # the rule router typed them
    status, hits = http("POST", f"{server.url}/v1/memories/search", {"user_id": "ana", "query": "Which city does Ana live in?"}, AUTH)
    assert status == 200 and "Lisbon" in json.dumps(hits[0]["record"])
    status, health = http("GET", f"{server.url}/healthz")
    assert health["embedding_model"] == memory.embedder.model_id and "minilm" in health["embedding_model"].lower()


def test_remote_memory_over_a_real_socket(live):
    server, _ = live
    with RemoteMemory(server.url, api_key=KEY) as remote:
        assert remote.health()["status"] == "ok"
        remote.add({"speaker": "Ana", "content": "I have been learning the cello since March."}, scope=Scope(user_id="ana"))
        hits = remote.search("What instrument does Ana play?", scope=Scope(user_id="ana"), K=3)
        assert "cello" in hits[0].record.embed_text() and isinstance(hits[0], SearchHit)
    with RemoteMemory(server.url, api_key="wrong-key-0123456789") as stranger, pytest.raises(RemoteAuthError):
        stranger.get_all(scope=Scope(user_id="ana"))


def test_concurrent_http_writers_lose_nothing(live):
    server, memory = live

    def write(i: int) -> int:
        status, _ = http(
            "POST", f"{server.url}/v1/memories",
            {"user_id": "crowd", "messages": [{"id": f"w{i}-{j}", "content": f"Writer {i} note {j}: buy {j} apples."} for j in range(3)]},
            AUTH,
        )
        return status

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(write, range(16)))
    assert statuses == [201] * 16
    logged = {m.id for m in memory.messages(scope={"user_id": "crowd"})}
    assert logged == {f"w{i}-{j}" for i in range(16) for j in range(3)}


def test_mcp_over_streamable_http_needs_the_key(live):
    server, _ = live

    async def session(headers):
        async with httpx2.AsyncClient(headers=headers, timeout=60) as hc:
            async with Client(streamable_http_client(f"{server.url}/mcp", http_client=hc)) as c:
                added = await c.call_tool("add_memory", {"text": "My sister lives in Porto.", "user_id": "ana"})
                found = await c.call_tool("search_memory", {"query": "Where does the sister live?", "user_id": "ana"})
                return added, found

    added, found = asyncio.run(session(AUTH))
    assert not added.is_error and "Porto" in found.structured_content["result"][0]["text"]

    status, body = http("POST", f"{server.url}/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert status == 401 and body["error"]["type"] == "NotAuthenticated"


def test_memdesk_mcp_over_stdio(tmp_path):
    env = {**os.environ, "MEMDESK_DATABASE_URL": f"sqlite:///{tmp_path}/stdio.db", "MEMDESK_CONFIG": ""}
    params = StdioServerParameters(command=sys.executable, args=["-m", "memdesk", "mcp"], env=env)
    assert "peanuts" in mcp_stdio_round_trip(params, "I am allergic to peanuts.", "food allergy")


def test_serve_refuses_a_public_address_without_keys(tmp_path):
    env = {**os.environ, "MEMDESK_DATABASE_URL": f"sqlite:///{tmp_path}/x.db", "MEMDESK_CONFIG": ""}
    env.pop("MEMDESK_API_KEYS", None)
    r = subprocess.run(
        [sys.executable, "-m", "memdesk", "serve", "--host", "0.0.0.0"], env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2 and "MEMDESK_API_KEYS" in r.stderr


def test_memdesk_mcp_over_stdio_bound_to_a_tenant(tmp_path):
    env = {
        **os.environ, "MEMDESK_DATABASE_URL": f"sqlite:///{tmp_path}/stdio.db", "MEMDESK_CONFIG": "",
        "MEMDESK_EMBEDDER": "hashing",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "memdesk", "mcp", "--user", "ana"], env=env)

    async def go():
        async with Client(params, read_timeout_seconds=120) as c:
            added = await c.call_tool("add_memory", {"text": "I am allergic to peanuts."})  # no user_id: ana's
            mine = await c.call_tool("list_memories", {})
            theirs = await c.call_tool("list_memories", {"user_id": "ben"})
            write = await c.call_tool("add_memory", {"text": "x", "user_id": "ben"})
            return added, mine, theirs, write

    added, mine, theirs, write = asyncio.run(go())
    assert not added.is_error and [m["text"] for m in mine.structured_content["result"]] == ["I am allergic to peanuts."]
    assert theirs.is_error and "UnknownScopeError" in theirs.content[0].text
    assert write.is_error and "ForbiddenScopeError" in write.content[0].text
