"""The fused read path's per-embedder parameters: chosen by the embedder in use, through the factory."""

from __future__ import annotations

from memdesk.embed import HashingEmbedder
from memdesk.conversation.memory import build_memory
from memdesk.factory import build_retriever
from memdesk.retrieval.profiles import DEFAULT_PROFILE, PROFILES, read_profile
from memdesk.settings import Settings
from memdesk.store import open_store


def test_profiles_are_matched_by_model_name_before_the_file_hash() -> None:
    assert read_profile("nomic-embed-text-v1.5-q8_0@0a4d066fb01b") is PROFILES["nomic-embed-text-v1.5"]
    assert read_profile("nomic-embed-text-v1.5@f7af6f66802f") is PROFILES["nomic-embed-text-v1.5"]
    assert read_profile("all-MiniLM-L6-v2-int8-onnx") is PROFILES["all-MiniLM-L6-v2"]
    assert read_profile("embeddinggemma-300m-q8_0@ca7bb8f25c58") is PROFILES["embeddinggemma-300m"]
    assert read_profile("hashing-256") is DEFAULT_PROFILE and read_profile(None) is DEFAULT_PROFILE


def test_the_factory_passes_the_embedders_profile(tmp_path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'p.db'}")
    try:
        nomic = build_retriever(Settings(), store, "nomic-embed-text-v1.5-q8_0@0a4d066fb01b")
        assert nomic.lexical_weight == PROFILES["nomic-embed-text-v1.5"].lexical_weight
        assert nomic.redundancy_penalty == PROFILES["nomic-embed-text-v1.5"].redundancy_penalty
        assert nomic.indexes.type_prior == PROFILES["nomic-embed-text-v1.5"].type_prior
        minilm = build_retriever(Settings(), store)
        assert (minilm.lexical_weight, minilm.redundancy_penalty) == (DEFAULT_PROFILE.lexical_weight, DEFAULT_PROFILE.redundancy_penalty)
        assert minilm.indexes.type_prior == DEFAULT_PROFILE.type_prior
    finally:
        store.close()
    mem = build_memory(Settings(database_url=f"sqlite:///{tmp_path / 'm.db'}"), embedder=HashingEmbedder())
    try:
        assert mem.retriever.lexical_weight == DEFAULT_PROFILE.lexical_weight
    finally:
        mem.close()
