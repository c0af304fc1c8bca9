"""Reasoning banks over HTTP (FastAPI's client) and through RemoteMemory against a live server: list, add verified
examples, retrieve with scores, solve with a (fake) chat model, delete; tenant keys reach their own banks only; a
forgotten tenant's banks are gone. The packaged MiniLM embeds the problems."""

from __future__ import annotations

import inspect

import pytest
from fastapi.testclient import TestClient

from memdesk import RemoteMemory, errors
from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import MiniLMEmbedder
from memdesk.llm import ScriptedChatModel
from memdesk.reasoning import ReasoningBanks
from memdesk.records import Scope
from memdesk.server import ApiKeys, create_app
from memdesk.store import open_store
from memdesk.tenants import Tenant

from tests.server.conftest import LiveServer
from tests.trust.conftest import KeyTable

ADMIN = "admin-key-0123456789abcdef"
PEN = {"problem": "A pen costs $2. How much do 3 pens cost?", "answer": "6", "solution": "Each pen is $2, so 3 * 2 = 6. \\boxed{6}"}
TRAIN = {
    "problem": "A train travels 60 km in one hour. How far does it go in 3 hours?",
    "answer": "180", "solution": "Distance = speed * time = 60 * 3 = 180 km. \\boxed{180}",
}
CAKE = {
    "problem": "A cake is cut into 8 slices and 3 are eaten. What fraction is left?",
    "answer": "\\frac{5}{8}", "solution": "8 - 3 = 5 slices remain, so 5/8 is left. \\boxed{\\frac{5}{8}}",
}
TAGS = {
    "knowledge_domains": ["arithmetic"], "solution_strategies": ["unit rate"], "problem_type": "arithmetic word problem",
    "problem_context": "shopping", "complexity": {"difficulty": "easy", "steps": 2, "computation": "light"},
}
PENCILS = "A pencil costs $1. How much do 5 pencils cost?"


@pytest.fixture(scope="module")
def embedder():
    return MiniLMEmbedder()


@pytest.fixture
def served(tmp_path, embedder):
    memory = Memory(open_store(f"sqlite:///{tmp_path / 'm.db'}"), embedder, RawTurnProcessor())
    keys = KeyTable()
    chat = ScriptedChatModel(lambda messages: "5 * 1 = 5, so \\boxed{5}", model_id="fake-solver")
    app = create_app(memory, api_keys=ApiKeys([ADMIN], tenant_keys=keys), mcp=False, banks=ReasoningBanks(memory.store, embedder, chat=chat))
    yield app, keys, memory, chat
    memory.close()


def client(app, key: str) -> TestClient:
    return TestClient(app, headers={"Authorization": f"Bearer {key}"})


def error(r) -> str:
    return r.json()["error"]["type"]


def test_a_tenant_grows_retrieves_solves_and_deletes_its_bank(served):
    app, keys, memory, chat = served
    with client(app, keys.create(Tenant(user_id="ana"))) as ana:
        r = ana.post("/v1/banks/arith/examples", json={"examples": [PEN, TRAIN, CAKE]})
        assert r.status_code == 201, r.text
        assert r.json() | {"ids": None} == {"bank": "arith", "ids": None, "added": 3, "already_there": 0, "entries": 3, "created": True}
        again = ana.post("/v1/banks/arith/examples", json={"examples": [PEN]}).json()
        assert (again["added"], again["already_there"], again["created"]) == (0, 1, False)

        (info,) = ana.get("/v1/banks").json()
        assert info["name"] == "arith" and info["user_id"] == "ana" and info["entries"] == 3
        assert info["answer_kind"] == "math" and info["embedding_kind"] == "problem"
        assert info["embedding_model"] == memory.embedder.model_id

        got = ana.post("/v1/banks/arith/retrieve", json={"problem": PENCILS, "k": 2, "format": "short"}).json()
        assert [e["problem"] for e in got["examples"]][0] == PEN["problem"]
        scores = [e["score"] for e in got["examples"]]
        assert len(scores) == 2 and scores == sorted(scores, reverse=True)
        first = got["examples"][0]
        assert first["verified"] and first["trace_source"] == "submitted" and "matched '6'" in first["verification"]
        assert first["format"] == "short" and "\\boxed{6}" in first["content"]
        assert got["memory_block"].index(PEN["problem"]) < got["memory_block"].index("Example 2")

        solved = ana.post("/v1/banks/arith/solve", json={"problem": PENCILS, "k": 1, "method": "cod", "gold": "5"}).json()
        assert (solved["answer"], solved["correct"], solved["method"], solved["model"]) == ("5", True, "cod", "fake-solver")
        assert PEN["problem"] in chat.last_call.user and chat.last_call.user.endswith(f"Question: {PENCILS}")  # the example first
        assert "5 words at most" in chat.last_call.system  # Chain-of-Draft's instruction

        wrong = {**TRAIN, "problem": "Another train problem?", "answer": "200"}
        r = ana.post("/v1/banks/arith/examples", json={"examples": [wrong]})
        assert r.status_code == 422 and error(r) == "InvalidInputError" and "do not reach their answer" in r.text
        assert ana.get("/v1/banks").json()[0]["entries"] == 3  # nothing added

        pen_id = got["examples"][0]["id"]
        assert ana.delete(f"/v1/banks/arith/examples/{pen_id}").json() == {"deleted": 1}
        r = ana.delete(f"/v1/banks/arith/examples/{pen_id}")
        assert r.status_code == 404 and error(r) == "RecordNotFoundError"
        assert ana.delete("/v1/banks/arith").json() == {"deleted": 2}
        assert ana.get("/v1/banks").json() == []
        r = ana.post("/v1/banks/arith/retrieve", json={"problem": PENCILS})
        assert r.status_code == 404 and error(r) == "UnknownBankError"


