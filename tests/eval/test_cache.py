from __future__ import annotations

import numpy as np

from memdesk.embed import HashingEmbedder
from memdesk.eval.cache import CachingEmbedder


class Counting(HashingEmbedder):
    def __init__(self):
        super().__init__(32)
        self.seen: list[str] = []

    def embed(self, texts):
        self.seen.extend(texts)
        return super().embed(texts)


def test_each_distinct_text_is_embedded_once_and_persisted(tmp_path):
    inner = Counting()
    path = tmp_path / "cache.sqlite"
    cache = CachingEmbedder(inner, path)
    a = cache.embed(["alpha", "beta", "alpha"])
    assert inner.seen == ["alpha", "beta"]
    np.testing.assert_allclose(a, HashingEmbedder(32).embed(["alpha", "beta", "alpha"]), rtol=1e-6)
    cache.embed(["beta", "gamma"])
    assert inner.seen == ["alpha", "beta", "gamma"]
    assert cache.stats()["hits"] == 2 and cache.stats()["misses"] == 3
    assert cache.model_id == inner.model_id and cache.dim == 32
    cache.close()

    inner2 = Counting()
    again = CachingEmbedder(inner2, path)
    b = again.embed(["gamma", "alpha"])
    assert inner2.seen == [] and len(again) == 3
    np.testing.assert_allclose(b[1], a[0])
    assert again.embed([]).shape == (0, 32)
    again.close()


def test_cache_keys_include_the_model(tmp_path):
    path = tmp_path / "c.sqlite"
    CachingEmbedder(HashingEmbedder(32), path).embed(["same text"])
    other = Counting()
    other.model_id = "another-model"
    CachingEmbedder(other, path).embed(["same text"])
    assert other.seen == ["same text"]
