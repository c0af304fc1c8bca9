"""Build the GGUF embedder the settings ask for (``MEMDESK_EMBEDDER=nomic``, ``embeddinggemma`` or ``gguf``).

- ``nomic`` / ``embeddinggemma``: the installed copy (``memdesk models install NAME``), or the file
  ``MEMDESK_EMBEDDER_MODEL`` names, which must be that model's file (its sha256 is checked against the
  pins: the Q8_0 memdesk makes, or nomic's published f16); prefixes and pooling are the model's own.
- ``gguf``: any GGUF embedding model at ``MEMDESK_EMBEDDER_MODEL`` with the prefixes and pooling
  given in ``MEMDESK_EMBEDDER_QUERY_PREFIX`` / ``MEMDESK_EMBEDDER_DOCUMENT_PREFIX`` /
  ``MEMDESK_EMBEDDER_POOLING``; its identity is its file name and sha256.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..errors import ConfigError, ModelFileError
from .gguf import GGUFEmbedder
from .gguf_models import check_known_file, known_model, models_dir, resolve_model_file

if TYPE_CHECKING:  # pragma: no cover
    from ..settings import Settings


def make_gguf_embedder(settings: "Settings") -> GGUFEmbedder:
    """The ``nomic`` or ``gguf`` embedder of ``settings`` (the file is found and checked; not loaded)."""
    runtime = {"n_ctx": settings.embedder_n_ctx, "threads": settings.embedder_threads, "truncate_dim": settings.embedder_dim}
    if settings.embedder == "gguf":
        if not settings.embedder_model:
            raise ConfigError("embedder 'gguf' needs embedder_model (MEMDESK_EMBEDDER_MODEL=/path/model.gguf)")
        return GGUFEmbedder(
            os.path.expanduser(settings.embedder_model), query_prefix=settings.embedder_query_prefix,
            document_prefix=settings.embedder_document_prefix, pooling=settings.embedder_pooling, **runtime,
        )  # fmt: skip
    model = known_model(settings.embedder)
    path = resolve_model_file(model, path=settings.embedder_model, directory=models_dir(settings.models_dir))
    if settings.embedder_model:
        sha = check_known_file(path, model)
    else:
        size = path.stat().st_size
        if size != model.size:  # the install checked the sha256; a truncated or replaced cache shows in its size
            raise ModelFileError(
                f"{path} has {size:,} bytes, not {model.size:,}: reinstall with `memdesk models install {model.name} --force`"
            )
        sha = model.sha256
    name = model.model_id.removesuffix("-q8_0") if sha != model.sha256 else model.model_id
    return GGUFEmbedder(
        path, name=name, sha256=sha, dim=model.dim, query_prefix=model.query_prefix,
        document_prefix=model.document_prefix, pooling=model.pooling, **runtime,
    )  # fmt: skip
