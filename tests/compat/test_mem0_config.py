"""Memory.from_config: mem0 config dicts mapped onto memdesk settings, and a clear ConfigError for the rest."""

from __future__ import annotations

import logging

import pytest

from memdesk.compat.mem0 import Memory
from memdesk.compat.mem0_config import map_config
from memdesk.errors import ConfigError
from tests.pg_server import session_server


def test_pgvector_openai_llm_and_embedder_map_onto_settings(monkeypatch, caplog):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    with caplog.at_level(logging.WARNING, logger="memdesk.compat.mem0_config"):
        mapped = map_config({
            "vector_store": {"provider": "pgvector", "config": {
                "dbname": "mem", "user": "ana", "password": "p@ss word", "host": "db", "port": 5433,
                "collection_name": "mem0", "embedding_model_dims": 1536, "hnsw": True}},
            "llm": {"provider": "openai", "config": {"model": "gpt-4o-mini", "temperature": 0.1}},
            "embedder": {"provider": "ollama", "config": {"model": "nomic-embed-text", "ollama_base_url": "http://gpu:11434"}},
            "version": "v1.1",
        })
    assert mapped.settings == {
        "database_url": "postgresql://ana:p%40ss%20word@db:5433/mem",
        "llm_base_url": "https://api.openai.com/v1", "llm_api_key": "sk-from-env", "llm_model": "gpt-4o-mini",
        "processor": "llm",
        "embedder": "openai", "embedding_base_url": "http://gpu:11434/v1", "embedding_api_key": None,
        "embedding_model": "nomic-embed-text",
    }
    assert mapped.embedding_dims == 1536
    assert "temperature" in caplog.text and "hnsw" in caplog.text


def test_huggingface_minilm_and_memdesk_settings_map():
    mapped = map_config({"embedder": {"provider": "huggingface", "config": {"model": "sentence-transformers/all-MiniLM-L6-v2"}},
                         "memdesk": {"database_url": "sqlite:///x.db", "hybrid": True}})
    assert mapped.settings == {"embedder": "minilm", "database_url": "sqlite:///x.db", "hybrid": True}


@pytest.mark.parametrize(
    "config, says",
    [
        ({"vector_store": {"provider": "qdrant", "config": {"path": "/tmp/qdrant"}}}, "SQLite"),
        ({"vector_store": {"provider": "pgvector", "config": {"dbname": "m", "collection_name": "other"}}}, "one collection"),
        ({"vector_store": {"provider": "pgvector", "config": {"dbname": "m", "diskann_extra": 1}}}, "no equivalent"),
        ({"llm": {"provider": "anthropic", "config": {"model": "claude"}}}, "OpenAI API"),
        ({"llm": {"provider": "openai", "config": {}}}, "config.model"),
        ({"embedder": {"provider": "huggingface", "config": {"model": "BAAI/bge-m3"}}}, "MiniLM"),
        ({"embedder": {"provider": "vllm", "config": {"model": "e5"}}}, "OpenAI API"),
        ({"history_db_path": "/tmp/history.db"}, "own database"),
        ({"reranker": {"provider": "cohere"}}, "reranker"),
        ({"graph_store": {"provider": "neo4j"}}, "graph"),
        ({"custom_instructions": "Only extract sports"}, "prompt"),
        ({"version": "v1.0"}, "v1.1"),
        ({"vectorstore": {}}, "unknown"),
        ({"llm": "openai"}, "provider"),
        ({"memdesk": {"database_url": "sqlite:///a.db"},
          "vector_store": {"provider": "pgvector", "config": {"connection_string": "postgresql://h/db"}}}, "both"),
        ("openai", "dict"),
    ],
)
def test_what_does_not_map_is_a_config_error_saying_what_to_do(config, says):
    with pytest.raises(ConfigError, match=says):
        Memory.from_config(config)


def test_a_dimension_the_embedder_does_not_give_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="384"):
        Memory.from_config({"embedder": {"provider": "huggingface", "config": {"model": "all-MiniLM-L6-v2", "embedding_dims": 768}},
                            "memdesk": {"database_url": f"sqlite:///{tmp_path}/d.db"}})


@pytest.mark.postgres
def test_from_config_with_pgvector_runs_on_postgresql(request):
    from memdesk.store.postgres import PostgresStore

    url = session_server(request.config).fresh_database()
    with Memory.from_config({"vector_store": {"provider": "pgvector", "config": {"connection_string": url}}}) as m:
        assert isinstance(m.memory.store, PostgresStore)
        rid = m.add("I keep bees on the roof.", user_id="alex", infer=False)["results"][0]["id"]
        assert m.search("What does Alex keep?", filters={"user_id": "alex"})["results"][0]["id"] == rid
        assert m.get(rid, user_id="sam") is None
        m.delete_all(user_id="alex")
        assert m.get_all(user_id="alex")["results"] == []
