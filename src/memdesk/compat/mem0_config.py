"""mem0's configuration dict mapped onto memdesk settings (what ``Memory.from_config`` reads).

What maps: ``vector_store`` provider ``pgvector`` (PostgreSQL + pgvector, memdesk's server backend), ``llm``
and ``embedder`` providers that speak the OpenAI API (``openai``, ``ollama``, ``lmstudio``, ``vllm``), the
``huggingface`` embedder when it names the MiniLM model memdesk packages, ``version: v1.1``. memdesk's own
settings go under a ``memdesk`` key (``{"memdesk": {"database_url": "sqlite:///memories.db"}}``).
Everything else is a :class:`~memdesk.errors.ConfigError` that says what to do instead; sampling knobs
memdesk does not use (``temperature``, ``max_tokens``, ...) are dropped with a logged warning.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any, Mapping
from urllib.parse import quote

from ..errors import ConfigError

__all__ = ["MappedConfig", "map_config"]

log = logging.getLogger(__name__)

#: provider -> (the key mem0 names its endpoint with, the endpoint when unset, env var of its key)
_OPENAI_LIKE = {
    "openai": ("openai_base_url", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    "ollama": ("ollama_base_url", "http://localhost:11434", None),
    "lmstudio": ("lmstudio_base_url", "http://localhost:1234/v1", None),
    "vllm": ("vllm_base_url", "http://localhost:8000/v1", None),
}
_MINILM = {"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2", "all-minilm"}
_UNUSED_KNOBS = {"temperature", "max_tokens", "top_p", "top_k", "hnsw", "diskann", "minconn", "maxconn"}
_TOP_LEVEL = {"vector_store", "llm", "embedder", "version", "reranker", "graph_store", "memdesk",
              "history_db_path", "custom_instructions", "custom_fact_extraction_prompt", "custom_update_memory_prompt"}


@dataclass
class MappedConfig:
    """memdesk setting overrides read from a mem0 config, and the embedding size it asks for (if any)."""

    settings: dict[str, Any] = field(default_factory=dict)
    embedding_dims: int | None = None


def map_config(config: Mapping[str, Any] | Any) -> MappedConfig:
    """The memdesk settings a mem0 config dict (or a mem0 ``MemoryConfig``: anything with ``model_dump``) asks for."""
    if hasattr(config, "model_dump") and not isinstance(config, Mapping):
        config = config.model_dump(exclude_none=True)
    if not isinstance(config, Mapping):
        raise ConfigError(f"a mem0 config is a dict, not {type(config).__name__}")
    unknown = sorted(set(config) - _TOP_LEVEL)
    if unknown:
        raise ConfigError(f"unknown mem0 config keys {unknown}; memdesk maps {sorted(_TOP_LEVEL)}")
    out = MappedConfig()
    if config.get("history_db_path") is not None:
        raise ConfigError(
            "history_db_path: memdesk keeps every memory's history in its own database beside the memories; "
            "drop it and say where the database goes with {'memdesk': {'database_url': 'sqlite:///PATH'}}"
        )
    for key in ("custom_instructions", "custom_fact_extraction_prompt", "custom_update_memory_prompt"):
        if config.get(key):
            raise ConfigError(f"{key}: memdesk's processors take no free-text prompt; drop it")
    if config.get("version", "v1.1") != "v1.1":
        raise ConfigError(f"version {config['version']!r}: memdesk returns mem0's v1.1 shapes only ({{'results': [...]}})")
    if config.get("reranker"):
        raise ConfigError("reranker: memdesk ranks by its typed retrieval (hybrid BM25 with memdesk.hybrid); drop it")
    graph = config.get("graph_store")
    if graph and (graph.get("provider") if isinstance(graph, Mapping) else True):
        raise ConfigError("graph_store: memdesk has no graph memory; drop it")
    vector_store = _section(config, "vector_store")
    if vector_store:
        _vector_store(vector_store, out)
    llm = _section(config, "llm")
    if llm:
        out.settings.update(_openai_like(llm, "llm"))
        out.settings["processor"] = "llm"
    embedder = _section(config, "embedder")
    if embedder:
        _embedder(embedder, out)
    own = config.get("memdesk") or {}
    if not isinstance(own, Mapping):
        raise ConfigError("memdesk: a dict of memdesk settings, e.g. {'database_url': 'sqlite:///memories.db'}")
    clash = sorted(set(own) & set(out.settings))
    if clash:
        raise ConfigError(f"{clash} set both by the mem0 config and under 'memdesk'")
    out.settings.update(own)
    return out


def _section(config: Mapping[str, Any], name: str) -> tuple[str, dict[str, Any]] | None:
    section = config.get(name)
    if not section:
        return None
    if not isinstance(section, Mapping) or not isinstance(section.get("provider"), str):
        raise ConfigError(f"{name}: expected {{'provider': '...', 'config': {{...}}}}")
    options = section.get("config") or {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"{name}.config must be a dict")
    return section["provider"], {k: v for k, v in options.items() if v is not None}


def _drop_unused(name: str, options: dict[str, Any]) -> dict[str, Any]:
    unused = sorted(set(options) & _UNUSED_KNOBS)
    if unused:
        log.warning("mem0 config %s: memdesk does not use %s; ignored", name, unused)
    return {k: v for k, v in options.items() if k not in _UNUSED_KNOBS}


def _leftover(name: str, options: dict[str, Any], used: set[str]) -> None:
    rest = sorted(set(options) - used)
    if rest:
        raise ConfigError(f"mem0 config {name}: memdesk has no equivalent of {rest}")


def _vector_store(section: tuple[str, dict[str, Any]], out: MappedConfig) -> None:
    provider, options = section
    options = _drop_unused("vector_store", options)
    if provider != "pgvector":
        raise ConfigError(
            f"vector_store provider {provider!r}: memdesk stores memories in SQLite (the default: drop vector_store) "
            "or PostgreSQL with pgvector (provider 'pgvector')"
        )
    if options.get("collection_name", "mem0") != "mem0":
        raise ConfigError("vector_store collection_name: memdesk keeps one collection per database; use one database each")
    if "embedding_model_dims" in options:
        out.embedding_dims = int(options["embedding_model_dims"])
    if "connection_string" in options:
        url = str(options["connection_string"])
    elif "dbname" in options:
        auth = quote(str(options.get("user", "")), safe="")
        if options.get("password"):
            auth += ":" + quote(str(options["password"]), safe="")
        host = f"{options.get('host', 'localhost')}:{options.get('port', 5432)}"
        url = f"postgresql://{auth + '@' if auth else ''}{host}/{options['dbname']}"
        if options.get("sslmode"):
            url += f"?sslmode={options['sslmode']}"
    else:
        raise ConfigError("vector_store pgvector: give connection_string, or dbname (with user, password, host, port)")
    _leftover("vector_store", options, {"connection_string", "dbname", "user", "password", "host", "port", "sslmode",
                                        "collection_name", "embedding_model_dims"})
    out.settings["database_url"] = url


def _openai_like(section: tuple[str, dict[str, Any]], name: str) -> dict[str, Any]:
    provider, options = section
    options = _drop_unused(name, options)
    if provider not in _OPENAI_LIKE or (name == "embedder" and provider == "vllm"):
        raise ConfigError(
            f"{name} provider {provider!r}: memdesk speaks the OpenAI API (providers openai, ollama, lmstudio"
            f"{', vllm' if name == 'llm' else ''}); point one of them at an OpenAI-compatible endpoint"
        )
    url_key, default_url, key_env = _OPENAI_LIKE[provider]
    if not options.get("model"):
        raise ConfigError(f"{name} provider {provider!r} needs config.model")
    url = str(options.get(url_key, default_url)).rstrip("/")
    if provider == "ollama" and not url.endswith("/v1"):
        url += "/v1"  # ollama's OpenAI-compatible endpoint
    api_key = options.get("api_key") or (os.environ.get(key_env) if key_env else None)
    _leftover(name, options, {"model", "api_key", url_key, "embedding_dims"})
    prefix = "llm" if name == "llm" else "embedding"
    mapped: dict[str, Any] = {f"{prefix}_base_url": url, f"{prefix}_api_key": api_key}
    mapped["llm_model" if name == "llm" else "embedding_model"] = str(options["model"])
    return mapped


def _embedder(section: tuple[str, dict[str, Any]], out: MappedConfig) -> None:
    provider, options = section
    if "embedding_dims" in options:
        out.embedding_dims = int(options["embedding_dims"])
    if provider == "huggingface":
        model = str(options.get("model", "")).lower()
        if model not in _MINILM:
            raise ConfigError(
                f"embedder huggingface model {options.get('model')!r}: memdesk packages all-MiniLM-L6-v2 (ONNX); "
                "other models through an OpenAI-compatible endpoint (provider openai with openai_base_url)"
            )
        _leftover("embedder", options, {"model", "embedding_dims"})
        out.settings["embedder"] = "minilm"
        return
    out.settings.update(_openai_like((provider, options), "embedder"))
    out.settings["embedder"] = "openai"
