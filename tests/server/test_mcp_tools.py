"""The MCP tools in process (the SDK's in-memory client) on a real SQLite store."""

from __future__ import annotations

import asyncio

import pytest
from mcp.client import Client

from memdesk.server import create_mcp_server


def run(coro):
    return asyncio.run(coro)


async def call(server, *calls):
    """Run (tool, arguments) calls in one session; returns their results."""
    out = []
    async with Client(server) as c:
        for name, args in calls:
            out.append(await c.call_tool(name, args))
    return out


def test_tools_are_listed_with_their_schemas(mem):
    async def go():
        async with Client(create_mcp_server(mem)) as c:
            return (await c.list_tools()).tools

    tools = {t.name: t for t in run(go())}
    assert set(tools) == {
        "add_memory", "search_memory", "memory_evidence", "list_memories",
        "get_memory", "update_memory", "delete_memory", "memory_history", "forget_memories",
        "list_banks", "retrieve_examples", "solve_with_bank", "add_solved_example", "delete_example", "delete_bank",
    }
    search = tools["search_memory"].input_schema
    assert search["required"] == ["query"] and search["properties"]["limit"]["maximum"] == 100
    assert "asked" in search["properties"]["asked_at"]["description"]
    assert tools["add_memory"].description.startswith("Remember one message")
    add = tools["add_solved_example"].input_schema
    assert add["required"] == ["bank", "problem", "answer", "solution"]
    assert tools["retrieve_examples"].input_schema["properties"]["k"]["maximum"] == 50


def test_add_search_update_history_delete_through_tools(mem):
    server = create_mcp_server(mem)
    (added,) = run(call(server, ("add_memory", {"text": "I adopted a grey cat named Miso.", "user_id": "ana", "speaker": "Ana"})))
    assert not added.is_error
    memory_id = added.structured_content["memories"][0]["id"]
    assert mem.get(memory_id, scope={"user_id": "ana"}).scope.user_id == "ana"

    found, ev, updated, hist, listed, deleted, gone = run(
        call(
            server,
            ("search_memory", {"query": "grey cat", "user_id": "ana", "limit": 5}),
            ("memory_evidence", {"query": "What is the cat called?", "user_id": "ana", "asked_at": "2024-03-01T10:00:00Z"}),
            ("update_memory", {"memory_id": memory_id, "text": "Ana's cat Miso is two years old.", "user_id": "ana"}),
            ("memory_history", {"memory_id": memory_id, "user_id": "ana"}),
            ("list_memories", {"user_id": "ana"}),
            ("delete_memory", {"memory_id": memory_id, "user_id": "ana"}),
            ("get_memory", {"memory_id": memory_id, "user_id": "ana"}),
        )
    )
    hits = found.structured_content["result"]
    assert hits[0]["id"] == memory_id and hits[0]["score"] > 0 and hits[0]["type"] == "semantic"
    assert "Miso" in ev.structured_content["text"] and ev.structured_content["memory_ids"] == [memory_id]
    assert updated.structured_content["text"] == "Ana's cat Miso is two years old."
    assert [v["event"] for v in hist.structured_content["result"]] == ["ADD", "UPDATE"]
    assert [m["id"] for m in listed.structured_content["result"]] == [memory_id]
    assert not deleted.is_error
    assert gone.is_error and "RecordNotFoundError" in gone.content[0].text


@pytest.mark.parametrize(
    ("tool", "args", "error"),
    [
        ("add_memory", {"text": "hello"}, "InvalidScopeError"),
        ("add_memory", {"text": "  ", "user_id": "ana"}, "EmptyInputError"),
        ("update_memory", {"memory_id": "nope", "text": "x", "user_id": "ana"}, "RecordNotFoundError"),
        ("delete_memory", {"memory_id": "nope", "user_id": "ana"}, "RecordNotFoundError"),
        ("delete_memory", {"memory_id": "nope"}, "InvalidScopeError"),
    ],
)
def test_mistakes_come_back_as_tool_errors_and_lose_nothing(mem, tool, args, error):
    mem.add("I keep bees.", scope={"user_id": "ana"})
    before = mem.get_all(scope={"user_id": "ana"})
    (result,) = run(call(create_mcp_server(mem), (tool, args)))
    assert result.is_error and error in result.content[0].text
    assert mem.get_all(scope={"user_id": "ana"}) == before


def test_arguments_outside_the_schema_are_refused(mem):
    mem.add("I keep bees.", scope={"user_id": "ana"})  # a known scope: only the bad limit can fail the call
    ok, bad = run(
        call(
            create_mcp_server(mem),
            ("search_memory", {"query": "x", "user_id": "ana", "limit": 1}),
            ("search_memory", {"query": "x", "user_id": "ana", "limit": 0}),
        )
    )
    assert not ok.is_error and len(ok.structured_content["result"]) == 1
    assert bad.is_error and "limit" in bad.content[0].text


def test_an_agent_grows_and_reads_its_bank_through_the_tools(mem):
    from memdesk.tenants import Caller, Tenant

    server = create_mcp_server(mem, caller=Caller(tenant=Tenant(user_id="ana")))
    pen = {"problem": "A pen costs $2. How much do 3 pens cost?", "answer": "6", "solution": "3 * 2 = 6. \\boxed{6}"}
    added, wrong, listed, got, other, solved = run(call(
        server,
        ("add_solved_example", {"bank": "arith", **pen}),
        ("add_solved_example", {"bank": "arith", **pen, "problem": "4 pens?", "answer": "9"}),
        ("list_banks", {}),
        ("retrieve_examples", {"bank": "arith", "problem": "5 pencils at $1?", "k": 1, "format": "summary"}),
        ("retrieve_examples", {"bank": "arith", "problem": "5 pencils?", "user_id": "bob"}),
        ("solve_with_bank", {"bank": "arith", "problem": "5 pencils?"}),
    ))  # fmt: skip
    assert not added.is_error and added.structured_content["created"] is True
    assert wrong.is_error and "InvalidInputError" in wrong.content[0].text and "do not reach" in wrong.content[0].text
    assert [b["name"] for b in listed.structured_content["result"]] == ["arith"]
    (example,) = got.structured_content["examples"]
    assert example["problem"] == pen["problem"] and example["format"] == "summary" and example["verified"]
    assert other.is_error and "UnknownBankError" in other.content[0].text
    assert solved.is_error and "NoChatModelError" in solved.content[0].text
