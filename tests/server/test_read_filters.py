"""Read filters and as_of through every face: HTTP, MCP, RemoteMemory and the CLI agree with Memory."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime, timezone

from click.testing import CliRunner
from mcp.client import Client

from memdesk.cli.app import main
from memdesk.records import Scope
from memdesk.client.remote import RemoteMemory
from memdesk.server import create_mcp_server

from .conftest import AUTH, KEY

ANA = Scope(user_id="ana")
JAN = datetime(2024, 1, 10, tzinfo=timezone.utc)
MAY = datetime(2024, 5, 10, tzinfo=timezone.utc)


def fill(mem) -> None:
    mem.add(
        [
            {"content": "I bought a red kayak.", "speaker": "Ana", "timestamp": JAN, "metadata": {"app": "web", "n": 1}},
            {"content": "I painted the kayak blue.", "speaker": "Ana", "timestamp": MAY, "metadata": {"app": "ios", "n": 5}},
        ],
        scope=ANA,
    )


def test_http_search_and_list_take_filters_and_as_of(mem, client) -> None:
    fill(mem)
    body = {"user_id": "ana", "query": "kayak", "filters": {"metadata": {"app": "ios"}}}
    hits = client.post("/v1/memories/search", json=body, headers=AUTH).json()
    assert hits and all(h["record"]["metadata"]["app"] == "ios" for h in hits)
    body = {"user_id": "ana", "query": "kayak", "as_of": "2024-02-01T00:00:00Z"}
    hits = client.post("/v1/memories/search", json=body, headers=AUTH).json()
    assert hits and all(h["record"]["metadata"]["app"] == "web" for h in hits)
    listed = client.get("/v1/memories", params={"user_id": "ana", "filters": json.dumps({"metadata": {"n": {"gte": 2}}})}, headers=AUTH)
    assert listed.status_code == 200 and {r["metadata"]["app"] for r in listed.json()} == {"ios"}
    bad = client.post("/v1/memories/search", json={"user_id": "ana", "query": "kayak", "filters": {"colour": "red"}}, headers=AUTH)
    assert 400 <= bad.status_code < 500
    assert client.get("/v1/memories", params={"user_id": "ana", "filters": "{not json"}, headers=AUTH).status_code in (400, 422)


def test_mcp_tools_take_filters_and_keep_metadata(mem) -> None:
    async def go():
        async with Client(create_mcp_server(mem)) as c:
            await c.call_tool("add_memory", {"text": "I bought a red kayak.", "user_id": "ana", "metadata": {"app": "web"}})
            await c.call_tool("add_memory", {"text": "I bought a green tent.", "user_id": "ana", "metadata": {"app": "ios"}})
            found = await c.call_tool("search_memory", {"query": "bought", "user_id": "ana", "filters": {"metadata": {"app": "web"}}})
            listed = await c.call_tool("list_memories", {"user_id": "ana", "filters": {"metadata": {"app": "ios"}}})
            return found, listed

    found, listed = asyncio.run(go())
    assert not found.is_error and [h["text"] for h in found.structured_content["result"]] and all(
        "kayak" in h["text"] for h in found.structured_content["result"]
    )
    assert all("tent" in m["text"] for m in listed.structured_content["result"]) and listed.structured_content["result"]


def test_remote_memory_passes_filters_and_as_of(mem, client) -> None:
    fill(mem)
    remote = RemoteMemory("http://testserver", api_key=KEY, http_client=client)
    local = mem.search("kayak", scope=ANA, filters={"metadata": {"app": "web"}})
    far = remote.search("kayak", scope=ANA, filters={"metadata": {"app": "web"}})
    assert [h.record.id for h in far] == [h.record.id for h in local]
    then = datetime(2024, 2, 1, tzinfo=timezone.utc)
    assert [r.id for r in remote.get_all(scope=ANA, as_of=then)] == [r.id for r in mem.get_all(scope=ANA, as_of=then)]
    assert len(remote.get_all(scope=ANA, filters={"since": MAY})) == len(mem.get_all(scope=ANA, filters={"since": MAY})) > 0


def test_cli_list_and_search_take_filters(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/cli.db")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hashing")
    runner = CliRunner()
    for text, ts in (("I bought a red kayak.", "2024-01-10T00:00:00+00:00"), ("I bought a green tent.", "2024-05-10T00:00:00+00:00")):
        assert runner.invoke(main, ["add", text, "--user", "ana", "--timestamp", ts]).exit_code == 0
    out = runner.invoke(main, ["list", "--user", "ana", "--as-of", "2024-02-01T00:00:00+00:00", "--json"])
    assert out.exit_code == 0, out.output
    texts = [r["text"] for r in json.loads(out.output)]
    assert texts and all("kayak" in t for t in texts)
    bad = runner.invoke(main, ["search", "kayak", "--user", "ana", "--filter", "{nope"])
    assert bad.exit_code != 0 and "--filter is not JSON" in bad.output
