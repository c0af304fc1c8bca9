"""The protocols of a store's named collections: vector collections (reasoning banks, LangGraph items) and
vector-free document sets (manifests, rejected items)."""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np


class VectorCollection(Protocol):
    """A named table of (id, payload JSON, vector) items searched by the same cosine code as records."""

    name: str

    def put(
        self, ids: Sequence[str], payloads: Sequence[str], vectors: np.ndarray, texts: Sequence[str] | None = None
    ) -> None:
        """Insert or replace items atomically. ``texts`` (the text each vector embeds) lets
        ``memdesk reembed`` re-embed the items with another model."""
        ...

    def get(self, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, payload) of every item in insertion order, or of ``ids`` in that order (missing ids skipped)."""
        ...

    def search(self, vector: np.ndarray, k: int) -> list[tuple[str, str, float]]:
        """(id, payload JSON, score) best first."""
        ...

    def count(self) -> int: ...

    def export(self) -> tuple[list[str], list[str], np.ndarray]:
        """(ids, payload JSONs, float32 ``(n, dim)`` vectors) of every item, in insertion order."""
        ...

    def delete(self, ids: Sequence[str] | None = None) -> int:
        """Delete ``ids`` (every item if None). Returns the number deleted."""
        ...


class DocumentSet(Protocol):
    """A named table of (id, payload JSON) items without vectors (manifests, rejected items)."""

    name: str

    def put(self, ids: Sequence[str], payloads: Sequence[str]) -> None:
        """Insert or replace items atomically."""
        ...

    def get(self, ids: Sequence[str] | None = None) -> list[tuple[str, str]]:
        """(id, payload) of every item in insertion order, or of ``ids`` in that order (missing ids skipped)."""
        ...

    def count(self) -> int: ...

    def delete(self, ids: Sequence[str] | None = None) -> int: ...


class Collections(Protocol):
    def collection(self, name: str) -> VectorCollection:
        """The vector collection ``name`` (empty until something is put in it)."""
        ...

    def documents(self, name: str) -> DocumentSet:
        """The vector-free document set ``name``."""
        ...

    def collections(self) -> list[str]:
        """Names of the vector collections that hold items, sorted."""
        ...
