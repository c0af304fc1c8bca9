"""EmbeddingGemma's folder -> GGUF conversion (no torch), on a tiny folder of our own: the file has
llama.cpp's gemma-embedding layout (names, Gemma's +1 norms, Dense projections, tokenizer), the
quantization rule holds, the output is deterministic, and llama.cpp loads and runs it."""

from __future__ import annotations

import numpy as np
import pytest

from memdesk.embed.gemma_convert import (
    convert_folder,
    read_safetensors,
    read_sentencepiece,
)
from memdesk.embed.gguf_models import file_sha256
from memdesk.errors import ModelFileError
from tests.embed.gemma_folder import (
    DENSE,
    HIDDEN,
    LAYERS,
    PIECES,
    VOCAB,
    write_folder,
    write_safetensors,
)

gguf = pytest.importorskip("gguf")


def _reader(path):
    reader = gguf.GGUFReader(str(path))
    fields = {name: f.contents() for name, f in reader.fields.items() if not name.startswith("GGUF.")}
    return reader, fields, {t.name: t for t in reader.tensors}


def test_the_sentencepiece_protobuf_is_read_by_hand(tmp_path) -> None:
    folder = tmp_path / "m"
    write_folder(folder)
    pieces = read_sentencepiece(folder / "tokenizer.model")
    assert [p.decode() for p, _s, _k in pieces] == PIECES
    assert pieces[5][1] == -5.0 and [k for _p, _s, k in pieces[:5]] == [3, 3, 3, 2, 6]


def test_safetensors_are_read_in_f32_and_bf16(tmp_path) -> None:
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 8
    write_safetensors(tmp_path / "f.safetensors", {"x": a})
    write_safetensors(tmp_path / "b.safetensors", {"x": a}, dtype="BF16")
    assert np.array_equal(read_safetensors(tmp_path / "f.safetensors")["x"], a)
    assert np.allclose(read_safetensors(tmp_path / "b.safetensors")["x"], a)  # these values are exact in bf16
    (tmp_path / "bad.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00not json at all!")
    with pytest.raises(ModelFileError):
        read_safetensors(tmp_path / "bad.safetensors")


def test_the_file_has_llama_cpps_gemma_embedding_layout(tmp_path) -> None:
    tensors = write_folder(tmp_path / "m")
    convert_folder(tmp_path / "m", tmp_path / "f32.gguf", "f32")
    reader, fields, by_name = _reader(tmp_path / "f32.gguf")
    assert fields["general.architecture"] == "gemma-embedding"
    assert fields["gemma-embedding.block_count"] == LAYERS and fields["gemma-embedding.embedding_length"] == HIDDEN
    assert fields["gemma-embedding.attention.sliding_window"] == 16
    assert fields["gemma-embedding.dense_2_feat_in"] == HIDDEN and fields["gemma-embedding.dense_2_feat_out"] == DENSE
    assert fields["gemma-embedding.dense_3_feat_in"] == DENSE and fields["gemma-embedding.dense_3_feat_out"] == HIDDEN
    assert fields["gemma-embedding.pooling_type"] == int(gguf.PoolingType.MEAN)
    assert fields["tokenizer.ggml.model"] == "llama" and fields["tokenizer.ggml.add_space_prefix"] is False
    assert fields["tokenizer.ggml.bos_token_id"] == 2 and fields["tokenizer.ggml.eos_token_id"] == 1
    assert fields["tokenizer.ggml.add_bos_token"] is True and fields["tokenizer.ggml.add_eos_token"] is True
    tokens, types = fields["tokenizer.ggml.tokens"], fields["tokenizer.ggml.token_type"]
    assert len(tokens) == VOCAB and tokens[-1] == f"[PAD{VOCAB - 1}]"
    assert types[:5] == [3, 3, 3, 2, 6] and types[len(PIECES) - 1] == 1
    assert tokens[len(PIECES)] == "<start_of_turn>" and types[len(PIECES)] == 3  # a special added token: control
    assert tokens[len(PIECES) + 1] == " custom" and types[len(PIECES) + 1] == 4  # user-defined, spaces pre-normalized
    # Gemma's RMS norms scale by (1 + weight): the converter stores weight + 1; matrices are kept as they are
    assert np.allclose(by_name["blk.0.attn_q_norm.weight"].data, tensors["layers.0.self_attn.q_norm.weight"] + 1)
    assert np.allclose(by_name["output_norm.weight"].data, tensors["norm.weight"] + 1)
    assert np.array_equal(by_name["blk.1.ffn_down.weight"].data, tensors["layers.1.mlp.down_proj.weight"])
    assert np.array_equal(by_name["token_embd.weight"].data, tensors["embed_tokens.weight"])
    assert by_name["dense_2.weight"].data.shape == (DENSE, HIDDEN) and by_name["dense_3.weight"].data.shape == (HIDDEN, DENSE)
    assert len(reader.tensors) == 2 + 13 * LAYERS + 2


