"""An approximate (inverted-file, IVF) cosine index over a fixed set of unit vectors.

Exact search (:mod:`.vector_index`) reads every vector for every query: 11,998 x 384 float32 is
18 MB, about 0.4-0.7 ms per query here, memory bound. :class:`IVFIndex` reads a fraction of it:
spherical k-means splits the vectors into ``nlist`` clusters, stored contiguously cluster by
cluster; a query scores the ``nlist`` centroids, then only the vectors of the ``nprobe`` clusters
whose centroids are nearest (one small matrix-vector product per cluster), and returns the top
``k`` of those. Scores are the exact dot products of the probed vectors, so every returned score
is the true cosine; what is approximate is *which* vectors are candidates: a true neighbour in a
cluster that was not probed is missed.

Recall (the fraction of the exact top-k found) grows with ``nprobe / nlist`` and with how
clustered the data are. On the MATH bank (11,998 MiniLM problem embeddings) with ``nlist`` about
sqrt(n) = 110, probing 8 clusters (8% of the vectors) found 96% of the exact top-5 in about
0.1 ms per query against 0.7-0.8 ms exact; see ``bench/results/reasoning/search_ivf.md``. ``nprobe >= nlist`` probes everything and
returns exactly the exact search result.

When to use it: a large, rarely changing collection (a reasoning bank) searched one query at a
time where per-query latency matters, and a recall slightly below 1 is acceptable. Do not use it
for small collections (exact search is already fast below a few thousand vectors), for data that
change between searches (the index is a snapshot: rebuild it after writes), or to judge recall on
random vectors (they do not cluster; measure on real embeddings). The index is immutable after
construction and safe to search from several threads.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError, EmptyInputError, InvalidInputError
from .codec import check_ids, check_k, check_matrix, check_unique, check_vector
from .vector_index import Hit, merge_hits

log = logging.getLogger(__name__)

DEFAULT_ITERATIONS = 20
"""Spherical k-means rounds at most (it stops earlier once no vector changes cluster)."""

_ASSIGN_BLOCK = 32_768
"""Rows per block when assigning vectors to centroids (bounds the n x nlist score matrix)."""


def default_nlist(n: int) -> int:
    """About sqrt(n) clusters, at least 1 and at most ``n``: the usual balance of centroid and list work."""
    return max(1, min(n, round(math.sqrt(n))))


def _check_count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ConfigError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _normalized(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(rows scaled to unit norm, a mask of the rows that had a non-zero norm; zero rows stay zero)."""
    norms = np.linalg.norm(rows, axis=1)
    ok = norms > 0
    out = np.zeros_like(rows, dtype=np.float32)
    out[ok] = rows[ok] / norms[ok, None]
    return out, ok


