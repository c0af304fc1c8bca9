"""One result model on every face: the same adds and searches through Python, HTTP, MCP, RemoteMemory and
``memdesk search --json`` give the same hits, field by field (and the same memory items from the listings).

One SQLite database, the rule processor (so every memory type is there) and the hashing embedder; the command
line opens its own Memory on the same database, as a user running it beside a server would.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp.client import Client

from memdesk import Memory, MemoryItem, RemoteMemory, Scope, SearchHit
from memdesk.cli.app import main
from memdesk.server import ApiKeys, create_app, create_mcp_server

from .conftest import KEY

AUTH = {"Authorization": f"Bearer {KEY}"}
TURNS = [
    {"id": "c1", "speaker": "Ana", "content": "I moved to Porto in March 2024.", "timestamp": "2024-05-02T09:00:00+00:00"},
    {"id": "c2", "speaker": "Ana", "content": "My favourite tea is genmaicha.", "timestamp": "2024-05-02T09:01:00+00:00"},
    {"id": "c3", "speaker": "Ana", "content": "Yesterday I went hiking in the Peneda hills with my brother.",
     "timestamp": "2024-05-03T18:00:00+00:00", "metadata": {"app": "web"}},
    {"id": "c4", "speaker": "Ana",
     "content": "To restart the router, unplug it, wait thirty seconds, then plug it back in.",
     "timestamp": "2024-05-04T08:00:00+00:00"},
    {"id": "c5", "speaker": "Bot", "role": "assistant", "content": "Porto has a lovely riverside for walks.",
     "timestamp": "2024-05-04T08:01:00+00:00"},
]  # fmt: skip
QUERIES = ["Where does Ana live?", "what tea does she like", "how do I restart the router", "hiking trip"]
HIT_KEYS = [
    "id", "type", "text", "score", "cosine", "rank", "why", "time", "temporal_anchor", "speaker", "role", "source",
    "metadata", "provenance", "scope", "record",
]  # fmt: skip
ITEM_KEYS = [k for k in HIT_KEYS if k not in ("score", "cosine", "rank", "why")]


class Faces:
    """Every face over one database: the in-process Memory, HTTP, MCP, RemoteMemory and the command line."""

    def __init__(self, mem: Memory, db: str) -> None:
        self.mem = mem
        self.db = db
        self.http = TestClient(create_app(mem, api_keys=ApiKeys([KEY])))
        self.remote = RemoteMemory("http://testserver", api_key=KEY, http_client=self.http)
        self.mcp = create_mcp_server(mem)

    def tools(self, *calls: tuple[str, dict[str, Any]]) -> list[Any]:
        async def go() -> list[Any]:
            async with Client(self.mcp) as c:
                out = []
                for name, args in calls:
                    got = await c.call_tool(name, args)
                    assert not got.is_error, got
                    out.append(got.structured_content)
                return out

        return asyncio.run(go())

    def cli(self, *args: str) -> Any:
        out = CliRunner().invoke(main, ["--db", self.db, *args, "--json"])
        assert out.exit_code == 0, out.output
        return json.loads(out.stdout)

    def search(self, query: str, user: str) -> dict[str, list[dict[str, Any]]]:
        """The hits of ``query`` under ``user`` as JSON, per face."""
        (mcp,) = self.tools(("search_memory", {"query": query, "user_id": user, "limit": 10}))
        scope = Scope(user_id=user)
        return {
            "python": [h.model_dump(mode="json") for h in self.mem.search(query, scope=scope, K=10)],
            "http": self.http.post("/v1/memories/search", json={"query": query, "user_id": user, "K": 10}, headers=AUTH).json(),
            "mcp": mcp["result"],
            "remote": [h.model_dump(mode="json") for h in self.remote.search(query, scope=scope, K=10)],
            "cli": self.cli("search", query, "--user", user, "-K", "10"),
        }

    def listing(self, user: str) -> dict[str, list[dict[str, Any]]]:
        (mcp,) = self.tools(("list_memories", {"user_id": user}))
        scope = Scope(user_id=user)
        return {
            "python": [MemoryItem.of(r).model_dump(mode="json") for r in self.mem.get_all(scope=scope)],
            "http": self.http.get("/v1/memories", params={"user_id": user}, headers=AUTH).json(),
            "mcp": mcp["result"],
            "remote": [MemoryItem.of(r).model_dump(mode="json") for r in self.remote.get_all(scope=scope)],
            "cli": self.cli("list", "--user", user),
        }


@pytest.fixture
def faces(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path}/faces.db"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hashing")
    mem = Memory.open(database_url=db)
    f = Faces(mem, db)
    with f.http:
        yield f
    mem.close()


def _without_own(item: dict[str, Any]) -> dict[str, Any]:
    """An item without what differs between two scopes holding the same words (ids, scope, ingest time)."""
    record = {k: v for k, v in item["record"].items() if k not in ("id", "scope", "ingest_time")}
    return {**{k: v for k, v in item.items() if k not in ("id", "scope", "record")}, "record": record}


def test_every_face_gives_the_same_hits_field_by_field(faces: Faces) -> None:
    faces.mem.add(TURNS, scope=Scope(user_id="ana"))
    seen_types = set()
    for query in QUERIES:
        by_face = faces.search(query, "ana")
        python = by_face.pop("python")
        assert python, query
        for face, hits in by_face.items():
            assert len(hits) == len(python), (face, query)
            for mine, theirs in zip(python, hits):
                for key in HIT_KEYS:  # field by field, so a difference names its field
                    assert theirs[key] == mine[key], (face, query, key)
                assert list(theirs) == HIT_KEYS, face
        for hit in python:
            seen_types.add(hit["type"])
            assert hit["id"] == hit["record"]["id"] and hit["type"] == hit["record"]["type"]
            assert hit["time"] == hit["record"]["event_time"] and hit["speaker"] == hit["record"]["speaker"]
        scores = [h["score"] for h in python]
        assert scores == sorted(scores, reverse=True)
    assert seen_types == {"episodic", "semantic", "procedural"}


def test_every_face_lists_the_same_items(faces: Faces) -> None:
    faces.mem.add(TURNS, scope=Scope(user_id="ana"))
    by_face = faces.listing("ana")
    python = by_face.pop("python")
    assert len(python) >= len(TURNS) - 1
    for face, items in by_face.items():
        assert items == python, face
        assert all(list(i) == ITEM_KEYS for i in items), face
    (got,) = faces.tools(("get_memory", {"memory_id": python[0]["id"], "user_id": "ana"}))
    assert got == python[0]
    assert faces.http.get(f"/v1/memories/{python[0]['id']}", params={"user_id": "ana"}, headers=AUTH).json() == python[0]


def test_what_each_face_adds_reads_the_same(faces: Faces) -> None:
    """The same messages added through Python, HTTP and RemoteMemory make the same memories; searched, each
    scope gives the same hits but for their ids and scope."""
    faces.mem.add(TURNS, scope=Scope(user_id="py"))
    added = faces.http.post("/v1/memories", json={"user_id": "web", "messages": TURNS}, headers=AUTH)
    assert added.status_code == 201
    faces.remote.add(TURNS, scope=Scope(user_id="far"))
    for query in QUERIES[:2]:
        mine = [_without_own(h) for h in faces.search(query, "py")["python"]]
        for user in ("web", "far"):
            assert [_without_own(h) for h in faces.search(query, user)["http"]] == mine, (user, query)


def test_text_is_the_stored_statement_of_each_type(faces: Faces) -> None:
    faces.mem.add(TURNS, scope=Scope(user_id="ana"))
    for record in faces.mem.get_all(scope=Scope(user_id="ana")):
        item = MemoryItem.of(record)
        body = {"episodic": "summary", "semantic": "fact", "procedural": "content"}[record.type]
        statement = getattr(record, body)
        title = getattr(record, "title", "")
        assert item.text in (statement, f"{title}: {statement}")
        assert item.text == statement or not statement.startswith(title.rstrip(" .…"))


def test_a_hit_keeps_its_older_names(faces: Faces) -> None:
    faces.mem.add(TURNS[:2], scope=Scope(user_id="ana"))
    hit = faces.mem.search("tea", scope=Scope(user_id="ana"))[0]
    assert isinstance(hit, SearchHit) and hit.memory_type is hit.type and hit.id == hit.record.id
    assert hit.item() == MemoryItem.of(hit.record)
    old_reply = {**hit.model_dump(mode="json"), "memory_type": "semantic"}  # an older server's extra key
    assert SearchHit.model_validate(old_reply).model_dump() == hit.model_dump()


def test_the_openapi_schema_shows_the_one_model(faces: Faces) -> None:
    schemas = faces.http.get("/openapi.json").json()["components"]["schemas"]
    assert set(schemas["SearchHit"]["properties"]) == set(HIT_KEYS)
    assert set(schemas["MemoryItem"]["properties"]) == set(ITEM_KEYS)
    assert set(schemas["MemoryItem"]["required"]) == set(ITEM_KEYS)


def test_the_raw_log_reads_the_same_on_every_face(faces: Faces) -> None:
    faces.mem.add(TURNS, scope=Scope(user_id="ana"))
    python = [m.model_dump(mode="json") for m in faces.mem.messages(scope=Scope(user_id="ana"))]
    assert [m["id"] for m in python] == [t["id"] for t in TURNS] and {m["status"] for m in python} == {"processed"}
    assert faces.http.get("/v1/messages", params={"user_id": "ana"}, headers=AUTH).json() == python
    assert [m.model_dump(mode="json") for m in faces.remote.messages(scope=Scope(user_id="ana"))] == python
    assert faces.cli("messages", "--user", "ana")["messages"] == python
