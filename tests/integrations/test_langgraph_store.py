"""MemdeskStore: LangGraph's BaseStore on memdesk (SQLite and PostgreSQL, the packaged embedder), in a real graph."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.store.base import BaseStore, MatchCondition, PutOp, SearchOp  # noqa: E402

from memdesk import Memory, Scope  # noqa: E402
from memdesk.conversation.memory import build_memory  # noqa: E402
from memdesk.integrations.langgraph import MemdeskStore, item_scope, namespace_of  # noqa: E402
from memdesk.settings import Settings  # noqa: E402


@pytest.fixture
def store(backend_url, minilm):
    memory = build_memory(Settings(database_url=backend_url))
    with MemdeskStore(memory) as s:
        yield s
    memory.close()


def test_put_get_update_delete_roundtrip_values_exactly(store):
    ns = ("memories", "ana")
    value = {"text": "Ana is allergic to peanuts.", "tags": ["health"], "n": 3, "nested": {"ok": True, "é": "ü"}}
    store.put(ns, "allergy", value)
    item = store.get(ns, "allergy")
    assert item.value == value and item.key == "allergy" and item.namespace == ns
    assert store.get(ns, "nope") is None and store.get(("memories", "ben"), "allergy") is None
    store.put(ns, "allergy", {"text": "Ana is allergic to shellfish."})
    again = store.get(ns, "allergy")
    assert again.value == {"text": "Ana is allergic to shellfish."} and again.created_at == item.created_at
    # the superseded value's records are gone: a search finds only the current one
    records = store.memory.get_all(scope=item_scope(ns, "allergy"))
    assert records and all("shellfish" in r.embed_text() for r in records)
    store.delete(ns, "allergy")
    assert store.get(ns, "allergy") is None and store.memory.get_all(scope=item_scope(ns, "allergy")) == []


def test_search_is_memdesk_retrieval_with_scores_filters_and_pages(store):
    ns = ("memories", "ana")
    store.put(ns, "home", {"text": "Ana moved to Lisbon last spring.", "kind": "fact", "year": 2024})
    store.put(ns, "pet", {"text": "Ana has a grey cat called Mochi.", "kind": "fact", "year": 2023})
    store.put(ns, "plan", {"text": "Ana plans to learn the cello.", "kind": "plan", "year": 2025})
    store.put(("memories", "ben"), "home", {"text": "Ben lives in Oslo."})
    hits = store.search(("memories", "ana"), query="Where does Ana live?")
    assert [h.key for h in hits][0] == "home" and hits[0].score > hits[-1].score
    assert {h.namespace for h in hits} == {ns}
    assert [h.key for h in store.search(("memories",), query="What pet does Ana have?", limit=1)] == ["pet"]
    assert {h.key for h in store.search(ns, filter={"kind": "fact"})} == {"home", "pet"}
    assert {h.key for h in store.search(ns, filter={"year": {"$gte": 2024}})} == {"home", "plan"}
    assert {h.key for h in store.search(("memories",))} == {"home", "pet", "plan"} and len(store.search(("memories",))) == 4
    first, second = store.search(ns, limit=2), store.search(ns, limit=2, offset=2)
    assert len(first) == 2 and len(second) == 1 and not {h.key for h in first} & {h.key for h in second}
    assert all(h.score is None for h in store.search(ns))  # no query: newest first, unscored


def test_an_unindexed_item_is_kept_but_not_embedded(store):
    store.put(("cfg",), "theme", {"text": "dark mode"}, index=False)
    assert store.get(("cfg",), "theme").value == {"text": "dark mode"}
    assert store.memory.get_all(scope=item_scope(("cfg",), "theme")) == []
    assert [h.key for h in store.search(("cfg",))] == ["theme"]


def test_list_namespaces_with_prefix_suffix_depth_and_odd_labels(store):
    for ns in [("test", "documents", "public"), ("test", "documents", "private"), ("test", "images", "public"),
               ("prod", "documents", "public"), ("odd", "50%", "line\n")]:
        store.put(ns, "k", {"text": "x"})
    assert len(store.list_namespaces()) == 5
    assert set(store.list_namespaces(prefix=("test",))) == {("test", "documents", "public"), ("test", "documents", "private"), ("test", "images", "public")}
    assert {ns[-1] for ns in store.list_namespaces(suffix=("public",))} == {"public"}
    assert set(store.list_namespaces(max_depth=2)) == {("test", "documents"), ("test", "images"), ("prod", "documents"), ("odd", "50%")}
    assert store.list_namespaces(prefix=("test", "*", "public")) == [("test", "documents", "public"), ("test", "images", "public")]
    assert ("odd", "50%", "line\n") in store.list_namespaces() and store.get(("odd", "50%", "line\n"), "k")
    assert len(store.list_namespaces(limit=2)) == 2
    store.delete(("prod", "documents", "public"), "k")
    assert ("prod", "documents", "public") not in store.list_namespaces()


def test_batch_keeps_the_order_of_its_operations(store):
    store.put(("t",), "a", {"data": "one"})
    results = store.batch([PutOp(("t",), "b", {"data": "two"}), SearchOp(("t",), {"data": "two"}), PutOp(("t",), "a", None)])
    assert results[0] is None and [i.key for i in results[1]] == ["b"] and results[2] is None
    assert store.get(("t",), "a") is None


def test_async_methods(store):
    async def main():
        await store.aput(("a",), "k", {"text": "Ana rides a red bicycle to work."})
        assert (await store.aget(("a",), "k")).value["text"].startswith("Ana rides")
        hits = await store.asearch(("a",), query="How does Ana get to work?")
        assert hits and hits[0].key == "k"
        assert await store.alist_namespaces() == [("a",)]
        await store.adelete(("a",), "k")
        assert await store.aget(("a",), "k") is None

    asyncio.run(main())


def test_items_are_memdesk_memories_for_the_other_faces(store):
    store.put(("memories", "ana"), "job", {"text": "Ana works as a nurse in Leeds."})
    scope = Scope(user_id="memories.ana", agent_id="langgraph")
    assert any("nurse" in h.record.embed_text() for h in store.memory.search("Ana's job", scope=scope))
    assert namespace_of(item_scope(("memories", "ana"), "job")) == ("memories", "ana")


def test_no_arguments_runs_on_the_default_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/default.db")
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hashing")
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    with MemdeskStore() as store:
        assert isinstance(store, BaseStore) and isinstance(store.memory, Memory)
        store.put(("n",), "k", {"text": "hello from the defaults"})
        assert store.get(("n",), "k").value["text"] == "hello from the defaults"
    assert (tmp_path / "default.db").exists()


class State(TypedDict):
    user: str
    message: str
    recalled: list[str]


def test_a_langgraph_graph_remembers_through_the_store(store):
    from langgraph.config import get_store

    def remember(state: State) -> dict:
        get_store().put(("memories", state["user"]), "latest", {"text": state["message"]})
        return {}

    def recall(state: State) -> dict:
        hits = get_store().search(("memories", state["user"]), query="Where does the user live?", limit=3)
        return {"recalled": [h.value["text"] for h in hits]}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    app = graph.compile(store=store)
    out = app.invoke({"user": "ana", "message": "I live in Porto now.", "recalled": []})
    assert out["recalled"] == ["I live in Porto now."]
    out = asyncio.run(app.ainvoke({"user": "ben", "message": "I moved to Oslo.", "recalled": []}))
    assert out["recalled"] == ["I moved to Oslo."]
