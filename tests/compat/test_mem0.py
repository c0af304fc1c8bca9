"""The mem0 facade on real SQLite (and PostgreSQL) with the packaged MiniLM and the rule processor.

Ported from mem0's own behaviour (mem0ai/mem0 at 8d5b786: ``tests/memory/test_main.py``, the ``mem0/memory/main.py``
contracts and the Python quick-start in ``docs/open-source/python-quickstart.mdx``): result shapes, identity
keys in metadata ignored (mem0 issues #4490, #6277, #6655), timestamps kept across reads, caller metadata not
mutated, ``data=`` as the older name of ``text``, ``delete_all`` refusing to run without an id, ids coerced and
validated; then what memdesk adds: scope checks on every by-id call, a bound facade, metadata filters.
"""

from __future__ import annotations

import asyncio
import copy
import logging

import pytest

from memdesk.compat.mem0 import AsyncMemory, Memory
from memdesk.errors import (
    ConfigError,
    ForbiddenScopeError,
    InvalidInputError,
    InvalidScopeError,
    MemdeskError,
    RecordNotFoundError,
    UnknownScopeError,
)
from memdesk.conversation.memory import build_memory
from memdesk.records import Scope
from memdesk.settings import Settings

ALEX = [
    {"role": "user", "content": "Hi, I'm Alex. I love basketball and gaming."},
    {"role": "assistant", "content": "Hey Alex! I'll remember your interests."},
]
ITEM_KEYS = {"id", "memory", "hash", "metadata", "created_at", "updated_at"}


@pytest.fixture
def core(tmp_path, minilm):
    memory = build_memory(Settings(database_url=f"sqlite:///{tmp_path}/mem0.db"), embedder=minilm)
    yield memory
    memory.close()


@pytest.fixture
def m(core):
    return Memory(memory=core)


def _one(m: Memory, text: str, **ids) -> str:
    """The id of the one memory ``infer=False`` writes for ``text``."""
    [result] = m.add(text, infer=False, **ids)["results"]
    return result["id"]


def test_the_quickstart_runs_as_written(m):
    added = m.add(ALEX, user_id="alex")
    assert added["results"] and all(r["event"] == "ADD" and r["id"] and r["memory"] for r in added["results"])
    results = m.search("What do you know about me?", filters={"user_id": "alex"})
    hits = results["results"]
    assert hits and ITEM_KEYS | {"score", "user_id"} <= set(hits[0])
    assert all(h["user_id"] == "alex" for h in hits)
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    # memdesk keeps the best memory of each message (docs/mem0.md): ask for the interests to see them first
    assert "basketball" in m.search("Which sports do I love?", filters={"user_id": "alex"})["results"][0]["memory"]


def test_old_top_level_ids_and_current_filters_reach_the_same_memories(m):
    m.add([*ALEX, "I also swim on Fridays.", "My brother plays basketball too."], user_id="alex")
    by_filters = m.search("basketball", filters={"user_id": "alex"}, top_k=3)
    by_keyword = m.search("basketball", user_id="alex", limit=3)
    assert [h["id"] for h in by_filters["results"]] == [h["id"] for h in by_keyword["results"]]
    assert len(by_filters["results"]) == 3
    assert m.get_all(user_id="alex")["results"] == m.get_all(filters={"user_id": "alex"})["results"]
    with pytest.raises(InvalidInputError):
        m.search("basketball", filters={"user_id": "alex"}, user_id="sam")


def test_scope_ids_set_the_scope_and_metadata_cannot(m, caplog):
    attacker = {"agent_id": "victim-agent", "run_id": "victim-run", "actor_id": "victim", "category": "sports"}
    with caplog.at_level(logging.WARNING, logger="memdesk.compat.mem0"):
        rid = _one(m, "I like coffee", user_id="attacker", metadata=attacker)
    got = m.get(rid, user_id="attacker")
    assert got["user_id"] == "attacker" and "agent_id" not in got and "run_id" not in got
    assert got.get("actor_id") != "victim" and got["metadata"]["category"] == "sports"
    assert "ignoring metadata['agent_id']" in caplog.text
    assert m.get(rid, agent_id="victim-agent") is None
    rid2 = _one(m, "I like tea", user_id="u1", agent_id="a1", run_id="r1", metadata={"category": "drinks"})
    got2 = m.get(rid2, user_id="u1")
    assert (got2["user_id"], got2["agent_id"], got2["run_id"]) == ("u1", "a1", "r1")


