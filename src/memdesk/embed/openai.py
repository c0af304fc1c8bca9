"""Embeddings from any OpenAI-compatible ``/embeddings`` endpoint (OpenAI, vLLM, Ollama, llama.cpp).

Uses the official ``openai`` SDK (imported when the embedder is built, not at import time), so its
retries with back-off apply to connection errors, 408/409/429 and 5xx answers. SDK errors are
mapped to :class:`~memdesk.errors.EmbedderError` with a message that says what to fix.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..runtime import aio
from ..errors import ConfigError, EmbedderError
from ..runtime.tracing import traced_embed
from .base import BaseEmbedder, checked_texts, normalize

if TYPE_CHECKING:  # pragma: no cover
    import httpx2

logger = logging.getLogger(__name__)

#: Sent as the key to servers that need none (vLLM, llama.cpp and Ollama accept any key).
NO_KEY_PLACEHOLDER = "EMPTY"
_DIM_PROBE_TEXT = "dimension probe"
#: Native dimensions of OpenAI's embedding models (checked against every response).
KNOWN_DIMS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


class OpenAIEmbedder(BaseEmbedder):
    """An OpenAI-compatible embedding endpoint.

    Args:
        model: the server's embedding model name, e.g. ``text-embedding-3-small``.
        base_url: the API root, e.g. ``http://localhost:8080/v1`` (default: OpenAI's).
        api_key: the key; default ``OPENAI_API_KEY``. A custom ``base_url`` without any key gets a
            placeholder key, since local servers need none.
        http_client: an ``httpx2.Client`` for the SDK (tests pass one with a ``MockTransport``).
        dim: the expected vector dimension. If ``None``: the native one for OpenAI's own models
            (:data:`KNOWN_DIMS`), else learnt from the first response; reading :attr:`dim` before any
            embedding then asks the server for one probe vector (on Python 3.11 an ``isinstance``
            check against the :class:`~memdesk.embed.base.Embedder` protocol reads it too).
        batch_size: texts per request.
        timeout: seconds per request.
        max_retries: SDK retries on connection errors, 408/409/429 and 5xx.
        query_prefix / document_prefix: put before search queries / stored texts, for a model trained
            with them (nomic-embed-text behind llama.cpp or Ollama: ``"search_query: "`` /
            ``"search_document: "``); the server adds none.

    Blank texts get a zero vector without a request (the API rejects empty input).
    """

    #: requests go through memdesk.runtime.aio.io: awaited with AsyncOpenAI under AsyncMemory
    async_ready = True
    remote = True

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        http_client: "httpx2.Client | None" = None,
        dim: int | None = None,
        batch_size: int = 64,
        *,
        timeout: float = 60.0,
        max_retries: int = 2,
        async_http_client: "httpx2.AsyncClient | None" = None,
        query_prefix: str = "",
        document_prefix: str = "",
    ) -> None:
        if not model or not isinstance(model, str):
            raise ConfigError("OpenAIEmbedder needs a model name (MEMDESK_EMBEDDING_MODEL)")
        if dim is not None and dim < 1:
            raise ConfigError("dim must be >= 1")
        if batch_size < 1:
            raise ConfigError("batch_size must be >= 1")
        try:
            import openai
        except ImportError as e:  # pragma: no cover - openai is a core dependency
            raise EmbedderError("the openai embedder needs the 'openai' package (pip install openai)") from e
        key = api_key or os.environ.get("OPENAI_API_KEY")
        if not key:
            if base_url is None:
                raise ConfigError(
                    "the openai embedder needs an API key for api.openai.com: set MEMDESK_EMBEDDING_API_KEY "
                    "or OPENAI_API_KEY, or point MEMDESK_EMBEDDING_BASE_URL at a local server"
                )
            key = NO_KEY_PLACEHOLDER
        self.model = model
        self.model_id = f"openai:{model}"
        self.base_url = base_url
        self.batch_size = batch_size
        self.query_prefix, self.document_prefix = query_prefix, document_prefix
        self._dim = dim if dim is not None else KNOWN_DIMS.get(model)
        self._dim_lock = threading.Lock()
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=key, base_url=base_url, http_client=http_client, timeout=timeout, max_retries=max_retries
        )
        # under memdesk.runtime.aio.run (AsyncMemory) requests are awaited with AsyncOpenAI, one client per loop
        self._async_clients = aio.PerLoop(
            lambda: openai.AsyncOpenAI(
                api_key=key, base_url=base_url, http_client=async_http_client, timeout=timeout, max_retries=max_retries
            )
        )

    @property
    def dim(self) -> int:  # type: ignore[override]
        """The vector dimension; probes the server once if it is not known yet."""
        if self._dim is None:
            with self._dim_lock:
                if self._dim is None:
                    logger.info("probing %s for its embedding dimension", self.model_id)
                    self._dim = self._request([_DIM_PROBE_TEXT]).shape[1]
        return self._dim

    @traced_embed
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Like :meth:`BaseEmbedder.embed`, but learns an unknown dimension from the first request.

        (The base class sizes its output from :attr:`dim` first, which would cost a probe request.)
        """
        if self._dim is not None or isinstance(texts, str):
            return super().embed(texts)
        items = list(texts)
        if not all(isinstance(t, str) for t in items) or not any(t.strip() for t in items):
            return super().embed(items)  # validation errors, or nothing to learn the dimension from
        parts = [self._embed_batch(items[i : i + self.batch_size]) for i in range(0, len(items), self.batch_size)]
        return normalize(np.vstack(parts))

    def close(self) -> None:
        """Close the SDK client (and the HTTP client it owns)."""
        self._client.close()

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries: with ``query_prefix`` when the embedder has prefixes, else :meth:`embed`."""
        if not (self.query_prefix or self.document_prefix):
            return self.embed(texts)
        items = checked_texts(texts, "embed_query()")
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [self._vectors(items[i : i + self.batch_size], self.query_prefix) for i in range(0, len(items), self.batch_size)]
        return normalize(np.vstack(parts))

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._vectors(texts, self.document_prefix)

    def _vectors(self, texts: list[str], prefix: str) -> np.ndarray:
        live = [i for i, t in enumerate(texts) if t.strip()]
        vectors = self._request([prefix + texts[i] for i in live]) if live else None
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if vectors is not None:
            out[live] = vectors
        return out

    def _request(self, texts: list[str]) -> np.ndarray:
        """One ``/embeddings`` call: an (n, d) float32 array in input order."""
        try:
            response = aio.io(
                lambda: self._client.embeddings.create(model=self.model, input=texts, encoding_format="float"),
                lambda: self._async_clients.get().embeddings.create(model=self.model, input=texts, encoding_format="float"),
            )
        except self._openai.OpenAIError as e:
            raise self._map_error(e) from e
        data = sorted(response.data, key=lambda d: d.index)
        if len(data) != len(texts) or [d.index for d in data] != list(range(len(texts))):
            raise EmbedderError(
                f"{self.model_id}: sent {len(texts)} texts, got {len(data)} embeddings "
                f"(indices {[d.index for d in data][:10]})"
            )
        try:
            vectors = np.asarray([d.embedding for d in data], dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise EmbedderError(f"{self.model_id}: embeddings of unequal length or not numbers: {e}") from e
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise EmbedderError(f"{self.model_id}: malformed embeddings of shape {vectors.shape}")
        if self._dim is not None and vectors.shape[1] != self._dim:
            raise EmbedderError(f"{self.model_id}: expected dimension {self._dim}, server returned {vectors.shape[1]}")
        if self._dim is None:
            self._dim = int(vectors.shape[1])
            logger.info("%s returns %d-d vectors", self.model_id, self._dim)
        if not np.isfinite(vectors).all():
            raise EmbedderError(f"{self.model_id}: server returned non-finite values")
        return vectors

    def _map_error(self, e: Exception) -> EmbedderError:
        o = self._openai
        where = self.base_url or "api.openai.com"
        if isinstance(e, (o.AuthenticationError, o.PermissionDeniedError)):
            return EmbedderError(
                f"{where} refused the API key for {self.model_id} (HTTP {e.status_code}): check "
                f"MEMDESK_EMBEDDING_API_KEY / OPENAI_API_KEY"
            )
        if isinstance(e, o.NotFoundError):
            return EmbedderError(f"{where} has no embedding model {self.model!r} or no /embeddings route (HTTP 404)")
        if isinstance(e, o.RateLimitError):
            return EmbedderError(f"{where} is still rate-limiting {self.model_id} after retries (HTTP 429)")
        if isinstance(e, o.APIStatusError):
            return EmbedderError(f"{where} failed to embed with {self.model_id} (HTTP {e.status_code}): {_detail(e)}")
        if isinstance(e, o.APITimeoutError):
            return EmbedderError(f"{where} timed out embedding with {self.model_id} (after retries)")
        if isinstance(e, o.APIConnectionError):
            return EmbedderError(f"cannot reach {where} for {self.model_id} (after retries): {e}")
        return EmbedderError(f"{self.model_id} embedding failed: {e}")


def _detail(e: Any) -> str:
    """The server's error message from an SDK status error, if it sent one."""
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])
    return str(getattr(e, "message", e))
