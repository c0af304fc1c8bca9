"""The Embedder seam: one required method, conveniences in one base class."""

from __future__ import annotations

import threading
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import EmptyInputError, InvalidInputError
from ..text.textcheck import list_of
from ..runtime.tracing import traced_embed


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of a fixed dimension."""

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of unit vectors, one row per text."""
        ...


def checked_texts(texts: Sequence[str], method: str, *, hint: str = "") -> list[str]:
    """``texts`` as a list, or InvalidInputError naming ``method`` when it is one string (``hint`` added to the
    message) or holds anything but strings."""
    if isinstance(texts, str):
        raise InvalidInputError(f"{method} takes a sequence of strings, not one string{hint}")
    return list_of(texts, str, f"{method} takes strings, got {{}}")


class BaseEmbedder:
    """Conveniences around :meth:`_embed_batch`: validation, batching, normalization.

    Subclasses set ``model_id`` and ``dim`` and implement ``_embed_batch(texts) -> (n, dim) array``.
    ``scripts`` names the writing systems the model embeds well (``None``: all of them;
    :func:`memdesk.text.lang.scripts_of` names); ingest warns about text in other scripts. A model
    trained with query/passage prefixes overrides :meth:`embed_query`.
    """

    model_id: str
    dim: int
    batch_size: int = 32
    scripts: frozenset[str] | None = None

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries; the same as :meth:`embed` unless the model tells queries apart."""
        return self.embed(texts)

    def _embed_batch(self, texts: list[str]) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    @traced_embed
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts``; a text given more than once is embedded once (one message's records
        repeat texts: ~5% of a LongMemEval haystack's, each a model call a GGUF model pays ~4 ms a token for)."""
        items = checked_texts(texts, "embed()", hint="; use embed_one()")
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        row_of: dict[str, int] = {}
        rows = [row_of.setdefault(t, len(row_of)) for t in items]
        unique = list(row_of)
        out = np.empty((len(unique), self.dim), dtype=np.float32)
        for start in range(0, len(unique), self.batch_size):
            batch = unique[start : start + self.batch_size]
            out[start : start + len(batch)] = self._embed_batch(batch)
        return normalize(out if len(unique) == len(items) else out[rows])

    def embed_one(self, text: str) -> np.ndarray:
        if not isinstance(text, str) or not text.strip():
            raise EmptyInputError("cannot embed empty text")
        return self.embed([text])[0]


class LoadsOnFirstUse:
    """For an embedder whose model is read on first use: ``loaded``, ``load()`` and :meth:`_model`, which
    builds it with the subclass's ``_build_model()`` once, whichever thread asks first. Its ``__init__``
    calls ``super().__init__()``."""

    def __init__(self) -> None:
        self._built: Any = None
        self._build_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        """Whether the model is loaded."""
        return self._built is not None

    def load(self) -> None:
        """Load the model now (otherwise the first embedding call does)."""
        self._model()

    def _model(self) -> Any:
        built = self._built
        if built is None:
            with self._build_lock:
                if self._built is None:
                    self._built = self._build_model()
                built = self._built
        return built

    def _build_model(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Query vectors from any :class:`Embedder` (its ``embed_query`` when it has one)."""
    fn = getattr(embedder, "embed_query", None)
    return fn(texts) if callable(fn) else embedder.embed(texts)


def unsupported_script(embedder: Embedder, text: str) -> str | None:
    """The main script of ``text`` when ``embedder`` declares it does not embed that script well."""
    from ..text.lang import scripts_of

    supported = getattr(embedder, "scripts", None)
    if supported is None:
        return None
    counts = scripts_of(text)
    if not counts:
        return None
    script, n = counts.most_common(1)[0]
    return script if script not in supported and n * 2 >= sum(counts.values()) else None


def normalize(x: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalization; zero rows stay zero."""
    x = np.asarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    return (x / norms).astype(np.float32, copy=False)
