"""Choosing a GGUF embedder in the settings: nomic from the models folder or a given file (checked
against its pins), the generic form with its prefixes and pooling; typed errors. No model is loaded."""

from __future__ import annotations

from pathlib import Path

import pytest

from memdesk.embed import GGUFEmbedder, OpenAIEmbedder, make_embedder
from memdesk.embed.gguf import set_passive_omp
from memdesk.embed.gguf_models import file_sha256, known_model
from memdesk.errors import ConfigError, InvalidInputError, ModelFileError, ModelNotInstalledError
from memdesk.settings import Settings


def _file(tmp_path: Path, content: bytes = b"GGUF not really a model") -> Path:
    p = tmp_path / "my-model.gguf"
    p.write_bytes(content)
    return p


def test_generic_gguf_takes_path_prefixes_pooling_and_names_itself_by_hash(tmp_path: Path) -> None:
    path = _file(tmp_path)
    emb = make_embedder(Settings(embedder="gguf", embedder_model=str(path), embedder_query_prefix="query: ",
                                 embedder_document_prefix="passage: ", embedder_pooling="cls", embedder_threads=3))  # fmt: skip
    assert isinstance(emb, GGUFEmbedder) and not emb.loaded
    assert (emb.query_prefix, emb.document_prefix, emb.pooling, emb.threads) == ("query: ", "passage: ", "cls", 3)
    assert emb.model_id == f"my-model@{file_sha256(path)[:12]}"
    path.write_bytes(b"GGUF another file")
    assert make_embedder(Settings(embedder="gguf", embedder_model=str(path))).model_id != emb.model_id


def test_generic_gguf_needs_a_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MEMDESK_EMBEDDER_MODEL"):
        make_embedder(Settings(embedder="gguf"))
    with pytest.raises(ConfigError, match="no such file"):
        make_embedder(Settings(embedder="gguf", embedder_model=str(tmp_path / "absent.gguf")))


def test_pooling_is_checked() -> None:
    with pytest.raises(ConfigError):
        Settings.load(embedder="gguf", embedder_pooling="max")
    with pytest.raises(InvalidInputError, match="pooling"):
        GGUFEmbedder(__file__, pooling="max")


def test_nomic_not_installed_names_the_install_command(tmp_path: Path) -> None:
    with pytest.raises(ModelNotInstalledError, match="memdesk models install nomic"):
        make_embedder(Settings(embedder="nomic", models_dir=str(tmp_path)))


def test_nomic_from_a_users_file_is_checked_against_the_pins(tmp_path: Path) -> None:
    path = _file(tmp_path)
    with pytest.raises(ModelFileError, match="is not nomic-embed-text"):
        make_embedder(Settings(embedder="nomic", embedder_model=str(path)))


def test_an_installed_nomic_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    (tmp_path / known_model("nomic").file_name).write_bytes(b"GGUF truncated")
    with pytest.raises(ModelFileError, match="--force"):
        make_embedder(Settings(embedder="nomic", models_dir=str(tmp_path)))


def test_openai_embedder_takes_the_prefixes() -> None:
    emb = make_embedder(Settings(embedder="openai", embedding_model="nomic-embed-text", embedding_base_url="http://x/v1",
                                 embedder_query_prefix="search_query: ", embedder_document_prefix="search_document: "))  # fmt: skip
    assert isinstance(emb, OpenAIEmbedder) and emb.query_prefix == "search_query: "


def test_passive_omp_keeps_a_users_choice() -> None:
    env: dict[str, str] = {}
    assert set_passive_omp(env) and env["OMP_WAIT_POLICY"] == "PASSIVE"
    env = {"OMP_WAIT_POLICY": "ACTIVE"}
    assert not set_passive_omp(env) and env["OMP_WAIT_POLICY"] == "ACTIVE"


def test_truncation_is_part_of_the_identity_and_cannot_exceed_the_model(tmp_path: Path) -> None:
    path = _file(tmp_path)
    emb = make_embedder(Settings(embedder="gguf", embedder_model=str(path), embedder_dim=128))
    assert isinstance(emb, GGUFEmbedder) and emb.model_id.endswith("/d128")
    nomic_dir = tmp_path / "models"
    nomic_dir.mkdir()
    with open(nomic_dir / known_model("nomic").file_name, "wb") as f:
        f.truncate(known_model("nomic").size)  # the right size; only the size is checked for an installed copy
    wide = make_embedder(Settings(embedder="nomic", models_dir=str(nomic_dir), embedder_dim=1024))
    with pytest.raises(ConfigError, match="wider than"):
        _ = wide.dim
    assert make_embedder(Settings(embedder="nomic", models_dir=str(nomic_dir), embedder_dim=256)).dim == 256
