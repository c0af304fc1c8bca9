"""EmbeddingGemma-300M through the GGUF embedder, for real (installed by `memdesk models install
embeddinggemma --accept-gemma-terms`; CI does not install it, so these tests skip there and wherever it
is missing): its prefixes, identity, ranking, and a store written by another model refused."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.conversation.memory import Memory
from memdesk.conversation.raw import RawTurnProcessor
from memdesk.embed import GGUFEmbedder, HashingEmbedder, embed_queries, make_embedder
from memdesk.errors import EmbeddingMismatchError
from memdesk.records import Scope
from memdesk.retrieval.profiles import DEFAULT_PROFILE, read_profile
from memdesk.settings import Settings
from memdesk.store import open_store
from tests.gguf_model import embeddinggemma_file

DOCS = [
    "Priya: I finally repaired the old sailboat and took it out on the lake.",
    "Priya: My sister sent me a recipe for lentil soup with cumin.",
    "Tomas: The quarterly budget review moved to next Thursday.",
]


@pytest.fixture(scope="module")
def gemma() -> GGUFEmbedder:
    embeddinggemma_file()
    emb = make_embedder(Settings(embedder="embeddinggemma", embedder_threads=2))
    assert isinstance(emb, GGUFEmbedder)
    return emb


def test_identity_width_prefixes_and_profile(gemma: GGUFEmbedder) -> None:
    assert gemma.model_id == "embeddinggemma-300m-q8_0@ca7bb8f25c58" and gemma.dim == 768
    assert gemma.query_prefix == "task: search result | query: " and gemma.document_prefix == "title: none | text: "
    assert read_profile(gemma.model_id) != DEFAULT_PROFILE


def test_vectors_are_unit_and_rank_the_right_text_first(gemma: GGUFEmbedder) -> None:
    docs = gemma.embed(DOCS)
    assert docs.shape == (3, 768) and np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-5)
    q = embed_queries(gemma, ["What boat did Priya fix?", "what soup", "when is the budget meeting"])
    assert list(np.argmax(q @ docs.T, axis=1)) == [0, 1, 2]
    as_query = gemma.embed_query([DOCS[0]])[0]
    assert float(as_query @ docs[0]) < 0.999  # the query prompt reaches the model


def test_a_store_written_by_another_model_is_refused(tmp_path, gemma: GGUFEmbedder) -> None:
    url = f"sqlite:///{tmp_path / 'm.db'}"
    mem = Memory(open_store(url), HashingEmbedder(), RawTurnProcessor())
    mem.add([{"content": "Ana keeps bees on the roof"}], scope=Scope(user_id="ana"))
    mem.close()
    with pytest.raises(EmbeddingMismatchError, match="embeddinggemma-300m-q8_0@ca7bb8f25c58"):
        other = Memory(open_store(url), gemma, RawTurnProcessor())
        other.add([{"content": "Ana sails on Sundays"}], scope=Scope(user_id="ana"))
