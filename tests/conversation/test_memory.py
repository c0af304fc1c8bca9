"""The Memory facade end to end on a real SQLite store: add, search, get, update, delete, history."""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np
import pytest

from memdesk.conversation.base import Processed, RoutedExtraction
from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.errors import (
    EmbeddingMismatchError,
    EmptyInputError,
    InvalidInputError,
    InvalidScopeError,
    RecordNotFoundError,
)
from memdesk.records import HistoryEvent, Message, MemoryType, RouteMask, Scope
from memdesk.store import open_store
from tests.pg_server import postgres_server, postgres_url  # noqa: F401

T0 = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
ANA = Scope(user_id="ana")


@pytest.fixture
def mem(tmp_path):
    m = Memory(open_store(f"sqlite:///{tmp_path}/m.db"), HashingEmbedder(256), RawTurnProcessor())
    yield m
    m.close()


def test_add_then_search_finds_the_turn(mem):
    res = mem.add(
        [
            {"id": "m1", "speaker": "Ana", "content": "I adopted a grey cat named Miso.", "timestamp": T0},
            {"id": "m2", "speaker": "Ben", "content": "The train to Porto leaves at nine.", "timestamp": T0},
        ],
        scope=ANA,
    )
    assert res.message_ids == ["m1", "m2"]
    assert res.routes == {"m1": "010", "m2": "010"}
    hits = mem.search("grey cat Miso", scope=ANA)
    assert hits[0].record.provenance == ["m1"]
    assert hits[0].memory_type is MemoryType.SEMANTIC
    assert "cosine" in hits[0].why
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_speaker_banks_are_kept_apart(mem):
    mem.add(
        [
            {"id": "a", "speaker": "Ana", "content": "I love hiking in the mountains.", "timestamp": T0},
            {"id": "b", "speaker": "Ben", "content": "I love hiking in the mountains too.", "timestamp": T0},
        ],
        scope=ANA,
    )
    ana_only = mem.search("hiking mountains", scope=ANA, speaker="Ana")
    assert {h.record.speaker for h in ana_only} == {"Ana"}
    both = mem.search("hiking mountains", scope=ANA)
    assert {h.record.speaker for h in both} == {"Ana", "Ben"}


def test_readding_the_same_ids_stores_nothing_twice(mem):
    msgs = [{"id": f"m{i}", "content": f"fact number {i} about apples", "timestamp": T0} for i in range(5)]
    mem.add(msgs, scope=ANA)
    again = mem.add(msgs, scope=ANA)
    assert again.records == []
    assert len(mem.get_all(scope=ANA)) == 5
    assert len(mem.messages(scope=ANA)) == 5


def test_update_supersedes_history_keeps_versions_and_delete_leaves_a_tombstone(mem):
    rec = mem.add("I live in Lisbon.", scope=ANA, timestamp=T0).records[0]
    new = mem.update(rec.id, "I live in Porto now.", scope=ANA)
    assert new.id == rec.id and mem.get(rec.id, scope=ANA).fact == "I live in Porto now."
    hist = mem.history(rec.id, scope=ANA)
    assert [h.event for h in hist] == [HistoryEvent.ADD, HistoryEvent.UPDATE]
    assert hist[0].record.fact.endswith("I live in Lisbon.") and hist[0].scope == ANA
    mem.delete(rec.id, scope=ANA)
    [tomb] = mem.history(rec.id, scope=ANA)  # the tombstone alone: no version keeps the text
    assert (tomb.event, tomb.version, tomb.record, tomb.scope) == (HistoryEvent.DELETE, 3, None, ANA)
    with pytest.raises(RecordNotFoundError):
        mem.history(rec.id, scope=Scope(user_id="ben"))  # still another tenant's: not found
    with pytest.raises(RecordNotFoundError):
        mem.get(rec.id, scope=ANA)
    with pytest.raises(RecordNotFoundError):
        mem.delete(rec.id, scope=ANA)


def test_by_id_calls_outside_the_scope_behave_as_missing_ids(mem):
    rec = mem.add("I keep bees.", scope=Scope(user_id="ana", run_id="r1"), timestamp=T0).records[0]
    for other in (Scope(user_id="ben"), Scope(user_id="ana", run_id="r2"), Scope(agent_id="bot")):
        for call in (
            lambda: mem.get(rec.id, scope=other),
            lambda: mem.update(rec.id, "I keep wasps.", scope=other),
            lambda: mem.delete(rec.id, scope=other),
            lambda: mem.history(rec.id, scope=other),
        ):
            with pytest.raises(RecordNotFoundError) as outside:
                call()
            with pytest.raises(RecordNotFoundError) as missing:
                mem.get("no-such-id", scope=other)
            # the same message shape: an id tells nothing about whether another tenant has it
            assert str(outside.value).replace(rec.id, "X") == str(missing.value).replace("no-such-id", "X")
    # the owner's scope and any scope above it (unset fields are wildcards) reach it, unchanged
    assert mem.get(rec.id, scope=Scope(user_id="ana")).fact == "I keep bees."
    assert [h.event for h in mem.history(rec.id, scope=Scope(run_id="r1"))] == [HistoryEvent.ADD]


