"""GGUF embedding models in process through ``xllamacpp`` (llama.cpp's prebuilt wheel; no torch).

:class:`GGUFEmbedder` loads one ``.gguf`` file on first use and embeds with llama.cpp: stored texts
with the model's document prefix (:meth:`embed`), search queries with its query prefix
(:meth:`embed_query`), pooled as the model was trained (mean, CLS or last token) and L2-normalized.

- **Identity.** ``model_id`` is the model's name and the first 12 hex digits of the file's sha256
  (``nomic-embed-text-v1.5@0a4d066fb01b``), so a store written with another file of the same model,
  or another quantization, is refused with EmbeddingMismatchError like any other model change.
- **Threads.** ``threads`` (default: the usable CPUs, at most 8) for both prompt reading and
  batches. llama.cpp's OpenMP threads spin while they wait unless ``OMP_WAIT_POLICY=PASSIVE``; on a
  shared machine spinning made queries 2-5x slower here, so the embedder sets PASSIVE before
  xllamacpp is first imported, unless the variable is already set (a user's choice is kept).
- **Batching.** Texts go to llama.cpp ``batch_size`` at a time; a text longer than the context
  (``n_ctx`` tokens) is shortened to fit, and a warning says so.
- **Matryoshka truncation** (``truncate_dim``, opt-in): for a model trained for it (nomic: 512, 256,
  128, 64), keep the first ``truncate_dim`` dimensions, renormalized: smaller vectors and faster
  search for the same embedding cost. The identity gets ``/d<N>``, so a store keeps one width.

xllamacpp's ``Server`` also binds a loopback HTTP port; the embedder never uses it and locks it with
a random API key, so no other process can call the model through it.
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import threading
from functools import cached_property
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..runtime.cpus import usable_cpus
from ..errors import ConfigError, EmbedderError, InvalidInputError
from .base import BaseEmbedder, LoadsOnFirstUse, checked_texts, normalize

log = logging.getLogger(__name__)

POOLINGS = ("mean", "cls", "last")
_TOO_LARGE = re.compile(r"input \((\d+) tokens\) is too large")
_MAX_DEFAULT_THREADS = 8


def set_passive_omp(environ: "os._Environ[str] | dict[str, str]" = os.environ) -> bool:
    """Set ``OMP_WAIT_POLICY=PASSIVE`` unless the variable is set already; True when it was set here.
    It only takes effect when called before llama.cpp's OpenMP runtime loads (first xllamacpp import)."""
    if "OMP_WAIT_POLICY" in environ:
        return False
    environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return True


def gguf_embedding_length(path: str | Path) -> int:
    """The embedding width a GGUF file declares (``<arch>.embedding_length``), read with ``gguf``."""
    try:
        import gguf  # type: ignore[import-untyped]
    except ImportError as e:
        raise ConfigError("a GGUF embedder needs the 'gguf' package: pip install 'memdesk[quality]'") from e
    try:
        reader = gguf.GGUFReader(str(path))
    except (OSError, ValueError) as e:
        raise EmbedderError(f"{path} is not a readable GGUF file: {e}") from e
    arch = reader.get_field(gguf.Keys.General.ARCHITECTURE)
    width = reader.get_field(f"{arch.contents()}.embedding_length") if arch is not None else None
    if width is None:
        raise EmbedderError(f"{path} declares no embedding length; is it a GGUF embedding model?")
    return int(width.contents())


