"""Migrate a store's vectors to another embedding model (``memdesk reembed``).

All or nothing: every table that holds vectors (the memory records and every collection) is
checked before anything is written, and a collection whose items were stored without the text
they embed is refused up front, naming it. Then each table is rewritten in batches (one
transaction each) and the store's model is switched once no other vector remains. A run that
stopped half-way (a crash, a failing embedder) is resumed by running it again: only vectors not
yet written by the new model are embedded. Until the switch, searching a rewritten table raises
:class:`~memdesk.errors.EmbeddingMismatchError` for either model.
"""

from __future__ import annotations

import logging
from typing import Callable

from ..embed.base import Embedder
from ..errors import ReembedError
from .base import EmbeddingInfo, VectorMaintenance, VectorTable

log = logging.getLogger(__name__)

BATCH = 512
"""Vectors embedded and rewritten per transaction."""


def reembed_store(
    store: VectorMaintenance,
    embedder: Embedder,
    *,
    batch: int = BATCH,
    progress: Callable[[VectorTable, int], None] | None = None,
) -> int:
    """Re-embed every stale vector with ``embedder`` and switch the store to it; returns how many
    vectors were rewritten (0 when the store already uses it). ``progress(table, n)`` is called
    after each batch. ReembedError, before anything is written, if some vectors cannot be re-embedded."""
    info = EmbeddingInfo(model_id=embedder.model_id, dim=embedder.dim)
    stale = store.stale_vectors(info)
    textless = {table: missing for table, (_, missing) in stale.items() if missing}
    if textless:
        names = [str(t) for t in textless]
        raise ReembedError(
            "cannot re-embed: "
            + ", ".join(f"{t} holds {n} item(s) stored without the text they embed" for t, n in textless.items())
            + "; rebuild or delete those collections first (nothing was changed)",
            names,
        )
    done = 0
    for table in stale:
        cursor: str | None = None
        while True:
            page = store.stale_page(table, info, limit=batch, cursor=cursor)
            if page.items:
                vectors = embedder.embed([text for _, text in page.items])
                store.rewrite_vectors(table, [i for i, _ in page.items], vectors, info)
                done += len(page.items)
                if progress is not None:
                    progress(table, len(page.items))
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        log.info("re-embedded %s", table)
    store.switch_embedding(info)
    return done