def test_scopes_filter_and_delete_all(mem):
    mem.add("alpha beta", scope=Scope(user_id="u", run_id="r1"), timestamp=T0)
    mem.add("alpha gamma", scope=Scope(user_id="u", run_id="r2"), timestamp=T0)
    assert len(mem.search("alpha", scope=Scope(user_id="u"))) == 2
    assert len(mem.search("alpha", scope=Scope(user_id="u", run_id="r1"))) == 1
    assert mem.delete_all(scope=Scope(user_id="u", run_id="r1")) == 1
    assert len(mem.get_all(scope=Scope(user_id="u"))) == 1


@pytest.mark.parametrize(
    "bad, error",
    [
        ("", EmptyInputError),
        ([], EmptyInputError),
        ([{"content": "   "}], EmptyInputError),
        ([{"content": "x", "role": "wizard"}], InvalidInputError),
        ([{"text": "wrong key"}], InvalidInputError),
        ([42], InvalidInputError),
    ],
)
def test_bad_input_is_typed_and_stores_nothing(mem, bad, error):
    mem.add("kept", scope=ANA, timestamp=T0)
    with pytest.raises(error):
        mem.add(bad, scope=ANA)
    assert [r.fact for r in mem.get_all(scope=ANA)] == ["kept"]


def test_a_bad_message_in_a_batch_stores_none_of_the_batch(mem):
    with pytest.raises(EmptyInputError):
        mem.add([{"content": "good one"}, {"content": ""}], scope=ANA)
    assert mem.search("good", scope=ANA) == [] and mem.get_all(scope=ANA) == []


def test_scope_errors(mem):
    with pytest.raises(InvalidScopeError):
        mem.add("x", scope={})
    with pytest.raises(InvalidInputError):
        mem.add("x", scope="ana")
    nobody = Scope(user_id="nobody")  # a scope never written reads as empty everywhere
    assert mem.search("x", scope=nobody) == [] and mem.get_all(scope=nobody) == []
    assert mem.evidence("x", scope=nobody).hits == [] and not mem.answer("x", scope=nobody).evidence.hits
    mem.add("x y", scope=ANA, timestamp=T0)
    with pytest.raises(EmptyInputError):
        mem.search("  ", scope=ANA)
    with pytest.raises(InvalidInputError):
        mem.search("x", scope=ANA, types=["bogus"])


def test_store_written_by_another_embedder_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path}/e.db"
    m = Memory(open_store(url), HashingEmbedder(256), RawTurnProcessor())
    m.add("something", scope=ANA, timestamp=T0)
    m.close()
    with pytest.raises(EmbeddingMismatchError):
        Memory(open_store(url), HashingEmbedder(128), RawTurnProcessor())


class _FailingProcessor:
    def process(self, utterances):
        raise RuntimeError("extractor crashed")


def test_processor_failure_writes_no_record_and_keeps_the_message_pending(tmp_path):
    m = Memory(open_store(f"sqlite:///{tmp_path}/f.db"), HashingEmbedder(64), _FailingProcessor())
    with pytest.raises(RuntimeError):
        m.add([{"id": "m1", "content": "hello there world"}], scope=ANA)
    assert [(x.id, x.status) for x in m.messages(scope=ANA)] == [("m1", "pending")]  # tests/conversation/test_pending.py
    assert m.get_all(scope=ANA) == []
    m.close()


class _TwoTypes:
    """A processor that writes one episodic and one procedural record per message."""

    def process(self, utterances):
        from memdesk.records import EpisodicRecord, ProceduralRecord

        out = []
        for u in utterances:
            out.append(
                Processed(
                    mask=RouteMask(episodic=True, procedural=True),
                    records=[
                        EpisodicRecord(scope=u.scope, title="event", summary=u.message.content, provenance=[u.message_id]),
                        ProceduralRecord(scope=u.scope, title="how", content="step: " + u.message.content, provenance=[u.message_id]),
                    ],
                )
            )
        return out


def test_same_provenance_is_deduplicated_and_types_filter(tmp_path):
    m = Memory(open_store(f"sqlite:///{tmp_path}/d.db"), HashingEmbedder(256), _TwoTypes())
    m.add([{"id": "x", "content": "bake bread with rye flour"}], scope=ANA)
    hits = m.search("bake bread", scope=ANA)
    assert len(hits) == 1  # the two records of message x share provenance
    only_proc = m.search("bake bread", scope=ANA, types=["procedural"])
    assert [h.memory_type for h in only_proc] == [MemoryType.PROCEDURAL]
    assert m.add([Message(id="y", content="second")], scope=ANA).counts == {"episodic": 1, "semantic": 0, "procedural": 1}
    m.close()


