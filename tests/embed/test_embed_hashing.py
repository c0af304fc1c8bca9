"""HashingEmbedder: determinism, shape, normalization, word-overlap similarity."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memdesk.embed import Embedder, HashingEmbedder
from memdesk.errors import ConfigError, EmptyInputError, InvalidInputError


def test_protocol_shape_and_model_id() -> None:
    emb = HashingEmbedder(dim=64)
    assert isinstance(emb, Embedder)
    assert emb.model_id == "hashing-64"
    assert HashingEmbedder().dim == 256
    out = emb.embed(["hello world", "another text here"])
    assert out.shape == (2, 64) and out.dtype == np.float32


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=60), min_size=0, max_size=8))
def test_rows_are_unit_or_zero(texts: list[str]) -> None:
    out = HashingEmbedder(dim=32).embed(texts)
    assert out.shape == (len(texts), 32)
    norms = np.linalg.norm(out, axis=1)
    for text, norm in zip(texts, norms):
        has_word = any(ch.isalnum() or ch == "_" for ch in text)
        assert norm == pytest.approx(1.0, abs=1e-5) if has_word else norm == 0.0


def test_deterministic_across_instances_and_processes() -> None:
    text = "Alice moved to Lisbon in March 2023"
    here = HashingEmbedder().embed_one(text)
    assert np.array_equal(here, HashingEmbedder().embed_one(text))
    code = (
        "import sys, numpy as np; from memdesk.embed import HashingEmbedder; "
        f"sys.stdout.write(HashingEmbedder().embed_one({text!r}).tobytes().hex())"
    )
    # A different PYTHONHASHSEED would change Python's hash(); blake2b must not care.
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    assert np.array_equal(np.frombuffer(bytes.fromhex(other), dtype=np.float32), here)


def test_case_insensitive_and_overlap_tracks_similarity() -> None:
    emb = HashingEmbedder()
    a, b, c = emb.embed(["My dog likes long walks", "my DOG likes long walks!", "Quarterly tax filing deadline"])
    assert float(a @ b) == pytest.approx(1.0, abs=1e-6)
    near = emb.embed_one("my dog likes short walks")
    assert float(a @ near) > 0.5 > abs(float(a @ c))


def test_bigrams_distinguish_word_order() -> None:
    emb = HashingEmbedder()
    x, y = emb.embed(["dog bites man", "man bites dog"])
    assert float(x @ y) < 0.99
    unigram_only = HashingEmbedder(bigram_weight=0)
    assert unigram_only.model_id != emb.model_id
    x, y = unigram_only.embed(["dog bites man", "man bites dog"])
    assert float(x @ y) == pytest.approx(1.0, abs=1e-6)


def test_bad_inputs() -> None:
    emb = HashingEmbedder()
    assert emb.embed([]).shape == (0, 256)
    with pytest.raises(InvalidInputError):
        emb.embed("a string, not a list")
    with pytest.raises(InvalidInputError):
        emb.embed(["ok", 3])  # type: ignore[list-item]
    with pytest.raises(EmptyInputError):
        emb.embed_one("   ")
    with pytest.raises(ConfigError):
        HashingEmbedder(dim=1)
