"""Per-type score calibration: moments of a store's vectors give every record's cosine mean and spread."""

import numpy as np
import pytest

from memdesk.retrieval.calibration import TypeMoments


def test_cosine_stats_match_scoring_every_vector():
    rng = np.random.default_rng(0)
    v = rng.normal(size=(50, 8))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    q = v[3] + 0.1
    m = TypeMoments(v, min_std=0.0)
    mean, std = m.cosine_stats(q)
    assert mean == pytest.approx(float((v @ q).mean()))
    assert std == pytest.approx(float((v @ q).std()))
    assert m.zscore(q, v[:2] @ q) == pytest.approx(((v[:2] @ q) - mean) / std)


def test_hand_computed_two_vectors():
    # vectors e1 and e2, query e1: cosines 1 and 0 -> mean 0.5, std 0.5; a score of 1 is z = 1
    m = TypeMoments(np.eye(2))
    assert m.cosine_stats(np.array([1.0, 0.0])) == pytest.approx((0.5, 0.5))
    assert m.zscore(np.array([1.0, 0.0]), np.array([1.0, 0.0])) == pytest.approx([1.0, -1.0])


def test_pooled_equals_moments_of_the_union():
    a, b = np.eye(3)[:1], np.eye(3)[1:]
    pooled = TypeMoments.pooled([TypeMoments(a), TypeMoments(b)])
    whole = TypeMoments(np.eye(3))
    assert pooled.n == 3
    assert np.allclose(pooled.mean, whole.mean) and np.allclose(pooled.second, whole.second)


def test_empty_and_constant_sets_use_the_floor():
    empty = TypeMoments(np.zeros((0, 4)))
    assert empty.n == 0 and np.allclose(empty.mean, 0)
    same = TypeMoments(np.tile([1.0, 0.0], (3, 1)), min_std=0.1)
    assert same.cosine_stats(np.array([1.0, 0.0])) == pytest.approx((1.0, 0.1))
    assert same.zscore(np.array([1.0, 0.0]), np.array([1.05])) == pytest.approx([0.5])


def test_a_small_type_is_calibrated_mostly_by_the_scope():
    rng = np.random.default_rng(0)
    big = rng.normal(size=(200, 4))
    small = rng.normal(size=(2, 4)) + 3.0
    own, pooled = TypeMoments(small), TypeMoments.pooled([TypeMoments(big), TypeMoments(small)])
    shrunk = own.shrunk(pooled, prior=20)
    w = 2 / 22  # two records against twenty pseudo-records of the scope
    assert np.allclose(shrunk.mean, w * own.mean + (1 - w) * pooled.mean)
    assert np.allclose(shrunk.second, w * own.second + (1 - w) * pooled.second)
    assert own.shrunk(pooled, prior=0) is own
