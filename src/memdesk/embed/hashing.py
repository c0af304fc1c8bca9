"""A deterministic feature-hashing embedder: no model, no network; for tests and fakes.

Texts that share words share dimensions, so cosine similarity tracks word overlap. The hash is
blake2b, stable across processes and Python versions (unlike the built-in ``hash()``).
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from ..errors import ConfigError
from .base import BaseEmbedder

_WORD = re.compile(r"\w+", re.UNICODE)


class HashingEmbedder(BaseEmbedder):
    """Signed feature hashing of lower-cased word unigrams and bigrams, L2-normalized.

    Args:
        dim: vector dimension (>= 2).
        bigram_weight: weight of a bigram feature relative to a unigram (0 disables bigrams).
    """

    def __init__(self, dim: int = 256, *, bigram_weight: float = 0.5) -> None:
        if dim < 2:
            raise ConfigError("HashingEmbedder dim must be >= 2")
        if bigram_weight < 0:
            raise ConfigError("bigram_weight must be >= 0")
        self.dim = dim
        self.bigram_weight = bigram_weight
        self.model_id = f"hashing-{dim}" if bigram_weight == 0.5 else f"hashing-{dim}-b{bigram_weight:g}"

    def features(self, text: str) -> list[tuple[str, float]]:
        """The weighted features of ``text``: unigrams, then bigrams joined by a space."""
        words = [w.lower() for w in _WORD.findall(text)]
        feats = [(w, 1.0) for w in words]
        if self.bigram_weight > 0:
            feats.extend((f"{a} {b}", self.bigram_weight) for a, b in zip(words, words[1:]))
        return feats

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in self.features(text):
                index, sign = self._slot(feature)
                out[row, index] += sign * weight
        return out

    def _slot(self, feature: str) -> tuple[int, float]:
        digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
        value = int.from_bytes(digest, "little")
        return (value >> 1) % self.dim, (1.0 if value & 1 else -1.0)
