"""A tiny EmbeddingGemma-shaped sentence-transformers folder of our own (random weights), written with
numpy only: safetensors and the SentencePiece protobuf are produced by hand, so the converter is
checked against files whose every byte the test knows."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

HIDDEN, FFN, HEAD_DIM, DENSE = 64, 96, 32, 128
LAYERS = 6  # llama.cpp makes every 6th layer of gemma-embedding a full-attention one: at least one is needed
SPECIALS = ["<pad>", "<eos>", "<bos>", "<unk>"]
WORDS = ["\u2581the", "\u2581cat", "\u2581sat", "\u2581on", "\u2581mat", "\u2581dog", "\u2581ran", "\u2581home", "\u2581a", "s"]
PIECES = SPECIALS + [f"<0x{b:02X}>" for b in range(256)] + WORDS
VOCAB = len(PIECES) + 4  # four more rows than pieces: the converter pads them as [PADn]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b, n = n & 0x7F, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number: int, wire: int, payload: bytes) -> bytes:
    key = _varint(number << 3 | wire)
    return key + (_varint(len(payload)) + payload if wire == 2 else payload)


def sentencepiece_model() -> bytes:
    """A ModelProto with PIECES (types: control for <pad>/<eos>/<bos>, unknown, byte, normal) and a
    trainer spec field the reader must skip."""
    out = _field(2, 2, _field(1, 2, b"ignored"))
    for i, piece in enumerate(PIECES):
        kind = 3 if i < 3 else 2 if i == 3 else 6 if piece.startswith("<0x") else 1
        body = _field(1, 2, piece.encode()) + _field(2, 5, struct.pack("<f", -float(i))) + _field(3, 0, _varint(kind))
        out += _field(1, 2, body)
    return out


def write_safetensors(path: Path, tensors: dict[str, np.ndarray], dtype: str = "F32") -> None:
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        raw = arr.astype(np.float32).tobytes() if dtype == "F32" else (arr.astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).tobytes()
        header[name] = {"dtype": dtype, "shape": list(arr.shape), "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(head)) + head + b"".join(blobs))


def model_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)

    def m(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    t = {"embed_tokens.weight": m(VOCAB, HIDDEN), "norm.weight": m(HIDDEN)}
    for i in range(LAYERS):
        p = f"layers.{i}."
        t.update({
            p + "self_attn.q_proj.weight": m(2 * HEAD_DIM, HIDDEN), p + "self_attn.k_proj.weight": m(HEAD_DIM, HIDDEN),
            p + "self_attn.v_proj.weight": m(HEAD_DIM, HIDDEN), p + "self_attn.o_proj.weight": m(HIDDEN, 2 * HEAD_DIM),
            p + "self_attn.q_norm.weight": m(HEAD_DIM), p + "self_attn.k_norm.weight": m(HEAD_DIM),
            p + "mlp.gate_proj.weight": m(FFN, HIDDEN), p + "mlp.up_proj.weight": m(FFN, HIDDEN),
            p + "mlp.down_proj.weight": m(HIDDEN, FFN), p + "input_layernorm.weight": m(HIDDEN),
            p + "post_attention_layernorm.weight": m(HIDDEN), p + "pre_feedforward_layernorm.weight": m(HIDDEN),
            p + "post_feedforward_layernorm.weight": m(HIDDEN),
        })  # fmt: skip
    return t


def write_folder(folder: Path, seed: int = 0) -> dict[str, np.ndarray]:
    """Write the folder; returns the transformer's tensors (as written)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = {
        "architectures": ["Gemma3TextModel"], "hidden_size": HIDDEN, "intermediate_size": FFN, "head_dim": HEAD_DIM,
        "num_hidden_layers": LAYERS, "num_attention_heads": 2, "num_key_value_heads": 1, "vocab_size": VOCAB,
        "max_position_embeddings": 128, "sliding_window": 16, "rms_norm_eps": 1e-6, "rope_theta": 1000000.0,
        "final_logit_softcapping": None, "bos_token_id": 2, "eos_token_id": 1, "pad_token_id": 0,
    }  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"},
        {"idx": 4, "name": "4", "path": "4_Normalize", "type": "sentence_transformers.models.Normalize"},
    ]
    (folder / "modules.json").write_text(json.dumps(modules))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(json.dumps({"pooling_mode_mean_tokens": True, "pooling_mode_cls_token": False}))
    rng = np.random.default_rng(seed + 1)
    for sub, (d_in, d_out) in (("2_Dense", (HIDDEN, DENSE)), ("3_Dense", (DENSE, HIDDEN))):
        (folder / sub).mkdir(exist_ok=True)
        (folder / sub / "config.json").write_text(json.dumps({"in_features": d_in, "out_features": d_out, "bias": False}))
        write_safetensors(folder / sub / "model.safetensors", {"linear.weight": (rng.standard_normal((d_out, d_in)) * 0.1).astype(np.float32)})
    tensors = model_tensors(seed)
    write_safetensors(folder / "model.safetensors", tensors)
    (folder / "tokenizer.model").write_bytes(sentencepiece_model())
    decoder = {str(i): {"content": s, "special": True} for i, s in enumerate(SPECIALS[:3])}  # <unk> keeps its type
    decoder[str(len(PIECES))] = {"content": "<start_of_turn>", "special": True}
    decoder[str(len(PIECES) + 1)] = {"content": "\u2581custom", "special": False}
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "add_bos_token": True, "add_eos_token": True, "bos_token": "<bos>", "eos_token": "<eos>",
        "pad_token": "<pad>", "unk_token": "<unk>", "added_tokens_decoder": decoder,
    }))  # fmt: skip
    return tensors
