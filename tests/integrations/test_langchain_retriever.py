"""MemdeskRetriever: a LangChain retriever over Memory (in process) and RemoteMemory (a live server)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain_core")

from langchain_core.retrievers import BaseRetriever  # noqa: E402

from memdesk import Scope  # noqa: E402
from memdesk.conversation.memory import build_memory  # noqa: E402
from memdesk.integrations.langchain import MemdeskRetriever  # noqa: E402
from memdesk.settings import Settings  # noqa: E402

ANA = Scope(user_id="ana")


@pytest.fixture
def memory(tmp_path, minilm):
    m = build_memory(Settings(database_url=f"sqlite:///{tmp_path}/r.db"))
    m.add(["I moved to Lisbon last month.", "My cat is called Mochi.", "I work as a nurse."], scope=ANA)
    yield m
    m.close()


def test_retriever_returns_memories_as_documents(memory):
    retriever = MemdeskRetriever(memory=memory, scope=ANA, K=3)
    assert isinstance(retriever, BaseRetriever)
    docs = retriever.invoke("What is the name of Ana's cat?")
    assert len(docs) == 3 and "Mochi" in docs[0].page_content
    meta = docs[0].metadata
    assert meta["type"] in ("episodic", "semantic", "procedural") and meta["score"] > 0 and meta["id"] == docs[0].id
    assert meta["scope"] == {"user_id": "ana"} and meta["provenance"] and "cosine" in meta["why"]
    adocs = asyncio.run(retriever.ainvoke("What is the name of Ana's cat?"))
    assert [d.id for d in adocs] == [d.id for d in docs]
    assert MemdeskRetriever(memory=memory, scope=Scope(user_id="nobody")).invoke("cat") == []


def test_retriever_over_a_remote_server(memory):
    pytest.importorskip("fastapi")
    from memdesk import RemoteMemory
    from memdesk.server import ApiKeys, create_app
    from tests.server.conftest import KEY, LiveServer

    with LiveServer(create_app(memory, api_keys=ApiKeys([KEY]))) as server:
        remote = RemoteMemory(server.url, api_key=KEY)
        try:
            retriever = MemdeskRetriever(memory=remote, scope=ANA, K=2)
            assert "Lisbon" in retriever.invoke("Where does Ana live?")[0].page_content
            assert "Lisbon" in asyncio.run(retriever.ainvoke("Where does Ana live?"))[0].page_content
        finally:
            remote.close()