def test_update_metadata_cannot_move_a_memory(m, caplog):
    rid = _one(m, "I play tennis", user_id="tenant_a", run_id="run_a")
    with caplog.at_level(logging.WARNING, logger="memdesk.compat.mem0"):
        m.update(rid, "I play tennis on Sundays", metadata={"user_id": "tenant_b", "agent_id": "x", "category": "sports"},
                 user_id="tenant_a")
    got = m.get(rid, user_id="tenant_a")
    assert got["memory"] == "I play tennis on Sundays" and got["run_id"] == "run_a" and "agent_id" not in got
    assert got["metadata"] == {"category": "sports"}
    assert m.get(rid, user_id="tenant_b") is None
    assert "ignoring metadata['user_id']" in caplog.text


def test_timestamps_agree_across_reads_and_update_keeps_created_at(m):
    rid = _one(m, "My sister lives in Porto", user_id="alex")
    got = m.get(rid, user_id="alex")
    [listed] = m.get_all(filters={"user_id": "alex"})["results"]
    [found] = m.search("Porto", filters={"user_id": "alex"})["results"]
    assert got["created_at"] == listed["created_at"] == found["created_at"] == got["updated_at"]
    assert "score" not in listed and got["score"] is None and found["score"] > 0
    assert m.update(rid, data="My sister lives in Braga", user_id="alex") == {"message": "Memory updated successfully!"}
    after = m.get(rid, user_id="alex")
    assert after["created_at"] == got["created_at"] and after["updated_at"] > got["updated_at"]
    assert after["memory"] == "My sister lives in Braga" and after["hash"] != got["hash"]
    [listed] = m.get_all(filters={"user_id": "alex"})["results"]
    [found] = m.search("Braga", filters={"user_id": "alex"})["results"]
    assert listed["memory"] == found["memory"] == after["memory"] and listed["updated_at"] == after["updated_at"]


def test_update_metadata_only_keeps_the_text_and_nothing_is_an_error(m):
    rid = _one(m, "I drive a blue van", user_id="alex", metadata={"topic": "car"})
    m.update(rid, metadata={"topic": "vehicle", "colour": "blue"}, user_id="alex")
    got = m.get(rid, user_id="alex")
    assert got["memory"] == "I drive a blue van" and got["metadata"] == {"topic": "vehicle", "colour": "blue"}
    with pytest.raises(InvalidInputError):
        m.update(rid, user_id="alex")


def test_caller_metadata_and_messages_are_not_mutated(m):
    metadata = {"category": "sports", "nested": {"tags": ["a"]}}
    messages = copy.deepcopy(ALEX)
    snapshot = (copy.deepcopy(metadata), copy.deepcopy(messages))
    m.add(messages, user_id="alex", metadata=metadata)
    m.add(messages, user_id="alex", metadata=metadata, infer=False)
    assert (metadata, messages) == snapshot


def test_infer_false_keeps_each_message_verbatim_and_system_messages_in_the_log_only(m, core):
    out = m.add(
        [{"role": "system", "content": "You are a helpful bot."}, {"role": "user", "content": "I moved to Lisbon.", "name": "alex"}],
        user_id="alex", infer=False,
    )
    [result] = out["results"]
    assert result["role"] == "user" and result["actor_id"] == "alex" and "I moved to Lisbon." in result["memory"]
    assert [msg.role for msg in core.messages(scope=Scope(user_id="alex"))] == ["system", "user"]


def test_history_records_add_update_delete(m):
    rid = _one(m, "I work at a bakery", user_id="alex")
    m.update(rid, "I work at a bookshop", user_id="alex")
    rows = m.history(rid, user_id="alex")
    assert [r["event"] for r in rows] == ["ADD", "UPDATE"]
    assert (rows[0]["old_memory"], rows[0]["new_memory"]) == (None, "I work at a bakery")
    assert (rows[1]["old_memory"], rows[1]["new_memory"]) == ("I work at a bakery", "I work at a bookshop")
    assert m.delete(rid, user_id="alex") == {"message": "Memory deleted successfully!"}
    rows = m.history(rid, user_id="alex")  # memdesk keeps a deleted memory's tombstone only (no text)
    assert [(r["event"], r["old_memory"], r["new_memory"], r["is_deleted"]) for r in rows] == [("DELETE", None, None, True)]
    assert {r["memory_id"] for r in rows} == {rid}
    assert m.get(rid, user_id="alex") is None
    with pytest.raises(RecordNotFoundError) as e:
        m.delete(rid, user_id="alex")
    assert isinstance(e.value, ValueError)  # mem0 raises ValueError for a missing id


