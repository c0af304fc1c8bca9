"""Fixtures for the HTTP API and MCP server: a real SQLite store, and a real uvicorn server in a thread."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp")

from memdesk.conversation.memory import Memory  # noqa: E402
from memdesk.conversation.raw import RawTurnProcessor  # noqa: E402
from memdesk.embed import HashingEmbedder  # noqa: E402
from memdesk.server import ApiKeys, create_app  # noqa: E402
from memdesk.store import open_store  # noqa: E402

KEY = "test-key-0123456789abcdef"
OTHER_KEY = "second-key-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {KEY}"}


def sqlite_memory(path) -> Memory:
    """A Memory on a real SQLite file, with the hashing embedder and one record per turn (fast, deterministic)."""
    return Memory(open_store(f"sqlite:///{path}"), HashingEmbedder(256), RawTurnProcessor())


def mcp_stdio_round_trip(params: Any, text: str, query: str) -> str:
    """Start the MCP stdio server ``params`` (``StdioServerParameters``) describes, add ``text`` for ana
    with its ``add_memory`` tool, search ana's memories for ``query``: the text of the best hit."""
    from mcp.client import Client

    async def go():
        async with Client(params, read_timeout_seconds=120) as c:
            await c.call_tool("add_memory", {"text": text, "user_id": "ana"})
            return await c.call_tool("search_memory", {"query": query, "user_id": "ana"})

    return asyncio.run(go()).structured_content["result"][0]["text"]


@pytest.fixture
def mem(tmp_path) -> Iterator[Memory]:
    m = sqlite_memory(tmp_path / "m.db")
    yield m
    m.close()


@pytest.fixture
def client(mem):
    from fastapi.testclient import TestClient

    with TestClient(create_app(mem, api_keys=ApiKeys([KEY, OTHER_KEY]))) as c:
        yield c


class LiveServer:
    """uvicorn serving an app on a free loopback port, in a background thread."""

    def __init__(self, app) -> None:
        import uvicorn

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)