def test_q8_0_quantizes_weight_matrices_only_and_is_deterministic(tmp_path) -> None:
    write_folder(tmp_path / "m")
    convert_folder(tmp_path / "m", tmp_path / "a.gguf", "q8_0")
    convert_folder(tmp_path / "m", tmp_path / "b.gguf", "q8_0")
    assert file_sha256(tmp_path / "a.gguf") == file_sha256(tmp_path / "b.gguf")
    fields, by_name = _reader(tmp_path / "a.gguf")[1:]
    q8, f32 = gguf.GGMLQuantizationType.Q8_0, gguf.GGMLQuantizationType.F32
    assert fields["general.file_type"] == int(gguf.LlamaFileType.MOSTLY_Q8_0)
    for name in ("token_embd.weight", "blk.0.attn_q.weight", "blk.1.ffn_down.weight", "dense_2.weight", "dense_3.weight"):
        assert by_name[name].tensor_type == q8, name
    for name in ("output_norm.weight", "blk.0.attn_k_norm.weight", "blk.1.post_ffw_norm.weight"):
        assert by_name[name].tensor_type == f32, name
    convert_folder(tmp_path / "m", tmp_path / "h.gguf", "f16")
    _r, _f, halves = _reader(tmp_path / "h.gguf")
    assert halves["blk.0.attn_q.weight"].tensor_type == gguf.GGMLQuantizationType.F16
    assert halves["blk.0.attn_norm.weight"].tensor_type == f32


def test_a_folder_of_another_architecture_is_refused(tmp_path) -> None:
    write_folder(tmp_path / "m")
    (tmp_path / "m" / "config.json").write_text('{"architectures": ["BertModel"]}')
    with pytest.raises(ModelFileError, match="Gemma3TextModel"):
        convert_folder(tmp_path / "m", tmp_path / "x.gguf")


def test_llama_cpp_loads_the_converted_file_and_embeds(tmp_path) -> None:
    """The tiny converted model runs in llama.cpp: the Dense projections and pooling produce unit vectors of
    the final width, different texts differ, and the same text embeds the same way twice."""
    pytest.importorskip("xllamacpp")
    from memdesk.embed.gguf import GGUFEmbedder

    write_folder(tmp_path / "m")
    convert_folder(tmp_path / "m", tmp_path / "tiny.gguf", "q8_0")
    emb = GGUFEmbedder(tmp_path / "tiny.gguf", query_prefix="task: search result | query: ", n_ctx=64, threads=1)
    try:
        docs = emb.embed(["the cat sat on the mat", "a dog ran home"])
        again = emb.embed(["the cat sat on the mat"])
        query = emb.embed_query(["the cat sat on the mat"])
    finally:
        emb.close()
    assert docs.shape == (2, HIDDEN) and np.all(np.isfinite(docs))
    assert np.allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-4)
    assert float(docs[0] @ docs[1]) < 0.999 and np.allclose(docs[0], again[0], atol=1e-5)
    assert float(query[0] @ docs[0]) < 0.9999  # the query prefix is embedded too
