"""RemoteMemory against the HTTP API gives what Memory gives in process: same models, same exceptions."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from memdesk.errors import (
    EmptyInputError,
    InvalidInputError,
    InvalidScopeError,
    RecordNotFoundError,
    RemoteAuthError,
    RemoteServerError,
)
from memdesk.records import Scope
from memdesk.client.remote import RemoteMemory, error_from_reply

from .conftest import KEY, sqlite_memory

ANA = Scope(user_id="ana")
TURNS = [
    {"id": "m1", "speaker": "Ana", "content": "I adopted a grey cat named Miso.", "timestamp": "2023-05-08T13:56:00+00:00"},
    {"id": "m2", "speaker": "Ben", "content": "The train to Porto leaves at nine.", "timestamp": "2023-05-08T14:00:00+00:00"},
    {"id": "m3", "speaker": "Ana", "content": "My sister's wedding is in June.", "timestamp": "2023-05-09T10:00:00+00:00"},
]


@pytest.fixture
def remote(client):
    return RemoteMemory("http://testserver", api_key=KEY, http_client=client)


@pytest.fixture
def local(tmp_path):
    m = sqlite_memory(tmp_path / "local.db")
    yield m
    m.close()


def strip(records):
    """Records without the fields that differ between two stores (ids, ingest times)."""
    return [r.model_dump(exclude={"id", "ingest_time"}) for r in records]


def test_remote_and_local_give_the_same_answers(remote, local):
    for m in (remote, local):
        m.add(TURNS, scope=ANA)
    assert strip(remote.get_all(scope=ANA)) == strip(local.get_all(scope=ANA))
    for q in ("grey cat", "When is the wedding?"):
        r_hits, l_hits = remote.search(q, scope=ANA, K=2), local.search(q, scope=ANA, K=2)
        assert [h.record.fact for h in r_hits] == [h.record.fact for h in l_hits]
        assert [round(h.score, 6) for h in r_hits] == [round(h.score, 6) for h in l_hits]
        assert remote.evidence(q, scope=ANA).text == local.evidence(q, scope=ANA).text
        assert remote.answer(q, scope=ANA).answer == local.answer(q, scope=ANA).answer
    assert [m.content for m in remote.messages(scope=ANA)] == [t["content"] for t in TURNS]
    assert remote.search("cat", scope=ANA, types=["episodic"]) == []


def test_update_history_delete_through_the_client(remote):
    rec = remote.add("I keep bees.", scope=ANA).records[0]
    new = remote.update(rec.id, "I keep two hives of bees.", scope=ANA)
    assert new.fact == "I keep two hives of bees." and remote.get(rec.id, scope=ANA).fact == new.fact
    remote.update(rec.id, scope=ANA, temporal_anchor="May 2023")
    assert remote.get(rec.id, scope=ANA).temporal_anchor == "May 2023"
    with pytest.raises(RecordNotFoundError):
        remote.delete(rec.id, scope={"user_id": "ben"})
    remote.delete(rec.id, scope=ANA)
    [tomb] = remote.history(rec.id, scope=ANA)  # a tombstone alone: no version keeps the text
    assert (tomb.event.value, tomb.record, tomb.scope, tomb.version) == ("DELETE", None, ANA, 4)
    with pytest.raises(RecordNotFoundError):
        remote.get(rec.id, scope=ANA)
    remote.add(["a", "b"], scope=ANA)
    assert remote.delete_all(scope=ANA) == 2


def test_get_all_pages_through_everything(remote, monkeypatch):
    import memdesk.client.remote as mod

    monkeypatch.setattr(mod, "PAGE", 3)
    remote.add([f"note {i}" for i in range(7)], scope=ANA)
    assert [r.fact for r in remote.get_all(scope=ANA)] == [f"note {i}" for i in range(7)]  # 3 pages, by cursor


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda m: m.get("nope", scope=ANA), RecordNotFoundError),
        (lambda m: m.get("a/b?c", scope=ANA), RecordNotFoundError),
        (lambda m: m.delete("nope", scope=ANA), RecordNotFoundError),
        (lambda m: m.get(m.get_all(scope=ANA)[0].id, scope={"user_id": "ben"}), RecordNotFoundError),
        (lambda m: m.history(m.get_all(scope=ANA)[0].id, scope={"agent_id": "bot"}), RecordNotFoundError),
        (lambda m: m.get("nope", scope={}), InvalidScopeError),
        (lambda m: m.add("   ", scope=ANA), EmptyInputError),
        (lambda m: m.add({"content": "x", "role": "robot"}, scope=ANA), InvalidInputError),
        (lambda m: m.search("", scope=ANA), EmptyInputError),
        (lambda m: m.search("   ", scope=ANA), EmptyInputError),
        (lambda m: m.add([], scope={}), InvalidScopeError),
        (lambda m: m.add("x", scope={}), InvalidScopeError),
        (lambda m: m.update("nope", "x", scope=ANA), RecordNotFoundError),
        (lambda m: m.update(m.get_all(scope=ANA)[0].id, "x", scope={"user_id": "ben"}), RecordNotFoundError),
        (lambda m: m.add("x", scope=ANA, wait="no"), InvalidInputError),
        (lambda m: m.add("x", scope=ANA, wait=0), InvalidInputError),
        (lambda m: m.forget(ANA, wildcard="true"), InvalidInputError),
        (lambda m: m.delete_all(scope=ANA, wildcard=1), InvalidInputError),
    ],
)
def test_server_errors_come_back_as_the_same_exceptions(remote, local, call, error):
    for m in (remote, local):
        m.add("I keep bees.", scope=ANA)
    with pytest.raises(error) as in_process:
        call(local)
    with pytest.raises(error) as over_http:
        call(remote)
    assert type(over_http.value) is type(in_process.value)  # the same class, not just a common base
    assert [r.fact for r in remote.get_all(scope=ANA)] == ["I keep bees."]


def test_update_errors_match_memory(remote, local):
    for m in (remote, local):
        rec = m.add("I keep bees.", scope=ANA).records[0]
        with pytest.raises(EmptyInputError):
            m.update(rec.id, "", scope=ANA)
        with pytest.raises(RecordNotFoundError):
            m.update("nope", "", scope=ANA)
        assert m.get(rec.id, scope=ANA).fact == "I keep bees."


def test_every_search_argument_of_memory_is_accepted(remote, local):
    for m in (remote, local):
        m.add(TURNS, scope=ANA)
    for merge in ("score", "round_robin"):
        r_hits = remote.search("grey cat", scope=ANA, K=2, merge=merge)
        assert [h.record.fact for h in r_hits] == [h.record.fact for h in local.search("grey cat", scope=ANA, K=2, merge=merge)]
    asked = datetime(2023, 5, 10, 9, tzinfo=timezone.utc)  # a datetime travels as ISO text and comes back the same
    r_ev = remote.evidence("What did Ana do two days ago?", scope=ANA, asked_at=asked)
    assert r_ev.text == local.evidence("What did Ana do two days ago?", scope=ANA, asked_at=asked).text


@pytest.mark.parametrize("record_id", [".", ".."])
def test_dot_ids_are_not_found_rather_than_routed_elsewhere(remote, local, record_id):
    remote.add("I keep bees.", scope=ANA)
    for m in (local, remote):
        for call in (m.get, m.delete, m.history, lambda i, scope: m.update(i, "x", scope=scope)):
            with pytest.raises(RecordNotFoundError):
                call(record_id, scope=ANA)
    assert [r.fact for r in remote.get_all(scope=ANA)] == ["I keep bees."]


def test_a_wrong_key_and_an_unreachable_server_are_typed(client):
    with pytest.raises(RemoteAuthError):
        RemoteMemory("http://testserver", api_key="wrong-key-0123456789", http_client=client).get_all(scope=ANA)
    with RemoteMemory("http://127.0.0.1:9", timeout_s=2) as dead, pytest.raises(RemoteServerError):
        dead.health()


def test_replies_that_are_not_memdesk_errors():
    assert isinstance(error_from_reply(500, "Internal Server Error"), RemoteServerError)
    assert isinstance(error_from_reply(400, {"error": {"type": "SomethingElse", "message": "m"}}), RemoteServerError)
    err = error_from_reply(409, {"error": {"type": "EmbeddingMismatchError", "message": "store was embedded with x"}})
    assert type(err).__name__ == "EmbeddingMismatchError" and str(err) == "store was embedded with x"


def test_close_leaves_a_client_passed_in_open(client):
    RemoteMemory("http://testserver", api_key=KEY, http_client=client).close()
    assert client.get("/healthz").status_code == 200


def test_openapi_marks_every_serialized_record_field_required(client):
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    for name in ("EpisodicRecord", "SemanticRecord", "ProceduralRecord"):
        required = set(schemas.get(name, schemas.get(f"{name}-Output", {})).get("required", []))
        assert {"id", "type", "scope", "ingest_time", "provenance"} <= required, name
