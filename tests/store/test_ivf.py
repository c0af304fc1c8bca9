"""IVFIndex against brute force: exact when every cluster is probed, high recall on clustered data."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.errors import ConfigError, EmptyInputError, InvalidInputError, UsageError
from memdesk.store import IVFIndex
from memdesk.store.ivf import default_nlist, spherical_kmeans
from memdesk.store.vector_index import Hit


def brute_force(matrix: np.ndarray, ids: list[str], query: np.ndarray, k: int) -> list[tuple[str, float]]:
    """The exact top k by (score desc, id asc), scores in float64."""
    scores = matrix.astype(np.float64) @ query.astype(np.float64)
    order = sorted(range(len(ids)), key=lambda i: (-scores[i], ids[i]))[:k]
    return [(ids[i], float(scores[i])) for i in order]


def clustered(rng: np.random.Generator, centers: int, per: int, dim: int, noise: float) -> np.ndarray:
    c = rng.standard_normal((centers, dim))
    x = np.repeat(c, per, axis=0) + noise * rng.standard_normal((centers * per, dim))
    x = x[rng.permutation(len(x))]
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def make(matrix: np.ndarray, **kw) -> tuple[IVFIndex, list[str]]:
    ids = [f"id{i:04d}" for i in range(len(matrix))]
    return IVFIndex(ids, [f'{{"n": {i}}}' for i in range(len(matrix))], matrix, **kw), ids


# Small integer vectors: every dot product is an exact small integer in float32 whatever the
# summation order, and ties are common, so the id tie-break is exercised and checked exactly.
int_rows = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.just(n),
        st.integers(2, 6),
        st.integers(1, n + 5),
        st.integers(0, n + 3),
        st.integers(0, 2**16),
    )
)


@settings(max_examples=120, deadline=None)
@given(params=int_rows)
def test_probing_every_cluster_is_exact_search_ties_by_id(params) -> None:
    n, dim, nlist, k, seed = params
    rng = np.random.default_rng(seed)
    matrix = rng.integers(-2, 3, size=(n, dim)).astype(np.float32)
    query = rng.integers(-2, 3, size=dim).astype(np.float32)
    index, ids = make(matrix, nlist=nlist, seed=seed % 7)
    assert 1 <= index.nlist <= min(nlist, n) and sum(index.list_sizes) == n
    hits = index.search(query, k, nprobe=index.nlist)
    assert [(h.id, h.score) for h in hits] == brute_force(matrix, ids, query, k)
    assert all(isinstance(h, Hit) and h.payload == f'{{"n": {int(h.id[2:])}}}' for h in hits)
    assert index.search(query, k, nprobe=nlist + 100) == hits


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**16), nprobe=st.integers(1, 6), k=st.integers(1, 12))
def test_partial_probing_returns_true_scores_best_first(seed: int, nprobe: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    matrix = clustered(rng, 6, 15, 8, 0.3)
    index, ids = make(matrix, nlist=9, seed=seed)
    query = matrix[rng.integers(len(matrix))] + 0.1 * rng.standard_normal(8).astype(np.float32)
    hits = index.search(query, k, nprobe=nprobe)
    assert 1 <= len(hits) <= k
    assert len({h.id for h in hits}) == len(hits)
    exact = dict(brute_force(matrix, ids, query, len(ids)))
    for h in hits:
        assert h.score == pytest.approx(exact[h.id], abs=1e-5)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    # more probes never lose the best score found with fewer
    assert index.search(query, k, nprobe=nprobe + 1)[0].score >= hits[0].score - 1e-6


def test_recall_on_clustered_data_is_high_and_grows_with_nprobe() -> None:
    rng = np.random.default_rng(7)
    matrix = clustered(rng, 40, 50, 32, 0.6)  # 2,000 vectors in 40 loose clusters
    index, ids = make(matrix, seed=0)
    assert index.nlist == default_nlist(2000) == 45
    queries = clustered(rng, 40, 5, 32, 0.6)  # fresh points (other centers): a hard case
    queries = np.concatenate([queries, matrix[rng.choice(2000, 100, replace=False)] + 0.05 * rng.standard_normal((100, 32)).astype(np.float32)])
    k = 10
    exact = [{i for i, _ in brute_force(matrix, ids, q, k)} for q in queries]

    def recall(nprobe: int) -> float:
        return float(np.mean([len({h.id for h in index.search(q, k, nprobe)} & e) / k for q, e in zip(queries, exact)]))

    r1, r4, r12 = recall(1), recall(4), recall(12)
    assert r1 <= r4 <= r12
    assert r4 >= 0.85 and r12 >= 0.95
    assert recall(index.nlist) == 1.0


def test_same_seed_same_index_and_results() -> None:
    rng = np.random.default_rng(3)
    matrix = clustered(rng, 12, 30, 16, 0.5)
    a, _ = make(matrix, nlist=10, seed=5)
    b, _ = make(matrix, nlist=10, seed=5)
    assert a.list_sizes == b.list_sizes
    np.testing.assert_array_equal(a._centroids, b._centroids)
    for q in rng.standard_normal((20, 16)).astype(np.float32):
        assert a.search(q, 7, 3) == b.search(q, 7, 3)
    c1, l1 = spherical_kmeans(matrix, 10, seed=1)
    c2, l2 = spherical_kmeans(matrix, 10, seed=1)
    np.testing.assert_array_equal(c1, c2)
    np.testing.assert_array_equal(l1, l2)
    np.testing.assert_allclose(np.linalg.norm(c1, axis=1), 1.0, atol=1e-5)


def test_kmeans_reseeds_empty_clusters() -> None:
    # 30 copies of one vector and 3 others: most seeds coincide, so clusters go empty and are re-seeded
    v = np.zeros((33, 4), dtype=np.float32)
    v[:30, 0] = 1.0
    v[30, 1] = v[31, 2] = v[32, 3] = 1.0
    for seed in range(5):
        _, labels = spherical_kmeans(v, 4, seed=seed)
        assert sorted(np.bincount(labels, minlength=4).tolist()) == [1, 1, 1, 30]  # every distinct vector alone
    index, _ = make(v, nlist=8, seed=0)
    assert index.nlist <= 4 and sum(index.list_sizes) == 33
    assert [h.id for h in index.search(v[31], 1, 1)] == ["id0031"]


def test_small_collections() -> None:
    one, _ = make(np.array([[0.6, 0.8]], dtype=np.float32))
    assert one.nlist == 1 and len(one) == 1
    hits = one.search(np.array([1.0, 0.0]), 5)
    assert [(h.id, h.payload) for h in hits] == [("id0000", '{"n": 0}')] and hits[0].score == pytest.approx(0.6)
    assert one.search([1.0, 0.0], 0) == []
    m = clustered(np.random.default_rng(0), 3, 1, 5, 0.0)
    few, ids = make(m, nlist=10)  # more clusters than vectors: lowered to n
    assert few.nlist == 3 and few.list_sizes == [1, 1, 1]
    assert [h.id for h in few.search(m[2], 10, nprobe=1)] == ["id0002"]  # its own cluster is probed
    assert [(h.id, pytest.approx(h.score)) for h in few.search(m[1], 10, nprobe=3)] == brute_force(m, ids, m[1], 10)
    assert default_nlist(1) == 1 and default_nlist(2) == 1 and default_nlist(12_000) == 110


def test_invalid_arguments_raise_typed_errors() -> None:
    m = np.eye(4, dtype=np.float32)
    ids, payloads = ["a", "b", "c", "d"], ["{}"] * 4
    with pytest.raises(EmptyInputError):
        IVFIndex([], [], np.zeros((0, 4), dtype=np.float32))
    for bad in (0, -3, True, 2.5, "4"):
        with pytest.raises(ConfigError):
            IVFIndex(ids, payloads, m, nlist=bad)
    with pytest.raises(ConfigError):
        IVFIndex(ids, payloads, m, seed=-1)
    with pytest.raises(ConfigError):
        IVFIndex(ids, payloads, m, iterations=-1)
    with pytest.raises(InvalidInputError):
        IVFIndex(["a", "a", "c", "d"], payloads, m)  # duplicate ids
    with pytest.raises(InvalidInputError):
        IVFIndex(ids, payloads[:3], m)
    with pytest.raises(InvalidInputError):
        IVFIndex(ids, [1, 2, 3, 4], m)  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        IVFIndex(ids, payloads, m[:3])
    with pytest.raises(InvalidInputError):
        IVFIndex(ids, payloads, np.full((4, 4), np.nan, dtype=np.float32))
    index = IVFIndex(ids, payloads, m, nlist=2)
    with pytest.raises(InvalidInputError):
        index.search(np.ones(3), 1)  # wrong dimension
    with pytest.raises(InvalidInputError):
        index.search(np.ones(4), -1)
    with pytest.raises(InvalidInputError):
        index.search(np.array([np.inf, 0, 0, 0]), 1)
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ConfigError):
            index.search(np.ones(4), 1, nprobe=bad)
    assert issubclass(ConfigError, UsageError) and issubclass(InvalidInputError, UsageError)
