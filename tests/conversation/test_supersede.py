"""Facts that supersede: a changed fact closes the old memory (kept in history), reads see the current one,
``as_of`` sees the past, and the update scenarios written for the project pass on the offline path."""

from __future__ import annotations

import importlib.util
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memdesk.conversation.extract import RuleExtractor
from memdesk.conversation.facts import Claim
from memdesk.conversation.memory import Memory
from memdesk.conversation.router import RuleRouter
from memdesk.conversation.base import RoutedExtraction
from memdesk.errors import ConfigError, InvalidInputError
from memdesk.records import Scope
from memdesk.retrieval.retrieve import Retriever
from memdesk.store import open_store
from memdesk.conversation.supersede import Supersession, replaces

S = Scope(user_id="priya")
JAN = datetime(2024, 1, 8, tzinfo=timezone.utc)
APR = datetime(2024, 4, 7, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parents[2]



def said(text: str, when: datetime, speaker: str = "Priya") -> dict:
    return {"content": text, "speaker": speaker, "timestamp": when}


@pytest.mark.parametrize(
    "new,old,closes",
    [
        (Claim("residence", value="Bath"), Claim("residence", value="Bristol"), True),
        (Claim("residence", value="Bath"), Claim("residence", value="bath"), False),  # said again
        (Claim("residence", value="York"), Claim("residence", value="Leeds", op="end"), True),
        (Claim("residence", value="Leeds", op="end"), Claim("residence", value="Leeds"), True),
        (Claim("residence", value="Leeds", op="end"), Claim("residence", value="York"), False),
        (Claim("possession", "car", value="I sold my car", op="end"), Claim("possession", "car", value="an old Ford"), True),
        (Claim("possession", value="Miso", op="end"), Claim("possession", "cat", value="a grey cat called Miso"), True),
        (Claim("count", "cat", value="three"), Claim("count", "cat", value="two"), True),
        (Claim("count", "cat", value="three"), Claim("count", "dog", value="two"), False),
        (Claim("employer", value="the library"), Claim("residence", value="Bath"), False),
    ],
)
def test_which_claims_replace_which(new: Claim, old: Claim, closes: bool) -> None:
    assert replaces(new, old) is closes


def test_a_move_closes_the_old_address_and_keeps_it_in_history(mem: Memory) -> None:
    mem.add([said("I live in Bristol with two flatmates.", JAN)], scope=S)
    (old,) = [r for r in mem.get_all(scope=S) if "Bristol" in r.text()]
    added = mem.add([said("I moved to Bath last month.", APR)], scope=S)
    new = next(r for r in added.records if "Bath" in r.text())
    assert all("Bristol" not in r.text() for r in mem.get_all(scope=S))  # not listed by default
    hits = mem.search("Where does Priya live?", scope=S)
    assert "Bath" in hits[0].record.text()  # current first; the old one is weighted down, still findable
    old_hit = next(h for h in hits if h.record.id == old.id)
    assert "superseded" in old_hit.why
    dropping = Memory(mem.store, mem.embedder, mem.processor, retriever=Retriever(mem.store, superseded_weight=None))
    assert all("Bristol" not in h.record.text() for h in dropping.search("Where does Priya live?", scope=S))
    closed = mem.get(old.id, scope=S)
    assert closed.superseded_by == new.id and closed.valid_to == new.event_time  # March 2024, the move
    assert [e.event for e in mem.history(old.id, scope=S)][-2:] == ["ADD", "UPDATE"]
    assert mem.history(old.id, scope=S)[0].record.superseded_by is None  # the open version is kept
    # as it stood in February: the old address, not yet the new one
    feb = mem.search("Where does Priya live?", scope=S, as_of=datetime(2024, 2, 20, tzinfo=timezone.utc))
    assert feb and "Bristol" in feb[0].record.text() and all("Bath" not in h.record.text() for h in feb)
    everything = mem.get_all(scope=S, filters={"include_superseded": True})
    assert {old.id, new.id} <= {r.id for r in everything}


def test_a_revision_takes_back_the_most_similar_plan(mem: Memory) -> None:
    mem.add([said("I'm going to Rome for a holiday in May.", JAN), said("My sister visited last weekend.", JAN)], scope=S)
    mem.add([said("I changed my mind about Rome, we're going to Lisbon instead.", APR)], scope=S)
    texts = [r.text() for r in mem.get_all(scope=S)]
    assert not any("going to Rome for a holiday" in t for t in texts)
    assert any("sister" in t for t in texts)  # an unrelated memory stays


def test_another_speaker_does_not_close_my_facts(mem: Memory) -> None:
    mem.add([said("I live in Bristol.", JAN)], scope=S)
    mem.add([said("I moved to Bath last month.", APR, speaker="Tom")], scope=S)
    assert any("Bristol" in r.text() for r in mem.get_all(scope=S))


def test_one_batch_supersedes_in_order(mem: Memory) -> None:
    mem.add([said("I work at Greenleaf Books.", JAN), said("I got a new job at Harper Library.", APR)], scope=S)
    texts = [r.text() for r in mem.get_all(scope=S)]
    assert any("Harper Library" in t for t in texts) and not any("Greenleaf" in t for t in texts)


def test_metadata_of_a_message_reaches_its_records_and_filters_them(mem: Memory) -> None:
    mem.add([{**said("I love hiking in the hills.", JAN), "metadata": {"app": "web", "n": 3}}], scope=S)
    mem.add([{**said("I love sailing on the lake.", JAN), "metadata": {"app": "ios", "n": 7}}], scope=S)
    web = mem.get_all(scope=S, filters={"metadata": {"app": "web"}})
    assert web and all("hiking" in r.text() and r.metadata["app"] == "web" for r in web)
    hits = mem.search("What does Priya love?", scope=S, filters={"metadata": {"n": {"gt": 5}}})
    assert hits and all("sailing" in h.record.text() for h in hits)
    assert mem.search("hiking", scope=S, filters={"since": APR}) == []
    with pytest.raises(InvalidInputError):
        mem.search("hiking", scope=S, filters={"metadata": {"n": {"about": 3}}})
    with pytest.raises(InvalidInputError):
        mem.get_all(scope=S, filters=["not", "a", "filter"])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ConfigError):
        Supersession(k=0)


def _bench():
    spec = importlib.util.spec_from_file_location("update_scenarios", ROOT / "bench" / "update_scenarios.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.mark.slow
def test_the_update_scenarios_pass_on_the_offline_path(tmp_path, minilm) -> None:
    """At least 95% of the 64 written scenarios rank the current value first; as_of finds the old one in 90%."""
    bench = _bench()
    scenarios = bench.load()
    assert len(scenarios) >= 60
    m = Memory(open_store(f"sqlite:///{tmp_path}/u.db"), minilm, RoutedExtraction(RuleRouter(), RuleExtractor()))
    result = bench.run(m, scenarios)
    m.close()
    assert result["current_first"] >= 0.95, result["failed"]
    assert result["as_of_old"] >= 0.90, result["as_of_failed"]
