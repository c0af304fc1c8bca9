"""VectorIndex and IndexCache against a brute-force model of the same operations."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.store.codec import encode_vector
from memdesk.store.index_cache import IndexCache
from memdesk.store.vector_index import (
    IndexBuilder,
    VectorIndex,
    merge_hits,
    top_candidates,
    top_indices,
)

DIM = 6


def unit(seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return x / np.linalg.norm(x)


ops = st.lists(
    st.tuples(st.sampled_from(["upsert", "remove"]), st.integers(0, 30), st.integers(0, 10_000), st.sampled_from([None, "A", "B"])),
    max_size=120,
)


@settings(max_examples=80, deadline=None)
@given(ops=ops, query_seed=st.integers(0, 10_000), k=st.integers(0, 40), speaker=st.sampled_from([None, "A", "B", "C"]))
def test_index_matches_brute_force_after_any_sequence_of_changes(ops, query_seed: int, k: int, speaker) -> None:
    index = VectorIndex(DIM, capacity=2)  # small capacity: exercise growth
    model: dict[str, tuple[np.ndarray, str, str | None]] = {}
    for op, key, seed, spk in ops:
        item = f"id{key}"
        if op == "upsert":
            index.upsert(item, unit(seed), f"payload {seed}", spk)
            model[item] = (unit(seed), f"payload {seed}", spk)
        else:
            assert index.remove(item) == (item in model)
            model.pop(item, None)
    assert len(index) == len(model)
    q = unit(query_seed)
    candidates = [(i, v, p) for i, (v, p, s) in model.items() if speaker is None or s == speaker]
    want = sorted(((i, p, float(v @ q)) for i, v, p in candidates), key=lambda t: (-t[2], t[0]))[:k]
    got = merge_hits(index.top_k(q, k, speaker), k)
    assert len(got) == len(want)
    np.testing.assert_allclose([h.score for h in got], [s for *_, s in want], atol=1e-6)
    assert len({h.id for h in got}) == len(got)
    for h in got:  # every hit is a real, current row of the right speaker with its true score
        vector, payload, spk = model[h.id]
        assert h.payload == payload and (speaker is None or spk == speaker)
        assert abs(h.score - float(vector @ q)) < 1e-6


def test_top_indices_orders_best_first() -> None:
    scores = np.array([0.1, 0.9, -0.5, 0.7, 0.3], np.float32)
    assert top_indices(scores, 3).tolist() == [1, 3, 4]
    assert top_indices(scores, 10).tolist() == [1, 3, 4, 0, 2]
    assert top_indices(scores, 0).tolist() == []


def test_a_tie_at_the_kth_score_is_broken_by_id() -> None:
    index = VectorIndex(DIM)
    same = unit(7)
    for item in ["e", "d", "c", "b", "a"]:  # inserted in reverse id order
        index.upsert(item, same, item)
    index.upsert("best", unit(8), "best")
    q = unit(8)
    assert [h.id for h in merge_hits(index.top_k(q, 3), 3)] == ["best", "a", "b"]
    assert [h.id for h in merge_hits(index.top_k(same, 2), 2)] == ["a", "b"]


def test_top_candidates_adds_rows_tied_with_the_kth() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.5, 0.1], np.float32)
    assert sorted(top_candidates(scores, 2).tolist()) == [0, 1, 2, 3]
    assert top_candidates(scores, 1).tolist() == [1]
    assert sorted(top_candidates(scores, 4).tolist()) == [0, 1, 2, 3]
    assert top_candidates(scores, 9).tolist() == top_indices(scores, 9).tolist()


def _index(rows: list[tuple[str, np.ndarray]], payload=str.upper) -> VectorIndex:
    builder = IndexBuilder(DIM, len(rows))
    for item, v in rows:
        builder.add(item, payload(item), None, encode_vector(v))
    return builder.build()


def test_cache_loads_lazily_once_by_key_and_unions_keys() -> None:
    rows = {
        ("u", "a"): [("x1", unit(1)), ("x2", unit(2))],
        ("u", "b"): [("y1", unit(3))],
        ("v", "a"): [("z1", unit(4))],
    }
    calls: list[tuple] = []

    def load(ns: str, keys):
        calls.append(tuple(sorted(keys)))
        return {key: _index(rows[key]) for key in keys if key in rows}

    cache: IndexCache[tuple[str, str]] = IndexCache(load)
    q = unit(2)
    hits = cache.search("semantic", [("u", "a"), ("u", "b")], q, 5)
    assert [h.id for h in hits][0] == "x2" and {h.id for h in hits} == {"x1", "x2", "y1"}
    assert calls == [(("u", "a"), ("u", "b"))] and hits[0].payload == "X2"
    cache.search("semantic", [("u", "a"), ("u", "b")], q, 5)
    assert len(calls) == 1  # warm: no loader calls
    cache.search("semantic", [("u", "a"), ("v", "a"), ("w", "none")], q, 5)
    assert calls[-1] == (("v", "a"), ("w", "none"))  # only the missing keys are loaded
    assert cache.search("semantic", [("w", "none")], q, 5) == [] and len(calls) == 2  # an empty scope is cached too
    # incremental updates reach loaded entries (an empty one included)
    cache.upsert("semantic", ("w", "none"), "n1", q, "N1")
    assert cache.search("semantic", [("w", "none")], q, 1)[0].id == "n1"
    cache.remove("semantic", ("u", "a"), "x2")
    assert "x2" not in {h.id for h in cache.search("semantic", list(rows), q, 10)}
    cache.forget(["semantic"], [("u", "b")])  # someone else changed it: read again on the next search
    assert {h.id for h in cache.search("semantic", [("u", "a"), ("u", "b")], q, 10)} == {"x1", "y1"}
    assert calls[-1] == (("u", "b"),)
    n_calls = len(calls)
    cache.clear()
    cache.search("semantic", list(rows), q, 10)
    assert len(calls) > n_calls  # reloaded after clear


def test_cache_unloads_least_recently_searched_scopes_past_max_rows() -> None:
    rows = {("u", str(i)): [(f"x{i}-{j}", unit(100 * i + j)) for j in range(4)] for i in range(5)}
    loads: list[tuple] = []

    def load(ns: str, keys):
        loads.append(tuple(keys))
        return {key: _index(rows[key], payload=str) for key in keys}

    cache: IndexCache[tuple[str, str]] = IndexCache(load, max_rows=10)  # 4 rows + 1 per index: two fit
    q = unit(3)
    for i in range(5):
        hits = cache.search("semantic", [("u", str(i))], q, 2)
        assert {h.id.split("-")[0] for h in hits} == {f"x{i}"}
        assert cache.cached_rows <= 10 and len(cache) <= 2
    assert cache.loaded("semantic", ("u", "0")) is None and cache.loaded("semantic", ("u", "4")) is not None
    # an unloaded scope is reloaded on its next search, with the same answer as before
    before = len(loads)
    again = cache.search("semantic", [("u", "0")], q, 4)
    assert len(loads) == before + 1 and sorted(h.id for h in again) == sorted(i for i, _ in rows[("u", "0")])
    # one search over more rows than the bound keeps what it needs
    everything = cache.search("semantic", list(rows), q, 20)
    assert len(everything) == 20
    assert cache.cached_rows == sum(len(index) + 1 for index in (cache.loaded("semantic", k) for k in rows) if index)


def test_store_reloads_an_unloaded_scope_with_its_latest_rows(tmp_path) -> None:
    from memdesk.records import MemoryType, Scope, SemanticRecord
    from memdesk.store import EmbeddingInfo, open_store

    store = open_store(f"sqlite:///{tmp_path / 'c.db'}", cache_max_rows=3)
    store.set_embedding_info(EmbeddingInfo(model_id="t", dim=DIM))
    scopes = [Scope(user_id=f"u{i}") for i in range(3)]
    for i, s in enumerate(scopes):
        store.write([SemanticRecord(scope=s, fact=f"f{i}-{j}") for j in range(2)], np.stack([unit(10 * i + j) for j in range(2)]))
    for s in scopes:
        assert len(store.search(unit(1), s, MemoryType.SEMANTIC, 5)) == 2
    extra = SemanticRecord(scope=scopes[0], fact="written while unloaded")
    store.write([extra], unit(99)[None, :])
    assert store.search(unit(99), scopes[0], MemoryType.SEMANTIC, 1)[0].record.id == extra.id
    store.close()
