"""What the facade's ``add`` reports and keeps, as mem0 does: one memory per fact, a repeated fact stored once
(``NONE``), a changed fact an ``UPDATE`` of the memory it replaces, ``expiration_date`` hiding memories after
their day. Real SQLite, the packaged MiniLM and the rule processor."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from memdesk.compat.mem0 import Memory
from memdesk.compat.mem0_add import one_per_fact
from memdesk.conversation.memory import build_memory
from memdesk.records import Scope, SemanticRecord
from memdesk.retrieval.packing import normalized_text
from memdesk.settings import Settings


@pytest.fixture
def core(tmp_path, minilm):
    memory = build_memory(Settings(database_url=f"sqlite:///{tmp_path}/events.db"), embedder=minilm)
    yield memory
    memory.close()


@pytest.fixture
def m(core):
    return Memory(memory=core)


def _events(result):
    return [(r["event"], r["memory"]) for r in result["results"]]


def test_a_new_fact_is_an_add_and_no_fact_is_stored_twice(m):
    got = m.add([{"role": "user", "content": "Hi, I'm Alex. I love basketball and gaming."}], user_id="alex")
    assert got["results"] and {r["event"] for r in got["results"]} == {"ADD"}
    texts = [normalized_text(r["memory"]) for r in got["results"]]
    assert not any(a in b for i, a in enumerate(texts) for j, b in enumerate(texts) if i != j)
    stored = m.get_all(filters={"user_id": "alex"})["results"]
    assert sorted(r["id"] for r in stored) == sorted(r["id"] for r in got["results"])


def test_a_repeated_fact_is_none_and_points_at_the_stored_memory(m):
    [first] = m.add("I live in Lisbon.", user_id="alex")["results"]
    again = m.add("I live in Lisbon.", user_id="alex")["results"]
    assert again == [{**first, "event": "NONE"}]
    assert [r["id"] for r in m.get_all(filters={"user_id": "alex"})["results"]] == [first["id"]]
    other = m.add("I live in Lisbon.", user_id="sam")["results"]  # another user's memory is not theirs
    assert [r["event"] for r in other] == ["ADD"] and other[0]["id"] != first["id"]


def test_a_changed_fact_is_an_update_of_the_memory_it_replaces(m):
    [lisbon] = m.add("I live in Lisbon.", user_id="alex")["results"]
    moved = m.add("I live in Porto now.", user_id="alex")["results"]
    [update] = [r for r in moved if r["event"] == "UPDATE"]
    assert update["previous_memory"] == "I live in Lisbon." and update["previous_id"] == lisbon["id"]
    assert "Porto" in update["memory"] and update["id"] != lisbon["id"]
    current = [r["memory"] for r in m.get_all(filters={"user_id": "alex"})["results"]]
    assert "I live in Lisbon." not in current and any("Porto" in t for t in current)
    assert m.search("Where does Alex live?", filters={"user_id": "alex"})["results"][0]["id"] == update["id"]


def test_infer_false_keeps_every_message_as_said(m):
    one = m.add("I live in Lisbon.", user_id="alex", infer=False)["results"]
    two = m.add("I live in Lisbon.", user_id="alex", infer=False)["results"]
    assert [r["event"] for r in one + two] == ["ADD", "ADD"] and one[0]["id"] != two[0]["id"]


def test_expiration_date_hides_a_memory_after_its_day_unless_show_expired(m):
    yesterday = (date.today() - timedelta(days=2)).isoformat()
    [old] = m.add("My parking permit is number 88.", user_id="alex", infer=False, expiration_date=yesterday)["results"]
    [kept] = m.add("My locker is number 12.", user_id="alex", infer=False, expiration_date="2999-01-31")["results"]
    [plain] = m.add("My desk is by the window.", user_id="alex", infer=False)["results"]
    listed = {r["id"]: r for r in m.get_all(filters={"user_id": "alex"})["results"]}
    assert set(listed) == {kept["id"], plain["id"]} and listed[kept["id"]]["expiration_date"] == "2999-01-31"
    assert "expiration_date" not in (listed[kept["id"]]["metadata"] or {})
    assert old["id"] in {r["id"] for r in m.get_all(filters={"user_id": "alex"}, show_expired=True)["results"]}
    assert old["id"] not in {r["id"] for r in m.search("parking permit", filters={"user_id": "alex"})["results"]}
    assert old["id"] in {r["id"] for r in m.search("parking permit", filters={"user_id": "alex"}, show_expired=True)["results"]}
    m.update(old["id"], expiration_date=None)  # None clears it, as in mem0
    assert old["id"] in {r["id"] for r in m.get_all(filters={"user_id": "alex"})["results"]}
    m.update(memory_id=plain["id"], text="My desk is by the door.", expiration_date=yesterday)
    assert plain["id"] not in {r["id"] for r in m.get_all(filters={"user_id": "alex"})["results"]}
    assert m.get(plain["id"])["memory"] == "My desk is by the door."  # get reads it, as mem0's does


def test_one_per_fact_keeps_the_longer_of_two_views_of_the_same_words():
    scope = Scope(user_id="a")
    long_, short, other = (SemanticRecord(scope=scope, fact=t) for t in (
        "Hi, I'm Alex. I love basketball.", "I love basketball.", "I keep bees."))  # fmt: skip
    assert one_per_fact([short, long_, other]) == [long_, other]
