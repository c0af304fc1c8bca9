"""The GGUF embedder on the real nomic model (installed by `memdesk models install nomic`; CI fails
without it, elsewhere these tests skip): vectors, prefixes, identity, long texts, a store written by
another model refused, and the same model through an OpenAI-compatible server started here."""

from __future__ import annotations

import json

import numpy as np
import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import GGUFEmbedder, HashingEmbedder, OpenAIEmbedder, embed_queries, make_embedder
from memdesk.errors import EmbeddingMismatchError
from memdesk.records import Scope
from memdesk.settings import Settings
from memdesk.store import open_store
from tests.gguf_model import nomic_file

DOCS = [
    "Priya: I finally repaired the old sailboat and took it out on the lake.",
    "Priya: My sister sent me a recipe for lentil soup with cumin.",
    "Tomas: The quarterly budget review moved to next Thursday.",
]


@pytest.fixture(scope="module")
def nomic() -> GGUFEmbedder:
    nomic_file()
    emb = make_embedder(Settings(embedder="nomic", embedder_threads=2))
    assert isinstance(emb, GGUFEmbedder)
    return emb


def test_vectors_are_unit_768d_and_rank_the_right_text_first(nomic: GGUFEmbedder) -> None:
    assert not nomic.loaded
    docs = nomic.embed(DOCS)
    assert docs.shape == (3, 768) and docs.dtype == np.float32 and nomic.loaded
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    q = embed_queries(nomic, ["What boat did Priya fix?", "what soup"])
    assert list(np.argmax(q @ docs.T, axis=1)) == [0, 1]


def test_queries_and_documents_get_their_own_prefixes(nomic: GGUFEmbedder) -> None:
    as_doc = nomic.embed(["a walk in the park"])[0]
    as_query = nomic.embed_query(["a walk in the park"])[0]
    assert float(as_doc @ as_query) < 0.999  # different prefixes reach the model
    assert float(as_doc @ nomic.embed(["a walk in the park"])[0]) > 0.9999  # and it is deterministic


def test_identity_names_the_file_and_batches_match_single_calls(nomic: GGUFEmbedder) -> None:
    assert nomic.model_id == "nomic-embed-text-v1.5-q8_0@0a4d066fb01b" and nomic.dim == 768
    one_by_one = np.vstack([nomic.embed([d]) for d in DOCS])
    assert np.allclose(one_by_one, nomic.embed(DOCS), atol=1e-3)


def test_a_text_longer_than_the_context_is_shortened_not_refused(caplog: pytest.LogCaptureFixture) -> None:
    short = GGUFEmbedder(nomic_file(), n_ctx=64, threads=2, query_prefix="search_query: ", document_prefix="search_document: ")
    text = "the lighthouse keeper wrote in his log every night " * 40
    with caplog.at_level("WARNING"):
        v = short.embed([text, "short text"])
    assert v.shape == (2, 768) and "longer than the embedder's context" in caplog.text
    short.close()
    assert not short.loaded
    assert np.allclose(short.embed(["short text"])[0], v[1], atol=1e-4)  # loads again


def test_a_store_written_by_another_model_is_refused(tmp_path, nomic: GGUFEmbedder) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    mem = Memory(open_store(url), HashingEmbedder(), RawTurnProcessor())
    mem.add([{"content": "Ana keeps bees on the roof"}], scope=Scope(user_id="ana"))
    mem.close()
    with pytest.raises(EmbeddingMismatchError, match="nomic-embed-text-v1.5-q8_0@0a4d066fb01b"):
        other = Memory(open_store(url), nomic, RawTurnProcessor())
        other.add([{"content": "Ana sails on Sundays"}], scope=Scope(user_id="ana"))


def test_the_same_model_behind_an_openai_compatible_server(nomic: GGUFEmbedder) -> None:
    """llama.cpp's own server (xllamacpp, started here on a free loopback port) + OpenAIEmbedder with
    nomic's prefixes gives the in-process vectors."""
    import xllamacpp as xlc

    p = xlc.CommonParams()
    p.model.path = str(nomic.path)
    p.embedding = True
    p.n_ctx = p.n_batch = p.n_ubatch = 2048
    p.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
    p.model_alias = {"nomic-embed-text"}
    p.hostnames = ["127.0.0.1"]
    p.cpuparams.n_threads = p.cpuparams_batch.n_threads = 2
    p.api_keys = ["test-key-for-this-server-only"]
    p.verbosity = -1
    server = xlc.Server(p)
    emb = OpenAIEmbedder(
        "nomic-embed-text", base_url=f"{server.listening_address}/v1", api_key="test-key-for-this-server-only",
        query_prefix="search_query: ", document_prefix="search_document: ", max_retries=0,
    )  # fmt: skip
    try:
        remote_docs, remote_q = emb.embed(DOCS), emb.embed_query(["What boat did Priya fix?"])
    finally:
        emb.close()
        del server
    assert remote_docs.shape == (3, 768)
    assert np.min(np.sum(remote_docs * nomic.embed(DOCS), axis=1)) > 0.999
    assert float(remote_q[0] @ nomic.embed_query(["What boat did Priya fix?"])[0]) > 0.999


def test_reembed_moves_a_small_store_to_nomic(run, monkeypatch: pytest.MonkeyPatch) -> None:
    """`memdesk reembed --embedder nomic` on a store written with another embedder; then nomic reads it
    and the old embedder is refused."""
    nomic_file()
    for text in DOCS:
        run("add", text, "--user", "priya")
    got = json.loads(run("reembed", "--embedder", "nomic", "--json").output)
    assert got["reembedded"] >= len(DOCS) and got["embedder"] == "nomic"
    monkeypatch.setenv("MEMDESK_EMBEDDER", "nomic")
    top = run("search", "Which boat was repaired?", "--user", "priya").output.strip().splitlines()[0]
    assert "sailboat" in top
    monkeypatch.setenv("MEMDESK_EMBEDDER", "hashing")
    refused = run("search", "boat", "--user", "priya", ok=False)
    assert refused.exit_code != 0 and "reembed" in refused.output


def test_matryoshka_truncation_keeps_the_leading_dimensions_renormalized(nomic: GGUFEmbedder) -> None:
    short = make_embedder(Settings(embedder="nomic", embedder_dim=256, embedder_threads=2))
    assert isinstance(short, GGUFEmbedder)
    assert short.dim == 256 and short.model_id == nomic.model_id + "/d256"
    full, cut = nomic.embed(DOCS), short.embed(DOCS)
    assert cut.shape == (3, 256) and np.allclose(np.linalg.norm(cut, axis=1), 1.0, atol=1e-5)
    expected = full[:, :256] / np.linalg.norm(full[:, :256], axis=1, keepdims=True)
    assert np.allclose(cut, expected, atol=1e-4)
    assert short.embed_query(["What boat did Priya fix?"]).shape == (1, 256)
