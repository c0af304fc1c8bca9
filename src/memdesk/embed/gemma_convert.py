"""Convert EmbeddingGemma's sentence-transformers folder to a GGUF file without torch.

EmbeddingGemma-300M ships as a sentence-transformers folder (``model.safetensors`` of a
``Gemma3TextModel``, ``tokenizer.model``, mean pooling in ``1_Pooling``, two bias-free Dense
projections 768 -> 3072 -> 768 in ``2_Dense`` / ``3_Dense``). llama.cpp runs it as the
``gemma-embedding`` architecture; this module writes the same file llama.cpp's own converter
(``convert_hf_to_gguf.py``, class ``EmbeddingGemma`` with ``--sentence-transformers-dense-modules``)
writes, with only numpy and the ``gguf`` package:

- **Tensors** are read from the safetensors files by hand (:func:`read_safetensors`: a JSON header,
  then raw little-endian arrays, memory-mapped). Gemma's RMS norms scale by ``1 + weight``, so 1 is
  added to every ``*norm.weight`` (as the converter does); the embedding matrix keeps the tokenizer's
  rows; the Dense weights become ``dense_2.weight`` / ``dense_3.weight`` with their feature sizes in
  the metadata, so llama.cpp applies them after pooling as sentence-transformers does.
- **Tokenizer**: the SentencePiece model (``tokenizer.model``, a protobuf read by hand in
  :func:`read_sentencepiece`) gives pieces, scores and types; ``tokenizer_config.json``'s added
  tokens override them (special ones become control tokens); ``gguf.SpecialVocab`` adds the
  BOS/EOS/PAD ids and the add-BOS/add-EOS flags, as in the converter's ``_set_vocab_sentencepiece``.
- **Types**: ``f32``, ``f16`` (norms and vectors stay f32) or ``q8_0`` (every 2-D weight matrix but
  the norms, by the rule of :mod:`memdesk.embed.q8`). The output is deterministic.
"""

from __future__ import annotations

import json
import logging
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelFileError

log = logging.getLogger(__name__)

OUT_TYPES = ("f32", "f16", "q8_0")
_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": np.uint16}
# SentencePiece piece types (sentencepiece_model.proto) and the GGUF token types the converter maps them to
_SP_NORMAL, _SP_UNKNOWN, _SP_CONTROL, _SP_USER_DEFINED, _SP_UNUSED, _SP_BYTE = 1, 2, 3, 4, 5, 6
_TT_NORMAL, _TT_UNKNOWN, _TT_CONTROL, _TT_USER_DEFINED, _TT_UNUSED, _TT_BYTE = 1, 2, 3, 4, 5, 6
_SP_TO_TT = {_SP_UNKNOWN: _TT_UNKNOWN, _SP_CONTROL: _TT_CONTROL, _SP_UNUSED: _TT_UNUSED, _SP_BYTE: _TT_BYTE}