def test_a_tenant_never_reaches_another_tenants_bank(served):
    app, keys, _memory, _chat = served
    with client(app, keys.create(Tenant(user_id="ana"))) as ana, client(app, keys.create(Tenant(user_id="bob"))) as bob:
        assert ana.post("/v1/banks/arith/examples", json={"examples": [PEN, TRAIN]}).status_code == 201
        assert bob.get("/v1/banks").json() == []
        for body in ({"problem": PENCILS}, {"problem": PENCILS, "user_id": "ana"}):  # its own scope, or ana's named
            for route in ("retrieve", "solve"):
                r = bob.post(f"/v1/banks/arith/{route}", json=body)
                assert r.status_code == 404 and error(r) == "UnknownBankError", r.text
                assert PEN["problem"] not in r.text
        r = bob.get("/v1/banks", params={"user_id": "ana"})
        assert r.status_code == 404 and error(r) == "UnknownScopeError"
        for method, path, kw in (
            ("POST", "/v1/banks/arith/examples", {"json": {"user_id": "ana", "examples": [CAKE]}}),
            ("DELETE", "/v1/banks/arith", {"params": {"user_id": "ana"}}),
            ("DELETE", "/v1/banks/arith/examples/x", {"params": {"user_id": "ana"}}),
        ):
            r = bob.request(method, path, **kw)
            assert r.status_code == 403 and error(r) == "ForbiddenScopeError", (path, r.text)
        r = bob.delete("/v1/banks/arith")  # its own scope: it has no such bank
        assert r.status_code == 404 and error(r) == "UnknownBankError"
        # bob's bank of the same name is another bank
        assert bob.post("/v1/banks/arith/examples", json={"examples": [CAKE]}).json()["created"] is True
        assert ana.get("/v1/banks").json()[0]["entries"] == 2
    with client(app, ADMIN) as admin:  # an admin names the owner, and reaches both
        assert [b["entries"] for b in admin.get("/v1/banks", params={"user_id": "ana"}).json()] == [2]
        r = admin.get("/v1/banks")
        assert r.status_code == 422 and error(r) == "InvalidScopeError"
        r = admin.post("/v1/banks/arith/examples", json={"user_id": "ana", "run_id": "r1", "examples": [CAKE]})
        assert r.status_code == 422  # a bank belongs to no run


def test_an_agent_bound_key_has_its_own_banks(served):
    app, keys, _memory, _chat = served
    with client(app, keys.create(Tenant(user_id="ana", agent_id="tutor"))) as tutor, client(app, keys.create(Tenant(user_id="ana"))) as ana:
        assert tutor.post("/v1/banks/arith/examples", json={"examples": [PEN]}).status_code == 201
        assert [(b["name"], b["agent_id"]) for b in ana.get("/v1/banks").json()] == [("arith", "tutor")]  # ana sees her agent's
        r = ana.post("/v1/banks/arith/retrieve", json={"problem": PENCILS})  # her own bank of that name: none
        assert r.status_code == 404 and error(r) == "UnknownBankError"
        assert ana.post("/v1/banks/arith/retrieve", json={"problem": PENCILS, "agent_id": "tutor"}).status_code == 200
        r = tutor.post("/v1/banks/arith/retrieve", json={"problem": PENCILS, "agent_id": "other"})
        assert r.status_code == 404 and error(r) == "UnknownBankError"


