"""BaseEmbedder's conveniences: batching, normalization, and a text given twice embedded once."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.embed.base import BaseEmbedder
from memdesk.errors import InvalidInputError


class CountingEmbedder(BaseEmbedder):
    """Vectors from the letters of each text; records every batch the model is asked for."""

    model_id = "counting"
    dim = 26
    batch_size = 2

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        self.batches.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                if "a" <= ch <= "z":
                    out[i, ord(ch) - 97] += 1.0
        return out * 3.0  # not unit: the base class normalizes


def test_a_repeated_text_is_embedded_once_and_every_row_keeps_its_place() -> None:
    emb = CountingEmbedder()
    texts = ["the red kite", "a heron", "the red kite", "owls at dusk", "a heron", "the red kite"]
    out = emb.embed(texts)
    asked = [t for b in emb.batches for t in b]
    assert sorted(asked) == sorted(set(texts)) and len(asked) == 3
    assert all(len(b) <= emb.batch_size for b in emb.batches)
    alone = np.vstack([CountingEmbedder().embed([t]) for t in texts])
    assert out.shape == (6, 26) and np.allclose(out, alone)
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0)


def test_distinct_texts_go_in_order_in_batches() -> None:
    emb = CountingEmbedder()
    emb.embed(["one", "two", "three"])
    assert emb.batches == [["one", "two"], ["three"]]


def test_empty_input_and_a_bare_string() -> None:
    emb = CountingEmbedder()
    assert emb.embed([]).shape == (0, 26) and emb.batches == []
    with pytest.raises(InvalidInputError):
        emb.embed("one string")  # type: ignore[arg-type]
