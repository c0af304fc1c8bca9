"""make_embedder: Settings -> the right embedder, built lazily."""

from __future__ import annotations

import pytest

from memdesk.embed import HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder, make_embedder
from memdesk.errors import ConfigError
from memdesk.settings import Settings


def test_minilm_is_the_default_and_loads_lazily() -> None:
    emb = make_embedder(Settings(embedder="minilm"))
    assert isinstance(emb, MiniLMEmbedder) and not emb.loaded
    assert Settings.model_fields["embedder"].default == "minilm"


def test_hashing() -> None:
    emb = make_embedder(Settings(embedder="hashing"))
    assert isinstance(emb, HashingEmbedder) and emb.model_id == "hashing-256"


def test_openai_needs_a_model() -> None:
    with pytest.raises(ConfigError, match="MEMDESK_EMBEDDING_MODEL"):
        make_embedder(Settings(embedder="openai", llm_base_url="http://localhost:8080/v1"))


def test_openai_endpoint_and_key_fall_back_to_the_llm_ones() -> None:
    s = Settings(
        embedder="openai", embedding_model="nomic-embed", llm_base_url="http://llm:8080/v1", llm_api_key="k-llm"
    )
    emb = make_embedder(s)
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.model_id == "openai:nomic-embed" and emb.base_url == "http://llm:8080/v1"
    assert emb._client.api_key == "k-llm"


def test_openai_specific_settings_win() -> None:
    s = Settings(
        embedder="openai",
        embedding_model="text-embedding-3-small",
        embedding_base_url="http://emb:9000/v1",
        embedding_api_key="k-emb",
        llm_base_url="http://llm:8080/v1",
        llm_api_key="k-llm",
        llm_max_retries=0,
    )
    emb = make_embedder(s)
    assert isinstance(emb, OpenAIEmbedder)
    assert emb.base_url == "http://emb:9000/v1" and emb._client.api_key == "k-emb"
    assert emb._client.max_retries == 0 and emb.dim == 1536


def test_a_commands_embedder_choice_replaces_the_setting_or_keeps_it() -> None:
    from memdesk.embed import named_embedder

    settings = Settings(embedder="hashing")
    assert isinstance(named_embedder("settings", settings), HashingEmbedder)
    assert isinstance(named_embedder("minilm", settings), MiniLMEmbedder)
    assert settings.embedder == "hashing"  # the caller's settings are not changed


def test_every_embedder_name_is_built_or_refused_with_a_config_error() -> None:
    from memdesk.settings import EMBEDDER_NAMES

    assert {"minilm", "nomic", "embeddinggemma", "gguf", "openai"} <= set(EMBEDDER_NAMES)
    for name in EMBEDDER_NAMES:
        try:
            make_embedder(Settings(embedder=name, models_dir="/nonexistent-memdesk-models"))
        except ConfigError as e:  # openai without a model, a GGUF model not installed: refused for a reason
            assert "unknown embedder" not in str(e), name
        except ImportError:
            pass  # an optional extra (multilingual, quality) not installed here