def test_a_tag_embedded_bank_takes_tags(served):
    app, keys, _memory, _chat = served
    with client(app, keys.create(Tenant(user_id="ana"))) as ana:
        assert ana.post("/v1/banks/tagged/examples", json={"examples": [PEN | {"tags": TAGS}]}).status_code == 201
        assert ana.get("/v1/banks").json()[0]["embedding_kind"] == "tags"
        got = ana.post("/v1/banks/tagged/retrieve", json={"problem": PENCILS, "tags": TAGS}).json()
        assert got["examples"][0]["tags"] == TAGS and got["query_text"].startswith("Knowledge domains: arithmetic")
        r = ana.post("/v1/banks/tagged/examples", json={"examples": [TRAIN]})  # no tags: the model's are not JSON
        assert r.status_code == 502 and error(r) == "LLMOutputError"
        r = ana.post("/v1/banks/tagged/examples", json={"examples": [TRAIN, CAKE | {"tags": TAGS}]})
        assert r.status_code == 422 and "tags with every example" in r.text
        assert ana.get("/v1/banks").json()[0]["entries"] == 1


def test_solving_without_a_chat_model_is_501_and_forget_erases_the_banks(tmp_path, embedder):
    memory = Memory(open_store(f"sqlite:///{tmp_path / 'm.db'}"), embedder, RawTurnProcessor())
    keys = KeyTable()
    try:
        with client(create_app(memory, api_keys=ApiKeys([ADMIN], tenant_keys=keys), mcp=False), keys.create(Tenant(user_id="ana"))) as ana:
            assert ana.post("/v1/banks/arith/examples", json={"examples": [PEN]}).status_code == 201
            r = ana.post("/v1/banks/arith/solve", json={"problem": PENCILS})
            assert r.status_code == 501 and error(r) == "NoChatModelError"
            gone = ana.delete("/v1/memories", params={"wildcard": "true"}).json()
            assert gone["banks"] == 1 and ana.get("/v1/banks").json() == []
    finally:
        memory.close()


def test_remote_memory_has_the_bank_methods_of_reasoning_banks(served):
    app, keys, _memory, _chat = served
    for name in ("list_banks", "add_examples", "retrieve_examples", "solve", "delete_example", "delete_bank"):
        assert inspect.signature(getattr(RemoteMemory, name)).parameters.keys() == inspect.signature(getattr(ReasoningBanks, name)).parameters.keys(), name
    ana, bob = Scope(user_id="ana"), Scope(user_id="bob")
    with LiveServer(app) as server, RemoteMemory(server.url, api_key=keys.create(Tenant(user_id="ana"))) as remote:
        added = remote.add_examples("arith", [PEN, TRAIN], scope=ana)
        assert added.added == 2 and added.created
        assert [b.name for b in remote.list_banks(scope=ana)] == ["arith"]
        got = remote.retrieve_examples("arith", PENCILS, scope=ana, k=1, format="summary")
        assert got.examples[0].problem == PEN["problem"] and got.examples[0].format.value == "summary"
        assert remote.solve("arith", PENCILS, scope=ana, gold="5").correct is True
        with pytest.raises(errors.UnknownBankError):
            remote.retrieve_examples("arith", PENCILS, scope=bob)
        with pytest.raises(errors.ForbiddenScopeError):
            remote.add_examples("arith", [CAKE], scope=bob)
        with pytest.raises(errors.InvalidScopeError):
            remote.list_banks(scope={"user_id": "ana", "run_id": "r1"})
        with pytest.raises(errors.InvalidInputError):
            remote.add_examples("arith", [{**CAKE, "answer": "1/2"}], scope=ana)
        remote.delete_example("arith", got.examples[0].id, scope=ana)
        with pytest.raises(errors.RecordNotFoundError):
            remote.delete_example("arith", got.examples[0].id, scope=ana)
        assert remote.delete_bank("arith", scope=ana) == 1
        assert remote.list_banks(scope=ana) == []