def _assign(matrix: np.ndarray, centroids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(nearest centroid of every row by dot product, lowest index on ties; that dot product)."""
    n = matrix.shape[0]
    labels = np.empty(n, dtype=np.intp)
    best = np.empty(n, dtype=np.float32)
    for start in range(0, n, _ASSIGN_BLOCK):
        sims = matrix[start : start + _ASSIGN_BLOCK] @ centroids.T
        labels[start : start + sims.shape[0]] = np.argmax(sims, axis=1)
        best[start : start + sims.shape[0]] = sims[np.arange(sims.shape[0]), labels[start : start + sims.shape[0]]]
    return labels, best


def spherical_kmeans(
    matrix: np.ndarray, nlist: int, *, seed: int = 0, iterations: int = DEFAULT_ITERATIONS
) -> tuple[np.ndarray, np.ndarray]:
    """(unit centroids ``(nlist, d)``, cluster of every row) of spherical k-means, deterministic for a seed.

    Centroids start at ``nlist`` distinct rows drawn with ``seed``; each round assigns every row to
    its nearest centroid by dot product and moves each centroid to the normalized mean of its
    rows. A centroid left with no rows (or a zero mean) is re-seeded at the rows that fit their
    own centroid worst. Stops after ``iterations`` rounds or when no row changes cluster.
    """
    n = matrix.shape[0]
    rng = np.random.default_rng(seed)
    centroids, _ = _normalized(matrix[np.sort(rng.choice(n, size=nlist, replace=False))])
    labels: np.ndarray | None = None
    for _ in range(iterations):
        new, best = _assign(matrix, centroids)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        counts = np.bincount(labels, minlength=nlist)
        order = np.argsort(labels, kind="stable")
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        nonempty = np.flatnonzero(counts)
        sums = np.zeros((nlist, matrix.shape[1]), dtype=np.float64)
        sums[nonempty] = np.add.reduceat(matrix[order].astype(np.float64), starts[nonempty], axis=0)
        centroids, ok = _normalized(sums)
        empty = np.flatnonzero(~ok)
        if empty.size:
            worst = np.argsort(best, kind="stable")[: empty.size]  # rows farthest from their centroid
            centroids[empty[: worst.size]], _ = _normalized(matrix[worst])
            log.debug("k-means: re-seeded %d empty cluster(s)", empty.size)
    labels, _ = _assign(matrix, centroids)
    return centroids, labels


class IVFIndex:
    """Inverted-file approximate cosine search over ``(ids, payloads, matrix)`` (see the module docstring).

    Args:
        ids: one unique, non-empty string per row.
        payloads: one string per row, returned with each hit.
        matrix: ``(n, d)`` unit vectors, ``n >= 1`` (vectors are used as given: not normalized here).
        nlist: clusters (default :func:`default_nlist`, about sqrt(n)); more than ``n`` is lowered to
            ``n``. Clusters that end up empty are dropped, so :attr:`nlist` may be smaller.
        seed: seeds the k-means initialization; the same inputs and seed give the same index.
        iterations: k-means rounds at most (0: the seeds themselves are the centroids).

    Raises EmptyInputError for zero rows, InvalidInputError for mismatched or malformed inputs and
    ConfigError for a bad ``nlist``, ``seed`` or ``iterations``.
    """

    def __init__(
        self,
        ids: Sequence[str],
        payloads: Sequence[str],
        matrix: np.ndarray,
        *,
        nlist: int | None = None,
        seed: int = 0,
        iterations: int = DEFAULT_ITERATIONS,
    ) -> None:
        started = time.perf_counter()
        id_list = check_ids(ids)
        check_unique(id_list, "ids")
        if isinstance(payloads, (str, bytes)) or not isinstance(payloads, Sequence) or len(payloads) != len(id_list):
            raise InvalidInputError("payloads must be a sequence of strings, one per id")
        if not all(isinstance(p, str) for p in payloads):
            raise InvalidInputError("every payload must be a string")
        n = len(id_list)
        if n == 0:
            raise EmptyInputError("an IVF index needs at least one vector")
        vectors = check_matrix(matrix, n)
        requested = default_nlist(n) if nlist is None else _check_count(nlist, "nlist", 1)
        seed = _check_count(seed, "seed", 0)
        iterations = _check_count(iterations, "iterations", 0)

        centroids, labels = spherical_kmeans(vectors, min(requested, n), seed=seed, iterations=iterations)
        counts = np.bincount(labels, minlength=centroids.shape[0])
        keep = np.flatnonzero(counts)
        order = np.argsort(labels, kind="stable")  # cluster by cluster, insertion order inside each
        ends = np.cumsum(counts[keep])
        starts = ends - counts[keep]

        self.dim = int(vectors.shape[1])
        self.nlist = int(keep.size)
        """Non-empty clusters (at most the requested ``nlist``)."""
        self.seed = seed
        self.iterations = iterations
        self._centroids = np.ascontiguousarray(centroids[keep], dtype=np.float32)
        self._vectors = np.ascontiguousarray(vectors[order])
        self._ids = [id_list[i] for i in order.tolist()]
        self._payloads = [payloads[i] for i in order.tolist()]
        self._lists = [self._vectors[s:e] for s, e in zip(starts.tolist(), ends.tolist())]
        self._rows = [np.arange(s, e) for s, e in zip(starts.tolist(), ends.tolist())]
        self.build_seconds = time.perf_counter() - started
        log.debug("IVF index: %d vectors in %d lists, built in %.3f s", n, self.nlist, self.build_seconds)

    def __len__(self) -> int:
        return len(self._ids)

    @property
    def list_sizes(self) -> list[int]:
        """Vectors per cluster, in cluster order."""
        return [len(r) for r in self._rows]

    def probed_lists(self, query: np.ndarray, nprobe: int) -> list[int]:
        """The clusters :meth:`search` probes for ``query``, nearest centroid first (equal centroid
        scores: lower cluster first, where :meth:`search` may pick either)."""
        q = check_vector(query)
        if q.shape[0] != self.dim:
            raise InvalidInputError(f"query of dimension {q.shape[0]} for an index of dimension {self.dim}")
        nprobe = _check_count(nprobe, "nprobe", 1)
        sims = self._centroids @ q
        return sorted(range(self.nlist), key=lambda c: (-sims[c], c))[:nprobe]

    def search(self, query: np.ndarray, k: int, nprobe: int = 8) -> list[Hit]:
        """The top ``k`` of the vectors in the ``nprobe`` clusters nearest ``query``, best first.

        Scores are exact dot products; ties are broken by id. ``nprobe >= nlist`` searches every
        vector and returns exactly the exact top ``k``.
        """
        q = check_vector(query)
        if q.shape[0] != self.dim:
            raise InvalidInputError(f"query of dimension {q.shape[0]} for an index of dimension {self.dim}")
        k = check_k(k)
        nprobe = _check_count(nprobe, "nprobe", 1)
        if k == 0:
            return []
        if nprobe >= self.nlist:
            return self._hits(self._vectors @ q, None, k)
        cut = self.nlist - nprobe
        probe = np.argpartition(self._centroids @ q, cut)[cut:].tolist()
        lists, rows = self._lists, self._rows
        return self._hits(np.concatenate([lists[p] @ q for p in probe]), [rows[p] for p in probe], k)

    def _hits(self, scores: np.ndarray, rows: list[np.ndarray] | None, k: int) -> list[Hit]:
        """The best ``k`` of ``scores`` as hits, ties by id; ``rows`` maps score positions to rows (None: same)."""
        m = scores.shape[0]
        if k >= m:
            best = np.arange(m)
        else:
            best = np.argpartition(scores, m - k)[m - k :]
            above = scores >= scores[best].min()
            if np.count_nonzero(above) > k:  # a tie at the k-th score: every tied vector competes by id
                best = np.flatnonzero(above)
        at = best if rows is None else np.concatenate(rows)[best]
        ids, payloads = self._ids, self._payloads
        return merge_hits([Hit(ids[r], payloads[r], s) for r, s in zip(at.tolist(), scores[best].tolist())], k)


__all__ = ["DEFAULT_ITERATIONS", "IVFIndex", "default_nlist", "spherical_kmeans"]
