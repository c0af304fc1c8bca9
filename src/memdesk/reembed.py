"""Migrate a store's vectors to another embedding model (``memdesk reembed``)."""

from __future__ import annotations

import logging

from .embed.base import Embedder
from .records import MemoryType
from .store.base import EmbeddingInfo, Store

log = logging.getLogger(__name__)


def reembed_store(store: Store, embedder: Embedder) -> int:
    """Re-embed every record with ``embedder``; each memory type is rewritten in one transaction,
    and the store's embedding info is switched once all are done. Returns the number of records."""
    info = EmbeddingInfo(model_id=embedder.model_id, dim=embedder.dim)
    by_type: dict[MemoryType, list] = {t: [] for t in MemoryType}
    for record in store.iter_all_records():  # type: ignore[attr-defined]
        by_type[MemoryType(record.type)].append(record)
    for memory_type, records in by_type.items():
        if not records:
            continue
        vectors = embedder.embed([r.embed_text() for r in records])
        store.rewrite_vectors(memory_type, [r.id for r in records], vectors, info)  # type: ignore[attr-defined]
        log.info("re-embedded %d %s records", len(records), memory_type.value)
    store.rewrite_vectors(None, [], None, info)  # type: ignore[attr-defined]
    return sum(len(records) for records in by_type.values())
