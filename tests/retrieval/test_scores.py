"""``score`` is a calibrated relevance in [0, 1] that never rises down the list, on every read path and
through Python and HTTP (docs/scores.md); the raw ranking value stays in ``why``."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import HashingEmbedder
from memdesk.records import Message, Scope
from memdesk.retrieval.relevance import COSINE, FUSED, RelevanceMap, calibrate
from memdesk.retrieval.retrieve import Retriever
from memdesk.store import open_store

WORDS = "ana lives lisbon cat miso works nurse clinic runs tuesday sister visits likes tea coffee moved porto garden".split()
texts = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join), min_size=1, max_size=25)
queries = st.lists(st.sampled_from(WORDS + ["where", "what", "my", "i"]), min_size=1, max_size=6).map(" ".join)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def memory(path, retriever) -> Memory:
    store = open_store(f"sqlite:///{path}")
    return Memory(store, HashingEmbedder(256), RawTurnProcessor(), retriever=retriever(store))


def fill(mem: Memory, lines: list[str]) -> Scope:
    scope = Scope(user_id=f"u{uuid.uuid4().hex[:8]}")
    roles = ("user", "assistant")
    mem.add([Message(content=t, role=roles[i % 3 == 2]) for i, t in enumerate(lines)], scope=scope)
    return scope


def assert_calibrated(scores: list[float]) -> None:
    assert all(0.0 <= s <= 1.0 for s in scores), scores
    assert all(a >= b for a, b in zip(scores, scores[1:])), scores


READ_PATHS = {
    "fused": lambda st_: Retriever.fused(st_),
    "engram": lambda st_: Retriever(st_),
    "engram-rrf": lambda st_: Retriever(st_, hybrid=True),
    "engram-round-robin": lambda st_: Retriever(st_, merge="round_robin"),
}


@pytest.mark.parametrize("path", sorted(READ_PATHS))
def test_python_scores_are_in_0_1_and_never_rise(tmp_path, path):
    mem = memory(tmp_path / "m.db", READ_PATHS[path])

    @SETTINGS
    @given(lines=texts, query=queries)
    def check(lines, query):
        scope = fill(mem, lines)
        hits = mem.search(query, scope=scope)
        assert hits
        assert_calibrated([h.score for h in hits])

    try:
        check()
    finally:
        mem.close()


def test_http_scores_are_in_0_1_and_never_rise(tmp_path):
    pytest.importorskip("fastapi")
    from fastapi.testclient import TestClient

    from memdesk.server import ApiKeys, create_app

    key = "scores-key-0123456789abcdef"
    mem = memory(tmp_path / "h.db", READ_PATHS["fused"])
    with TestClient(create_app(mem, api_keys=ApiKeys([key]))) as client:

        @SETTINGS
        @given(lines=texts, query=queries)
        def check(lines, query):
            scope = fill(mem, lines)
            r = client.post("/v1/memories/search", json={"user_id": scope.user_id, "query": query},
                            headers={"Authorization": f"Bearer {key}"})
            assert r.status_code == 200, r.text
            assert_calibrated([h["score"] for h in r.json()])

        check()
    mem.close()


def test_the_raw_value_stays_in_why_and_the_cosine_in_cosine(tmp_path):
    mem = memory(tmp_path / "w.db", READ_PATHS["fused"])
    scope = fill(mem, ["ana lives in lisbon", "ana has a cat called miso", "ana likes tea"])
    hits = mem.search("where does ana live", scope=scope)
    assert all(" z " in h.why and h.cosine is not None and -1 <= h.cosine <= 1 for h in hits)
    raw = Memory(mem.store, mem.embedder, RawTurnProcessor(), retriever=Retriever.fused(mem.store, calibrated=False))
    raws = raw.search("where does ana live", scope=scope)
    assert [h.id for h in raws] == [h.id for h in hits]  # calibrating changes no order
    assert [h.score for h in hits] == pytest.approx([FUSED(r.score, len(raws)) for r in raws])
    mem.close()


def test_a_map_rises_with_the_raw_value_and_falls_with_the_scope_size():
    m = RelevanceMap(slope=1.0, intercept=-2.0, size_slope=-0.5)
    assert m(3.0) > m(2.0) > m(-50.0) >= 0.0 and m(500.0) <= 1.0
    assert m(2.0, records=10) < m(2.0, records=1)
    assert m(2.0) == pytest.approx(0.5)
    with pytest.raises(ValueError):
        RelevanceMap(slope=0.0, intercept=0.0)


def test_calibrate_makes_an_out_of_order_list_non_increasing():
    from memdesk.records import MemoryType, SemanticRecord
    from memdesk.hits import SearchHit

    def hit(cos):
        rec = SemanticRecord(fact=f"fact {cos}", scope=Scope(user_id="u"), provenance=["m"])
        return SearchHit(record=rec, score=cos, cosine=cos, memory_type=MemoryType.SEMANTIC, rank=0, why="")

    out = calibrate([hit(0.4), hit(0.9), hit(0.2)], COSINE, 1)  # round robin can order hits so
    assert [h.score for h in out] == [COSINE(0.4), COSINE(0.4), COSINE(0.2)]
    assert [h.score for h in calibrate([hit(0.4)], None, 1)] == [0.4]
