"""AsyncMemory and AsyncRemoteMemory: Memory's methods, awaitable, on the real parts.

The chat model's requests are awaited on the event loop, not run in threads: the fake OpenAI-compatible server
(over sockets) holds every request until ten are in flight at once, more than the worker threads asyncio offers on
this machine, so the test completes only if the ten answers really wait concurrently on the loop.
"""

from __future__ import annotations

import asyncio
import inspect
import os

import httpx2
import pytest

from memdesk import AsyncMemory, AsyncRemoteMemory, Memory, RemoteMemory, Scope
from memdesk.runtime import aio
from memdesk.conversation.answer import LLMAnswerer
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import EmptyInputError, RecordNotFoundError
from memdesk.conversation.memory import build_memory
from memdesk.llm.openai_compat import OpenAICompatChatModel
from memdesk.settings import Settings
from memdesk.store import open_store
from tests.openai_server import make_app

ANA = Scope(user_id="ana")
THREADS = min(32, (os.cpu_count() or 1) + 4)  # asyncio's default worker threads


def test_async_memory_has_every_method_of_memory_with_its_signature():
    for cls, sync in ((AsyncMemory, Memory), (AsyncRemoteMemory, RemoteMemory)):
        public = {n for n, f in inspect.getmembers(sync, inspect.isfunction) if not n.startswith("_")} - {"open"}
        for name in public:
            method = getattr(cls, name)
            assert inspect.iscoroutinefunction(method), (cls.__name__, name)
            if name != "close":
                assert inspect.signature(method) == inspect.signature(getattr(sync, name)), name


def test_async_memory_on_each_backend_with_the_packaged_embedder(backend_url):
    async def main():
        async with AsyncMemory.open(Settings(database_url=backend_url)) as mem:
            messages = ["I moved to Lisbon last month.", "My sister Ines lives in Porto.", "I work as a nurse."]
            results = await asyncio.gather(*(mem.add(m, scope=ANA) for m in messages))  # concurrent writers
            assert all(r.records for r in results)
            hits = await mem.search("Where does Ana's sister live?", scope=ANA)
            assert "Porto" in hits[0].record.embed_text()
            assert (await mem.evidence("Lisbon", scope=ANA)).hits
            assert (await mem.answer("Where did Ana move?", scope=ANA)).evidence.hits
            assert len(await mem.messages(scope=ANA)) == 3
            rid = hits[0].id
            assert (await mem.get(rid, scope=ANA)).id == rid
            await mem.update(rid, "Ana's sister Ines lives in Braga.", scope=ANA)
            assert [h.event.value for h in await mem.history(rid, scope=ANA)] == ["ADD", "UPDATE"]
            await mem.delete(rid, scope=ANA)
            with pytest.raises(RecordNotFoundError):
                await mem.get(rid, scope=ANA)
            with pytest.raises(EmptyInputError):
                await mem.search("  ", scope=ANA)
            assert await mem.delete_all(scope=ANA) > 0
            assert await mem.get_all(scope=ANA) == []
            assert mem.embedder.model_id.startswith("all-MiniLM")  # attributes read through

    asyncio.run(main())
    # the same store read synchronously afterwards: nothing half-written
    sync = build_memory(Settings(database_url=backend_url))
    try:
        assert sync.get_all(scope=ANA) == []
    finally:
        sync.close()


def test_blocking_parts_run_in_worker_threads_and_loop_safe_parts_on_the_loop(tmp_path):
    mem = Memory(open_store(f"sqlite:///{tmp_path}/p.db"), HashingEmbedder(32), RawTurnProcessor())
    amem = AsyncMemory(mem)
    assert isinstance(amem._sync.store, aio.Offloaded) and isinstance(amem._sync.embedder, aio.Offloaded)
    chat = OpenAICompatChatModel("m", base_url="http://127.0.0.1:9/v1", api_key="k")
    assert aio.for_loop(chat) is chat and aio.for_loop(LLMAnswerer(chat)).chat_model is chat
    asyncio.run(amem.close())


@pytest.fixture
def gated_llm(monkeypatch):
    pytest.importorskip("fastapi")
    from tests.server.conftest import LiveServer

    monkeypatch.setenv("MEMDESK_ALLOW_MODEL_REQUESTS", "1")
    app = make_app(lambda messages: "Lisbon", gate=THREADS + 4)
    with LiveServer(app) as server:
        yield server, app.state.stats


def test_llm_calls_are_awaited_on_the_event_loop_not_in_threads(tmp_path, gated_llm):
    server, stats = gated_llm
    n = THREADS + 4
    chat = OpenAICompatChatModel("tiny", base_url=f"{server.url}/v1", api_key="k", concurrency=n, max_retries=0)
    mem = Memory(open_store(f"sqlite:///{tmp_path}/l.db"), HashingEmbedder(32), RawTurnProcessor(), answerer=LLMAnswerer(chat))
    mem.add("I moved to Lisbon.", scope=ANA)

    async def main():
        amem = AsyncMemory(mem)  # wraps mem (closing amem would close it)
        return await asyncio.gather(*(amem.answer(f"Where does Ana live? ({i})", scope=ANA) for i in range(n)))

    answers = asyncio.run(main())
    assert [a.answer for a in answers] == ["Lisbon"] * n
    assert stats["max_in_flight"] == n  # all at once: more than the worker threads could carry
    assert chat.ledger.by_operation()["answer"].calls == n
    # and the same model, used synchronously, still works (no event loop involved)
    assert mem.answer("Where does Ana live?", scope=ANA).answer == "Lisbon"
    mem.close()
    chat.close()


def test_async_remote_memory_against_a_live_server(tmp_path):
    pytest.importorskip("fastapi")
    from memdesk.server import ApiKeys, create_app
    from tests.server.conftest import KEY, LiveServer, sqlite_memory

    memory = sqlite_memory(tmp_path / "r.db")
    sent: list[str] = []

    async def count(request):
        sent.append(f"{request.method} {request.url.path}")

    async def main(url: str):
        async with httpx2.AsyncClient(base_url=url, event_hooks={"request": [count]}) as client:
            async with AsyncRemoteMemory(url, api_key=KEY, http_client=client) as remote:
                added = await asyncio.gather(*(remote.add(f"note {i} about bees", scope=ANA) for i in range(8)))
                assert all(a.records for a in added)
                hits = await remote.search("bees", scope=ANA, K=3)
                assert len(hits) == 3
                rid = hits[0].id
                await remote.update(rid, "note about wasps", scope=ANA)
                assert len(await remote.history(rid, scope=ANA)) == 2
                await remote.delete(rid, scope=ANA)
                with pytest.raises(RecordNotFoundError):
                    await remote.get(rid, scope=ANA)
                assert len(await remote.get_all(scope=ANA)) == 7
        async with AsyncRemoteMemory(url, api_key=KEY) as own:  # its own client, made on this loop
            assert (await own.health())["status"] == "ok"

    try:
        with LiveServer(create_app(memory, api_keys=ApiKeys([KEY]))) as server:
            asyncio.run(main(server.url))
    finally:
        memory.close()
    assert sent.count("POST /v1/memories") == 8 and "DELETE /v1/memories/" + rid_of(sent) in sent


def rid_of(sent: list[str]) -> str:
    return next(s.rsplit("/", 1)[1] for s in sent if s.startswith("DELETE /v1/memories/"))