def test_delete_all_needs_an_id_and_erases_every_run_of_the_user(m):
    a = _one(m, "I keep bees", user_id="alex", run_id="r1")
    b = _one(m, "I play the cello", user_id="alex")
    c = _one(m, "I keep bees too", user_id="sam")
    for call in (m.delete_all, lambda: m.delete_all(user_id="  ")):
        with pytest.raises(InvalidScopeError) as e:
            call()
        assert isinstance(e.value, ValueError)
    assert {r["id"] for r in m.get_all(user_id="alex")["results"]} == {a, b}
    assert m.delete_all(user_id="alex") == {"message": "Memories deleted successfully!"}
    assert m.get_all(user_id="alex")["results"] == [] and m.history(a, user_id="alex") == []
    assert m.get(c, user_id="sam")["memory"] == "I keep bees too"


def test_reads_and_writes_without_a_scope_are_refused(m):
    rid = _one(m, "I keep bees", user_id="alex")
    for call in (
        lambda: m.add("hello"),
        lambda: m.search("bees"),
        lambda: m.search("bees", filters={"category": "x"}),
        lambda: m.get_all(),
        lambda: m.delete_all(),
        lambda: m.search("bees", user_id="*"),
    ):
        with pytest.raises(InvalidScopeError):
            call()
    assert m.get(rid, user_id="alex")["memory"] == "I keep bees"


def test_by_id_calls_take_the_id_alone_as_mem0_code_writes_them(m):
    """The unbound facade is the application's own process: a by-id call reaches the memory wherever it lies."""
    rid = _one(m, "I keep bees", user_id="alex", run_id="garden")
    assert m.get(rid)["memory"] == "I keep bees" and m.get(rid)["run_id"] == "garden"
    assert m.get(memory_id=rid) == m.get(rid, user_id="alex")
    assert m.update(memory_id=rid, data="I keep two hives of bees") == {"message": "Memory updated successfully!"}
    assert m.get(rid)["memory"] == "I keep two hives of bees"
    assert [h["event"] for h in m.history(memory_id=rid)] == ["ADD", "UPDATE"]
    assert m.delete(memory_id=rid) == {"message": "Memory deleted successfully!"}
    assert m.get(rid) is None and [h["event"] for h in m.history(rid)] == ["DELETE"]
    assert m.get("no-such-id") is None and m.history("no-such-id") == []
    for call in (lambda: m.delete("no-such-id"), lambda: m.update("no-such-id", "x"), lambda: m.delete(rid)):
        with pytest.raises(RecordNotFoundError) as e:  # a ValueError, as mem0's "Memory with id ... not found"
            call()
        assert isinstance(e.value, ValueError)


def test_another_users_memory_reads_as_a_missing_one(m):
    rid = _one(m, "My PIN is 4321", user_id="alex")
    assert m.get(rid, user_id="sam") is None and m.get("no-such-id", user_id="sam") is None
    assert m.history(rid, user_id="sam") == [] == m.history("no-such-id", user_id="sam")
    for call in (lambda: m.update(rid, "mine now", user_id="sam"), lambda: m.delete(rid, user_id="sam")):
        with pytest.raises(RecordNotFoundError) as e:
            call()
        assert "4321" not in str(e.value)
    assert m.search("PIN", user_id="sam")["results"] == []
    assert m.get(rid, user_id="alex")["memory"] == "My PIN is 4321"


def test_a_bound_facade_stays_inside_its_scope(core):
    alex = Memory(memory=core, scope={"user_id": "alex"})
    sam = Memory(memory=core, scope=Scope(user_id="sam"))
    mine = _one(alex, "I collect stamps")
    theirs = _one(sam, "I collect coins")
    assert alex.get(mine)["memory"] == "I collect stamps" and alex.get(theirs) is None
    assert [h["id"] for h in alex.search("collect")["results"]] == [mine]
    assert _one(alex, "Trip notes", run_id="trip") and len(alex.get_all()["results"]) == 2
    with pytest.raises(ForbiddenScopeError):
        alex.add("I collect coins", user_id="sam")
    with pytest.raises(ForbiddenScopeError):
        alex.delete_all(user_id="sam")
    with pytest.raises(UnknownScopeError):
        alex.search("coins", filters={"user_id": "sam"})
    with pytest.raises(RecordNotFoundError):
        alex.delete(theirs)
    assert alex.get(theirs, user_id="sam") is None
    with pytest.raises(InvalidScopeError):
        alex.delete_all()
    alex.reset()
    assert alex.get_all()["results"] == [] and sam.get(theirs)["memory"] == "I collect coins"


def test_reset_of_an_unbound_facade_erases_every_scope(m):
    _one(m, "I keep bees", user_id="alex")
    _one(m, "I keep goats", agent_id="farmhand")
    m.reset()
    assert m.get_all(user_id="alex")["results"] == [] == m.get_all(agent_id="farmhand")["results"]