def read_safetensors(path: str | Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file as read-only float arrays (f32/f16 memory-mapped; bf16 widened)."""
    path = Path(path)
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise ModelFileError(f"{path} is not a safetensors file (too short)")
        (n,) = struct.unpack("<Q", head)
        try:
            header = json.loads(f.read(n))
        except ValueError as e:
            raise ModelFileError(f"{path} has no readable safetensors header: {e}") from e
    raw = np.memmap(path, dtype=np.uint8, mode="r", offset=8 + n)
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info["dtype"])
        if dtype is None:
            raise ModelFileError(f"{path}: tensor {name} has unsupported dtype {info['dtype']}")
        begin, end = info["data_offsets"]
        arr = raw[begin:end].view(dtype).reshape(info["shape"])
        if info["dtype"] == "BF16":
            arr = (arr.astype(np.uint32) << 16).view(np.float32)
        out[name] = arr
    return out


def _varint(buf: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def _fields(buf: bytes) -> Iterator[tuple[int, int, Any]]:
    """(field number, wire type, value) of a protobuf message: ints for varints, bytes otherwise."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 1:
            value, pos = buf[pos : pos + 8], pos + 8
        elif wire == 2:
            size, pos = _varint(buf, pos)
            value, pos = buf[pos : pos + size], pos + size
        elif wire == 5:
            value, pos = buf[pos : pos + 4], pos + 4
        else:
            raise ModelFileError(f"tokenizer.model: unsupported protobuf wire type {wire}")
        yield number, wire, value


def read_sentencepiece(path: str | Path) -> list[tuple[bytes, float, int]]:
    """(piece, score, SentencePiece type) of every piece of a SentencePiece ``tokenizer.model``."""
    pieces = []
    for number, wire, value in _fields(Path(path).read_bytes()):
        if number != 1 or wire != 2:  # 1: repeated SentencePiece; the trainer/normalizer specs are not needed
            continue
        piece, score, kind = b"", 0.0, _SP_NORMAL
        for n, w, v in _fields(value):
            if n == 1 and w == 2:
                piece = bytes(v)
            elif n == 2 and w == 5:
                (score,) = struct.unpack("<f", v)
            elif n == 3 and w == 0:
                kind = v
        pieces.append((piece, score, kind))
    if not pieces:
        raise ModelFileError(f"{path} holds no SentencePiece pieces")
    return pieces


def _looks_special(token: str) -> bool:
    # the converter's does_token_look_special
    return (
        token in ("<pad>", "<mask>", "<2mass>", "[@BOS@]")
        or (token.startswith("<|") and token.endswith("|>"))
        or (token.startswith("<｜") and token.endswith("｜>"))
        or (token.startswith("<unused") and token.endswith(">"))
    )


def build_vocab(folder: Path, vocab_size: int) -> tuple[list[bytes], list[float], list[int]]:
    """Tokens, scores and GGUF token types as the converter's ``_create_vocab_sentencepiece`` makes them."""
    tokens = [f"[PAD{i}]".encode() for i in range(vocab_size)]
    scores = [-10000.0] * vocab_size
    types = [_TT_UNUSED] * vocab_size
    for i, (piece, score, kind) in enumerate(read_sentencepiece(folder / "tokenizer.model")[:vocab_size]):
        tokens[i], scores[i], types[i] = piece, score, _SP_TO_TT.get(kind, _TT_NORMAL)
    config = folder / "tokenizer_config.json"
    if config.is_file():
        for key, data in json.loads(config.read_text(encoding="utf-8")).get("added_tokens_decoder", {}).items():
            i, token = int(key), data["content"]
            if i >= vocab_size:
                continue
            if data.get("special") or _looks_special(token):
                types[i] = _TT_CONTROL
            else:
                token = token.replace("\u2581", " ")  # the converter pre-normalizes user-defined spaces
                types[i] = _TT_USER_DEFINED
            scores[i], tokens[i] = -1000.0, token.encode("utf-8")
    return tokens, scores, types


def _dense_modules(folder: Path) -> list[tuple[str, Path, int, int]]:
    """(gguf name, safetensors file, in features, out features) of the folder's Dense modules, in order."""
    modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    out = []
    for mod in modules:
        if not mod["type"].endswith("Dense"):
            continue
        sub = folder / mod["path"]
        conf = json.loads((sub / "config.json").read_text(encoding="utf-8"))
        if conf.get("bias"):
            raise ModelFileError(f"{sub}: Dense layers with a bias are not supported by llama.cpp's gemma-embedding")
        name = "dense_2" if mod["path"] == "2_Dense" else "dense_3"
        out.append((name, sub / "model.safetensors", int(conf["in_features"]), int(conf["out_features"])))
    return out


def _pooling(folder: Path) -> int:
    import gguf  # type: ignore[import-untyped]

    for mod in json.loads((folder / "modules.json").read_text(encoding="utf-8")):
        if mod["type"].endswith("Pooling"):
            conf = json.loads((folder / mod["path"] / "config.json").read_text(encoding="utf-8"))
            for key, kind in (("pooling_mode_mean_tokens", "MEAN"), ("pooling_mode_cls_token", "CLS"), ("pooling_mode_lasttoken", "LAST")):
                if conf.get(key):
                    return int(getattr(gguf.PoolingType, kind))
            raise ModelFileError(f"{folder}: only mean, CLS and last-token pooling can be converted")
    return int(gguf.PoolingType.MEAN)


def _typed(name: str, data: np.ndarray, out_type: str) -> tuple[np.ndarray, Any]:
    import gguf  # type: ignore[import-untyped]

    from .q8 import quantized_weight

    f32 = np.ascontiguousarray(data, dtype=np.float32)
    if out_type == "q8_0":
        q8 = gguf.GGMLQuantizationType.Q8_0
        if quantized_weight(name, f32.shape, gguf.GGML_QUANT_SIZES[q8][0]):
            return gguf.quants.quantize(f32, q8), q8
    elif out_type == "f16" and f32.ndim == 2 and "norm" not in name:
        return f32.astype(np.float16), gguf.GGMLQuantizationType.F16
    return f32, gguf.GGMLQuantizationType.F32


def convert_folder(folder: str | Path, dst: str | Path, out_type: str = "q8_0", *, name: str = "embeddinggemma-300m") -> None:
    """Write the sentence-transformers folder of an EmbeddingGemma model to ``dst`` as a ``gemma-embedding`` GGUF."""
    import gguf  # type: ignore[import-untyped]

    if out_type not in OUT_TYPES:
        raise ValueError(f"out_type must be one of {OUT_TYPES}, not {out_type!r}")
    folder = Path(folder)
    hp = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if hp.get("architectures") != ["Gemma3TextModel"]:
        raise ModelFileError(f"{folder} is not a Gemma3TextModel (architectures {hp.get('architectures')})")
    arch = gguf.MODEL_ARCH.GEMMA_EMBEDDING
    n_layers = int(hp["num_hidden_layers"])
    tokens, scores, types = build_vocab(folder, int(hp["vocab_size"]))
    dense = _dense_modules(folder)

    w = gguf.GGUFWriter(str(dst), arch=gguf.MODEL_ARCH_NAMES[arch])
    w.add_name(name)
    w.add_type(gguf.GGUFType.MODEL)
    w.add_block_count(n_layers)
    w.add_context_length(int(hp["max_position_embeddings"]))
    w.add_embedding_length(int(hp["hidden_size"]))
    w.add_feed_forward_length(int(hp["intermediate_size"]))
    w.add_head_count(int(hp["num_attention_heads"]))
    w.add_head_count_kv(int(hp["num_key_value_heads"]))
    rope = hp.get("rope_parameters", {})
    w.add_rope_freq_base(float(rope.get("full_attention", rope).get("rope_theta", hp.get("rope_theta", 1_000_000.0))))
    w.add_layer_norm_rms_eps(float(hp.get("rms_norm_eps", 1e-6)))
    w.add_key_length(int(hp["head_dim"]))
    w.add_value_length(int(hp["head_dim"]))
    w.add_file_type(int({"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16, "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0}[out_type]))
    if hp.get("final_logit_softcapping"):
        w.add_final_logit_softcapping(float(hp["final_logit_softcapping"]))
    w.add_sliding_window(int(hp["sliding_window"]))  # the config's own value, as the converter insists
    for dname, _file, d_in, d_out in dense:
        w.add_dense_features_dims(dname, d_in, d_out)
    w.add_pooling_type(gguf.PoolingType(_pooling(folder)))
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    gguf.SpecialVocab(folder, n_vocab=len(tokens)).add_to_gguf(w)
    w.add_add_space_prefix(False)

    names = gguf.get_tensor_name_map(arch, n_layers)
    tensors: list[tuple[str, np.ndarray]] = []
    for src, data in read_safetensors(folder / "model.safetensors").items():
        new = names.get_name(src.removeprefix("model."), try_suffixes=(".weight", ".bias"))
        if new is None:
            raise ModelFileError(f"{folder}: cannot map tensor {src!r} to llama.cpp's gemma-embedding")
        if "embed_tokens.weight" in src:
            data = data[: len(tokens)]
        if src.endswith("norm.weight"):
            data = np.asarray(data, dtype=np.float32) + 1.0  # Gemma3RMSNorm: x * (1 + weight)
        tensors.append((new, data))
    for dname, file, _d_in, _d_out in dense:
        for src, data in read_safetensors(file).items():
            if src.endswith(".weight"):
                tensors.append((f"{dname}.weight", data))
    for tname, data in tensors:
        arr, qtype = _typed(tname, data, out_type)
        w.add_tensor(tname, arr, raw_dtype=qtype)  # a Q8_0 array's byte shape is mapped back by gguf
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    log.info("wrote %s (%s, %d tensors) from %s", dst, out_type, len(tensors), folder)
