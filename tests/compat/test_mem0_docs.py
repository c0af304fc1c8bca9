"""mem0's documented examples, run unchanged against ``memdesk.compat.mem0``.

Each file in ``mem0_docs/`` is a Python block of mem0's own documentation (the page named on its first line),
copied as written; for the test, ``memdesk.compat.mem0`` is installed as the module ``mem0`` and
``MEMDESK_DATABASE_URL`` points at a fresh SQLite database, so ``Memory()`` is memdesk's default (packaged MiniLM,
rule processor, offline). The only edit is the docs' placeholder ids (``"mem_123"``, ``"memory-id-here"``),
replaced by the id of a memory the test wrote first, as a reader of the page would. Blocks left out, with the
reason, are listed in docs/mem0.md ("What differs").
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import os
import sys
from pathlib import Path
from typing import Any

import pytest

import memdesk.compat.mem0 as facade

DOCS = Path(__file__).parent / "mem0_docs"


@pytest.fixture
def mem0(tmp_path, monkeypatch):
    """``import mem0`` gives memdesk's facade, on a fresh database; the examples' own environment edits are undone."""
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/mem0_docs.db")
    monkeypatch.setitem(sys.modules, "mem0", facade)
    saved = dict(os.environ)
    yield facade
    os.environ.clear()
    os.environ.update(saved)


def run_example(name: str, **placeholders: str) -> dict[str, Any]:
    """Run the example ``name`` (top-level ``await`` allowed, as the async pages write it); its namespace."""
    path = DOCS / f"{name}.py"
    text = path.read_text()
    for placeholder, value in placeholders.items():
        assert f'"{placeholder}"' in text, placeholder
        text = text.replace(f'"{placeholder}"', repr(value))
    code = compile(text, str(path), "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    namespace: dict[str, Any] = {"__name__": f"mem0_docs.{name}"}

    async def run_async() -> None:
        await eval(code, namespace)
        await _close(namespace)

    if code.co_flags & inspect.CO_COROUTINE:
        asyncio.run(run_async())
    else:
        eval(code, namespace)
        asyncio.run(_close(namespace))
    return namespace


async def _close(namespace: dict[str, Any]) -> None:
    for value in namespace.values():
        if isinstance(value, facade.AsyncMemory):
            await value.close()
        elif isinstance(value, facade.Memory):
            value.close()


def _seed(text: str, **ids: Any) -> str:
    with facade.Memory() as m:
        return m.add(text, infer=False, **ids)["results"][0]["id"]


def _memories(**filters: Any) -> list[dict[str, Any]]:
    with facade.Memory() as m:
        return m.get_all(filters=filters, top_k=1000)["results"]


def test_python_quickstart(mem0, capsys):
    ns = run_example("quickstart")
    found = ns["results"]["results"]
    assert found and all(r["user_id"] == "alex" for r in found)
    assert any("basketball" in r["memory"] for r in found) and "basketball" in capsys.readouterr().out
    assert {"id", "memory", "created_at", "score"} <= set(found[0])


def test_add(mem0):
    ns = run_example("add_oss")
    stored = _memories(user_id="alice")
    assert any("sci-fi" in r["memory"] for r in stored)
    categorized = [r for r in stored if (r["metadata"] or {}).get("category") == "movie_recommendations"]
    assert categorized and any("sci-fi" in r["memory"] for r in categorized)
    assert any(r.get("expiration_date") == "2030-01-31" for r in stored)
    assert {r["event"] for r in ns["result"]["results"]} <= {"ADD", "UPDATE", "DELETE", "NONE"}


def test_delete(mem0):
    rid = _seed("Alex prefers espresso.", user_id="alex")
    _seed("I keep bees.", user_id="alice")
    run_example("delete_oss", mem_123=rid)
    with facade.Memory() as m:
        assert m.get(rid) is None and [h["event"] for h in m.history(rid)] == ["DELETE"]
    assert _memories(user_id="alice") == []


def test_search(mem0, capsys):
    with facade.Memory() as m:
        m.add([{"role": "user", "content": "I love hiking and painting. I drink green tea, never coffee."}], user_id="alice")
        m.add("I'm vegetarian and I love spicy food.", user_id="alice", metadata={"categories": ["diet"]})
    ns = run_example("search_oss")
    assert any("tea" in r["memory"] for r in ns["related_memories"]["results"])
    assert ns["results"]["results"][0]["score_details"]["why"]
    assert "why" in capsys.readouterr().out


def test_update(mem0):
    rid = _seed("Alex prefers espresso.", user_id="alex")
    run_example("update_oss", mem_123=rid)
    with facade.Memory() as m:
        got = m.get(rid)
        assert got["memory"] == "Alex now prefers decaf coffee"
        assert got["metadata"]["category"] == "preferences" and got["expiration_date"] == "2030-01-31"
        assert [h["event"] for h in m.history(rid)] == ["ADD", "UPDATE", "UPDATE"]


def test_async_crud_and_scopes(mem0):
    rid = _seed("I'm travelling to Lisbon in May.", user_id="alice")
    ns = run_example("async_crud", **{"memory-id-here": rid})
    assert any("SF" in r["memory"] for r in ns["results"]["results"])
    assert ns["specific_memory"]["id"] == rid
    assert ns["updated_memory"] == {"message": "Memory updated successfully!"}
    assert [h["new_memory"] for h in ns["history"]][-1] == "I'm travelling to Seattle"
    assert ns["specific_memories"]["results"] and all(
        r["agent_id"] == "diet-assistant" and r["run_id"] == "consultation-001" for r in ns["specific_memories"]["results"]
    )
    assert len(ns["all_user_memories"]["results"]) > len(ns["session_memories"]["results"]) > 0
    assert _memories(user_id="alice") == []  # delete_all(user_id="alice") took every agent and run


def test_async_batch_and_retry(mem0, capsys):
    ns = run_example("async_batch")
    asyncio.run(ns["batch_operations"]())
    assert capsys.readouterr().out.count("completed successfully") == 5
    assert all(_memories(user_id=f"user_{i}") for i in range(5))
    assert asyncio.run(ns["robust_memory_search"]()) == {"results": []}  # alice has nothing yet


def test_metadata_filtering(mem0):
    with facade.Memory() as m:
        for text, metadata in (
            ("I prefer aisle seats.", {"category": "preferences", "priority": 6, "status": "active"}),
            ("Prepare the meeting notes for Monday.", {"category": "work", "priority": 8, "status": "open",
                                                      "title": "team meeting", "description": "Important"}),
            ("Old flat keys are in the drawer.", {"category": "archived", "status": "deleted"}),
        ):  # fmt: skip
            m.add(text, user_id="alice", metadata=metadata, infer=False)
    ns = run_example("metadata_filtering")
    assert [r["memory"] for r in ns["results"]["results"]] == ["Prepare the meeting notes for Monday."]
