"""The docs' examples run: every Python block of the README and of docs/*.md (each in its own temporary
database), every HTTP request shown (against a live server over sockets) and the MCP config (launched as an
agent host would); and the faces use the same names for the same things."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import re
import shutil
import sys
from pathlib import Path

import httpx2
import pytest

pytest.importorskip("fastapi")
pytest.importorskip("mcp")

from memdesk import Memory  # noqa: E402
from memdesk.server import ApiKeys, create_app, create_mcp_server  # noqa: E402
from memdesk.server.schemas import AddRequest, AnswerRequest, SearchRequest  # noqa: E402
from tests.server.conftest import KEY, LiveServer, mcp_stdio_round_trip, sqlite_memory  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
HTTP_DOC = (REPO / "docs" / "http.md").read_text()
#: What a block must print, where the block's point is what it prints.
PRINTS = {"README.md": "Lisbon", "python.md": "Lisbon", "banks.md": "Problem: A pen costs $2.",
          "admission.md": "passport"}


def blocks(lang: str, text: str = HTTP_DOC) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", text, flags=re.S)


def python_blocks() -> list:
    out = []
    for path in DOCS:
        for i, code in enumerate(blocks("python", path.read_text())):
            out.append(pytest.param(path.name, code, id=f"{path.name}-{i}"))
    return out


@pytest.fixture
def settings_env(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/readme.db")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hashing")
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    return tmp_path


@pytest.fixture
def live(tmp_path):
    memory = sqlite_memory(tmp_path / "live.db")
    try:
        with LiveServer(create_app(memory, api_keys=ApiKeys([KEY]))) as server:
            yield server
    finally:
        memory.close()


def test_the_docs_have_python_examples():
    assert len(python_blocks()) >= 8
    assert blocks("python", (REPO / "README.md").read_text()), "the README shows ten lines of Python"


@pytest.mark.parametrize("doc,code", python_blocks())
def test_every_python_block_runs_in_its_own_database(doc, code, settings_env, request, capsys):
    if "127.0.0.1:8000" in code:
        live = request.getfixturevalue("live")
        code = code.replace("http://127.0.0.1:8000", live.url).replace('api_key="..."', f'api_key="{KEY}"')
    namespace: dict = {"__name__": f"doc_block_{doc}"}
    try:
        exec(compile(code, f"{doc} python block", "exec"), namespace)
    finally:
        for value in namespace.values():  # close what the block opened
            if isinstance(value, Memory) or type(value).__name__ in ("RemoteMemory", "MemdeskStore"):
                value.close()
    if doc in PRINTS and "print(" in code:
        assert PRINTS[doc] in capsys.readouterr().out


def parse_requests(block: str) -> list[tuple[str, str, dict | None]]:
    out = []
    for chunk in block.strip().split("\n\n"):
        lines = chunk.strip().splitlines()
        method, path = lines[0].split(" ", 1)
        out.append((method, path, json.loads("\n".join(lines[1:])) if len(lines) > 1 else None))
    return out


def test_every_http_request_shown_works_against_a_live_server(live):
    (block,) = [b for b in blocks("http") if "/v1/memories" in b]
    requests = parse_requests(block)
    assert {m for m, _, _ in requests} == {"GET", "POST", "PATCH", "DELETE"} and len(requests) >= 10
    record_id = None
    with httpx2.Client(base_url=live.url, headers={"Authorization": f"Bearer {KEY}"}, timeout=60) as http:
        for method, path, body in requests:
            if "{id}" in path:
                path = path.replace("{id}", record_id)
            r = http.request(method, path, json=body)
            assert r.status_code < 300, (method, path, r.status_code, r.text)
            reply = r.json()
            if record_id is None:
                record_id = reply["records"][0]["id"]
            if path.endswith("/answer"):
                assert "Lisbon" in reply["answer"]
            if method == "PATCH":
                assert "Porto" in json.dumps(reply)
        assert http.get("/v1/memories", params={"user_id": "ana"}).json() == []  # the last request emptied the scope


def test_every_bank_request_shown_works_against_a_live_server(live):
    (block,) = [b for b in blocks("http") if "/v1/banks" in b]
    requests = parse_requests(block)
    assert [m for m, _, _ in requests] == ["POST", "GET", "POST", "DELETE"]
    with httpx2.Client(base_url=live.url, headers={"Authorization": f"Bearer {KEY}"}, timeout=60) as http:
        replies = []
        for method, path, body in requests:
            r = http.request(method, path, json=body)
            assert r.status_code < 300, (method, path, r.status_code, r.text)
            replies.append(r.json())
        assert replies[0]["added"] == 1 and [b["name"] for b in replies[1]] == ["arith"]
        assert "\\boxed{6}" in replies[2]["examples"][0]["content"] and replies[3] == {"deleted": 1}
        assert http.get("/v1/banks", params={"user_id": "ana"}).json() == []


def test_the_mcp_config_launches_a_working_server(tmp_path):
    from mcp.client.stdio import StdioServerParameters

    (config,) = [json.loads(b) for b in blocks("json") if "mcpServers" in b]
    server = config["mcpServers"]["memdesk"]
    command = shutil.which(server["command"], path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    assert command, f"{server['command']} is not on PATH"
    env = {**os.environ, "MEMDESK_DATABASE_URL": f"sqlite:///{tmp_path}/mcp.db", "MEMDESK_EMBEDDER": "hashing",
           "MEMDESK_CONFIG": ""}
    params = StdioServerParameters(command=command, args=server["args"], env=env)
    assert "peanuts" in mcp_stdio_round_trip(params, "I am allergic to peanuts.", "peanuts allergy")


def test_http_mcp_and_python_use_the_same_names(tmp_path):
    # the first argument of each Memory method is a field of its HTTP request
    for model, method in ((AddRequest, Memory.add), (SearchRequest, Memory.search), (SearchRequest, Memory.evidence),
                          (AnswerRequest, Memory.answer)):
        first = list(inspect.signature(method).parameters)[1]
        assert first in model.model_fields, (model.__name__, first)
    memory = sqlite_memory(tmp_path / "n.db")
    try:
        tools = {t.name: t for t in asyncio.run(create_mcp_server(memory).list_tools())}
    finally:
        memory.close()
    params = {name: set(t.input_schema["properties"]) for name, t in tools.items()}
    assert "query" in params["search_memory"] and "query" in params["memory_evidence"]
    assert all({"user_id", "agent_id", "run_id"} <= params[n] for n in ("add_memory", "search_memory", "list_memories"))
    # the banks: the Python names on every face
    from memdesk.reasoning import ReasoningBanks
    from memdesk.server.schemas import AddExamplesRequest, RetrieveRequest, SolveRequest

    for model, method, tool in ((RetrieveRequest, ReasoningBanks.retrieve_examples, "retrieve_examples"),
                                (SolveRequest, ReasoningBanks.solve, "solve_with_bank")):
        names = set(inspect.signature(method).parameters) - {"self", "bank", "scope", "gold", "max_tokens"}
        assert names <= set(model.model_fields) and names - {"gold", "max_tokens"} <= params[tool] | {"problem"}, tool
    assert "examples" in AddExamplesRequest.model_fields and {"problem", "answer", "solution"} <= params["add_solved_example"]
    # the one deliberate difference, documented beside the MCP tools
    assert "text" in params["add_memory"] and "`add_memory` takes a single message as\n`text`" in HTTP_DOC
