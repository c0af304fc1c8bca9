"""`memdesk models`: list, verify and install's typed errors (the real install runs in .ci/run)."""

from __future__ import annotations

import json

import pytest

from memdesk.embed.gguf_models import known_model


@pytest.fixture
def models_run(run, tmp_path, monkeypatch):
    monkeypatch.setenv("MEMDESK_MODELS_DIR", str(tmp_path / "models"))
    return run


def test_list_shows_what_is_not_installed_and_how_to_install_it(models_run, tmp_path) -> None:
    out = models_run("models", "list").output
    assert "nomic" in out and "memdesk models install nomic" in out
    listed = json.loads(models_run("models", "list", "--json").output)
    assert listed["models_dir"] == str(tmp_path / "models")
    assert listed["models"][0]["name"] == "nomic" and listed["models"][0]["installed"] is False


def test_verify_refuses_a_file_that_is_not_the_model(models_run, tmp_path) -> None:
    fake = tmp_path / "nomic.gguf"
    fake.write_bytes(b"GGUF something else")
    r = models_run("models", "verify", "nomic", str(fake), ok=False)
    assert r.exit_code != 0 and "is not nomic-embed-text" in r.output


def test_verify_without_an_install_names_the_command(models_run) -> None:
    r = models_run("models", "verify", "nomic", ok=False)
    assert r.exit_code != 0 and "memdesk models install nomic" in r.output


def test_an_unknown_model_is_a_usage_error(models_run) -> None:
    r = models_run("models", "install", "no-such-model", ok=False)
    assert r.exit_code != 0 and "known: embeddinggemma, nomic" in r.output


def test_embeddinggemma_is_refused_without_accepting_the_gemma_terms(models_run, tmp_path) -> None:
    r = models_run("models", "install", "embeddinggemma", ok=False)
    assert r.exit_code != 0 and "TermsNotAcceptedError" in r.output and "--accept-gemma-terms" in r.output
    assert not (tmp_path / "models").exists()  # nothing downloaded or written


def test_list_names_the_terms_flag(models_run) -> None:
    listed = json.loads(models_run("models", "list", "--json").output)
    gemma = next(m for m in listed["models"] if m["name"] == "embeddinggemma")
    assert gemma["install"] == "memdesk models install embeddinggemma --accept-gemma-terms" and gemma["dim"] == 768


def test_an_installed_copy_is_listed(models_run, tmp_path) -> None:
    folder = tmp_path / "models"
    folder.mkdir()
    (folder / known_model("nomic").file_name).write_bytes(b"x")
    listed = json.loads(models_run("models", "list", "--json").output)
    assert listed["models"][0]["installed"] is True