def test_answer_offline_is_extractive_and_labelled(mem):
    mem.add(
        [
            {"id": "m1", "speaker": "Ana", "content": "My sister Rita is a marine biologist.", "timestamp": T0},
            {"id": "m2", "speaker": "Ana", "content": "I bought new running shoes.", "timestamp": T0},
        ],
        scope=ANA,
    )
    ans = mem.answer("What does Rita do for a living, marine biologist?", scope=ANA)
    assert ans.extractive is True
    assert "marine biologist" in ans.answer
    assert ans.evidence.tokens > 0 and "[2023-05-08]" in ans.evidence.text


def test_reembed_migrates_a_store_to_another_model(tmp_path):
    from memdesk.store.reembed import reembed_store

    url = f"sqlite:///{tmp_path}/re.db"
    old = Memory(open_store(url), HashingEmbedder(64), RawTurnProcessor())
    old.add([{"id": "a", "content": "Ana keeps bees on the roof"}, {"id": "b", "content": "Ben sails on Sundays"}],
            scope=ANA, timestamp=T0)
    old.close()
    store = open_store(url)
    assert reembed_store(store, HashingEmbedder(128)) == 2
    store.close()
    with pytest.raises(EmbeddingMismatchError):
        Memory(open_store(url), HashingEmbedder(64), RawTurnProcessor())
    new = Memory(open_store(url), HashingEmbedder(128), RawTurnProcessor())
    assert new.search("bees on the roof", scope=ANA)[0].record.provenance == ["a"]
    new.close()


def test_two_concurrent_ingests_of_the_same_messages_store_everything_once(tmp_path):
    import threading

    url = f"sqlite:///{tmp_path}/race.db"
    msgs = [{"id": f"m{i}", "content": f"fact {i} about the garden", "timestamp": T0} for i in range(60)]
    mems = [Memory(open_store(url), HashingEmbedder(64), RawTurnProcessor()) for _ in range(2)]
    added = [0, 0]

    def ingest(n: int) -> None:
        for i in range(0, len(msgs), 5):
            added[n] += len(mems[n].add(msgs[i : i + 5], scope=ANA).records)

    threads = [threading.Thread(target=ingest, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(mems[0].get_all(scope=ANA)) == 60 and len(mems[0].messages(scope=ANA)) == 60
    assert sum(added) == 60  # AddResult counts only what was written
    for m in mems:
        m.close()


def test_a_message_id_logged_under_another_scope_does_not_skip_this_one(mem):
    """Ids are unique per exact scope: the same id under one of ana's agents and under ana herself are two messages."""
    agent, user = Scope(user_id="ana", agent_id="bot"), Scope(user_id="ana")
    mem.add([{"id": "m1", "content": "I keep bees."}], scope=agent)
    got = mem.add([{"id": "m1", "content": "I play the cello."}], scope=user)
    assert [r.embed_text() for r in got.records] and "cello" in got.records[0].embed_text()
    assert [m.content for m in mem.messages(scope=user) if m.scope == user] == ["I play the cello."]
    again = mem.add([{"id": "m1", "content": "I play the cello."}], scope=user)
    assert again.records == []  # the same exact scope: skipped as before


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/t.db"
    return request.getfixturevalue("postgres_url")


def test_the_time_a_question_is_asked_dates_its_time_expressions(store_url):
    """End to end on each real store with the packaged embedder: the default read path and asked_at."""
    from datetime import timedelta

    from memdesk.embed import MiniLMEmbedder
    from memdesk.retrieval.retrieve import Retriever

    store = open_store(store_url)
    m = Memory(store, MiniLMEmbedder(), RawTurnProcessor(), retriever=Retriever.fused(store, person_weight=0))
    later = T0 + timedelta(days=14)
    m.add([{"id": "late", "speaker": "Ana", "content": "I baked rye bread with seeds.", "timestamp": later},
           {"id": "early", "speaker": "Ana", "content": "I baked rye bread with honey.", "timestamp": T0}], scope=ANA)  # fmt: skip
    question = "What bread did I bake two weeks ago?"
    asked = later + timedelta(hours=3)
    hits = m.search(question, scope=ANA, asked_at=asked)
    assert hits[0].record.provenance == ["early"] and "dated in the question's week of 2023-05-08" in hits[0].why
    # answer() reads the date it shows the answering model as the time the question is asked
    assert m.answer(question, scope=ANA, question_time="22 May 2023").evidence.hits[0].record.provenance == ["early"]
    undated = m.search(question, scope=ANA)  # asked now, years later: no window holds either, cosine decides
    assert undated[0].record.provenance == ["late"] and not any("dated in" in h.why for h in undated)
    with pytest.raises(InvalidInputError, match="asked_at"):
        m.search(question, scope=ANA, asked_at="yesterday")
    m.close()


@pytest.mark.parametrize("wrong", ["memory.db", 42, {"database_url": "sqlite:///x.db"}])
def test_open_given_something_other_than_settings_is_a_typed_error(wrong, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidInputError, match="database_url"):
        Memory.open(wrong)
    assert not (tmp_path / "memory.db").exists()  # nothing created on the way
