"""A content-hash embedding cache: each distinct text is embedded once per model, across runs.

:class:`CachingEmbedder` wraps any :class:`~memdesk.embed.base.Embedder` and keeps its vectors in a
small SQLite file (``sha256(model_id, text) -> float32 bytes``). It has the inner embedder's
``model_id`` and ``dim``, so a store written through it is indistinguishable from one written by
the inner embedder. Query vectors (``embed_query``: a model's query prefix) are cached apart from
stored texts'. It counts hits, misses and the seconds spent in the inner model.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..embed.base import Embedder, embed_queries
from ..errors import InvalidInputError

_SCHEMA = "CREATE TABLE IF NOT EXISTS embedding_cache (key BLOB PRIMARY KEY, vector BLOB NOT NULL)"
_LOOKUP_BATCH = 500


class CachingEmbedder:
    """An :class:`Embedder` that serves repeated texts from a persistent cache.

    Args:
        inner: the embedder that computes missing vectors.
        path: the SQLite cache file (created if missing); ``None`` keeps the cache in memory.
    """

    def __init__(self, inner: Embedder, path: str | Path | None = None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path) if self.path else ":memory:", check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute(_SCHEMA)
        self._conn.commit()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.embed_seconds = 0.0

    def _key(self, text: str, kind: bytes = b"") -> bytes:
        h = hashlib.sha256()
        h.update(self.model_id.encode("utf-8"))
        h.update(kind + b"\x00")
        h.update(text.encode("utf-8"))
        return h.digest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts`` in order: cached ones from the file, the rest from ``inner`` (then stored)."""
        return self._cached(texts, self.inner.embed, b"", "embed()")

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors (the inner embedder's ``embed_query``, e.g. with a query prefix), cached apart
        from stored texts' vectors."""
        return self._cached(texts, lambda t: embed_queries(self.inner, t), b"query", "embed_query()")

    def _cached(self, texts: Sequence[str], compute: Callable[[list[str]], np.ndarray], kind: bytes, method: str) -> np.ndarray:
        if isinstance(texts, str):
            raise InvalidInputError(f"{method} takes a sequence of strings, not one string")
        items = list(texts)
        out = np.zeros((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        keys = [self._key(t, kind) for t in items]
        found = self._lookup(set(keys))
        missing: dict[bytes, list[int]] = {}
        for i, key in enumerate(keys):
            vec = found.get(key)
            if vec is None:
                missing.setdefault(key, []).append(i)
            else:
                out[i] = vec
        self.hits += len(items) - len(missing)  # texts served without calling the inner model
        if missing:
            order = list(missing)
            start = time.perf_counter()
            vectors = np.asarray(compute([items[missing[k][0]] for k in order]), dtype=np.float32)
            self.embed_seconds += time.perf_counter() - start
            self.misses += len(order)
            for key, vec in zip(order, vectors):
                for i in missing[key]:
                    out[i] = vec
            with self._lock:
                self._conn.executemany(
                    "INSERT OR REPLACE INTO embedding_cache (key, vector) VALUES (?, ?)",
                    [(k, v.tobytes()) for k, v in zip(order, vectors)],
                )
                self._conn.commit()
        return out

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def _lookup(self, keys: set[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        key_list = list(keys)
        with self._lock:
            for start in range(0, len(key_list), _LOOKUP_BATCH):
                batch = key_list[start : start + _LOOKUP_BATCH]
                marks = ",".join("?" * len(batch))
                for key, blob in self._conn.execute(
                    f"SELECT key, vector FROM embedding_cache WHERE key IN ({marks})", batch
                ):
                    vec = np.frombuffer(blob, dtype=np.float32)
                    if vec.shape[0] == self.dim:
                        found[bytes(key)] = vec
        return found

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM embedding_cache").fetchone()[0])

    def stats(self) -> dict[str, float]:
        """Hits, misses and seconds spent in the inner embedder since construction."""
        return {"hits": self.hits, "misses": self.misses, "embed_seconds": round(self.embed_seconds, 3)}

    def close(self) -> None:
        with self._lock:
            self._conn.close()
