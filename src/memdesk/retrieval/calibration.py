"""Per-store score calibration: a hit's score as a z-score within its own memory type.

ENGRAM keeps episodic, semantic and procedural records in separate stores so that they do not compete
in one ranking; merging the per-type lists by raw cosine brings that competition back, because the
types' cosine distributions differ (short facts, long event summaries and instructions do not sit at
the same distance from a question). :class:`TypeMoments` keeps the first two moments of one type's
unit vectors under a scope (mean vector ``m`` and second-moment matrix ``S = E[x x^T]``), which give
the mean and variance of the cosine of *every* record of that type with a query ``q`` without
scoring them: ``mean = q.m`` and ``var = q^T S q - (q.m)^2``. A candidate's calibrated score is
``(score - mean) / std``: how far above its own store's typical record it stands. The spread is
floored (``min_std``) so that a store of a few near-identical records does not blow small differences
up into large z-scores.
"""

from __future__ import annotations

import numpy as np

__all__ = ["TypeMoments"]


class TypeMoments:
    """Mean and second moment of a set of vectors (one memory type under one scope).

    Args:
        vectors: (n, dim) float vectors; n may be 0 (then nothing is calibrated).
        min_std: the smallest spread used to standardize (cosine units).
    """

    def __init__(self, vectors: np.ndarray, min_std: float = 0.05) -> None:
        self.min_std = min_std
        v = np.asarray(vectors, dtype=np.float64)
        self.n = int(v.shape[0])
        dim = v.shape[1] if v.ndim == 2 else 0
        self.mean = v.mean(axis=0) if self.n else np.zeros(dim)
        self.second = (v.T @ v) / self.n if self.n else np.zeros((dim, dim))

    def extended(self, vectors: np.ndarray) -> "TypeMoments":
        """The moments of these vectors and ``vectors`` together (``self`` is unchanged)."""
        v = np.asarray(vectors, dtype=np.float64)
        if not v.shape[0]:
            return self
        if not self.n:
            return TypeMoments(v, self.min_std)
        out = TypeMoments.__new__(TypeMoments)
        out.min_std, out.n = self.min_std, self.n + int(v.shape[0])
        out.mean = (self.mean * self.n + v.sum(axis=0)) / out.n
        out.second = (self.second * self.n + v.T @ v) / out.n
        return out

    @classmethod
    def pooled(cls, parts: list["TypeMoments"]) -> "TypeMoments":
        """The moments of the union of the parts' vectors (as if they were one store)."""
        out = cls.__new__(cls)
        out.min_std = min((p.min_std for p in parts), default=0.05)
        out.n = sum(p.n for p in parts)
        dim = parts[0].mean.shape[0] if parts else 0
        if out.n == 0:
            out.mean, out.second = np.zeros(dim), np.zeros((dim, dim))
            return out
        out.mean = sum(p.mean * p.n for p in parts) / out.n
        out.second = sum(p.second * p.n for p in parts) / out.n
        return out

    def shrunk(self, toward: "TypeMoments", prior: float) -> "TypeMoments":
        """These moments pulled toward ``toward``'s as if ``prior`` of its records were added: a type
        with a handful of records is standardized mostly by the whole scope's distribution (its own
        spread says nothing yet), a type with many by its own."""
        if prior <= 0 or toward.n == 0:
            return self
        out = TypeMoments.__new__(TypeMoments)
        out.min_std, out.n = self.min_std, self.n
        w = self.n / (self.n + prior)
        out.mean = w * self.mean + (1 - w) * toward.mean
        out.second = w * self.second + (1 - w) * toward.second
        return out

    def cosine_stats(self, query: np.ndarray) -> tuple[float, float]:
        """(mean, standard deviation floored at ``min_std``) of ``query``'s dot product with the vectors."""
        q = np.asarray(query, dtype=np.float64)
        mean = float(q @ self.mean)
        var = float(q @ self.second @ q) - mean * mean
        return mean, max(float(np.sqrt(max(var, 0.0))), self.min_std)

    def zscore(self, query: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """``scores`` (cosine-like, for this type's records) standardized by the type's cosine distribution."""
        mean, std = self.cosine_stats(query)
        return (np.asarray(scores, dtype=np.float64) - mean) / std