def test_metadata_filters_use_mem0s_operators(m):
    ids = {
        name: _one(m, text, user_id="alex", metadata=meta)
        for name, text, meta in [
            ("run", "I ran 5 km today", {"kind": "sport", "minutes": 30}),
            ("swim", "I swam 1 km today", {"kind": "sport", "minutes": 45, "place": "Lido pool"}),
            ("cake", "I baked a lemon cake", {"kind": "food", "minutes": 90}),
        ]
    }

    def found(filters, op="get_all"):
        filters = {"user_id": "alex", **filters}
        res = m.get_all(filters=filters) if op == "get_all" else m.search("what did I do today", filters=filters)
        return {name for name, rid in ids.items() if rid in {r["id"] for r in res["results"]}}

    assert found({"kind": "sport"}) == {"run", "swim"} == found({"kind": "sport"}, "search")
    assert found({"minutes": {"gte": 45}}) == {"swim", "cake"}
    assert found({"kind": {"in": ["food"]}}) == {"cake"} == found({"kind": {"ne": "sport"}})
    assert found({"place": "*"}) == {"swim"} == found({"place": {"icontains": "lido"}})
    assert found({"OR": [{"kind": "food"}, {"minutes": {"lt": 40}}]}) == {"run", "cake"}
    assert found({"AND": [{"kind": "sport"}], "NOT": [{"minutes": 30}]}) == {"swim"}
    assert found({"minutes": {"gt": "soon"}}) == set()  # kinds that do not order match nothing
    assert found({"role": "user", "memory_type": "semantic"}) == set(ids)
    for bad in ({"kind": {"like": "x"}}, {"kind": {"in": "food"}}, {"OR": {"kind": "food"}}, {"OR": [{"user_id": "sam"}]}):
        with pytest.raises(InvalidInputError):
            m.get_all(filters={"user_id": "alex", **bad})


def test_search_arguments_are_checked_like_mem0s(m):
    _one(m, "I keep bees", user_id="alex")
    for kwargs in ({"top_k": -1}, {"top_k": True}, {"threshold": 1.5}, {"reference_date": "2024-01-01"}):
        with pytest.raises(InvalidInputError):
            m.search("bees", user_id="alex", **kwargs)
    with pytest.raises(ValueError):
        m.search("   ", user_id="alex")
    assert m.search("bees", user_id="alex", top_k=0)["results"] == []
    assert m.search("bees", user_id="alex", threshold=0.999)["results"] == []
    [hit] = m.search("bees", user_id=" alex ", explain=True)["results"]
    assert "cosine" in hit["score_details"]["why"]
    assert _one(m, "I am 42", user_id=7) and m.get_all(user_id="7")["results"]  # integer ids become strings


def test_add_arguments_mem0_oss_has_but_memdesk_does_not_are_refused_before_writing(m, core):
    for kwargs in ({"memory_type": "procedural_memory"}, {"prompt": "extract"}, {"expiration_date": "soon"},
                   {"infer": "yes"}, {"timestamp": "not a date"}, {"metadata": ["a"]}):
        with pytest.raises(InvalidInputError):
            m.add("I keep bees", user_id="alex", **kwargs)
    for messages in (42, [{"role": "user", "content": [{"type": "image_url"}]}], [{"role": "robot", "content": "hi"}]):
        with pytest.raises(MemdeskError):
            m.add(messages, user_id="alex")
    assert core.messages(scope=Scope(user_id="alex")) == []
    dated = m.add("We moved house", user_id="alex", infer=False, timestamp="2024-03-02T10:00:00+00:00")["results"][0]
    assert m.get(dated["id"], user_id="alex")["temporal_anchor"] == "2024-03-02"


def test_async_memory_has_the_same_calls(core):
    async def main():
        am = AsyncMemory(memory=core)
        added = await am.add("I moved to Lisbon last month.", user_id="alex")
        assert added["results"]
        hits = (await am.search("Where does Alex live?", filters={"user_id": "alex"}))["results"]
        assert "Lisbon" in hits[0]["memory"]
        assert (await am.get(hits[0]["id"], user_id="alex"))["id"] == hits[0]["id"]
        assert await am.get(hits[0]["id"], user_id="sam") is None
        with pytest.raises(InvalidScopeError):
            await am.delete_all()
        await am.delete_all(user_id="alex")
        assert (await am.get_all(user_id="alex"))["results"] == []
        await am.close()

    asyncio.run(main())


def test_memory_with_no_arguments_runs_on_memdesks_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_DATABASE_URL", f"sqlite:///{tmp_path}/default.db")
    monkeypatch.setenv("MEMDESK_CONFIG", "")
    with Memory() as m:
        m.add(ALEX, user_id="alex")
        assert "basketball" in m.search("Which sports do I love?", filters={"user_id": "alex"})["results"][0]["memory"]
        assert m.memory.embedder.model_id.lower().find("minilm") >= 0
    assert (tmp_path / "default.db").exists()