class GGUFEmbedder(LoadsOnFirstUse, BaseEmbedder):
    """A GGUF embedding model run by llama.cpp in this process.

    Args:
        path: the ``.gguf`` file.
        name: the model's name in ``model_id`` (default: the file name without ``.gguf``).
        sha256: the file's sha256 when already known (a verified install); otherwise it is computed
            the first time ``model_id`` is read.
        dim: the embedding width (default: read from the file).
        query_prefix / document_prefix: prepended to queries / stored texts (nomic:
            ``"search_query: "`` / ``"search_document: "``; E5: ``"query: "`` / ``"passage: "``).
        pooling: ``mean``, ``cls`` or ``last``, as the model was trained.
        n_ctx: the longest text in tokens (longer ones are shortened).
        truncate_dim: keep only the first N dimensions (Matryoshka-trained models only).
        threads: llama.cpp threads (default: usable CPUs, at most 8).
        batch_size: texts per llama.cpp call.
    """

    scripts = None

    def __init__(
        self,
        path: str | Path,
        *,
        name: str | None = None,
        sha256: str | None = None,
        dim: int | None = None,
        query_prefix: str = "",
        document_prefix: str = "",
        pooling: str = "mean",
        n_ctx: int = 2048,
        threads: int | None = None,
        batch_size: int = 32,
        truncate_dim: int | None = None,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise InvalidInputError(f"pooling must be one of {', '.join(POOLINGS)}, not {pooling!r}")
        if n_ctx < 8 or batch_size < 1 or (threads is not None and threads < 1) or (truncate_dim is not None and truncate_dim < 1):
            raise InvalidInputError("n_ctx must be >= 8, batch_size, threads and truncate_dim >= 1")
        self.truncate_dim = truncate_dim
        self.path = Path(path)
        if not self.path.is_file():
            raise ConfigError(f"GGUF embedding model {self.path}: no such file")
        self.name = name or self.path.name.removesuffix(".gguf")
        if sha256 is not None:  # given: the cached value, never computed
            self.sha256 = sha256
        if dim is not None:
            self.model_dim = dim
        self.query_prefix, self.document_prefix, self.pooling = query_prefix, document_prefix, pooling
        self.n_ctx, self.batch_size = n_ctx, batch_size
        self.threads = threads or min(usable_cpus(), _MAX_DEFAULT_THREADS)
        self._lock = threading.Lock()  # one llama.cpp slot: calls queue anyway; keep batches whole

    @cached_property
    def sha256(self) -> str:
        """The model file's sha256 (computed once when not given)."""
        from .gguf_models import file_sha256

        return file_sha256(self.path)

    @property  # type: ignore[override]
    def model_id(self) -> str:
        return f"{self.name}@{self.sha256[:12]}" + (f"/d{self.truncate_dim}" if self.truncate_dim else "")

    @cached_property
    def model_dim(self) -> int:
        """The model's own embedding width (read once from the file when not given)."""
        return gguf_embedding_length(self.path)

    @property  # type: ignore[override]
    def dim(self) -> int:
        """The width of the vectors returned (``truncate_dim`` when set)."""
        if self.truncate_dim is None:
            return self.model_dim
        if self.truncate_dim > self.model_dim:
            raise ConfigError(f"truncate_dim {self.truncate_dim} is wider than {self.path.name}'s {self.model_dim} dimensions")
        return self.truncate_dim

    def _build_model(self) -> Any:
        set_passive_omp()
        try:
            import xllamacpp as xlc  # type: ignore[import-not-found]
        except ImportError as e:
            raise ConfigError("a GGUF embedder needs xllamacpp (a prebuilt llama.cpp wheel): pip install 'memdesk[quality]'") from e
        p = xlc.CommonParams()
        p.model.path = str(self.path)
        p.embedding = True
        p.n_ctx = p.n_batch = p.n_ubatch = self.n_ctx
        p.n_parallel = 1
        p.pooling_type = getattr(xlc.llama_pooling_type, f"LLAMA_POOLING_TYPE_{self.pooling.upper()}")
        p.embd_normalize = 2  # L2
        p.cpuparams.n_threads = p.cpuparams_batch.n_threads = self.threads
        p.hostnames = ["127.0.0.1"]
        p.api_keys = [secrets.token_hex(24)]  # the port it binds is not ours to open
        p.verbosity = -1
        try:
            server = xlc.Server(p)
        except Exception as e:  # xllamacpp raises plain RuntimeError/ValueError on a bad file
            raise EmbedderError(f"llama.cpp cannot load {self.path}: {e}") from e
        log.info("loaded %s (%s pooling, %d threads)", self.path, self.pooling, self.threads)
        return server

    def close(self) -> None:
        """Free the model (and the loopback port its server object holds); the next call loads it again."""
        with self._build_lock:
            self._built = None

    def _call(self, texts: list[str]) -> dict[str, Any]:
        server = self._model()
        with self._lock:
            return server.handle_embeddings({"input": texts})

    def _fit(self, text: str, tokens: int) -> str:
        keep = max(1, int(len(text) * (self.n_ctx - 8) / tokens * 0.9))
        log.warning("a text of %d tokens is longer than the embedder's context (%d); embedding its first %d characters", tokens, self.n_ctx, keep)
        return text[:keep]

    def _encode(self, texts: list[str]) -> np.ndarray:
        reply = self._call(texts)
        if "error" in reply:
            if len(texts) > 1:
                return np.vstack([self._encode([t]) for t in texts])
            message = str(reply["error"].get("message", reply["error"]))
            too_large = _TOO_LARGE.search(message)
            if too_large and len(texts[0]) > 1:
                return self._encode([self._fit(texts[0], int(too_large.group(1)))])
            raise EmbedderError(f"llama.cpp could not embed: {message}")
        rows = sorted(reply["data"], key=lambda d: d["index"])
        out = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        if out.shape != (len(texts), self.model_dim):
            raise EmbedderError(f"{self.path} returned vectors of shape {out.shape}, expected ({len(texts)}, {self.model_dim})")
        return out[:, : self.dim] if self.truncate_dim else out  # the callers renormalize

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        return self._encode([self.document_prefix + t for t in texts])

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (with the query prefix); :meth:`embed` is for stored texts."""
        items = checked_texts(texts, "embed_query()")
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._encode([self.query_prefix + t for t in items[i : i + self.batch_size]])
            for i in range(0, len(items), self.batch_size)
        ]
        return normalize(np.vstack(parts))
